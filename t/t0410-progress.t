#!/bin/sh
test_description='progress on standard error: log lines, a terminal line per stage, records unchanged'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

fake_harness_env
# The claim files of the terminal slots go here, not into /tmp.
XDG_RUNTIME_DIR=$PWD/run; export XDG_RUNTIME_DIR

# No carriage return and no escape sequence in FILE.
no_control () {
	! grep -q "$(printf '\r')" "$1" && ! grep -q "$(printf '\033')" "$1"
}

test_expect_success 'setup' '
	mkdir run &&
	fake_harness fake &&
	for i in 1 2 3 4 5 6 7 8 9 10; do
		jq -nc --arg id "L1/$i" --arg ref "$REF" \
			"{id: \$id, ref: \$ref, prompt: {text: \"x\"}}" || return 1
	done >prompts.jsonl &&
	for i in 1 2 3 4 5; do
		record "L1/$i" "x = $i" || return 1
	done >cands.jsonl
'

test_expect_success 'log: a line per interval, the total, rate and ETA, then a summary; no control bytes' '
	DICE_PROGRESS_INTERVAL=0 dice-sample --progress=always --exec "echo hi" \
		-n 2 -j 1 <prompts.jsonl >out 2>err &&
	no_control err &&
	test_line_count = 21 err &&
	head -n 20 err >lines &&
	! grep -v "^dice-sample: [0-9]*/20 done, [0-9.]*/s, ETA [0-9hms]*\$" lines &&
	grep "^dice-sample: 1/20 done" lines &&
	tail -n 1 err | grep "^dice-sample: 20/20 done in [0-9hms]*, [0-9.]*/s\$"
'

test_expect_success 'log: a line each tenth of the total however long the interval' '
	DICE_PROGRESS_INTERVAL=1000 dice-sample --progress --exec "echo hi" \
		-n 2 -j 1 <prompts.jsonl >out 2>err &&
	no_control err &&
	sed "s/ done.*//" err >counts &&
	printf "dice-sample: %s/20\n" 2 4 6 8 10 12 14 16 18 20 20 >expect &&
	test_cmp expect counts
'

test_expect_success 'log: failures counted, exit status kept' '
	DICE_PROGRESS_INTERVAL=1000 test_expect_code 1 dice-sample --progress \
		--exec "exit 3" -q -n 1 <prompts.jsonl >out 2>err &&
	! grep " done" err &&
	DICE_PROGRESS_INTERVAL=1000 test_expect_code 1 dice-sample --progress \
		--exec "exit 3" -n 1 <prompts.jsonl >out 2>err &&
	grep "^dice-sample: 10/10 done in [0-9hms]*, 10 failed" err &&
	test_line_count = 10 out
'

test_expect_success 'auto (the default) writes no progress into a log; never and -q none at all' '
	dice-sample --exec "echo hi" <prompts.jsonl >out 2>err &&
	test_must_be_empty err &&
	dice-sample --progress=always --progress=never --exec "echo hi" \
		<prompts.jsonl >out 2>err &&
	test_must_be_empty err &&
	dice-check --progress -q <cands.jsonl >out 2>err &&
	test_must_be_empty err
'

for tool in dice-sample dice-check dice-compile dice-time; do
	test_expect_success "$tool: a bad --progress is a usage error" "
		test_expect_code 2 $tool --progress=sometimes </dev/null >out 2>err &&
		grep \"invalid --progress 'sometimes' (auto, always or never)\" err
	"
done

test_expect_success 'dice-check: the total when the input is a file (given or on standard input), none from a pipe' '
	DICE_PROGRESS_INTERVAL=0 dice-check --progress -j 1 cands.jsonl \
		>out 2>err &&
	no_control err &&
	grep "^dice-check: 1/5 done, [0-9.]*/s, ETA [0-9hms]* (" err &&
	tail -n 1 err | grep "^dice-check: 5/5 done in [0-9hms]*, .*(correct 5)\$" &&
	cat cands.jsonl | DICE_PROGRESS_INTERVAL=0 dice-check --progress -j 1 \
		>out 2>err &&
	tail -n 1 err | grep "^dice-check: 5 done in " &&
	! grep ETA err &&
	DICE_PROGRESS_INTERVAL=0 dice-check --progress -j 1 <cands.jsonl \
		>out 2>err &&
	tail -n 1 err | grep "^dice-check: 5/5 done in " &&
	dice-check --progress=always cands.jsonl 2>/dev/null >more &&
	dice-check -q <cands.jsonl >less &&
	jq -c "del(.check.ms, .compile)" more >more.c &&
	jq -c "del(.check.ms, .compile)" less >less.c &&
	test_cmp less.c more.c
'

test_expect_success 'dice-sample: the records are the same with progress on' '
	dice-sample --progress=always --exec "echo hi" -n 2 <prompts.jsonl \
		2>/dev/null >more &&
	dice-sample -q --exec "echo hi" -n 2 <prompts.jsonl >less &&
	jq -c "del(.sample.ms, .sample.tokens_per_s)" more >more.c &&
	jq -c "del(.sample.ms, .sample.tokens_per_s)" less >less.c &&
	test_cmp less.c more.c
'

test_expect_success 'terminal: two stages of one pipeline each keep a line' '
	printf "%s\n" "\`\`\`python" "class ModelNew:" "    pass" "\`\`\`" >code.txt &&
	"$DICE_PYTHON" "$TEST_SRCDIR/pty-screen.py" \
		"dice-sample --exec \"sleep 0.3; cat $PWD/code.txt\" -j 1 <prompts.jsonl |
		 dice-check -j 1 >checked; echo END" raw >screen &&
	cat screen &&
	grep "^dice-sample: 10/10 done in [0-9hms]*, [0-9.]*/s\$" screen &&
	grep "^dice-check: 10 done in .*(correct 10)\$" screen &&
	grep -n . screen >numbered &&
	test_line_count = 3 numbered &&
	tail -n 1 numbered | grep "^3:END" &&
	grep "ETA" raw &&
	# Both held a slot at once: the second was drawn a line down.
	grep -q "$(printf "\033")\[1A" raw &&
	test_line_count = 10 checked &&
	test "$(jq -r .check.status checked | sort -u)" = correct &&
	! ls run/dice-progress-* 2>/dev/null
'

test_expect_success 'terminal: a lone stage draws over its own line, the prompt below it' '
	"$DICE_PYTHON" "$TEST_SRCDIR/pty-screen.py" \
		"DICE_PROGRESS_INTERVAL=0 dice-check -j 1 cands.jsonl >/dev/null; echo END" \
		raw >screen &&
	grep -n . screen >numbered &&
	sed "s/ in .*//" numbered >actual &&
	printf "%s\n" "1:dice-check: 5/5 done" "2:END" >expect &&
	test_cmp expect actual &&
	grep -c "dice-check: [0-9]/5 done" raw
'

test_done
