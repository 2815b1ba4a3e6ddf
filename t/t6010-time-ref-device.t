#!/bin/sh
test_description='dice-time --ref-times: reference times from another kind of device are refused unless forced'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

fake_harness_env

# A stand-in timing run on DEVICE: the reference REF ms, the candidate NEW.
fake_time () {
	printf '%s\n' "import json" \
		"t = $(fake_timing "$1" "$2" "$3")" \
		"RESULT = json.dumps({'compile': {'ok': True}, 'time': t})"
}

checked () {
	record "$1" "$2" | jq -c '. + {check: {correct: true}}'
}

# Every run here times on the CPU, whatever the machine has.
tm () { dice-time -q --device cpu "$@"; }

test_expect_success 'setup: reference times from an H100, from a CPU, and KernelBench'"'"'s' '
	fake_harness fake &&
	checked L1/1_A "$(fake_time "[6,6,6]" "[3,3,3]" "NVIDIA H100 80GB HBM3")" | tm >h100.jsonl &&
	checked L1/1_A "$(fake_time "[6,6,6]" "[3,3,3]" "cpu: x86_64")" | tm >cpu.jsonl &&
	echo "{\"level1\": {\"1_A.py\": {\"mean\": 6.0, \"num_trials\": 100}}}" >kb.json &&
	checked L1/1_A "$(fake_time None "[2,2,2]" "cpu: x86_64")" >in.jsonl
'

test_expect_success 'times from a GPU for a run on the CPU: one error naming both, exit 2, nothing run' '
	test_expect_code 2 tm --ref-times h100.jsonl in.jsonl >out 2>err &&
	test_must_be_empty out &&
	echo "dice-time: the reference times in '"'"'h100.jsonl'"'"' were measured on NVIDIA H100 80GB HBM3, but this run times on the CPU: use --force-ref-times to use them anyway, or --ref-device to say where they were measured" >expect &&
	test_cmp expect err
'

test_expect_success 'KernelBench'"'"'s JSON is a GPU'"'"'s: refused on the CPU' '
	test_expect_code 2 tm --ref-times kb.json in.jsonl >out 2>err &&
	test_must_be_empty out &&
	test_line_count = 1 err &&
	grep "measured on a GPU (KernelBench.s baseline JSON does not say which), but this run times on the CPU" err
'

test_expect_success '--force-ref-times uses them anyway' '
	tm --force-ref-times --ref-times h100.jsonl in.jsonl >out 2>err &&
	test_must_be_empty err &&
	jq -c ".time | [.ref_ms + 0, .new_ms + 0, .speedup + 0, .baseline]" out >actual &&
	echo "[6,2,3,\"file\"]" >expect &&
	test_cmp expect actual &&
	tm --force-ref-times --ref-times kb.json in.jsonl >out &&
	jq -c ".time.speedup + 0" out >actual &&
	echo 3 >expect &&
	test_cmp expect actual
'

test_expect_success '--ref-device says where they were measured' '
	tm --ref-device cpu --ref-times kb.json in.jsonl >out 2>err &&
	test_must_be_empty err &&
	jq -c ".time.speedup + 0" out >actual &&
	echo 3 >expect &&
	test_cmp expect actual &&
	test_expect_code 2 tm --ref-device "NVIDIA A100" --ref-times cpu.jsonl in.jsonl 2>err &&
	grep "measured on NVIDIA A100, but this run times on the CPU" err &&
	test_expect_code 2 tm --ref-device= --ref-times cpu.jsonl in.jsonl 2>err &&
	grep "^dice-time: invalid --ref-device" err
'

test_expect_success 'times from the same kind of device are taken' '
	tm --ref-times cpu.jsonl in.jsonl >out 2>err &&
	test_must_be_empty err &&
	jq -c ".time.speedup + 0" out >actual &&
	echo 3 >expect &&
	test_cmp expect actual
'

test_expect_success 'refused option values read as every other tool'"'"'s: invalid --OPTION '"'"'ARG'"'"' (WHAT)' '
	test_expect_code 2 dice-time --baseline lazy in.jsonl 2>err &&
	grep "^dice-time: invalid --baseline .lazy. (eager or compile)$" err &&
	test_expect_code 2 dice-check --device tpu in.jsonl 2>err &&
	grep "^dice-check: invalid --device .tpu. (auto, cpu or cuda)$" err &&
	test_expect_code 2 dice-check --tolerance loose in.jsonl 2>err &&
	grep "^dice-check: invalid --tolerance .loose. (dice or kernelbench)$" err
'

test_done
