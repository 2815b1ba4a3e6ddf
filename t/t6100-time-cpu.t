#!/bin/sh
test_description='dice-time on a CPU torch: real timings of C++ candidates'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

cpu_harness_env
tm () { dice-time -q --device cpu --all "$@"; }

# ReLU of 2^20 elements: large enough that the C++ loop, not Python,
# dominates each call.
BIG_REF='import torch
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        return torch.relu(x)
def get_inputs():
    return [torch.randn(1024, 1024)]
def get_init_inputs():
    return []'

# num FILE ID FILTER: the value of jq FILTER for the record ID.
num () { jq -r "select(.id == \"$2\") | $3" "$1"; }

# Check that A/B lies in [LO, HI].
ratio_within () {
	awk -v a="$1" -v b="$2" -v lo="$3" -v hi="$4" \
		'BEGIN { r = a / b; print "ratio " r; exit !(r >= lo && r <= hi) }'
}

# The two records are timed in separate processes, and make check runs
# other tests beside this one on CI's two cores: the band is wide (1.66
# and 3.25 were seen there).  Their speedups are no guide on a CPU: the
# candidate's allocations slow the reference timed beside it (speedup
# once/twice 0.46 was seen).  The GPU test (t6900) holds the tight bound.
test_expect_success 'the work once and twice: twice is clearly slower' '
	{
		record L1/1_once "$(cpp_candidate "ext.shifted_relu(x, 0.0)")" "$BIG_REF" &&
		record L1/2_twice "$(cpp_candidate "ext.shifted_relu(ext.shifted_relu(x, 0.0), 0.0)")" "$BIG_REF"
	} >work.jsonl &&
	tm --trials 30 --warmup 3 work.jsonl >out &&
	jq -r ".time | [.status, .baseline, .ref.n, .new.n, (.device | startswith(\"cpu\")), .flush_bytes, .new.event_median != null] | @tsv" out >actual &&
	printf "ok\teager\t30\t30\ttrue\t0\ttrue\n" >expect &&
	printf "ok\teager\t30\t30\ttrue\t0\ttrue\n" >>expect &&
	test_cmp expect actual &&
	ratio_within "$(num out L1/2_twice .time.new_ms)" "$(num out L1/1_once .time.new_ms)" 1.3 5 &&
	ratio_within "$(num out L1/1_once ".time.ref_ms / .time.new_ms")" "$(num out L1/1_once .time.speedup)" 0.99 1.01
'

test_expect_success 'a candidate that is the reference: speedup about 1' '
	record L1/9_same "$(candidate "" "")" "$BIG_REF" >same.jsonl &&
	tm --trials 30 --warmup 3 same.jsonl >out &&
	ratio_within "$(num out L1/9_same .time.speedup)" 1 0.67 1.5
'

test_expect_success '--runs 2: two fresh processes, the worst speedup confirmed, by the documented rule' '
	tm --runs 2 --trials 30 --warmup 3 same.jsonl >out &&
	jq -c "[.time.runs[].status]" out >actual &&
	echo "[\"ok\",\"ok\"]" >expect &&
	test_cmp expect actual &&
	jq "[.time.runs[].speedup] | min" out >expect &&
	jq .time.confirmed_speedup out >actual &&
	test_cmp expect actual &&
	jq "[.time.runs[].speedup] | max <= 2 * min" out >expect &&
	jq .time.confirmed out >actual &&
	test_cmp expect actual &&
	jq -e ".time.runs[0].speedup == .time.speedup and (.time | has(\"verified\") | not)" out
'

test_expect_success 'a speedup above --max-speedup is timed again in a fresh process' '
	tm --max-speedup 0.01 --trials 30 --warmup 3 same.jsonl >out &&
	jq -e ".time | (.runs | length) == 2 and .runs[1].status == \"ok\" and .verified == .confirmed and (.flags | index(\"excessive_speedup\")) != null" out
'

