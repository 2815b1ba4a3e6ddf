#!/bin/sh
test_description='the time job: a candidate cannot fool the timer (time.deception), precision'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

test_have_prereq JQ || skip_all 'jq is needed'
test_have_prereq HARNESS || skip_all 'needs torch and the harness'

CORPUS=$TEST_SRCDIR/deception/time
HARNESS_TEST_CACHE=$PWD/cache; export HARNESS_TEST_CACHE
h () { "$DICE_PYTHON" "$TEST_SRCDIR/harness-tests.py" "$@"; }

# timed NAME REF CODE [FIELD=JSON...]: the time job's result in NAME.out.
timed () {
	_name=$1 _ref=$2 _code=$3
	shift 3
	h job time "$_ref" "$_code" trials=20 warmup=2 "$@" >"$_name.job" &&
	h run "$_name.job" --log "$_name.log" >"$_name.out"
}

test_expect_success 'the corpus: every trick flagged, every look-alike honest' '
	grep -v "^#" "$CORPUS/labels" | awk NF | while read name ref want flag; do
		r=$CORPUS/ref-$ref.py
		test -f "$r" || r=$CORPUS/../ref-$ref.py
		timed "$name" "$r" "$CORPUS/$name.py" || exit 1
		jq -r --arg id "$name" ".time | [\$id, .status,
			(if .deception.deceptive then \"yes\" else \"no\" end),
			(.deception.flags | join(\",\"))] | @tsv" "$name.out" || exit 1
	done >statuses &&
	cut -f2 statuses | sort -u >actual &&
	echo ok >expect &&
	test_cmp expect actual &&
	cut -f1,3,4 statuses >got &&
	corpus_score got "$CORPUS/labels" >summary &&
	cat summary
'
cat "$TRASH_DIRECTORY/summary" 2>/dev/null

test_expect_success 'deceptive results say why, with evidence for every flag' '
	for f in timer-dict.out cache-ptr.out ref-gc.out graph-helper.out; do
		jq -r ".time.deception | [.deceptive, (.because == .flags),
			([.flags[] as \$f | .evidence[\$f] | length > 0] | all)] | @tsv" "$f"
	done | sort -u >actual &&
	printf "true\ttrue\ttrue\n" >expect &&
	test_cmp expect actual &&
	jq -r ".time.deception.evidence.timer_patched" timer-sysmodules.out | grep "sys.modules" &&
	jq -r ".time.deception.evidence.stale_output" cache-shape.out | grep "fresh inputs"
'

test_expect_success 'every call gets inputs no earlier call saw, made outside the timed window' '
	cat >seen.py <<-EOF &&
	import torch
	class ModelNew(torch.nn.Module):
	    def forward(self, x):
	        with open("$PWD/seen.txt", "a") as f:
	            f.write("%d %r %d\n" % (id(x), round(float(x.sum()), 6), x._version))
	        return torch.relu(x)
	EOF
	timed seen "$CORPUS/../ref-relu.py" seen.py &&
	test "$(jq -r .time.status seen.out)" = ok &&
	test_line_count = 22 seen.txt &&
	cut -d" " -f2 seen.txt | sort -u >sums &&
	test_line_count = 22 sums &&
	cut -d" " -f3 seen.txt | sort -u >versions &&
	echo 0 >expect &&
	test_cmp expect versions
'

# The reference loops in Python: the C++ loop is 10-20x faster when the
# machine is quiet; on two loaded cores 8x was seen, so the bound is 4x.
test_expect_success 'an honest C++ kernel far faster than a slow reference stays honest' '
	test_have_prereq CXXBUILD || return 0
	cat >slow-ref.py <<-\EOF &&
	import torch
	class Model(torch.nn.Module):
	    def forward(self, x):
	        return torch.tensor([[max(v, 0.0) for v in row] for row in x.tolist()])
	def get_inputs():
	    return [torch.randn(1024, 64)]
	def get_init_inputs():
	    return []
	EOF
	cpp_candidate "ext.shifted_relu(x, 0.0)" >fast.py &&
	timed fast slow-ref.py fast.py &&
	jq -r ".time | [.status, .deception.deceptive, (.deception.flags | length),
		((.ref | add) > 4 * (.new | add))] | @tsv" fast.out >actual &&
	printf "ok\tfalse\t0\ttrue\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'no speed-of-light bound on the CPU' '
	jq -r ".time.speed_of_light_ms" honest-workspace.out >actual &&
	echo null >expect &&
	test_cmp expect actual
'

cat >bf16.py <<\EOF
import torch
class ModelNew(torch.nn.Module):
    def forward(self, x):
        assert x.dtype == torch.bfloat16, "got %s" % x.dtype
        return torch.relu(x)
EOF

test_expect_success 'precision bf16: inputs and weights cast, recorded' '
	timed bf16 "$CORPUS/ref-linear.py" "$CORPUS/honest-weights.py" precision=bf16 &&
	jq -r ".time | [.status, .precision, .deception.deceptive] | @tsv" bf16.out >actual &&
	printf "ok\tbf16\tfalse\n" >expect &&
	test_cmp expect actual &&
	timed bf16b "$CORPUS/../ref-relu.py" bf16.py precision=bf16 &&
	test "$(jq -r .time.status bf16b.out)" = ok &&
	timed fp32 "$CORPUS/../ref-relu.py" bf16.py &&
	jq -r ".time | [.status, .precision] | @tsv" fp32.out >actual &&
	printf "runtime_error\tfp32\n" >expect &&
	test_cmp expect actual &&
	jq -r .time.error fp32.out | grep "got torch.float32"
'

test_expect_success 'precision in the check job: cast, tolerance at least 1e-2, recorded' '
	h job check "$CORPUS/../ref-relu.py" bf16.py precision=bf16 atol=0.001 >check.job &&
	h run check.job >check.out &&
	jq -r ".check | [.status, .precision, .atol >= 0.01, .rtol >= 0.01] | @tsv" check.out >actual &&
	printf "correct\tbf16\ttrue\ttrue\n" >expect &&
	test_cmp expect actual &&
	h job check "$CORPUS/../ref-relu.py" bf16.py >check32.job &&
	h run check32.job >check32.out &&
	jq -r ".check | [.status, .precision, .atol] | @tsv" check32.out >actual &&
	printf "runtime_error\tfp32\t0.01\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a weight made in half precision passes only under that precision' '
	h job check "$CORPUS/ref-linear.py" "$CORPUS/honest-weights.py" precision=fp16 >h.job &&
	h run h.job >h.out &&
	jq -r ".check | [.precision, .status] | @tsv" h.out >actual &&
	grep "^fp16	" actual
'

test_expect_success 'an unknown precision is a bad job (exit 2, no result)' '
	h job time "$CORPUS/../ref-relu.py" bf16.py precision=fp8 >bad.job &&
	test_expect_code 2 h run bad.job --log bad.log >bad.out &&
	test_must_be_empty bad.out &&
	grep "precision must be fp32, fp16 or bf16" bad.log
'

cat >graph-ref.py <<\EOF
import sys
import torch
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.g = None
    def forward(self, x):
        if self.g is None:
            self.x = x.clone()
            self.inner = sys.modules["dice_ref"].Model()
            self.g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.g):
                self.y = self.inner(self.x)
        self.g.replay()
        return self.y
EOF

# On a GPU: the reference's work captured in a CUDA graph and replayed,
# and the speed-of-light bound of an honest candidate.
test_expect_success GPU 'GPU: a replayed graph of the reference is flagged; the bound is there' '
	timed graph-ref "$CORPUS/../ref-relu.py" graph-ref.py device=cuda &&
	jq -r ".time.deception.flags | [index(\"cuda_graph\") != null, index(\"reference_forward\") != null] | @tsv" graph-ref.out >actual &&
	printf "true\ttrue\n" >expect &&
	test_cmp expect actual &&
	timed ws "$CORPUS/../ref-relu.py" "$CORPUS/honest-workspace.py" device=cuda &&
	jq -r ".time | [.status, .speed_of_light_ms > 0, .deception.deceptive] | @tsv" ws.out >actual &&
	printf "ok\ttrue\tfalse\n" >expect &&
	test_cmp expect actual
'

test_done
