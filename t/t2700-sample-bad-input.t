#!/bin/sh
test_description='dice-sample: malformed input lines and records without a prompt'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

test_have_prereq JQ || skip_all 'jq is needed'

test_expect_success 'setup' '
	cat >in <<-\EOF
	{"id":"L1/1_A","prompt":{"text":"a"}}
	{"id":
	{"id":"L1/2_B","prompt":{"error":"template needs infill.prefix"}}
	[1,2]
	{"id":"L1/3_C","prompt":{"text":"c"}}
	EOF
'

test_expect_success 'bad lines are reported with file and line, skipped; exit 1' '
	test_expect_code 1 dice-sample --exec "echo ModelNew = 1" in >out 2>err &&
	jq -r .id out >actual &&
	printf "L1/1_A\nL1/3_C\n" >expect &&
	test_cmp expect actual &&
	grep "^dice-sample:in:2: invalid JSON" err &&
	grep "^dice-sample:in:3: no prompt.text: template needs infill.prefix; skipped$" err &&
	grep "^dice-sample:in:4: expected a JSON object, found an array$" err &&
	test_line_count = 3 err
'

test_expect_success '--strict stops at the first, before any sampling; exit 2' '
	test_expect_code 2 dice-sample --strict --exec "echo ModelNew = 1" in >out 2>err &&
	test_must_be_empty out &&
	test_line_count = 1 err
'

test_expect_success 'several input files, in order' '
	head -n 1 in >one && tail -n 1 in >two &&
	dice-sample --exec "echo ModelNew = 1" two one >out &&
	jq -r .id out >actual &&
	printf "L1/3_C\nL1/1_A\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'an input file that is not there: exit 2' '
	test_expect_code 2 dice-sample --exec true no-such-file 2>err &&
	grep "cannot open .no-such-file." err
'

test_expect_success 'a reader that leaves early (| head -1) ends it quietly' '
	for i in $(seq 2000); do echo "{\"id\":\"L1/$i\",\"prompt\":{\"text\":\"x\"}}"; done >many &&
	for jobs in 1 8; do
		{ dice-sample -q -j $jobs --exec "echo ModelNew = 1" many 2>err; echo $? >rc; } |
			head -n 1 >first &&
		jq -e .sample first &&
		test_must_be_empty err &&
		test "$(cat rc)" = 141 || return 1
	done
'

test_expect_success 'a full disk is one error line and exit 2' '
	test_expect_code 2 dice-sample -q --exec "echo ModelNew = 1" many \
		>/dev/full 2>err &&
	echo "dice-sample: write error: No space left on device" >expect &&
	test_cmp expect err &&
	head -n 1 many >one &&
	test_expect_code 2 dice-sample -q --exec "echo ModelNew = 1" one \
		>/dev/full 2>err &&
	test_cmp expect err
'

test_expect_success 'lib/jsonl: other tools that fail mid-stream say it once too' '
	dice-sample -q --exec "echo ModelNew = 1" many >samples &&
	test_expect_code 2 dice-split samples >/dev/full 2>err &&
	echo "dice-split: write error: No space left on device" >expect &&
	test_cmp expect err
'

test_done
