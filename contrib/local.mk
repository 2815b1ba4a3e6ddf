## contrib/local.mk: recipes and benchmarks shipped in the tarball.

EXTRA_DIST += \
	contrib/bench/prompt-speed.sh \
	contrib/bench/sample-throughput.sh \
	contrib/bench/sample-threadpool.py \
	contrib/bench/score-speed.sh \
	contrib/bench/split-speed.sh \
	contrib/bench/check-vs-kernelbench.sh \
	contrib/bench/kb-l1-candidates.py \
	contrib/bench/kb-standins.sh

# the robust check's static scan
EXTRA_DIST += contrib/bench/scan-speed.sh
EXTRA_DIST += contrib/bench/builder-overhead.sh

# dice-time
EXTRA_DIST += contrib/bench/time-repeatability.sh

EXTRA_DIST += contrib/bicrl/README contrib/bicrl/bicrl.sh contrib/bicrl/oracle-sampler

bashcomp_DATA = contrib/bash-completion/dice
EXTRA_DIST += contrib/bash-completion/dice
