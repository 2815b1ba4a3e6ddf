#!/bin/sh
test_description='dice-score: every metric, worked out by hand'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

# The fixture: four problems, seven samples.
#
#   L1/1_A  a0  compile.ok, correct, speedup 1.5
#           a1  compile.ok, correct but deceptive, speedup 3
#   L1/2_B  b0  compile.ok false, compile_error
#           b1  no compile key, correct, speedup "NaN" (a bad speedup)
#   L2/3_C  c0  no problem.level (the level comes from the id), correct,
#               speedup 2.5
#           c1  never checked
#   L2/4_D  d0  never checked: D counts as not correct
#
# compiled: a0 a1 (compile.ok), b1 c0 (a correct check implies a build);
#   not b0 (compile.ok false), c1 d0 (nothing says so).
#   L1 3/4 = 75.0%   L2 1/3 = 33.3%   all 4/7 = 57.1%
# correct (plain): a0 a1 b1 | c0; deceptive among them: a1.
#   deception_rate  L1 1/3 = 33.3%   L2 0/1 = 0.0%   all 1/4 = 25.0%
#
# Correct samples per problem (of n): robust A 1/2, B 1/2, C 1/2, D 0/1;
#   plain A 2/2, B 1/2, C 1/2, D 0/1.
# best_of_n (problems with a correct sample): L1 2/2, L2 1/2 (D has none),
#   all 3/4 = 75.0%, in both views.
# pass@1 (the paper's Exec, one sample a problem) = mean of c/n: robust L1 (1/2 + 1/2)/2 = 50.0%,
#   L2 (1/2 + 0)/2 = 25.0%, all (1/2 + 1/2 + 1/2 + 0)/4 = 37.5%;
#   plain L1 (1 + 1/2)/2 = 75.0%, L2 25.0%, all (1 + 1/2 + 1/2)/4 = 50.0%.
# Valid speedups of correct samples: robust A 1.5, C 2.5;
#   plain A 1.5 and 3, C 2.5 (b1's NaN is never fast).
# fast_1_best_of_n (problems with a correct sample faster than 1x): A and
#   C in both views: L1 1/2, L2 1/2, all 2/4 = 50.0%.
# fast_2_best_of_n: robust only C (2.5): L1 0.0%, L2 50.0%, all 1/4 = 25.0%;
#   plain A (3) and C: L1 50.0%, L2 50.0%, all 2/4 = 50.0%.
# fast_1@1 (the paper's fast_1) = mean share of samples correct and > 1x: robust A 1/2, B 0,
#   C 1/2, D 0: L1 25.0%, L2 25.0%, all 1/4 = 25.0%; plain A 2/2: L1 50.0%,
#   L2 25.0%, all (1 + 1/2)/4 = 37.5%.
# fast_2@1: robust A 0, C 1/2: L1 0.0%, L2 25.0%, all 12.5%; plain A 1/2,
#   C 1/2: L1 25.0%, L2 25.0%, all 1/4 = 25.0%.
# geomean_speedup of correct samples: robust L1 1.5, L2 2.5,
#   all sqrt(1.5 * 2.5) = sqrt(3.75) = 1.936; plain L1 sqrt(1.5 * 3) =
#   sqrt(4.5) = 2.121, L2 2.5, all (1.5 * 3 * 2.5)^(1/3) = 11.25^(1/3)
#   = 2.241.  timed counts those samples: 1 1 2 | 2 1 3.
# bad_speedups: b1: L1 1, L2 0, all 1.

