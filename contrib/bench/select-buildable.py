#!/usr/bin/env python3
"""select-buildable.py: keep the CUDA load_inline candidates whose bindings compile.

Usage: contrib/bench/select-buildable.py [--seed S] [--limit N] RECORDS > KEPT

RECORDS: JSON lines with `code` (and `ref`), as cold-build.py reads them.
Many published candidates build nothing: their load_inline binds a
__global__ kernel or a function cpp_sources never declares, the build
fails, and a try/except falls back to PyTorch.  A cold-build benchmark
that draws those spends minutes of GPU-machine time on builds that were
never going to succeed.  This runs on the development machine, without a
GPU, and keeps a candidate when

  - its code calls load_inline with cuda_sources (caught in a child
    process with load_inline replaced, torch.cuda.is_available made true,
    by loading the module, making ModelNew, then calling it on the CPU:
    a candidate that moves its inputs to the GPU before it builds is not
    caught, and is counted apart);
  - main.cpp as torch writes it (torch/extension.h, cpp_sources, the
    pybind11 module) passes g++ -fsyntax-only with this torch's headers;
  - where dice's splitter accepts the CUDA source, its device part
    compiles with nvcc, with the flags load_inline gives it (torch's
    own and the candidate's extra_cuda_cflags): a kernel that does not
    compile fails either way.

A candidate the splitter declines is kept when its bindings compile: it
is a real candidate, and dice builds it the plain way.  Prints a count of
each reason on standard error; with --limit, keeps N drawn at random
(--seed) from those that pass, in input order.  Runs candidate code:
use it on published sets, not on untrusted input.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import sysconfig
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
DATADIR = os.environ.get("DICE_DATADIR", os.path.join(TOP, "share", "dice"))
sys.path.insert(0, os.path.join(DATADIR, "python"))
from dice_harness import cudasplit  # noqa: E402

# Run in the child: execute the candidate with load_inline replaced by
# a function that writes its arguments and stops the module.
CATCH = r'''
import json, sys
import torch.utils.cpp_extension as ext
class Caught(BaseException):
    pass
def catch(*args, **kw):
    names = ["name", "cpp_sources", "cuda_sources", "functions"]
    kw.update(zip(names, args))
    for key in ("cpp_sources", "cuda_sources"):
        if isinstance(kw.get(key), str):
            kw[key] = [kw[key]]
    keep = {k: kw.get(k) for k in names + ["extra_cflags", "extra_cuda_cflags"]}
    with open(sys.argv[2], "w") as f:
        json.dump(keep, f)
    raise Caught()
ext.load_inline = catch
import torch
code = open(sys.argv[1]).read()
ref = {}
exec(compile(open(sys.argv[3]).read(), "reference", "exec"), ref)
module = {"__name__": "candidate"}
# Many candidates build on first use, some only where CUDA is there:
# load the module, then make the model, then call it, until caught.
torch.cuda.is_available = lambda: True
steps = [
    lambda: exec(compile(code, "candidate", "exec"), module),
    lambda: module.__setitem__("model", module["ModelNew"](*ref["get_init_inputs"]())),
    lambda: module["model"](*ref["get_inputs"]()),
]
for step in steps:
    try:
        step()
    except (Caught, Exception):    # caught, or this step cannot run here
        break
'''


def torch_settings(python):
    """(torch's include paths, the nvcc flags load_inline gives every
    CUDA source): a kernel is judged by the flags it would be built with
    (--expt-relaxed-constexpr lets device code call std::max)."""
    out = subprocess.run(
        [python, "-c", "import json, torch.utils.cpp_extension as e; "
         "print(json.dumps([e.include_paths(), "
         "getattr(e, 'COMMON_NVCC_FLAGS', [])]))"],
        capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main_cpp(call):
    """main.cpp as load_inline writes it for CALL's arguments."""
    functions = call.get("functions") or []
    if isinstance(functions, str):
        functions = [functions]
    lines = ["#include <torch/extension.h>"] + list(call.get("cpp_sources") or [])
    if functions:
        lines.append("PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {")
        for name in functions:
            lines.append('m.def("%s", torch::wrap_pybind_function(%s), "%s");'
                         % (name, name, name))
        lines.append("}")
    return "\n".join(lines) + "\n"


