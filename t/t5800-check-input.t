#!/bin/sh
test_description='dice-check and dice-compile: bad input, bad usage, write errors'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

fake_harness_env

test_expect_success 'setup' '
	fake_harness fake &&
	{
		record L1/1 "x = 1" &&
		echo "{\"id\": \"L1/2\"" &&
		echo "[1, 2]" &&
		echo &&
		record L1/3 "x = 3"
	} >in.jsonl
'

for tool in dice-check dice-compile; do
	test_expect_success "$tool: malformed lines are reported with file and line, skipped; exit 1" "
		test_expect_code 1 $tool -q in.jsonl >out 2>err &&
		jq -r .id out >ids &&
		printf '%s\n' L1/1 L1/3 >expect &&
		test_cmp expect ids &&
		sed 's/: .*//' err >where &&
		printf '%s\n' $tool:in.jsonl:2 $tool:in.jsonl:3 >expect &&
		test_cmp expect where
	"

	test_expect_success "$tool: --strict stops at the first, writes what was read, exit 2" "
		test_expect_code 2 $tool -q --strict in.jsonl >out 2>err &&
		jq -r .id out >ids &&
		echo L1/1 >expect &&
		test_cmp expect ids &&
		test_line_count = 1 err
	"

	test_expect_success "$tool: standard input by default, several files in order" "
		record L1/9 'x = 9' >nine.jsonl &&
		record L1/8 'x = 8' | $tool -q - nine.jsonl >out &&
		jq -r .id out >ids &&
		printf '%s\n' L1/8 L1/9 >expect &&
		test_cmp expect ids
	"

	test_expect_success "$tool: a missing input file: exit 2" "
		test_expect_code 2 $tool -q no-such.jsonl 2>err &&
		grep \"^$tool: cannot open 'no-such.jsonl'\" err
	"

	for bad in '-j 0' '-j x' '--gpus 1,,2' '--gpus a' '--device tpu' \
		'--timeout 0' '--timeout -1' '--memory lots' '--bogus'; do
		test_expect_success "$tool: bad usage '$bad': one message and a hint, exit 2" "
			test_expect_code 2 $tool $bad </dev/null >out 2>err &&
			test_must_be_empty out &&
			test_line_count = 2 err &&
			grep \"^Try '$tool --help'\" err
		"
	done

	test_expect_success "$tool: no Python: exit 2 before reading" "
		record L1/1 'x = 1' >one.jsonl &&
		DICE_PYTHON=/nonexistent/python test_expect_code 2 $tool one.jsonl >out 2>err &&
		test_must_be_empty out &&
		grep \"cannot find the Python interpreter '/nonexistent/python'\" err
	"

	test_expect_success "$tool: an unusable cache directory: exit 2" "
		echo file >notadir &&
		test_expect_code 2 $tool --cache notadir/c one.jsonl >out 2>err &&
		grep \"cannot make the build cache\" err
	"

	test_expect_success DEVFULL "$tool: a write error is an error" "
		test_expect_code 2 $tool -q one.jsonl >/dev/full 2>err &&
		grep 'write error' err
	"
done

test_expect_success 'dice-check: bad checking options' '
	for bad in "--trials 0" "--tolerance loose" "--atol x" "--rtol -1" "--seed -3"; do
		test_expect_code 2 dice-check $bad </dev/null 2>err || exit 1
	done
'

test_expect_success 'dice-compile: the checking options are not its own' '
	test_expect_code 2 dice-compile --trials 3 </dev/null 2>err &&
	grep "^Try" err
'

test_done
