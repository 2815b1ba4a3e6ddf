## contrib/local.mk: recipes and benchmarks shipped in the tarball.

EXTRA_DIST += \
	contrib/bench/prompt-speed.sh \
	contrib/bench/sample-throughput.sh \
	contrib/bench/sample-threadpool.py \
	contrib/bench/score-speed.sh \
	contrib/bench/split-speed.sh \
	contrib/bench/check-vs-kernelbench.sh \
	contrib/bench/kb-l1-candidates.py \
	contrib/bench/kb-standins.sh \
	contrib/bench/warm-cost.sh

# the robust check's static scan
EXTRA_DIST += contrib/bench/scan-speed.sh
EXTRA_DIST += contrib/bench/builder-overhead.sh

# the bytecode cache
EXTRA_DIST += contrib/bench/bytecode-cost.sh contrib/bench/compile-prestart.sh \
	contrib/bench/lib-measure.sh

# dice-time
EXTRA_DIST += contrib/bench/time-repeatability.sh

# builds: cold, plain load_inline against dice's fast paths; the whole
# pipeline against KernelBench's evaluation
EXTRA_DIST += contrib/bench/cold-build.py contrib/bench/cold-build-cuda.sh \
	contrib/bench/select-buildable.py contrib/bench/pipeline-vs-kernelbench.sh \
	contrib/bench/leaderboard-candidates.py contrib/bench/sets/leaderboard-pipeline48.txt \
	contrib/bench/harness-imports.py

EXTRA_DIST += contrib/bicrl/README contrib/bicrl/bicrl.sh contrib/bicrl/oracle-sampler

bashcomp_DATA = contrib/bash-completion/dice
EXTRA_DIST += contrib/bash-completion/dice

# dice-demo: the whole job on the bundled suite (make demo runs it from the
# build tree).
bin_SCRIPTS = contrib/demo/dice-demo
demodir = $(pkgdatadir)/demo
dist_demo_DATA = contrib/demo/demo-sampler.py
EXTRA_DIST += contrib/demo/dice-demo.in
CLEANFILES += contrib/demo/dice-demo
contrib/demo/dice-demo: contrib/demo/dice-demo.in Makefile
	$(AM_V_GEN)$(MKDIR_P) contrib/demo && \
	sed -e 's|@pkgdatadir[@]|$(pkgdatadir)|g' \
	    -e 's|@DICE_PYTHON[@]|$(DICE_PYTHON)|g' \
	    $(srcdir)/contrib/demo/dice-demo.in >$@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@

DEMO_DIR = dice-demo
.PHONY: demo
demo: contrib/demo/dice-demo all
	PATH="$(abs_top_builddir)/bin:$$PATH" \
	DICE_DATADIR="$(abs_top_srcdir)/share/dice" \
	DICE_PROMPTDIR="$(abs_top_srcdir)/share/prompts" \
	DICE_DEMO_SAMPLER="$(abs_top_srcdir)/contrib/demo/demo-sampler.py" \
	contrib/demo/dice-demo -o $(DEMO_DIR) $(DEMO_ARGS)

# the pipeline recipes: make over shards, SLURM array jobs (contrib/README)
EXTRA_DIST += contrib/README contrib/make/pipeline.mk \
	contrib/slurm/dice-slurm contrib/slurm/dice-stage.sbatch
