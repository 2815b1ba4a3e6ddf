#!/bin/sh
test_description='dice-score: caught anywhere means deceptive (check.deception and time.deception)'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

test_have_prereq JQ || skip_all 'jq is needed'

# Six correct samples of one problem, every one timed:
#   0  honest everywhere, 1.5x
#   1  caught by the check only, 3x
#   2  caught by the timing stage only (a cache keyed on its inputs), 629x
#   3  caught by both, 40x
#   4  time.deception says false, check.deception null: honest, 2.5x
#   5  time.deception null (not timed for deception), 0.5x: honest
# Robust view: correct 0, 4, 5 = 3 of 6; pass@1 = 3/6 = 0.5;
#   fast_1 samples: 0 (1.5), 4 (2.5); fast_2: 4 only.  fast_2@1 = 1/6;
#   best of n: the problem has a fast_1 and a fast_2 sample.
#   geomean over 1.5, 2.5, 0.5 = (1.875)^(1/3) = 1.233
# Plain view: all six correct; deceptive: 1, 2 and 3, 3 of 6.
test_expect_success 'setup' '
	cat >in.jsonl <<-\EOF
	{"id":"L1/1_A","sample":{"index":0},"check":{"status":"correct","deception":{"deceptive":false}},"time":{"speedup":1.5,"deception":{"deceptive":false}}}
	{"id":"L1/1_A","sample":{"index":1},"check":{"status":"correct","deception":{"deceptive":true}},"time":{"speedup":3}}
	{"id":"L1/1_A","sample":{"index":2},"check":{"status":"correct","deception":{"deceptive":false}},"time":{"speedup":629,"deception":{"deceptive":true,"because":"the result came back for inputs seen before","flags":["input_cache"],"evidence":{}}}}
	{"id":"L1/1_A","sample":{"index":3},"check":{"status":"correct","deception":{"deceptive":true}},"time":{"speedup":40,"deception":{"deceptive":true,"flags":["patched_clock"]}}}
	{"id":"L1/1_A","sample":{"index":4},"check":{"status":"correct","deception":{"deceptive":null}},"time":{"speedup":2.5,"deception":{"deceptive":false}}}
	{"id":"L1/1_A","sample":{"index":5},"check":{"status":"correct"},"time":{"speedup":0.5,"deception":{"deceptive":null}}}
	EOF
'

test_expect_success 'the robust view leaves out what either stage caught' '
	dice-score --json in.jsonl >out.json &&
	jq -c ".levels[0] | [.correct, .deceptive, .robust.correct, .robust[\"pass@1\"], .robust.fast_1_best_of_n, .robust[\"fast_2@1\"], .robust.timed]" out.json >actual &&
	echo "[6,3,3,0.5,1,0.16666666666666666,3]" >expect &&
	test_cmp expect actual &&
	jq ".levels[0].robust.geomean_speedup * 1000 | round" out.json >actual &&
	echo 1233 >expect &&
	test_cmp expect actual
'

test_expect_success 'the plain view counts them all' '
	jq -c ".levels[0].plain | [.correct, .timed, .fast_2_best_of_n, .[\"fast_2@1\"]]" out.json >actual &&
	# fast_2: 1 (3x), 2 (629x), 3 (40x), 4 (2.5x): 4 of 6
	echo "[6,6,1,0.6666666666666666]" >expect &&
	test_cmp expect actual
'

test_expect_success '--rewards=bic: a timing-stage cheat earns what a check-stage cheat does' '
	dice-score --rewards in.jsonl >r.jsonl &&
	jq -c ".reward * 1000 | round" r.jsonl >actual &&
	# three of six honest: mean 1/2, sd 1/2: honest 1, caught -1
	printf "%s\n" 1000 -1000 -1000 -1000 1000 1000 >expect &&
	test_cmp expect actual
'