test_expect_success 'setup: the fixture' '
	cat >fixture.jsonl <<-\EOF
	{"id":"L1/1_A","problem":{"level":1},"sample":{"index":0,"model":"m_x"},"compile":{"ok":true},"check":{"status":"correct","correct":true,"deception":{"deceptive":false}},"time":{"speedup":1.5}}
	{"id":"L1/1_A","problem":{"level":1},"sample":{"index":1},"compile":{"ok":true},"check":{"status":"correct","correct":true,"deception":{"deceptive":true}},"time":{"speedup":3}}
	{"id":"L1/2_B","problem":{"level":1},"sample":{"index":0},"compile":{"ok":false},"check":{"status":"compile_error","correct":false}}
	{"id":"L1/2_B","problem":{"level":1},"sample":{"index":1},"check":{"status":"correct","correct":true},"time":{"speedup":"NaN"}}
	{"id":"L2/3_C","sample":{"index":0},"check":{"status":"correct","correct":true},"time":{"speedup":2.5}}
	{"id":"L2/3_C","sample":{"index":1}}
	{"id":"L2/4_D","sample":{"index":0}}
	EOF
	cat >expect.text <<-\EOF
	level                  1       1       2      2     all    all
	view              robust   plain  robust  plain  robust  plain
	problems               2       2       2      2       4      4
	samples                4       4       3      3       7      7
	no_record              0       0       0      0       0      0
	compile_rate       75.0%   75.0%   33.3%  33.3%   57.1%  57.1%
	deception_rate     33.3%   33.3%    0.0%   0.0%   25.0%  25.0%
	pass@1             50.0%   75.0%   25.0%  25.0%   37.5%  50.0%
	fast_1@1           25.0%   50.0%   25.0%  25.0%   25.0%  37.5%
	fast_2@1            0.0%   25.0%   25.0%  25.0%   12.5%  25.0%
	best_of_n         100.0%  100.0%   50.0%  50.0%   75.0%  75.0%
	fast_1_best_of_n   50.0%   50.0%   50.0%  50.0%   50.0%  50.0%
	fast_2_best_of_n    0.0%   50.0%   50.0%  50.0%   25.0%  50.0%
	geomean_speedup    1.500   2.121   2.500  2.500   1.936  2.241
	timed                  1       2       1      1       2      3
	bad_speedups           1       1       0      0       1      1
	
	pass@1 and fast_p@1 (Exec and fast_p in the DICE paper): the mean over the N
	problems of a level of the share of their samples that are correct (and faster
	than p); best_of_n and fast_p_best_of_n: the share of the problems with such a
	sample
	N: the problems that have records (--tasks gives the problem set)
	level 1: nothing recorded of device, torch, tolerance, precision or baseline
	level 2: nothing recorded of device, torch, tolerance, precision or baseline
	all levels: nothing recorded of device, torch, tolerance, precision or baseline
	EOF
	echo "dice-score: 1 sample had a speedup that is not a positive finite number (null, NaN or infinite); never counted as fast" >expect.warning
'

test_expect_success 'the text summary, from a file and from stdin' '
	dice-score fixture.jsonl >out 2>err &&
	test_cmp expect.text out &&
	test_cmp expect.warning err &&
	dice-score <fixture.jsonl >out 2>/dev/null &&
	test_cmp expect.text out
'

test_expect_success 'records in any order give the same summary' '
	sort -r fixture.jsonl >reversed.jsonl &&
	dice-score reversed.jsonl >out 2>/dev/null &&
	test_cmp expect.text out &&
	awk "NR % 2" fixture.jsonl >odd.jsonl &&
	awk "NR % 2 == 0" fixture.jsonl >even.jsonl &&
	dice-score even.jsonl odd.jsonl >out 2>/dev/null &&
	test_cmp expect.text out
'

test_expect_success 'spacing and escapes do not change the numbers' '
	# The same records, spaced out and with escaped characters in the
	# fields scored, go the slower way through Jansson.
	sed -e "s/,/ , /g" -e "s/:/ : /g" -e "s/\"correct\"/\"\\\\u0063orrect\"/g" \
		-e "s/L1\\//L1\\\\\\//" fixture.jsonl >spaced.jsonl &&
	grep -F "\\u0063orrect" spaced.jsonl &&
	grep -F "L1\\/1_A" spaced.jsonl &&
	dice-score spaced.jsonl >out 2>/dev/null &&
	test_cmp expect.text out
'

# pass@2 and fast_p@2 (-k 1,2): every L1 problem has n = 2.
#   pass@2 = 1 - C(n-c,2)/C(n,2): c = 1 or 2 of 2 gives 1 (n - c < 2), so
#   L1 is 100.0% in both views.  L2 and all hold D with one sample: no
#   pass@2 ("-").
#   fast_1@2: robust A (1 fast of 2) 1, B (0 of 2) 1 - C(2,2)/C(2,2) = 0:
#   50.0%; plain A (2 of 2) 1, B 0: 50.0%.
#   fast_2@2: robust A 0, B 0: 0.0%; plain A (3 > 2: 1 of 2) 1, B 0: 50.0%.
test_expect_success '-k 1,2: pass@2 and fast_p@2, undefined where n < 2' '
	dice-score -k 1,2 fixture.jsonl >out 2>err &&
	grep "^pass@2  *100.0%  *100.0%  *-  *-  *-  *-$" out &&
	grep "^fast_1@2  *50.0%  *50.0%  *-  *-  *-  *-$" out &&
	grep "^fast_2@2  *0.0%  *50.0%  *-  *-  *-  *-$" out &&
	grep "^dice-score: pass@2 needs at least 2 samples of each problem; left out for levels with fewer$" err
