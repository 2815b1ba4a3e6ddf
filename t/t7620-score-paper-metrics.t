#!/bin/sh
test_description='dice-score: the DICE paper metrics exactly (pass@1 and fast_p@1 over all N tasks, --tasks, best of n)'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

# The fixture: three tasks of level 1 with 4, 2 and 0 samples.
#
#   L1/1_A  a0  correct, 2.5x
#           a1  correct, 0.8x
#           a2  incorrect
#           a3  correct but deceptive, 5x
#   L1/2_B  b0  correct, 1.2x
#           b1  compile_error
#   L1/3_C  no record: its samples were lost (tasks.jsonl names it)
#
# Correct samples (of n): robust A 2/4, B 1/2, C 0; plain A 3/4, B 1/2.
# With --tasks, N = 3:
#   pass@1    robust (2/4 + 1/2 + 0)/3 = 1/3 = 33.3%
#             plain  (3/4 + 1/2 + 0)/3 = 5/12 = 41.7%
#   fast_1@1  robust A a0 1/4, B b0 1/2: (1/4 + 1/2)/3 = 1/4 = 25.0%
#             plain  A a0 a3 2/4, B 1/2: (1/2 + 1/2)/3 = 1/3 = 33.3%
#   fast_2@1  robust A a0 1/4, B 0: 1/12 = 8.3%
#             plain  A a0 a3 2/4: 1/6 = 16.7%
#   pass@2    robust A 1 - C(2,2)/C(4,2) = 5/6, B 1 - 0 = 1, C 0 (a task
#             without a record fails; it does not make pass@2 undefined):
#             (5/6 + 1)/3 = 11/18 = 61.1%; plain A 1, B 1: 2/3 = 66.7%
#   best_of_n (a correct sample): A, B, not C: 2/3 = 66.7% in both views
#   fast_1_best_of_n A (2.5), B (1.2): 66.7%; fast_2_best_of_n A: 33.3%
#   geomean   robust (2.5 * 0.8 * 1.2)^(1/3) = 2.4^(1/3) = 1.339
#             plain  (2.5 * 0.8 * 5 * 1.2)^(1/4) = 12^(1/4) = 1.861
# Without --tasks N is the 2 problems that have records:
#   pass@1 robust (1/2 + 1/2)/2 = 50.0%, plain (3/4 + 1/2)/2 = 62.5%;
#   fast_1@1 robust (1/4 + 1/2)/2 = 37.5%; fast_2@1 robust 1/8 = 12.5%;
#   best_of_n 100.0%.

test_expect_success 'setup: the fixture and its tasks' '
	cat >run.jsonl <<-\EOF &&
	{"id":"L1/1_A","sample":{"index":0,"model":"m_1"},"check":{"status":"correct"},"time":{"speedup":2.5}}
	{"id":"L1/1_A","sample":{"index":1},"check":{"status":"correct"},"time":{"speedup":0.8}}
	{"id":"L1/1_A","sample":{"index":2},"check":{"status":"incorrect"}}
	{"id":"L1/1_A","sample":{"index":3},"check":{"status":"correct","deception":{"deceptive":true}},"time":{"speedup":5}}
	{"id":"L1/2_B","sample":{"index":0},"check":{"status":"correct"},"time":{"speedup":1.2}}
	{"id":"L1/2_B","sample":{"index":1},"check":{"status":"compile_error"}}
	EOF
	cat >tasks.jsonl <<-\EOF
	{"id":"L1/1_A","problem":{"level":1},"prompt":"write A"}
	{"id":"L1/2_B","problem":{"level":1},"prompt":"write B"}
	{"id":"L1/3_C","problem":{"level":1},"prompt":"write C"}
	EOF
'

test_expect_success '--tasks: N from the problem set, a task without a record fails' '
	dice-score --tasks tasks.jsonl -k 1,2 run.jsonl >out 2>err &&
	cat >expect <<-\EOF &&
	level                  1      1     all    all
	view              robust  plain  robust  plain
	problems               3      3       3      3
	samples                6      6       6      6
	no_record              1      1       1      1
	compile_rate       83.3%  83.3%   83.3%  83.3%
	deception_rate     25.0%  25.0%   25.0%  25.0%
	pass@1             33.3%  41.7%   33.3%  41.7%
	fast_1@1           25.0%  33.3%   25.0%  33.3%
	fast_2@1            8.3%  16.7%    8.3%  16.7%
	pass@2             61.1%  66.7%   61.1%  66.7%
	fast_1@2           50.0%  61.1%   50.0%  61.1%
	fast_2@2           16.7%  27.8%   16.7%  27.8%
	best_of_n          66.7%  66.7%   66.7%  66.7%
	fast_1_best_of_n   66.7%  66.7%   66.7%  66.7%
	fast_2_best_of_n   33.3%  33.3%   33.3%  33.3%
	geomean_speedup    1.339  1.861   1.339  1.861
	timed                  3      4       3      4
	bad_speedups           0      0       0      0
	EOF
	head -n 19 out >actual &&
	test_cmp expect actual &&
	grep "^N: the tasks of .tasks.jsonl. (3 in all, 1 with no record, counted as failures)$" out &&
	echo "dice-score: 1 of 3 tasks has no record (L1/3_C): counted as failures" >expect &&
	test_cmp expect err