test_expect_success 'work hidden in a thread is counted, and flagged' '
	record L1/3_thread "$(cpp_candidate "_hide(x)")" "$BIG_REF" |
	jq -c ".code |= sub(\"class ModelNew\"; \"import threading, time\ndef _hide(x):\n    out = torch.empty_like(x)\n    def work():\n        time.sleep(0.02)\n        out.copy_(ext.shifted_relu(x, 0.0))\n    threading.Thread(target=work).start()\n    return out\nclass ModelNew\")" >thread.jsonl &&
	tm --trials 10 --warmup 2 thread.jsonl >out &&
	jq -r ".time | [.status, .new_ms >= 20, .new.event_median < 10, (.flags | index(\"threads\") != null), (.flags | index(\"side_stream\") != null)] | @tsv" out >actual &&
	printf "ok\ttrue\ttrue\ttrue\ttrue\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a noisy candidate is unstable' '
	record L1/4_noisy "$(candidate "import random, time" "time.sleep(random.uniform(0.001, 0.02)); return torch.relu(x)")" >noisy.jsonl &&
	tm --trials 20 --warmup 1 noisy.jsonl >out &&
	jq -r ".time | [.status, (.new.iqr / .new.median > 0.1), (.flags | index(\"unstable\") != null)] | @tsv" out >actual &&
	printf "ok\ttrue\ttrue\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'untimed records pass through untouched but for time.skipped' '
	record L1/5_wrong "$(candidate "" "")" | jq -c ". + {check: {correct: false}}" >wrong.jsonl &&
	dice-time -q --device cpu wrong.jsonl >out &&
	jq -c "del(.time)" out >actual &&
	test_cmp wrong.jsonl actual &&
	jq -c .time out >actual &&
	echo "{\"skipped\":\"not correct\"}" >expect &&
	test_cmp expect actual
'

test_expect_success '--ref-times with KernelBench baseline JSON: the reference is not timed' '
	echo "{\"level1\": {\"19_ReLU.py\": {\"mean\": 100.0, \"std\": 1.0, \"min\": 99.0, \"max\": 103.0, \"num_trials\": 100}}}" >kb.json &&
	record L1/19_ReLU "$(candidate "" "")" >relu.jsonl &&
	tm --trials 5 --warmup 1 --ref-device cpu --ref-times kb.json relu.jsonl >out &&
	jq -r ".time | [.status, .baseline, .ref_ms + 0, .ref.max + 0, (((.speedup - 100 / .new_ms) | fabs) < 0.01 * .speedup)] | @tsv" out >actual &&
	printf "ok\tfile\t100\t103\ttrue\n" >expect &&
	test_cmp expect actual
'

test_expect_success '--baseline compile on a torch without torch.compile: one error before any candidate, exit 2' '
	if "$DICE_PYTHON" -c "import torch, sys; sys.exit(hasattr(torch, \"compile\"))"; then
		test_expect_code 2 tm --trials 2 --warmup 0 --baseline compile relu.jsonl >out 2>err &&
		test_must_be_empty out &&
		test_line_count = 1 err &&
		grep "^dice-time: --baseline compile needs torch.compile: torch .* has no torch.compile" err
	fi
'

test_expect_success 'a crash and an exception while timed: statuses, and the run goes on' '
	{
		record L1/6_segv "$(cpp_candidate "ext.null_write(x)")" &&
		record L1/7_raise "$(candidate "" "raise ValueError(\"kaput\")")" &&
		record L1/8_fine "$(candidate "" "")"
	} >bad.jsonl &&
	tm --trials 3 --warmup 0 bad.jsonl >out &&
	jq -r "[.id, .time.status] | @tsv" out >actual &&
	printf "L1/6_segv\tcrashed\nL1/7_raise\truntime_error\nL1/8_fine\tok\n" >expect &&
	test_cmp expect actual &&
	num out L1/6_segv .time.error | grep "signal 11" &&
	num out L1/7_raise .time.error | grep kaput
'

test_done
