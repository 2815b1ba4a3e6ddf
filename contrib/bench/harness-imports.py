#!/usr/bin/env python3
"""harness-imports.py: what the harness's instruments cost on first use.

Usage: contrib/bench/harness-imports.py [RUNS]

Each step runs RUNS times (default 3), each time in a fresh Python that
has imported torch before the clock starts, and prints the median in ms:
torch.profiler's start against torch.autograd.profiler's with Kineto
(the kernel evidence of dice-check), FlopCounterMode's first count
against dice's own (dice-time's speed-of-light bound),
`import torch._dynamo`, which the first of each pair pulls in, and the
first entry of any TorchDispatchMode, which with torch 2.11 pulls it in
too (the harness now pays it before its job: dice(7)).  On a GPU
when torch has one, else on the CPU.  For BENCHMARKS.md.
"""

import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATADIR = os.environ.get("DICE_DATADIR",
                         os.path.join(HERE, "..", "..", "share", "dice"))

SETUP = r'''
import sys, time
sys.path.insert(0, sys.argv[1])
import torch
cuda = torch.cuda.is_available()
device = "cuda" if cuda else "cpu"
x = torch.ones(8, device=device)
if cuda:
    torch.cuda.synchronize()
conv = torch.nn.Conv2d(3, 8, 3).to(device)
image = torch.randn(2, 3, 32, 32, device=device)
start = time.perf_counter()
'''

STEPS = {
    "import torch._dynamo": "import torch._dynamo",
    "torch.profiler.profile, first start and stop": r'''
from torch.profiler import ProfilerActivity, profile
activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
with profile(activities=activities):
    x * 2
''',
    "torch.autograd.profiler.profile (Kineto), first start and stop": r'''
from torch.autograd import profiler
try:
    p = profiler.profile(use_device=device if cuda else None, use_kineto=True)
except TypeError:
    p = profiler.profile(use_cuda=cuda, use_kineto=True)
with p:
    x * 2
''',
    "FlopCounterMode, first count": r'''
from torch.utils.flop_counter import FlopCounterMode
with FlopCounterMode(display=False):
    conv(image)
''',
    "dice's reference_flops, first count": r'''
from dice_harness.timing import reference_flops
reference_flops(conv, [image])
''',
    "a TorchDispatchMode's first entry, one CPU addition": r'''
from torch.utils._python_dispatch import TorchDispatchMode
class Passing(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))
with Passing():
    torch.ones(1) + 1
''',
}


def run(body):
    code = SETUP + body + "\nprint((time.perf_counter() - start) * 1e3)\n"
    out = subprocess.run([sys.executable, "-c", code,
                          os.path.join(DATADIR, "python")],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return float(out.stdout.strip().splitlines()[-1])


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    import torch
    where = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "CPU"
    print("# torch %s, %s, median of %d fresh processes" % (torch.__version__, where, runs))
    for name, body in STEPS.items():
        times = [t for t in (run(body) for _ in range(runs)) if t is not None]
        print("%-64s %s" % (name, "%.1f ms" % statistics.median(times)
                            if times else "not available in this torch"))


if __name__ == "__main__":
    main()
