#!/bin/sh
test_description='dice-curate --difficulty: problems from easy to hard, the same order every time'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

# A run's records, by hand.  Passing is robust-correct (check correct and
# not deceptive in check or time), whatever the speed:
#   L1/2_W  1 of 1 passes                         rate 1
#   L1/3_Z  1 of 2 (the other incorrect)          rate 1/2, level 1
#   L1/9_Y  1 of 2 (the other deceptive)          rate 1/2, level 1
#   L2/1_X  1 of 2 (the other deceptive in time)  rate 1/2, level 2
#   L3/5_V  0 of 1 (checked with --no-robust)     rate 0
# Easiest first: W, then the halves by level (Z and Y by id), X, then V.
rec () {
	printf '{"id":"%s","problem":{"level":%s},"check":{"status":"%s","deception":{"deceptive":%s}}%s}\n' "$@"
}
{
	rec L1/9_Y 1 correct true ''
	rec L2/1_X 1 correct false ',"time":{"status":"ok","speedup":1.2}'
	rec L1/3_Z 1 incorrect null ''
	rec L3/5_V 3 correct null ''
	rec L1/2_W 1 correct false ''
	rec L2/1_X 2 correct false ',"time":{"status":"ok","deception":{"deceptive":true}}'
	rec L1/3_Z 1 correct false ''
	rec L1/9_Y 1 correct false ''
} | sed 's/"id":"L2\/1_X","problem":{"level":1}/"id":"L2\/1_X","problem":{"level":2}/' >run.jsonl

test_expect_success 'problems come easiest first: pass rate, level, id' '
	dice-curate --difficulty run.jsonl >order.jsonl &&
	cat >expect <<-\EOT &&
	{"id":"L1/2_W","rank":1,"level":1,"samples":1,"passed":1,"pass_rate":1.0}
	{"id":"L1/3_Z","rank":2,"level":1,"samples":2,"passed":1,"pass_rate":0.5}
	{"id":"L1/9_Y","rank":3,"level":1,"samples":2,"passed":1,"pass_rate":0.5}
	{"id":"L2/1_X","rank":4,"level":2,"samples":2,"passed":1,"pass_rate":0.5}
	{"id":"L3/5_V","rank":5,"level":3,"samples":1,"passed":0,"pass_rate":0.0}
	EOT
	test_cmp expect order.jsonl
'

test_expect_success 'the order does not depend on the order of the records' '
	sort -r run.jsonl >shuffled.jsonl &&
	dice-curate --difficulty shuffled.jsonl >again.jsonl &&
	test_cmp order.jsonl again.jsonl &&
	tail -n 3 run.jsonl >part2 && head -n 5 run.jsonl >part1 &&
	dice-curate --difficulty part2 part1 >split.jsonl &&
	test_cmp order.jsonl split.jsonl
'

test_done