def gxx(includes):
    return (["g++", "-std=c++17", "-w", "-Winvalid-pch",
             "-DTORCH_EXTENSION_NAME=bench", "-DTORCH_API_INCLUDE_EXTENSION_H",
             "-I" + sysconfig.get_paths()["include"]]
            + ["-I" + path for path in includes])


def precompile_torch(includes, work):
    """torch/extension.h precompiled once: each candidate's bindings then
    take a second to check instead of twenty."""
    header = os.path.join(work, "ext.h")
    with open(header, "w") as f:
        f.write("#include <torch/extension.h>\n")
    subprocess.run(gxx(includes) + ["-x", "c++-header", header, "-o", header + ".gch"],
                   check=True)


def first_error(text):
    return next((line for line in text.splitlines() if "error" in line),
                text.strip()[:200])


def judge(record, python, includes, nvcc_flags, work):
    """('kept', '') or the reason a candidate is left out and a detail."""
    code_path = os.path.join(work, "cand.py")
    call_path = os.path.join(work, "call.json")
    if os.path.exists(call_path):
        os.unlink(call_path)
    ref_path = os.path.join(work, "ref.py")
    with open(code_path, "w") as f:
        f.write(record["code"])
    with open(ref_path, "w") as f:
        f.write(record.get("ref", ""))
    try:
        subprocess.run([python, "-c", CATCH, code_path, call_path, ref_path],
                       capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "no load_inline call caught", "timed out"
    if not os.path.exists(call_path):
        return "no load_inline call caught", ""
    with open(call_path) as f:
        call = json.load(f)
    if not call.get("cuda_sources"):
        return "no cuda_sources", ""
    cpp = os.path.join(work, "main.cpp")
    with open(cpp, "w") as f:
        f.write(main_cpp(call))
    result = subprocess.run(gxx(includes) + ["-include", os.path.join(work, "ext.h"),
                                             "-fsyntax-only", cpp],
                            capture_output=True, text=True)
    if result.returncode != 0:
        return "bindings do not compile", first_error(result.stderr)
    found, _ = cudasplit.try_split("\n".join(call["cuda_sources"]))
    if found is None:
        return "kept", ""
    device = os.path.join(work, "device.cu")
    with open(device, "w") as f:
        f.write(found.device)
    nvcc = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")
    own = [f for f in call.get("extra_cuda_cflags") or [] if f.strip()]
    result = subprocess.run([nvcc, "-std=c++17", "-arch=sm_90"] + nvcc_flags + own
                            + ["-c", device, "-o", os.path.join(work, "device.o")],
                            capture_output=True, text=True)
    if result.returncode != 0:
        return "kernels do not compile", first_error(result.stderr)
    return "kept", ""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--python", default=os.environ.get("DICE_PYTHON", "python3"))
    parser.add_argument("records")
    args = parser.parse_args()
    includes, nvcc_flags = torch_settings(args.python)
    with open(args.records) as f:
        records = [json.loads(line) for line in f if line.strip()]
    kept = []
    reasons = {}
    with tempfile.TemporaryDirectory() as work:
        precompile_torch(includes, work)
        for record in records:
            why, detail = judge(record, args.python, includes, nvcc_flags, work)
            reasons[why] = reasons.get(why, 0) + 1
            if why != "kept":
                print("%s: %s%s" % (record.get("id", "?"), why,
                                    ": " + detail if detail else ""),
                      file=sys.stderr)
            if why == "kept":
                kept.append(record)
    for why, count in sorted(reasons.items()):
        print("%4d %s" % (count, why), file=sys.stderr)
    if args.limit and len(kept) > args.limit:
        chosen = set(random.Random(args.seed).sample(range(len(kept)), args.limit))
        kept = [r for i, r in enumerate(kept) if i in chosen]
    for record in kept:
        print(json.dumps(record))


if __name__ == "__main__":
    main()