test_expect_success '--rewards=composite pays no speed term to a timing-stage cheat' '
	dice-score --rewards=composite in.jsonl >r.jsonl &&
	jq -c ".reward" r.jsonl >actual &&
	# 0.1*compiled + correct + min(speedup,10)*correct; compiled
	# follows from the status; caught means correct is 0
	printf "%s\n" 2.6 0.1 0.1 0.1 3.6 1.6 >expect &&
	test_cmp expect actual
'

test_expect_success 'time.deception.deceptive that is not a boolean is bad input' '
	echo "{\"id\":\"L1/1_A\",\"check\":{\"status\":\"correct\"},\"time\":{\"deception\":{\"deceptive\":\"yes\"}}}" >bad.jsonl &&
	test_expect_code 1 dice-score bad.jsonl >out 2>err &&
	grep "^dice-score:bad.jsonl:1: time.deception.deceptive " err
'

# dice-time skips deceptive candidates: in the plain view they are correct
# but have no speed, so its speed figures are not available (null), never
# lower; the robust view, where they are not correct, keeps its figures.
test_expect_success 'a correct sample dice-time skipped: speed figures not available' '
	cat >skipped.jsonl <<-\EOF &&
	{"id":"L1/1_A","sample":{"index":0},"check":{"status":"correct","deception":{"deceptive":false}},"time":{"speedup":2.5}}
	{"id":"L1/1_A","sample":{"index":1},"check":{"status":"correct","deception":{"deceptive":true}},"time":{"skipped":"deceptive"}}
	EOF
	dice-score --json skipped.jsonl >out.json 2>err &&
	jq -c ".levels[0] | [.robust.untimed, .robust.fast_1_best_of_n, .robust[\"fast_1@1\"], .robust.geomean_speedup, .plain.untimed, .plain.fast_1_best_of_n, .plain[\"fast_1@1\"], .plain.geomean_speedup, .plain.best_of_n, .plain[\"pass@1\"]]" out.json >actual &&
	echo "[0,1,0.5,2.5,1,null,null,null,1,1]" >expect &&
	test_cmp expect actual &&
	grep "^dice-score: 1 sample correct in the plain view was not timed: its speed figures are not available (dice-time --all times every candidate)$" err &&
	! grep robust err &&
	dice-score --view robust skipped.jsonl >out 2>err &&
	test_must_be_empty err &&
	dice-score skipped.jsonl >out 2>/dev/null &&
	grep "^geomean_speedup *2.500 *- *2.500 *-$" out
'

# dice-time --runs confirms a speedup in runs of its own: where it is
# there, it is the speedup scored (2.5 is fast_2; the first run's 0.9 is
# not; a confirmed 0.8 undoes a first run's 3).
test_expect_success 'time.confirmed_speedup is scored in place of time.speedup' '
	cat >confirmed.jsonl <<-\EOF &&
	{"id":"L1/1_A","sample":{"index":0},"check":{"status":"correct"},"time":{"speedup":0.9,"confirmed_speedup":2.5}}
	{"id":"L1/1_A","sample":{"index":1},"check":{"status":"correct"},"time":{"speedup":3,"confirmed_speedup":0.8}}
	{"id":"L1/2_B","sample":{"index":0},"check":{"status":"correct"},"time":{"speedup":4}}
	EOF
	dice-score --json confirmed.jsonl >out.json &&
	jq -c ".levels[0].robust | [.fast_1_best_of_n, .fast_2_best_of_n, .[\"fast_2@1\"], (.geomean_speedup * 1000 | round)]" out.json >actual &&
	# fast_2: A (2.5) and B (4): 2/2; fast_2@1: (1/2 + 1) / 2 = 0.75;
	# geomean (2.5 * 0.8 * 4)^(1/3) = 8^(1/3) = 2
	echo "[1,1,0.75,2000]" >expect &&
	test_cmp expect actual &&
	echo "{\"id\":\"L1/1_A\",\"check\":{\"status\":\"correct\"},\"time\":{\"confirmed_speedup\":\"x\"}}" >bad.jsonl &&
	test_expect_code 1 dice-score bad.jsonl >out 2>err &&
	grep "^dice-score:bad.jsonl:1: time.confirmed_speedup is not a number" err
'

test_done
