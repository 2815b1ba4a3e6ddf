#!/bin/sh
test_description='dice-score: CSV, Markdown, LaTeX, per-problem and SVG output'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

# The fixture and its numbers are those of t7000-score-metrics.t, where
# each is worked out: L1 and L2 with two problems each, seven samples.
test_expect_success 'setup: the fixture of t7000' '
	cat >fixture.jsonl <<-\EOF
	{"id":"L1/1_A","problem":{"level":1},"sample":{"index":0,"model":"m_x"},"compile":{"ok":true},"check":{"status":"correct","correct":true,"deception":{"deceptive":false}},"time":{"speedup":1.5}}
	{"id":"L1/1_A","problem":{"level":1},"sample":{"index":1},"compile":{"ok":true},"check":{"status":"correct","correct":true,"deception":{"deceptive":true}},"time":{"speedup":3}}
	{"id":"L1/2_B","problem":{"level":1},"sample":{"index":0},"compile":{"ok":false},"check":{"status":"compile_error","correct":false}}
	{"id":"L1/2_B","problem":{"level":1},"sample":{"index":1},"check":{"status":"correct","correct":true},"time":{"speedup":"NaN"}}
	{"id":"L2/3_C","sample":{"index":0},"check":{"status":"correct","correct":true},"time":{"speedup":2.5}}
	{"id":"L2/3_C","sample":{"index":1}}
	{"id":"L2/4_D","sample":{"index":0}}
	EOF
'

# CSV: fractions, not percentages, to 10 significant digits; undefined
# values (pass@2 where a problem has one sample) are empty.
test_expect_success '--csv: a row per level and view' '
	dice-score --csv -k 1,2 fixture.jsonl >out 2>/dev/null &&
	cat >expect <<-\EOF &&
	level,view,problems,samples,no_record,compile_rate,deception_rate,pass@1,fast_1@1,fast_2@1,pass@2,fast_1@2,fast_2@2,best_of_n,fast_1_best_of_n,fast_2_best_of_n,geomean_speedup,timed,bad_speedups
	1,robust,2,4,0,0.75,0.3333333333,0.5,0.25,0,1,0.5,0,1,0.5,0,1.5,1,1
	1,plain,2,4,0,0.75,0.3333333333,0.75,0.5,0.25,1,0.5,0.5,1,0.5,0.5,2.121320344,2,1
	2,robust,2,3,0,0.3333333333,0,0.25,0.25,0.25,,,,0.5,0.5,0.5,2.5,1,0
	2,plain,2,3,0,0.3333333333,0,0.25,0.25,0.25,,,,0.5,0.5,0.5,2.5,1,0
	all,robust,4,7,0,0.5714285714,0.25,0.375,0.25,0.125,,,,0.75,0.5,0.25,1.936491673,2,1
	all,plain,4,7,0,0.5714285714,0.25,0.5,0.375,0.25,,,,0.75,0.5,0.5,2.240702373,3,1
	EOF
	test_cmp expect out
'

test_expect_success '--csv --label: a first column, quoted when it must be' '
	dice-score --csv --label "run \"a\", b" --view plain fixture.jsonl >out 2>/dev/null &&
	head -n 2 out >actual &&
	cat >expect <<-\EOF &&
	label,level,view,problems,samples,no_record,compile_rate,deception_rate,pass@1,fast_1@1,fast_2@1,best_of_n,fast_1_best_of_n,fast_2_best_of_n,geomean_speedup,timed,bad_speedups
	"run ""a"", b",1,plain,2,4,0,0.75,0.3333333333,0.75,0.5,0.25,1,0.5,0.5,2.121320344,2,1
	EOF
	test_cmp expect actual
'

test_expect_success '--markdown: a table, numbers right-aligned' '
	dice-score --markdown --label "a|b" --view robust fixture.jsonl >out 2>/dev/null &&
	cat >expect <<-\EOF &&
	| label | level | view | problems | samples | no_record | compile_rate | deception_rate | pass@1 | fast_1@1 | fast_2@1 | best_of_n | fast_1_best_of_n | fast_2_best_of_n | geomean_speedup | timed | bad_speedups |
	|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
	| a\|b | 1 | robust | 2 | 4 | 0 | 75.0% | 33.3% | 50.0% | 25.0% | 0.0% | 100.0% | 50.0% | 0.0% | 1.500 | 1 | 1 |
	| a\|b | 2 | robust | 2 | 3 | 0 | 33.3% | 0.0% | 25.0% | 25.0% | 25.0% | 50.0% | 50.0% | 50.0% | 2.500 | 1 | 0 |
	| a\|b | all | robust | 4 | 7 | 0 | 57.1% | 25.0% | 37.5% | 25.0% | 12.5% | 75.0% | 50.0% | 25.0% | 1.936 | 2 | 1 |
	EOF
	test_cmp expect out