'

# -p 0,2.5: fast_0 counts correct samples with any valid speedup: best of
#   n robust A, C (B has only NaN): L1 1/2, L2 1/2; fast_0@1 robust a0 of
#   A's 2, c0 of C's 2: L1 (1/2 + 0)/2 = 25.0%, L2 25.0%, all 1/4; plain
#   A 2/2: L1 50.0%, all (1 + 1/2)/4 = 37.5%.  fast_2.5 needs more than 2.5
#   (strictly): robust none; plain only a1 (3): best of n L1 50.0%,
#   L2 0.0%; fast_2.5@1 L1 (1/2)/2 = 25.0%, all (1/2)/4 = 12.5%.
test_expect_success '-p 0,2.5: fast_p is strictly faster than p' '
	dice-score -p 0,2.5 fixture.jsonl >out 2>/dev/null &&
	grep "^fast_0@1  *25.0%  *50.0%  *25.0%  *25.0%  *25.0%  *37.5%$" out &&
	grep "^fast_2.5@1  *0.0%  *25.0%  *0.0%  *0.0%  *0.0%  *12.5%$" out &&
	grep "^fast_0_best_of_n  *50.0%  *50.0%  *50.0%  *50.0%  *50.0%  *50.0%$" out &&
	grep "^fast_2.5_best_of_n  *0.0%  *50.0%  *0.0%  *0.0%  *0.0%  *25.0%$" out &&
	! grep "^fast_1" out
'

test_expect_success '--view robust and --view plain keep one column per level' '
	dice-score --view robust fixture.jsonl >out 2>/dev/null &&
	head -n 2 out >actual &&
	printf "%s\n" "level                  1       2     all" \
		"view              robust  robust  robust" >expect &&
	test_cmp expect actual &&
	dice-score --view plain fixture.jsonl >out 2>/dev/null &&
	grep "^pass@1  *75.0%  *25.0%  *50.0%$" out
'

test_have_prereq JQ && test_set_prereq JQ_OK
test_expect_success JQ_OK '--json: counts, rates and each view' '
	dice-score --json fixture.jsonl >out.json 2>/dev/null &&
	test_line_count = 1 out.json &&
	jq -c ".records, .pass_at, .fast_p, .problems_from, has(\"tasks\"), [.levels[].level]" out.json >actual &&
	printf "%s\n" 7 "[1]" "[1,2]" "\"records\"" false "[1,2,\"all\"]" >expect &&
	test_cmp expect actual &&
	jq -c ".levels[] | [.problems, .no_record, .samples, .compiled, .checked, .correct, .deceptive, .bad_speedups]" out.json >actual &&
	# checked: L1 all 4; L2 only c0.
	printf "%s\n" "[2,0,4,3,4,3,1,1]" "[2,0,3,1,1,1,0,0]" "[4,0,7,4,5,4,1,1]" >expect &&
	test_cmp expect actual &&
	jq -c ".levels[] | [.compile_rate, .deception_rate]" out.json >actual &&
	printf "%s\n" "[0.75,0.3333333333333333]" "[0.3333333333333333,0]" \
		"[0.5714285714285714,0.25]" >expect &&
	test_cmp expect actual &&
	jq -c ".levels[] | .robust | [.correct, .solved, .best_of_n, .\"pass@1\", .fast_1_best_of_n, .fast_2_best_of_n, .\"fast_1@1\", .\"fast_2@1\", .timed]" out.json >actual &&
	printf "%s\n" "[2,2,1,0.5,0.5,0,0.25,0,1]" "[1,1,0.5,0.25,0.5,0.5,0.25,0.25,1]" \
		"[3,3,0.75,0.375,0.5,0.25,0.25,0.125,2]" >expect &&
	test_cmp expect actual &&
	jq -c ".levels[] | .plain | [.correct, .solved, .best_of_n, .\"pass@1\", .fast_1_best_of_n, .fast_2_best_of_n, .\"fast_1@1\", .\"fast_2@1\", .timed]" out.json >actual &&
	printf "%s\n" "[3,2,1,0.75,0.5,0.5,0.5,0.25,2]" "[1,1,0.5,0.25,0.5,0.5,0.25,0.25,1]" \
		"[4,3,0.75,0.5,0.5,0.5,0.375,0.25,3]" >expect &&
	# The best-of-n figures are never under the headline names.
	jq -e "[.levels[] | .robust, .plain | has(\"exec\"), has(\"fast_1\"), has(\"fast_2\")] | any | not" out.json &&
	test_cmp expect actual &&
	jq -r ".levels[] | [.robust.geomean_speedup, .plain.geomean_speedup] | map(. * 1e6 | round) | @tsv" out.json >actual &&
	# 1.5, sqrt(4.5) = 2.1213203; 2.5, 2.5; sqrt(3.75) = 1.9364917,
	# 11.25^(1/3) = 2.2407024 (in millionths).
	printf "1500000\t2121320\n2500000\t2500000\n1936492\t2240702\n" >expect &&
	test_cmp expect actual
