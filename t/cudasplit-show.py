#!/usr/bin/env python3
"""cudasplit-show.py: split a CUDA source as the harness would (t4911).

  cudasplit-show.py FILE     FILE holds cuda_sources (or a candidate .py,
                             whose string holding __global__ is taken);
                             prints "split KERNEL..." and writes
                             FILE.device.cu and FILE.host.cpp, or prints
                             "unsure: WHY"
"""

import ast
import os
import sys

sys.path.insert(0, os.path.join(os.environ.get("DICE_DATADIR", ""), "python"))
from dice_harness import cudasplit  # noqa: E402

path = sys.argv[1]
with open(path, encoding="utf-8") as f:
    text = f.read()
if path.endswith(".py"):
    text = next(n.value for n in ast.walk(ast.parse(text))
                if isinstance(n, ast.Constant) and isinstance(n.value, str)
                and "__global__" in n.value)
found, why = cudasplit.try_split(text)
if found is None:
    print("unsure: " + why)
    sys.exit(0)
base = os.path.basename(path)
with open(base + ".device.cu", "w") as f:
    f.write(found.device)
with open(base + ".host.cpp", "w") as f:
    f.write(found.host)
print(" ".join(["split"] + found.kernels))
