# pipeline.mk: the whole dice job for one model (prompt, sample, check,
# time, score) as make rules, split into SHARDS shards that make -j runs
# side by side.  Every stage resumes: a killed run, made again, goes on
# where it stopped, and a finished one, made again, does nothing.
#
#   make -f contrib/make/pipeline.mk -j4 SHARDS=4 OUT=run-m \
#        SAMPLER='--api http://gpu1:8000 --model m' SAMPLES=16 DEVICE=cuda
#
# contrib/README lists the variables.  Each stage writes its output under a
# temporary name and renames it when the tool has finished, so a file that
# make sees is whole.  dice-sample, dice-check and dice-time write through
# --resume into that temporary name (FILE.part), which is why running make
# again after a kill resumes instead of starting over.

OUT = dice-run
PROBLEMS = L1 L2 L3
SAMPLES = 1
SHARDS = 1
DEVICE = auto
# dice-sample's backend and its options: --api URL --model M,
# --local PATH, --exec CMD or --replay DIR (see dice-sample(1)).
SAMPLER =
SAMPLE_FLAGS =
PROMPT_FLAGS =
CHECK_FLAGS =
TIME_FLAGS =
SCORE_FLAGS =

SHARD_NAMES := $(foreach i,$(shell seq 1 $(SHARDS)),$(i)-of-$(SHARDS))
# "2-of-4" names the files of shard 2 of 4; --shard takes it as 2/4.
shard = $(subst -of-,/,$(1))
ifeq ($(SHARD_NAMES),)
$(error invalid SHARDS '$(SHARDS)' (a positive integer))
endif

all: $(OUT)/score.txt
.PHONY: all

# Nothing that make made is removed for being intermediate: each shard's
# files are what a later run resumes from or skips.
.SECONDARY:

$(OUT)/prompts.jsonl:
	mkdir -p $(OUT)
	dice-prompt $(PROMPT_FLAGS) $(PROBLEMS) >$@.tmp
	mv $@.tmp $@

# A shard may be empty: each resumed stage starts from an existing file.
$(OUT)/samples.%.jsonl: $(OUT)/prompts.jsonl
	@test -n '$(strip $(SAMPLER))' || \
		{ echo 'pipeline.mk: SAMPLER is not set (see contrib/README)' >&2; exit 2; }
	: >>$@.part
	dice-sample $(SAMPLER) -n $(SAMPLES) $(SAMPLE_FLAGS) \
		--shard $(call shard,$*) --resume $@.part $<
	mv $@.part $@

$(OUT)/checked.%.jsonl: $(OUT)/samples.%.jsonl
	: >>$@.part
	dice-check --device $(DEVICE) $(CHECK_FLAGS) --resume $@.part $<
	mv $@.part $@

$(OUT)/timed.%.jsonl: $(OUT)/checked.%.jsonl
	: >>$@.part
	dice-time --device $(DEVICE) $(TIME_FLAGS) --resume $@.part $<
	mv $@.part $@

# The shards are disjoint and together complete, so merging is cat.
$(OUT)/records.jsonl: $(SHARD_NAMES:%=$(OUT)/timed.%.jsonl)
	cat $^ >$@.tmp
	mv $@.tmp $@

$(OUT)/score.txt: $(OUT)/records.jsonl
	dice-score $(SCORE_FLAGS) $< >$@.tmp
	mv $@.tmp $@