'

test_expect_success JQ_OK '--json: undefined values are null' '
	dice-score --json -k 2 --view robust fixture.jsonl >out.json 2>/dev/null &&
	jq -c "[.levels[] | .robust.\"pass@2\"], (.levels[0] | has(\"plain\"))" out.json >actual &&
	printf "%s\n" "[1,null,null]" false >expect &&
	test_cmp expect actual
'

# Missing fields: a record with only an id is one sample, never checked,
#   not compiled, not correct, at level 0 (the id names no level).
test_expect_success JQ_OK 'missing fields have their documented meaning' '
	printf "%s\n" "{\"id\":\"x\"}" "{\"id\":\"x\",\"check\":{\"correct\":true}}" \
		"{\"id\":\"L3/1_Y\",\"check\":{\"status\":\"correct\"},\"time\":{}}" >sparse.jsonl &&
	dice-score --json sparse.jsonl >out.json &&
	# x: 2 samples, 1 correct (check.correct without a status), compiled
	# implied by correct; L3/1_Y: status correct means correct; no speedup.
	jq -c ".levels[] | [.level, .problems, .samples, .compiled, .checked, .robust.correct, .robust.best_of_n, .robust.\"pass@1\", .robust.fast_1_best_of_n, .robust.geomean_speedup]" out.json >actual &&
	printf "%s\n" "[0,1,2,1,1,1,1,0.5,0,null]" "[3,1,1,1,1,1,1,1,0,null]" \
		"[\"all\",2,3,2,2,2,1,0.75,0,null]" >expect &&
	test_cmp expect actual
'

# NaN and infinities in every spelling: null, "NaN", "Infinity",
#   "-Infinity", "inf", and numbers that are not positive (0, -2).  Each is
#   a bad speedup, never fast; the one good sample (2) is.  fast_1 = 1/1
#   problem; fast_1@1 = 1/8 samples; geomean over the one valid: 2.
test_expect_success JQ_OK 'NaN and infinite speedups are reported, never fast' '
	for s in null "\"NaN\"" "\"Infinity\"" "\"-Infinity\"" "\"inf\"" 0 -2 2; do
		echo "{\"id\":\"L1/1_A\",\"check\":{\"correct\":true},\"time\":{\"speedup\":$s}}"
	done >nan.jsonl &&
	dice-score --json nan.jsonl >out.json 2>err &&
	jq -c ".levels[0] | [.bad_speedups, .robust.fast_1_best_of_n, .robust.\"fast_1@1\", .robust.geomean_speedup, .robust.timed]" out.json >actual &&
	echo "[7,1,0.125,2,1]" >expect &&
	test_cmp expect actual &&
	grep "^dice-score: 7 samples had a speedup that is not a positive finite number" err
'

# Repeated samples: the fixture twice, and L1/1_A sample 1 once more with
#   other values, is the fixture (the first of each id and sample.index
#   counts); 8 repeats reported.  Records without a sample.index cannot
#   be told apart and all count: two of {"id":"L3/1_Z"} are 2 samples.
test_expect_success 'a repeated id and sample.index counts once' '
	{ cat fixture.jsonl fixture.jsonl &&
	  echo "{\"id\":\"L1/1_A\",\"sample\":{\"index\":1},\"check\":{\"correct\":false}}"; } >twice.jsonl &&
	dice-score twice.jsonl >out 2>err &&
	test_cmp expect.text out &&
	grep "^dice-score: 8 records repeated the id and sample.index of an earlier one; only the first of each was scored$" err &&
	printf "%s\n" "{\"id\":\"L3/1_Z\",\"check\":{\"correct\":false}}" "{\"id\":\"L3/1_Z\",\"check\":{\"correct\":false}}" >noindex.jsonl &&
	dice-score noindex.jsonl >out 2>err &&
	grep "^samples  *2  *2  *2  *2$" out &&
	test_must_be_empty err
'

test_done
