#!/bin/sh
test_description='dice-time: the reference FLOPs behind the speed-of-light bound'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

test_have_prereq HARNESS || skip_all 'needs torch and the harness'
"$DICE_PYTHON" -c 'import torch.utils.flop_counter' 2>/dev/null ||
	skip_all 'torch before 2.1 has no torch.utils.flop_counter'

# dice counts with flop_counter's formulas through a dispatch mode of its
# own (FlopCounterMode imports torch._dynamo, seconds per run); the sums
# must be FlopCounterMode's, on CPU tensors, so this runs without a GPU.
flops () {
	PYTHONPATH=$DICE_DATADIR/python "$DICE_PYTHON" -c '
import sys, torch
from torch.utils.flop_counter import FlopCounterMode
from dice_harness.timing import reference_flops
torch.manual_seed(0)
F = torch.nn.functional
cases = {
    "linear": (torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU()),
               [torch.randn(8, 64)]),
    "conv2d": (torch.nn.Conv2d(3, 16, 3, padding=1), [torch.randn(2, 3, 32, 32)]),
    "convtranspose3d": (torch.nn.ConvTranspose3d(4, 8, 3, stride=2),
                        [torch.randn(1, 4, 6, 6, 6)]),
    "bmm_softmax": (lambda a, b: torch.softmax(torch.bmm(a, b), -1),
                    [torch.randn(4, 16, 8), torch.randn(4, 8, 16)]),
    "broadcast_matmul": (lambda a, b: torch.matmul(a, b),
                         [torch.randn(3, 5, 7, 9), torch.randn(9, 4)]),
    "addmm_chain": (lambda x, w, b: F.linear(F.gelu(F.linear(x, w, b)), w.t()),
                    [torch.randn(16, 32), torch.randn(32, 32), torch.randn(32)]),
    "elementwise": (lambda x: torch.relu(x) * 2 + 1, [torch.randn(1024)]),
}
name = sys.argv[1]
fn, inputs = cases[name]
mode = FlopCounterMode(display=False)
with torch.no_grad():
    with mode:
        fn(*inputs)
    ours = reference_flops(fn, inputs)
print(name, mode.get_total_flops() or None, ours)
' "$1"
}

for name in linear conv2d convtranspose3d bmm_softmax broadcast_matmul addmm_chain
do
	test_expect_success "$name: FlopCounterMode's sum, and not zero" "
		flops $name >out &&
		read -r _ theirs ours <out &&
		test \"\$ours\" != None && test \"\$ours\" -gt 0 &&
		test \"\$ours\" = \"\$theirs\"
	"
done

test_expect_success 'element-wise work counts no FLOPs (no bound from FLOPs)' '
	flops elementwise >out &&
	echo "elementwise None None" >expect &&
	test_cmp expect out
'

test_expect_success 'the FlopCounterMode fallback (a torch without the registry) agrees' '
	PYTHONPATH=$DICE_DATADIR/python "$DICE_PYTHON" -c "
import torch
from dice_harness.timing import reference_flops, _flops_by_counter_mode
conv = torch.nn.Conv2d(3, 8, 3)
x = torch.randn(2, 3, 16, 16)
with torch.no_grad():
    print(reference_flops(conv, [x]) == _flops_by_counter_mode(conv, [x]) > 0)
" >out &&
	echo True >expect &&
	test_cmp expect out
'

test_expect_success 'a reference that raises gives no count, not an error' '
	PYTHONPATH=$DICE_DATADIR/python "$DICE_PYTHON" -c "
import torch
from dice_harness.timing import reference_flops
def broken(x):
    torch.mm(x, x)
    raise ValueError(\"no\")
print(reference_flops(broken, [torch.randn(4, 4)]))
" >out &&
	echo None >expect &&
	test_cmp expect out
'

test_done