'

# LaTeX: Exec, fast_1, fast_2 per level in percent, the paper's
# one-sample figures: pass@1, fast_1@1 and fast_2@1 (robust: L1 50.0 25.0
# 0.0, L2 25.0 25.0 25.0; plain L1 75.0 50.0 25.0), said so in a comment;
# the label defaults to the first sample.model, m_x, escaped.
test_expect_success '--latex: the DICE table layout' '
	dice-score --latex fixture.jsonl >out 2>/dev/null &&
	cat >expect <<-\EOF &&
	% dice-score --latex; needs \usepackage{booktabs}
	% Exec and fast_p are pass@1 and fast_p@1: the mean over the N problems of a
	% level of the share of their samples that are correct (and faster than p)
	% N: the problems that have records (--tasks gives the problem set)
	\begin{tabular}{lcccccc}
	\toprule
	 & \multicolumn{3}{c}{Level 1} & \multicolumn{3}{c}{Level 2} \\
	\cmidrule(lr){2-4} \cmidrule(lr){5-7}
	Model & Exec & fast$_{1}$ & fast$_{2}$ & Exec & fast$_{1}$ & fast$_{2}$ \\
	\midrule
	m\_x & 50.0 & 25.0 & 0.0 & 25.0 & 25.0 & 25.0 \\
	m\_x (plain) & 75.0 & 50.0 & 25.0 & 25.0 & 25.0 & 25.0 \\
	\bottomrule
	\end{tabular}
	EOF
	test_cmp expect out
'

test_expect_success '--latex --rows-only --label: rows to stack' '
	dice-score --latex --rows-only --view robust --label "A&B_%#{}~^\\" fixture.jsonl >out 2>/dev/null &&
	cat >expect <<-\EOF &&
	A\&B\_\%\#\{\}\textasciitilde{}\textasciicircum{}\textbackslash{} & 50.0 & 25.0 & 0.0 & 25.0 & 25.0 & 25.0 \\
	EOF
	test_cmp expect out &&
	dice-score --latex --rows-only --view plain -p 1 --label B fixture.jsonl >out 2>/dev/null &&
	printf "%s\n" "B & 75.0 & 50.0 & 25.0 & 25.0 \\\\" >expect &&
	test_cmp expect out
'

# Per problem:
#   L1/10_P  ten samples: incorrect (compile.ok), runtime_error, timeout,
#            oom, crashed (each implies a build), no_code, "exploded" (an
#            unknown status: other), and three correct ones at 1, 4, 2.
#            compiled 1 + 4 + 3 = 8; best 4; median of 1 2 4 = 2.
#   L1/9_Q   correct at 1 and 3, correct but deceptive at 10, one never
#            checked.  compiled 3; robust best 3, median (1 + 3)/2 = 2;
#            plain best 10, median of 1 3 10 = 3.
#   L2/1_R   correct, speedup null: one bad speedup, no best or median.
# They come out by level, then problem number: 9_Q before 10_P.
test_expect_success 'setup: a per-problem fixture' '
	{
		for s in "\"incorrect\",\"correct\":false},\"compile\":{\"ok\":true" \
			"\"runtime_error\"" "\"timeout\"" "\"oom\"" "\"crashed\"" \
			"\"no_code\"" "\"exploded\""; do
			echo "{\"id\":\"L1/10_P\",\"check\":{\"status\":$s}}"
		done &&
		for x in 1 4 2; do
			echo "{\"id\":\"L1/10_P\",\"check\":{\"status\":\"correct\"},\"time\":{\"speedup\":$x}}"
		done &&
		echo "{\"id\":\"L2/1_R\",\"check\":{\"correct\":true},\"time\":{\"speedup\":null}}" &&
		echo "{\"id\":\"L1/9_Q\",\"check\":{\"correct\":true},\"time\":{\"speedup\":1}}" &&
		echo "{\"id\":\"L1/9_Q\",\"check\":{\"correct\":true},\"time\":{\"speedup\":3}}" &&
		echo "{\"id\":\"L1/9_Q\",\"check\":{\"correct\":true,\"deception\":{\"deceptive\":true}},\"time\":{\"speedup\":10}}" &&
		echo "{\"id\":\"L1/9_Q\"}"
	} >problems.jsonl &&
	test_line_count = 15 problems.jsonl
