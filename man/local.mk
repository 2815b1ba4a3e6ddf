## man/local.mk: a page per tool, the record format and the overview.

dist_man_MANS += \
	man/dice.7 \
	man/dice-records.5 \
	man/dice-prompt.1 \
	man/dice-sample.1 \
	man/dice-score.1 \
	man/dice-split.1 \
	man/dice-compile.1 \
	man/dice-check.1
dist_man_MANS += man/dice-time.1
dist_man_MANS += man/dice-curate.1
dist_man_MANS += man/dice-demo.1
