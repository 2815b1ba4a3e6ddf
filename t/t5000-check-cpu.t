#!/bin/sh
test_description='dice-check on a CPU torch: statuses of C++ candidates'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

# One cache for the script: only the first candidate builds.
cpu_harness_env
check () { dice-check -q --device cpu --memory 4G "$@"; }

# status_of FILE: "id status" lines.
status_of () { jq -r '[.id, .check.status] | @tsv' "$1"; }

test_expect_success 'a correct candidate (the first build)' '
	record L1/1_ok "$(cpp_candidate "ext.shifted_relu(x, 0.0)")" >ok.jsonl &&
	check ok.jsonl >out &&
	jq -r ".check | [.status, .correct, .passed, .trials, .max_abs_err, .compile.ok, .compile.cache, (.device | startswith(\"cpu\")), .device_uuid] | @tsv" out >actual &&
	printf "correct\ttrue\t5\t5\t0\ttrue\tmiss\ttrue\t\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'the same candidate again: a cache hit' '
	check ok.jsonl >out &&
	jq -r ".check | [.status, .compile.cache] | @tsv" out >actual &&
	printf "correct\thit\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'off by 0.005: correct at 1e-2, incorrect at 1e-4' '
	record L1/2_close "$(cpp_candidate "ext.shifted_relu(x, 0.005)")" >close.jsonl &&
	check close.jsonl >dice.out &&
	check --tolerance kernelbench close.jsonl >kb.out &&
	jq -r ".check | [.status, .tolerance, .atol, (.max_abs_err > 0.0049 and .max_abs_err < 0.0051)] | @tsv" dice.out kb.out >actual &&
	printf "correct\tdice\t0.01\ttrue\nincorrect\tkernelbench\t0.0001\ttrue\n" >expect &&
	test_cmp expect actual &&
	jq -r ".check | [.failed_trial, .passed] | @tsv" kb.out >actual &&
	printf "0\t0\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'wrong values, wrong shape, NaN: incorrect' '
	{
		record L1/3_off "$(cpp_candidate "ext.shifted_relu(x, 0.5)")" &&
		record L1/4_shape "$(cpp_candidate "ext.shifted_relu(x, 0.0)[:-1]")" &&
		record L1/5_nan "$(cpp_candidate "ext.shifted_relu(x, float(\"nan\"))")"
	} >wrong.jsonl &&
	check wrong.jsonl >out &&
	status_of out >actual &&
	printf "L1/%s\tincorrect\n" 3_off 4_shape 5_nan >expect &&
	test_cmp expect actual &&
	jq -r "select(.id == \"L1/3_off\") | .check.max_abs_err | . > 0.499 and . < 0.501" out >err &&
	echo true >expect &&
	test_cmp expect err
'

test_expect_success 'a null write in C++: crashed, with the signal' '
	record L1/6_segv "$(cpp_candidate "ext.null_write(x)")" | check >out &&
	jq -r ".check | [.status, .correct] | @tsv" out >actual &&
	printf "crashed\tfalse\n" >expect &&
	test_cmp expect actual &&
	jq -r .check.error out | grep "signal 11"
'

test_expect_success 'an endless C++ loop: timeout' '
	record L1/7_spin "$(cpp_candidate "ext.spin(x)")" | check --timeout 20 >out &&
	jq -r ".check | [.status, .ms < 30000] | @tsv" out >actual &&
	printf "timeout\ttrue\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'an exception in forward: runtime_error' '
	record L1/8_raise "$(cpp_candidate "(_ for _ in ()).throw(ValueError(\"kaput\"))")" | check >out &&
	jq -r .check.status out >actual &&
	echo runtime_error >expect &&
	test_cmp expect actual &&
	jq -r .check.error out | grep kaput
'

test_expect_success 'a huge allocation in forward under --memory: oom' '
	record L1/9_huge "$(cpp_candidate "torch.empty(1 << 40)")" | check >out &&
	jq -r .check.status out >actual &&
	echo oom >expect &&
	test_cmp expect actual
'

test_expect_success 'os._exit(0) in forward: crashed' '
	record L1/10_exit "$(cpp_candidate "__import__(\"os\")._exit(0)")" | check >out &&
	jq -r .check.status out >actual &&
	echo crashed >expect &&
	test_cmp expect actual
'

test_expect_success '20 mixed candidates, -j 2: every record, in order, right status' '
	: >mixed.jsonl && : >want &&
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		case $((i % 5)) in
		0) body="ext.shifted_relu(x, 0.0)"; s=correct ;;
		1) body="ext.shifted_relu(x, 0.25)"; s=incorrect ;;
		2) body="ext.null_write(x)"; s=crashed ;;
		3) body="ext.shifted_relu(x, 0.0)[0]"; s=incorrect ;;
		4) body="undefined_name"; s=runtime_error ;;
		esac &&
		record "L1/$i" "$(cpp_candidate "$body")" >>mixed.jsonl &&
		printf "L1/%s\t%s\n" $i $s >>want || exit 1
	done &&
	echo "{\"id\":\"L1/21\",\"ref\":\"x\"}" >>mixed.jsonl &&
	printf "L1/21\tno_code\n" >>want &&
	check -j 2 mixed.jsonl >out &&
	status_of out >actual &&
	test_cmp want actual
'

test_done