'

test_expect_success '--per-problem: status counts, best and median speedup' '
	dice-score --per-problem problems.jsonl >out 2>/dev/null &&
	cat >expect <<-\EOF &&
	id       level  samples  compiled  correct  deceptive  incorrect  compile_error  runtime_error  timeout  oom  crashed  no_code  other  unchecked  bad_speedups  best_speedup  median_speedup
	L1/9_Q       1        4         3        3          1          0              0              0        0    0        0        0      0          1             0         3.000           2.000
	L1/10_P      1       10         8        3          0          1              0              1        1    1        1        1      1          0             0         4.000           2.000
	L2/1_R       2        1         1        1          0          0              0              0        0    0        0        0      0          0             1             -               -
	EOF
	test_cmp expect out
'

test_expect_success '--per-problem --view plain: deceptive samples count' '
	dice-score --per-problem --csv --view plain problems.jsonl >out 2>/dev/null &&
	cat >expect <<-\EOF &&
	id,level,samples,compiled,correct,deceptive,incorrect,compile_error,runtime_error,timeout,oom,crashed,no_code,other,unchecked,bad_speedups,best_speedup,median_speedup
	L1/9_Q,1,4,3,3,1,0,0,0,0,0,0,0,0,1,0,10,3
	L1/10_P,1,10,8,3,0,1,0,1,1,1,1,1,1,0,0,4,2
	L2/1_R,2,1,1,1,0,0,0,0,0,0,0,0,0,0,1,,
	EOF
	test_cmp expect out
'

test_expect_success '--per-problem --markdown' '
	dice-score --per-problem --markdown problems.jsonl >out 2>/dev/null &&
	sed -n 4p out >actual &&
	echo "| L1/10_P | 1 | 10 | 8 | 3 | 0 | 1 | 0 | 1 | 1 | 1 | 1 | 1 | 1 | 0 | 0 | 4.000 | 2.000 |" >expect &&
	test_cmp expect actual
'

test_expect_success '--per-problem --label: a first column' '
	dice-score --per-problem --csv --label run1 problems.jsonl >out 2>/dev/null &&
	cut -d, -f1-4 out >actual &&
	printf "%s\n" label,id,level,samples run1,L1/9_Q,1,4 run1,L1/10_P,1,10 run1,L2/1_R,2,1 >expect &&
	test_cmp expect actual
'

test_have_prereq JQ && test_set_prereq JQ_OK
test_expect_success JQ_OK '--per-problem --json: one object per problem' '
	dice-score --per-problem --json problems.jsonl >out 2>/dev/null &&
	test_line_count = 3 out &&
	jq -c "[.id, .level, .samples, .compiled, .correct, .deceptive, .bad_speedups, .best_speedup, .median_speedup]" out >actual &&
	printf "%s\n" "[\"L1/9_Q\",1,4,3,3,1,0,3,2]" "[\"L1/10_P\",1,10,8,3,0,0,4,2]" \
		"[\"L2/1_R\",2,1,1,1,0,1,null,null]" >expect &&
	test_cmp expect actual &&
	dice-score --per-problem --json --label r problems.jsonl 2>/dev/null | jq -r .label | uniq >actual &&
	echo r >expect &&
	test_cmp expect actual &&
	jq -c ".status" out | sed -n 2p >actual &&
	echo "{\"correct\":3,\"incorrect\":1,\"compile_error\":0,\"runtime_error\":1,\"timeout\":1,\"oom\":1,\"crashed\":1,\"no_code\":1,\"other\":1,\"unchecked\":0}" >expect &&
	test_cmp expect actual
'

