## bin/local.mk: the programs.  A program may have several sources; what
## every program needs and lib/ may not do (dying) is in libdicecli.

noinst_LIBRARIES += bin/libdicecli.a
bin_libdicecli_a_SOURCES = bin/cli.c bin/cli.h
CLI_LIBS = bin/libdicecli.a $(DICE_LIBS)

bin_PROGRAMS += bin/dice-prompt
bin_dice_prompt_SOURCES = bin/dice-prompt.c
bin_dice_prompt_LDADD = $(CLI_LIBS)

bin_PROGRAMS += bin/dice-sample
bin_dice_sample_SOURCES = bin/dice-sample.c bin/sample.h bin/sample-run.c \
	bin/sample-http.c bin/sample-child.c bin/sample-replay.c
bin_dice_sample_LDADD = $(CLI_LIBS) $(LIBCURL_LIBS) -lm

bin_PROGRAMS += bin/dice-score
bin_dice_score_SOURCES = bin/score-main.c bin/score.h bin/score-read.c \
  bin/score-rewards.c bin/score-summary.c bin/score-format.c \
  bin/score-problem.c bin/score-svg.c bin/score-html.c
bin_dice_score_LDADD = $(CLI_LIBS)

bin_PROGRAMS += bin/dice-split
bin_dice_split_SOURCES = bin/dice-split.c
bin_dice_split_LDADD = $(CLI_LIBS)

# dice-compile, dice-check and dice-time are one program around the
# harness (harness-tool.c), each with its own options and mode.
HARNESS_TOOL_SOURCES = bin/harness-tool.c bin/harness-tool.h

bin_PROGRAMS += bin/dice-compile
bin_dice_compile_SOURCES = bin/dice-compile.c $(HARNESS_TOOL_SOURCES)
bin_dice_compile_LDADD = $(CLI_LIBS)

bin_PROGRAMS += bin/dice-check
bin_dice_check_SOURCES = bin/dice-check.c $(HARNESS_TOOL_SOURCES)
bin_dice_check_LDADD = $(CLI_LIBS)

bin_PROGRAMS += bin/dice-time
bin_dice_time_SOURCES = bin/dice-time.c $(HARNESS_TOOL_SOURCES)
bin_dice_time_LDADD = $(CLI_LIBS)

bin_PROGRAMS += bin/dice-curate
bin_dice_curate_SOURCES = bin/dice-curate.c
bin_dice_curate_LDADD = $(CLI_LIBS) -lm