'

# fast_1@2 robust: A has 1 fast sample of 4: 1 - C(3,2)/C(4,2) = 1/2, B 1
#   of 2: 1; (1/2 + 1)/3 = 50.0%.  plain: A 2 of 4: 1 - 1/6 = 5/6, B 1:
#   (5/6 + 1)/3 = 11/18 = 61.1%.
# fast_2@2 robust: A 1/2, B 0: 1/6 = 16.7%; plain A 5/6: 5/18 = 27.8%.
test_expect_success 'without --tasks, N is the problems that have records, and the output says so' '
	dice-score run.jsonl >out 2>err &&
	grep "^problems  *2  *2  *2  *2$" out &&
	grep "^no_record  *0  *0  *0  *0$" out &&
	grep "^pass@1  *50.0%  *62.5%  *50.0%  *62.5%$" out &&
	grep "^fast_1@1  *37.5%  *50.0%  *37.5%  *50.0%$" out &&
	grep "^fast_2@1  *12.5%  *25.0%  *12.5%  *25.0%$" out &&
	grep "^best_of_n  *100.0%  *100.0%  *100.0%  *100.0%$" out &&
	grep "^N: the problems that have records (--tasks gives the problem set)$" out &&
	test_must_be_empty err
'

test_expect_success 'the headline is pass@1 and fast_p@1; best of n is never under their names' '
	dice-score --tasks tasks.jsonl run.jsonl >out 2>/dev/null &&
	sed -n "8,13p" out | cut -d" " -f1 >actual &&
	printf "%s\n" pass@1 fast_1@1 fast_2@1 best_of_n fast_1_best_of_n fast_2_best_of_n >expect &&
	test_cmp expect actual &&
	! grep -E "^(exec|fast_1|fast_2) " out &&
	grep "^pass@1 and fast_p@1 (Exec and fast_p in the DICE paper): the mean over the N$" out &&
	# -k without 1 still leaves pass@1 and fast_p@1 first, once each.
	dice-score --tasks tasks.jsonl -k 2,1 run.jsonl >out 2>/dev/null &&
	test $(grep -c "^pass@1  " out) = 1 &&
	sed -n "8,11p" out | cut -d" " -f1 >actual &&
	printf "%s\n" pass@1 fast_1@1 fast_2@1 pass@2 >expect &&
	test_cmp expect actual
'

# Four tasks of the bundled suite named, records of one: the warning
# names the first three and says there are more.  A record of an id
# outside the tasks (L9/1_Stray) is not scored, and said so.
test_expect_success 'the warning names a few of the tasks without a record; strangers are left out' '
	dice-prompt L1:1-4 >suite.jsonl &&
	test_line_count = 4 suite.jsonl &&
	printf "%s\n" "{\"id\":\"L1/2_Sum_Over_Last_Dim\",\"check\":{\"status\":\"correct\"},\"time\":{\"speedup\":3}}" \
		"{\"id\":\"L9/1_Stray\",\"check\":{\"status\":\"correct\"},\"time\":{\"speedup\":9}}" \
		"{\"id\":\"L9/1_Stray\",\"check\":{\"status\":\"incorrect\"}}" >some.jsonl &&
	dice-score --tasks suite.jsonl --view robust some.jsonl >out 2>err &&
	cat >expect <<-\EOF &&
	dice-score: 3 of 4 tasks have no record (L1/1_ReLU, L1/3_Matrix_Multiplication, L1/4_LayerNorm): counted as failures
	dice-score: 2 samples of 1 problem not among the tasks (L9/1_Stray) were not scored
	EOF
	test_cmp expect err &&
	grep "^level  *1  *all$" out &&
	grep "^problems  *4  *4$" out &&
	grep "^pass@1  *25.0%  *25.0%$" out &&
	dice-prompt L1 >five.jsonl &&
	dice-score --tasks five.jsonl --view robust some.jsonl >out 2>err &&
	grep "^dice-score: 4 of 5 tasks have no record (L1/1_ReLU, L1/3_Matrix_Multiplication, L1/4_LayerNorm, ...): counted as failures$" err &&
	grep "^pass@1  *20.0%  *20.0%$" out
