# make-fixture.py: judged records for the dice-curate tests, written out
# of Python so that each case reads as what it is.  Printed to stdout.
import json

CODE_A = '''import torch
from torch.utils.cpp_extension import load_inline

src = """
torch::Tensor relu(torch::Tensor x) { return x.clamp_min(0); }
"""
mod = load_inline("relu", cpp_sources=src, functions=["relu"])

class ModelNew(torch.nn.Module):
    def forward(self, x):
        return mod.relu(x)
'''
# The same kernel as CODE_A to anyone but a diff: comments, blank lines,
# spacing inside the C++ source and a C++ comment added.
CODE_A_DUP = '''import torch
from torch.utils.cpp_extension import load_inline   # the builder

src = """
// ReLU, on the CPU
torch::Tensor relu(torch::Tensor x)
{
    return x.clamp_min(0);   /* negatives to zero */
}
"""

mod = load_inline("relu", cpp_sources=src, functions=["relu"])


class ModelNew(torch.nn.Module):
    # the custom op, nothing else
    def forward(self, x):
        return mod.relu(x)
'''
# Differs from CODE_A in one token: not a duplicate.
CODE_A_OTHER = CODE_A.replace("clamp_min(0)", "clamp_min(0.0)")
CODE_B = CODE_A.replace("relu", "gelu")
CODE_C = CODE_A.replace("relu", "gemm")


def runs(*speedups):
    return [{"status": "ok", "speedup": s, "ref_ms": 1.0,
             "new_ms": round(1.0 / s, 6)} if s is not None else
            {"status": "runtime_error", "speedup": None, "ref_ms": None,
             "new_ms": None} for s in speedups]


def rec(name, id_, level, code, *, status="correct", deceptive=False,
        time=None, text=True, index=0):
    r = {"id": id_, "problem": {"level": level},
         "ref": "import torch\n",
         "prompt": {"text": "Write ModelNew for " + id_},
         "sample": {"index": index, "model": "dream-7b",
                    "text": ("Here it is.\n```python\n" + code + "```\n")
                    if text else None},
         "code": code,
         "check": {"status": status, "device": "cpu",
                   "deception": {"deceptive": deceptive,
                                 "because": ["pytorch_only"] if deceptive else [],
                                 "flags": ["pytorch_only"] if deceptive else [],
                                 "evidence": {}}},
         "fixture": name}
    if time is not None:
        r["time"] = time
    return r


def timed(rs, confirmed_speedup=..., confirmed=None, deception=None,
          speedup=None):
    """A time object as dice-time --runs writes it; the confirmed figure is
    worked out here by the documented rule (the worst run, null if any run
    failed) unless given."""
    ss = [r["speedup"] for r in rs]
    worst = None if None in ss else min(ss)
    t = {"status": "ok", "device": "cpu",
         "speedup": speedup if speedup is not None else
         sorted(s for s in ss if s is not None)[len(ss) // 2],
         "runs": rs}
    t["confirmed_speedup"] = worst if confirmed_speedup is ... else confirmed_speedup
    t["confirmed"] = (t["confirmed_speedup"] is not None if confirmed is None
                      else confirmed)
    if deception is not None:
        t["deception"] = deception
    return t


records = [
    # kept: worst of 2.5, 2.2, 3.0 is 2.2; the median 2.5 is time.speedup
    rec("kept-a", "L1/1_A", 1, CODE_A, time=timed(runs(2.5, 2.2, 3.0))),
    # the same code again (another sample): a duplicate
    rec("dup-a", "L1/1_A", 1, CODE_A_DUP, index=1,
        time=timed(runs(2.6, 2.4, 2.9))),
    # one token different: kept
    rec("kept-a2", "L1/1_A", 1, CODE_A_OTHER, index=2,
        time=timed(runs(4.0, 3.5, 3.9))),
    # deceptive in dice-check, fast as can be
    rec("deceptive-check", "L1/1_A", 1, CODE_B, deceptive=True, index=3,
        time=timed(runs(10.0, 10.0, 10.0))),
    # caught by dice-time
    rec("deceptive-time", "L1/2_B", 1, CODE_B,
        time=timed(runs(5.0, 5.0, 5.0), deception={
            "deceptive": True, "because": ["side_stream"],
            "flags": ["side_stream"],
            "evidence": {"side_stream": "dynamic: work after the timer"}})),
    # one of the runs failed: no confirmed figure
    rec("failed-run", "L1/2_B", 1, CODE_B.replace("x)", "x )"), index=1,
        time=timed(runs(3.0, None, 3.1))),
    # fast once, slow on a repeat: below the threshold once confirmed
    rec("unconfirmed", "L2/3_C", 2, CODE_C, time=timed(runs(2.5, 1.1, 2.4))),
    # timed once (no --runs): only with --unconfirmed
    rec("single-run", "L2/3_C", 2, CODE_C.replace("x)", "y)"), index=1,
        time={"status": "ok", "device": "cpu", "speedup": 2.4}),
    # incorrect
    rec("incorrect", "L2/4_D", 2, CODE_C, status="incorrect",
        deceptive=None, time={"skipped": "not correct"}),
    # checked with --no-robust: nobody looked for cheats
    rec("no-robust", "L2/4_D", 2, CODE_C, deceptive=None, index=1,
        time=timed(runs(3.0, 3.0, 3.0))),
    # correct, never timed
    rec("untimed", "L2/4_D", 2, CODE_C.replace("x)", "z)"), index=2),
    # kept, the record keeps no completion: the code in a fence
    rec("kept-c", "L2/3_C", 2, CODE_C.replace("x)", "w)"), index=2,
        text=False, time=timed(runs(4.0, 4.5, 5.0))),
]
for r in records:
    print(json.dumps(r))