# The SVG's curves (robust view) in plot units, p on a log scale from 0.1
# to 10: x(p) = 52 + (log10(p) + 1) * 188, y(share) = 254 - share * 224.
# fast_p@1 falls by 1/(n N) at each correct sample's speedup.  Robust:
# L1 A's a0 at 1.5 is 1 of A's 2 samples, A 1 of 2 problems: 1/4 (y 198)
# up to x(1.5) = 273.11, then none.  L2 C's c0 at 2.5: 1/4 up to
# x(2.5) = 314.81.  All: a0 and c0 are 1/8 each: 1/4 up to 1.5, 1/8
# (y 226) up to 2.5.
test_expect_success '--svg: fast_p@1 against p, drawn exactly' '
	dice-score --svg plot.svg fixture.jsonl >out 2>/dev/null &&
	dice-score fixture.jsonl >expect 2>/dev/null &&
	test_cmp expect out &&
	grep -F "d=\"M52.00,198.00 H273.11 V254.00 H428.00\"" plot.svg &&
	grep -F "d=\"M52.00,198.00 H314.81 V254.00 H428.00\"" plot.svg &&
	grep -F "d=\"M52.00,198.00 H273.11 V226.00 H314.81 V254.00 H428.00\"" plot.svg &&
	grep -F ">fast_p@1: samples faster than p</text>" plot.svg &&
	grep -F ">Level 1, robust view<" plot.svg && grep -F ">Level 2, robust view<" plot.svg &&
	grep -F ">All levels, robust view<" plot.svg &&
	grep "<svg .*width=\"1320\" height=\"300\"" plot.svg &&
	! grep -i "href\|<image\|<script" plot.svg
'

# --svg-max 2: x(p) = 52 + (log10(p) + 1) / log10(20) * 376, so
# x(1.5) = 391.89; C (2.5) is off the plot: L2 stays at a quarter all the
# way.
test_expect_success '--svg-max changes the range' '
	dice-score --svg plot2.svg --svg-max 2 fixture.jsonl >/dev/null 2>&1 &&
	grep -F "d=\"M52.00,198.00 H391.89 V254.00 H428.00\"" plot2.svg &&
	grep -F "d=\"M52.00,198.00 H428.00\"" plot2.svg &&
	grep -F "(robust view)" plot2.svg
'

# --view plain: A's a0 (1.5) and the deceptive a1 (3) are a quarter each:
# a half up to 1.5, a quarter up to x(3) = 52 + 1.4771 * 188.
test_expect_success '--svg --view plain draws the plain view' '
	dice-score --svg plot3.svg --view plain fixture.jsonl >/dev/null 2>&1 &&
	grep -F "d=\"M52.00,142.00 H273.11 V198.00 H329.70 V254.00 H428.00\"" plot3.svg &&
	grep -F "(plain view)" plot3.svg
'

if "${DICE_PYTHON:-python3}" -c 'import xml.dom.minidom' 2>/dev/null; then
	test_set_prereq PYXML
fi
test_expect_success PYXML 'the SVG is well-formed XML in the SVG namespace' '
	"${DICE_PYTHON:-python3}" -c "
import sys, xml.dom.minidom
doc = xml.dom.minidom.parse(sys.argv[1])
root = doc.documentElement
assert root.tagName == \"svg\", root.tagName
assert root.getAttribute(\"xmlns\") == \"http://www.w3.org/2000/svg\"
assert len(doc.getElementsByTagName(\"path\")) == 3
" plot.svg
'

command -v rsvg-convert >/dev/null 2>&1 && test_set_prereq RSVG
test_expect_success RSVG 'the SVG renders (librsvg)' '
	rsvg-convert plot.svg -o plot.png 2>err &&
	test_must_be_empty err &&
	test -s plot.png
'

test_expect_success 'an unwritable --svg file is trouble (exit 2)' '
	test_expect_code 2 dice-score --svg no/such/dir/plot.svg fixture.jsonl >/dev/null 2>err &&
	grep "^dice-score: cannot write .no/such/dir/plot.svg.: " err
'

test_expect_success '--svg - writes the figure to standard output, in place of the summary' '
	mkdir svgout &&
	(cd svgout && dice-score --svg - ../fixture.jsonl >../stdout.svg) &&
	ls -A svgout >actual &&
	test_must_be_empty actual &&
	head -n 1 stdout.svg >actual &&
	echo "<?xml version=\"1.0\" encoding=\"UTF-8\"?>" >expect &&
	test_cmp expect actual &&
	tail -n 1 stdout.svg >actual &&
	echo "</svg>" >expect &&
	test_cmp expect actual &&
	! grep "^level" stdout.svg
'

test_expect_success '--svg FILE replaces FILE whole and leaves no temporary file' '
	mkdir svgdir &&
	echo old >svgdir/plot.svg &&
	dice-score --svg svgdir/plot.svg fixture.jsonl >/dev/null &&
	ls -A svgdir >actual &&
	echo plot.svg >expect &&
	test_cmp expect actual &&
	test_cmp stdout.svg svgdir/plot.svg
'

test_done
