#!/bin/sh
test_description='dice-score: bad input, empty input, usage errors'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

# The messages, one per bad line (those for lines 2 and 14 are Jansson's).
# Outside the tests because they hold single quotes.
cat >expect.err <<\EOF
dice-score:bad.jsonl:2: invalid JSON: unexpected token near end of file (column 0)
dice-score:bad.jsonl:3: expected a JSON object, found an array
dice-score:bad.jsonl:5: record has no id
dice-score:bad.jsonl:6: id is not a string
dice-score:bad.jsonl:7: problem.level is not a level number
dice-score:bad.jsonl:8: check.correct is not a boolean
dice-score:bad.jsonl:9: check.status is not a string
dice-score:bad.jsonl:10: check.deception.deceptive is not a boolean
dice-score:bad.jsonl:11: compile.ok is not a boolean
dice-score:bad.jsonl:12: time.speedup is not a number: 'fast'
dice-score:bad.jsonl:13: time.speedup is not a number
dice-score:bad.jsonl:14: invalid JSON: duplicate object key near '"id"' (column 19)
dice-score:bad.jsonl:15: sample.index is not a whole number
EOF

test_expect_success 'setup' '
	printf "%s\n" \
		"{\"id\":\"L1/1_A\",\"check\":{\"correct\":true},\"time\":{\"speedup\":2}}" \
		"{\"id\":\"L1/1_A\",\"check\":" \
		"[1,2]" \
		"" \
		"{\"check\":{\"correct\":true}}" \
		"{\"id\":7}" \
		"{\"id\":\"L1/2_B\",\"problem\":{\"level\":\"one\"}}" \
		"{\"id\":\"L1/2_B\",\"check\":{\"correct\":\"yes\"}}" \
		"{\"id\":\"L1/2_B\",\"check\":{\"status\":true}}" \
		"{\"id\":\"L1/2_B\",\"check\":{\"deception\":{\"deceptive\":1}}}" \
		"{\"id\":\"L1/2_B\",\"compile\":{\"ok\":\"no\"}}" \
		"{\"id\":\"L1/2_B\",\"time\":{\"speedup\":\"fast\"}}" \
		"{\"id\":\"L1/2_B\",\"time\":{\"speedup\":[2]}}" \
		"{\"id\":\"L1/2_B\",\"id\":\"L1/3_C\"}" \
		"{\"id\":\"L1/2_B\",\"sample\":{\"index\":-1}}" \
		"{\"id\":\"L1/2_B\",\"check\":{\"correct\":false}}" >bad.jsonl
'

# What is left: L1/1_A correct at 2x, L1/2_B incorrect: pass@1 1/2,
# best_of_n 1/2, geomean 2.
test_expect_success 'each bad line is reported with its file and line, skipped; exit 1' '
	test_expect_code 1 dice-score --view robust bad.jsonl >out 2>err &&
	test_cmp expect.err err &&
	grep "^problems  *2  *2$" out &&
	grep "^samples  *2  *2$" out &&
	grep "^pass@1  *50.0%  *50.0%$" out &&
	grep "^best_of_n  *50.0%  *50.0%$" out &&
	grep "^geomean_speedup  *2.000  *2.000$" out
'

test_expect_success 'bad lines on stdin are named -' '
	test_expect_code 1 dice-score <bad.jsonl >/dev/null 2>err &&
	sed -n 1p err >actual &&
	echo "dice-score:-:2: invalid JSON: unexpected token near end of file (column 0)" >expect &&
	test_cmp expect actual
'

test_expect_success '--strict stops at the first bad line, exit 2, nothing written' '
	test_expect_code 2 dice-score --strict bad.jsonl >out 2>err &&
	test_must_be_empty out &&
	sed -n 1p expect.err >expect &&
	test_cmp expect err
'

test_expect_success 'empty input: no records, exit 1' '
	: >empty.jsonl &&
	test_expect_code 1 dice-score empty.jsonl >out 2>err &&
	test_must_be_empty out &&
	echo "dice-score: no records" >expect &&
	test_cmp expect err &&
	printf "\n  \n" | test_expect_code 1 dice-score >out 2>err &&
	test_cmp expect err &&
	test_expect_code 1 dice-score --rewards <empty.jsonl >out 2>err &&
	test_must_be_empty out &&
	test_cmp expect err
'

test_expect_success 'only bad lines: no records, exit 1' '
	echo "nonsense" >junk.jsonl &&
	test_expect_code 1 dice-score junk.jsonl >out 2>err &&
	test_must_be_empty out &&
	grep "^dice-score:junk.jsonl:1: invalid JSON" err &&
	grep "^dice-score: no records$" err
'

test_expect_success 'a missing file is trouble (exit 2)' '
	test_expect_code 2 dice-score no-such.jsonl >out 2>err &&
	grep "^dice-score: cannot open .no-such.jsonl.: No such file" err
'

test_expect_success 'a directory is a read error (exit 2)' '
	mkdir dir &&
	test_expect_code 2 dice-score dir >out 2>err &&
	grep "^dice-score: read error on .dir.: Is a directory" err
'

test_expect_success 'usage errors exit 2 with a hint' '
	echo "{\"id\":\"x\",\"check\":{\"status\":\"incorrect\"}}" >one.jsonl &&
	for args in "-k 0" "-k 1,,2" "-k x" "-k 1," "-p -1" "-p 1,x" "-p ,1" "-p nan" \
		"--view all" "--svg-max 0" "--json --csv" "--rows-only" \
		"--latex --per-problem" "-k 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"; do
		test_expect_code 2 dice-score $args one.jsonl >out 2>err || exit 1
		test_must_be_empty out || exit 1
		grep "^Try .dice-score --help. for more information.$" err || exit 1
	done &&
	test_expect_code 2 dice-score -k 0 one.jsonl 2>err &&
	grep "^dice-score: invalid --pass-at .0. (positive whole numbers separated by commas, at most 16)$" err &&
	test_expect_code 2 dice-score -p 1,x one.jsonl 2>err &&
	grep "^dice-score: invalid --fast .1,x. (numbers of 0 or more separated by commas, at most 16)$" err
'

test_expect_success DEVFULL 'a full disk is trouble (exit 2)' '
	test_expect_code 2 dice-score one.jsonl >/dev/full 2>err &&
	grep "^dice-score: write error" err &&
	test_expect_code 2 dice-score --rewards one.jsonl >/dev/full 2>err &&
	grep "^dice-score: write error" err
'

test_expect_success 'records never checked are an input error, not a table of zeros' '
	printf "%s\n" "{\"id\":\"L1/1_A\",\"compile\":{\"ok\":true},\"time\":{\"speedup\":2}}" \
		"{\"id\":\"L1/2_B\",\"check\":{\"deception\":null}}" >unchecked.jsonl &&
	test_expect_code 1 dice-score unchecked.jsonl >out 2>err &&
	test_must_be_empty out &&
	grep "^dice-score: no record has been checked (no check.status or check.correct): run dice-check first$" err &&
	test_expect_code 1 dice-score --rewards unchecked.jsonl >out 2>err &&
	test_must_be_empty out &&
	grep "^dice-score: no record has been checked" err &&
	echo "{\"id\":\"L1/3_C\",\"check\":{\"status\":\"compile_error\"}}" >checked.jsonl &&
	dice-score unchecked.jsonl checked.jsonl >out 2>err
'

test_done
