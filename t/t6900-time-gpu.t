#!/bin/sh
test_description='dice-time on a GPU: side streams, doubled work, the L2 flush'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

test_have_prereq JQ || skip_all 'jq is needed'
test_have_prereq HARNESS || skip_all 'needs torch and the harness'
test_have_prereq GPU || skip_all 'needs a GPU'

# Pure-torch candidates only: nothing is built, on the device or here.
DICE_CACHE=$PWD/cache; export DICE_CACHE
tm () { dice-time -q --device cuda -j 1 --all "$@"; }

# A compute-bound reference: a 4096x4096 fp32 matrix product (about a
# millisecond or more on any current GPU).
MM_REF='import torch
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        return torch.matmul(x, x)
def get_inputs():
    return [torch.randn(4096, 4096)]
def get_init_inputs():
    return []'

# A memory-bound reference that reads 12 MiB and writes 4 bytes.  Every
# call gets fresh inputs, made just before it: without the flush the
# input the call reads was written a moment ago and is still in L2 (an
# H100's or H200's 50 MB, though each of its two halves holds what the
# SMs next to it use, so about 25 MB counts, and the two sides' inputs
# together are 24 MiB); with the flush it comes from HBM.
SUM_N=3145728
SUM_REF="import torch
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        return x.sum()
def get_inputs():
    return [torch.randn($SUM_N)]
def get_init_inputs():
    return []"

mm_candidate () {
	printf '%s\n' "import torch" \
		"class ModelNew(torch.nn.Module):" \
		"    def __init__(self):" \
		"        super().__init__()" \
		"    def forward(self, x):" "$1"
}

num () { jq -r "select(.id == \"$2\") | $3" "$1"; }
ratio_within () {
	awk -v a="$1" -v b="$2" -v lo="$3" -v hi="$4" \
		'BEGIN { r = a / b; print "ratio " r; exit !(r >= lo && r <= hi) }'
}

test_expect_success 'work on a side stream is counted and flagged side_stream' '
	record L1/1_side "$(mm_candidate "        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            y = torch.matmul(x, x)
        return y")" "$MM_REF" >side.jsonl &&
	tm --trials 30 side.jsonl >out &&
	jq -r ".time | [.status, (.flags | index(\"side_stream\") != null), .new.event_median < 0.5 * .new_ms] | @tsv" out >actual &&
	printf "ok\ttrue\ttrue\n" >expect &&
	test_cmp expect actual &&
	ratio_within "$(num out L1/1_side .time.speedup)" 1 0.7 1.4
'

test_expect_success 'the same work twice is about 2x slower' '
	record L1/2_twice "$(mm_candidate "        y = torch.matmul(x, x)
        y = torch.matmul(x, x)
        return y")" "$MM_REF" >twice.jsonl &&
	tm --trials 30 twice.jsonl >out &&
	jq -r ".time | [.status, (.flags | index(\"side_stream\") != null)] | @tsv" out >actual &&
	printf "ok\tfalse\n" >expect &&
	test_cmp expect actual &&
	ratio_within "$(num out L1/2_twice .time.new_ms)" "$(num out L1/2_twice .time.ref_ms)" 1.7 2.3
'

test_expect_success '--runs 2 on the GPU: two fresh processes agree, the worse run is the one confirmed' '
	tm --runs 2 --trials 30 twice.jsonl >runs.out &&
	jq -c "[.time.runs[].status]" runs.out >actual &&
	echo "[\"ok\",\"ok\"]" >expect &&
	test_cmp expect actual &&
	jq -e ".time | .confirmed == true and .confirmed_speedup == ([.runs[].speedup] | min)" runs.out &&
	ratio_within "$(num runs.out L1/2_twice .time.confirmed_speedup)" 0.5 0.8 1.25
'

test_expect_success 'a speedup above --max-speedup is timed again in a fresh process on the GPU, and holds' '
	tm --max-speedup 0.1 --trials 30 twice.jsonl >verify.out &&
	jq -e ".time | (.runs | length) == 2 and .runs[1].status == \"ok\" and .verified == true and (.flags | index(\"excessive_speedup\")) != null" verify.out
'

test_expect_success 'record says where: device, clocks, L2 flush size' '
	jq -r ".time | [.device != null, .driver != null, .cuda != null, .flush_bytes > 0, (.clocks == null or .clocks.sm > 0)] | @tsv" out >actual &&
	printf "true\ttrue\ttrue\ttrue\ttrue\n" >expect &&
	test_cmp expect actual
'

# The flush's effect is a few microseconds (12 MiB from HBM against L2),
# well under what one call of x.sum() costs in dice-time's windows (30 to
# 80 us on an H200, mostly the op's dispatch on the host while the GPU
# waits, which the L2 does not change: the windows measured it as 0.79x
# there).  So the candidate times its own kernel: the launch queued behind
# a millisecond of GPU sleep, events around the kernel alone.  At its
# 80th call it reports the median of the calls after the 20th and stops.
sum_probe () {
	printf '%s\n' "import torch" \
		"class ModelNew(torch.nn.Module):" \
		"    def __init__(self):" \
		"        super().__init__()" \
		"        self.times = []" \
		"    def forward(self, x):" \
		"        start = torch.cuda.Event(enable_timing=True)" \
		"        end = torch.cuda.Event(enable_timing=True)" \
		"        torch.cuda._sleep(2000000)" \
		"        start.record()" \
		"        y = x.sum()" \
		"        end.record()" \
		"        end.synchronize()" \
		"        self.times.append(start.elapsed_time(end))" \
		"        if len(self.times) == 80:" \
		"            t = sorted(self.times[20:])" \
		"            raise RuntimeError(\"sum_us=%.3f\" % (1000 * t[len(t) // 2]))" \
		"        return y"
}
sum_us () { jq -r ".time.error" "$1" | sed -n "s/^RuntimeError: sum_us=//p"; }

test_expect_success 'the L2 flush makes a memory-bound kernel measurably slower' '
	record L1/3_sum "$(sum_probe)" "$SUM_REF" >sum.jsonl &&
	tm --trials 100 --warmup 10 sum.jsonl >flushed &&
	DICE_TIME_NO_FLUSH=1 tm --trials 100 --warmup 10 sum.jsonl >cached &&
	flushed_us=$(sum_us flushed) && cached_us=$(sum_us cached) &&
	test -n "$flushed_us" && test -n "$cached_us" &&
	test_diag "x.sum() of 12 MiB on the GPU alone: $flushed_us us flushed, $cached_us us not" &&
	ratio_within "$flushed_us" "$cached_us" 1.15 100
'

test_done