'

test_expect_success 'tasks of several levels: N per level' '
	dice-prompt all >all.jsonl &&
	dice-score --tasks all.jsonl --view robust some.jsonl >out 2>/dev/null &&
	grep "^level  *1  *2  *3  *all$" out &&
	grep "^problems  *5  *5  *5  *15$" out &&
	grep "^no_record  *4  *5  *5  *14$" out &&
	grep "^pass@1  *20.0%  *0.0%  *0.0%  *6.7%$" out
'

test_have_prereq JQ && test_set_prereq JQ_OK
test_expect_success JQ_OK '--json: clearly named fields, N and where it came from' '
	dice-score --json --tasks tasks.jsonl run.jsonl >out.json 2>/dev/null &&
	jq -c "[.problems_from, .tasks], (.levels[0] | [.level, .problems, .no_record, .samples])" out.json >actual &&
	printf "%s\n" "[\"tasks\",\"tasks.jsonl\"]" "[1,3,1,6]" >expect &&
	test_cmp expect actual &&
	jq -c ".levels[0].robust | [.correct, .solved, .[\"pass@1\"], .[\"fast_1@1\"], .[\"fast_2@1\"], .best_of_n, .fast_1_best_of_n, .fast_2_best_of_n, .timed]" out.json >actual &&
	echo "[3,2,0.3333333333333333,0.25,0.08333333333333333,0.6666666666666666,0.6666666666666666,0.3333333333333333,3]" >expect &&
	test_cmp expect actual &&
	jq -c ".levels[0].plain | [.[\"pass@1\"], .[\"fast_1@1\"], .[\"fast_2@1\"]]" out.json >actual &&
	echo "[0.4166666666666667,0.3333333333333333,0.16666666666666666]" >expect &&
	test_cmp expect actual &&
	jq -e "[.levels[] | .robust, .plain | has(\"exec\") or has(\"fast_1\") or has(\"fast_2\")] | any | not" out.json &&
	dice-score --json run.jsonl >out.json 2>/dev/null &&
	jq -e ".problems_from == \"records\" and (has(\"tasks\") | not) and .levels[0].problems == 2 and .levels[0].no_record == 0" out.json
'

test_expect_success '--latex: Exec and fast_p are pass@1 and fast_p@1, and the table says so' '
	dice-score --latex --tasks tasks.jsonl run.jsonl >out 2>/dev/null &&
	cat >expect <<-\EOF &&
	% dice-score --latex; needs \usepackage{booktabs}
	% Exec and fast_p are pass@1 and fast_p@1: the mean over the N problems of a
	% level of the share of their samples that are correct (and faster than p)
	% N: the tasks of QtasksQ (3 in all, 1 with no record, counted as failures)
	\begin{tabular}{lccc}
	\toprule
	 & \multicolumn{3}{c}{Level 1} \\
	\cmidrule(lr){2-4}
	Model & Exec & fast$_{1}$ & fast$_{2}$ \\
	\midrule
	m\_1 & 33.3 & 25.0 & 8.3 \\
	m\_1 (plain) & 41.7 & 33.3 & 16.7 \\
	\bottomrule
	\end{tabular}
	EOF
	sed "s/'\''/Q/g; s/Qtasks.jsonlQ/QtasksQ/" out >actual &&
	test_cmp expect actual &&
	dice-score --latex --rows-only --view robust run.jsonl >out 2>/dev/null &&
	printf "%s\n" "m\\_1 & 50.0 & 37.5 & 12.5 \\\\" >expect &&
	test_cmp expect out
'

# The plain view is what a harness without the deception check reports:
# such a harness times every correct candidate.  Where dice-time skipped
# the deceptive a3, the plain view cannot say how fast its candidates are:
# its speed figures are not available (-), never the lower numbers that
# leaving a3 out would give.  The robust view does not need a3's speed.
test_expect_success 'the plain view speed figures come from timed candidates only' '
	sed "s/\"time\":{\"speedup\":5}/\"time\":{\"skipped\":\"deceptive\"}/" run.jsonl >skipped.jsonl &&
	grep -F "\"skipped\":\"deceptive\"" skipped.jsonl &&
	dice-score --tasks tasks.jsonl skipped.jsonl >out 2>err &&
	grep "^pass@1  *33.3%  *41.7%  *33.3%  *41.7%$" out &&
	grep "^fast_1@1  *25.0%  *-  *25.0%  *-$" out &&
	grep "^fast_2@1  *8.3%  *-  *8.3%  *-$" out &&
	grep "^fast_1_best_of_n  *66.7%  *-  *66.7%  *-$" out &&
	grep "^geomean_speedup  *1.339  *-  *1.339  *-$" out &&
	grep "^dice-score: 1 sample correct in the plain view was not timed: its speed figures are not available (dice-time --all times every candidate)$" err &&
	dice-score --latex --tasks tasks.jsonl skipped.jsonl >out 2>/dev/null &&
	grep -F "m\\_1 (plain) & 41.7 & -- & -- \\\\" out &&
	dice-score --tasks tasks.jsonl --view robust skipped.jsonl >out 2>err &&
	! grep "not timed" err
