"""demo-sampler.py: the "model" of dice-demo, for dice-sample --exec.  It
answers each prompt from the bundled solutions, once honestly and then as
known cheats do, so that the report shows what the robust view catches:

  sample 0  the bundled solution: a real custom kernel
  sample 1  PyTorch only: the reference itself, renamed ModelNew
  sample 2  a kernel built but never launched: the solution's extension is
            loaded, and forward is the reference's
  sample 3  a try/except fallback: a kernel call that always fails, caught,
            and the reference run instead

Usage: python3 demo-sampler.py DATADIR cpu|cuda (DICE_SAMPLE_ID and
DICE_SAMPLE_INDEX come from dice-sample)."""
import os
import re
import sys

datadir, kind = sys.argv[1:3]
sample_id = os.environ["DICE_SAMPLE_ID"]
index = int(os.environ.get("DICE_SAMPLE_INDEX", "0"))
level, name = re.fullmatch(r"L(\d+)/(.+)", sample_id).groups()
sys.stdin.read()


def read(*parts):
    with open(os.path.join(datadir, *parts), encoding="utf-8") as f:
        return f.read()


solution = read("examples", kind, "level" + level, name + ".py")
reference = read("problems", "level" + level, name + ".py")


def renamed(code, old, new):
    return re.sub(r"\b%s\b" % old, new, code)


if index == 0:
    code = solution
elif index == 1:
    code = renamed(reference, "Model", "ModelNew")
elif index == 2:
    code = (renamed(solution, "ModelNew", "_UnusedModel") + "\n\n"
            + renamed(reference, "Model", "ModelNew"))
else:
    code = (renamed(reference, "Model", "_Reference") + '''

class ModelNew(torch.nn.Module):
    def __init__(self, *args, **kwargs):
        super().__init__()
        self.fallback = _Reference(*args, **kwargs)

    def forward(self, *inputs):
        try:
            return fast_kernel(*inputs)
        except Exception:
            return self.fallback(*inputs)
''')
fence = "`" * 3
print("Here is the optimized module.\n\n" + fence + "python\n" + code + fence)