'

# fast_p@1 falls by 1/(n N) at each correct sample: robust a0 (2.5) and
#   a1 (0.8) 1/12 each, b0 (1.2) 1/6; 1/3 in all (y = 254 - 224/3 =
#   179.33), 1/4 after 0.8 (y 198), 1/12 after 1.2 (y 235.33), 0 after
#   2.5.  x(p) = 52 + (log10(p) + 1) * 188: x(0.8) = 221.78,
#   x(1.2) = 254.89, x(2.5) = 314.81.
test_expect_success '--svg: fast_p@1 over all the tasks' '
	dice-score --tasks tasks.jsonl --svg - run.jsonl >fig.svg 2>/dev/null &&
	grep -F "d=\"M52.00,179.33 H221.78 V198.00 H254.89 V235.33 H314.81 V254.00 H428.00\"" fig.svg
'

test_expect_success '--per-problem: a task without a record is a row with no samples' '
	dice-score --per-problem --csv --tasks tasks.jsonl run.jsonl >out 2>/dev/null &&
	cut -d, -f1-5 out >actual &&
	printf "%s\n" id,level,samples,compiled,correct L1/1_A,1,4,4,3 L1/2_B,1,2,1,1 L1/3_C,1,0,0,0 >expect &&
	test_cmp expect actual
'

test_expect_success '--tasks - reads the tasks from standard input, the records from files' '
	dice-score --tasks - run.jsonl <tasks.jsonl >out 2>/dev/null &&
	grep "^problems  *3  *3  *3  *3$" out &&
	grep "^N: the tasks of .-. (3 in all" out &&
	test_expect_code 2 dice-score --tasks - <tasks.jsonl >out 2>err &&
	grep "^dice-score: --tasks - and the records cannot both be read from standard input$" err &&
	test_expect_code 2 dice-score --tasks - - <tasks.jsonl >out 2>err &&
	test_must_be_empty out
'

test_expect_success 'a --tasks file that cannot be read is trouble (exit 2)' '
	test_expect_code 2 dice-score --tasks no-such.jsonl run.jsonl >out 2>err &&
	test_must_be_empty out &&
	grep "^dice-score: cannot open .no-such.jsonl.: No such file or directory$" err &&
	mkdir -p taskdir &&
	test_expect_code 2 dice-score --tasks taskdir run.jsonl >out 2>err &&
	test_must_be_empty out &&
	grep "^dice-score: read error on .taskdir.: Is a directory$" err
'

test_expect_success 'a bad --tasks line stops the run at its file and line (exit 2)' '
	printf "%s\n" "{\"id\":\"L1/1_A\"}" "{\"id\":\"L1/2_B\"" >bad-json.jsonl &&
	test_expect_code 2 dice-score --tasks bad-json.jsonl run.jsonl >out 2>err &&
	test_must_be_empty out &&
	grep "^dice-score:bad-json.jsonl:2: invalid JSON" err &&
	test_line_count = 1 err &&
	printf "%s\n" "{\"id\":\"L1/1_A\"}" "" "{\"prompt\":\"no id\"}" >no-id.jsonl &&
	test_expect_code 2 dice-score --tasks no-id.jsonl run.jsonl >out 2>err &&
	echo "dice-score:no-id.jsonl:3: record has no id" >expect &&
	test_cmp expect err &&
	printf "%s\n" "{\"id\":\"L1/1_A\",\"problem\":{\"level\":\"one\"}}" >bad-level.jsonl &&
	test_expect_code 2 dice-score --tasks bad-level.jsonl run.jsonl >out 2>err &&
	echo "dice-score:bad-level.jsonl:1: problem.level is not a level number" >expect &&
	test_cmp expect err &&
	: >empty.jsonl &&
	test_expect_code 2 dice-score --tasks empty.jsonl run.jsonl >out 2>err &&
	grep "^dice-score: no tasks in .empty.jsonl.$" err
'

test_expect_success '--tasks is a summary option: not with --rewards' '
	test_expect_code 2 dice-score --rewards --tasks tasks.jsonl run.jsonl >out 2>err &&
	grep "^dice-score: --rewards writes records, not a summary" err
'

test_done
