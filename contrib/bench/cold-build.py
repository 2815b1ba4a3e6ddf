#!/usr/bin/env python3
"""cold-build.py: a cold build with plain load_inline against dice's, side by side.

Usage: contrib/bench/cold-build.py [--device cpu|cuda] [--limit N] [--out FILE] CANDIDATES...

CANDIDATES: JSON-lines files of records with `code` (and `ref`, whose
get_inputs/get_init_inputs make the inputs), or candidate .py files (a
bundled solution; its reference is looked up as
share/dice/problems/<level>/<name> when it exists).  For each candidate,
one after the other, each in a fresh Python process that has imported
torch before the clock starts:

  plain  executes the code and constructs ModelNew with torch's own
         load_inline building into an empty TORCH_EXTENSIONS_DIR;
  dice   the same with dice's harness installed (share/dice/python,
         dice_harness.buildcache), building into a cache emptied of
         builds before each candidate but keeping the precompiled header
         that the first candidate's build makes (its one-time cost is
         printed apart, and counted in that first candidate's time).

Then both run forward on the same seeded inputs, and the two results must
agree: both built or both failed, and equal outputs bit for bit.  Prints
one line per candidate (seconds, the path dice took), the medians, and the
ratio of the medians; exits 1 when any result disagrees.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
DATADIR = os.environ.get("DICE_DATADIR", os.path.join(TOP, "share", "dice"))

# Run in the child: time the build (exec + ModelNew()), then save the
# outputs on seeded inputs.  argv: mode, candidate, ref or "", out, cache.
CHILD = r'''
import json, os, sys, time, traceback
import torch
mode, code_path, ref_path, out_path, cache, device = sys.argv[1:7]
if mode == "dice":
    from dice_harness import buildcache
    buildcache.install(cache)
ref = {}
if ref_path:
    exec(compile(open(ref_path).read(), ref_path, "exec"), ref)
result = {"ok": False, "error": None, "seconds": None, "path": None,
          "pch_ms": 0.0}
# The same weights on both sides: ModelNew's layers draw them.
torch.manual_seed(0)
start = time.monotonic()
try:
    cand = {"__name__": "candidate"}
    exec(compile(open(code_path).read(), code_path, "exec"), cand)
    init = ref["get_init_inputs"]() if "get_init_inputs" in ref else []
    model = cand["ModelNew"](*init).to(device)
    result["seconds"] = time.monotonic() - start
    result["ok"] = True
except Exception as e:
    result["seconds"] = time.monotonic() - start
    result["error"] = "".join(traceback.format_exception_only(type(e), e))[-400:]
if mode == "dice":
    result["path"] = ",".join(str(b.get("path")) for b in buildcache.builds)
    result["pch_ms"] = sum(b.get("pch_ms") or 0.0 for b in buildcache.builds)
if result["ok"] and "get_inputs" in ref:
    torch.manual_seed(0)
    inputs = [x.to(device) if isinstance(x, torch.Tensor) else x
              for x in ref["get_inputs"]()]
    with torch.no_grad():
        try:
            torch.save(model(*inputs), out_path + ".pt")
        except Exception as e:
            result["forward_error"] = str(e)[-400:]
json.dump(result, open(out_path, "w"))
'''


def candidates(paths, limit):
    """(label, code, ref or None) for each candidate."""
    found = []
    for path in paths:
        if path.endswith(".py"):
            level = os.path.basename(os.path.dirname(path))
            ref = os.path.join(DATADIR, "problems", level, os.path.basename(path))
            found.append((os.path.relpath(path), open(path).read(),
                          open(ref).read() if os.path.isfile(ref) else None))
            continue
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if line.strip():
                    rec = json.loads(line)
                    if rec.get("code"):
                        found.append((str(rec.get("id", "%s:%d" % (path, n))),
                                      rec["code"], rec.get("ref")))
    return found[:limit] if limit else found


def run(mode, work, index, code, ref, cache, device):
    base = os.path.join(work, "%s-%d" % (mode, index))
    with open(base + ".code.py", "w") as f:
        f.write(code)
    ref_path = ""
    if ref:
        ref_path = base + ".ref.py"
        with open(ref_path, "w") as f:
            f.write(ref)
    env = dict(os.environ)
    env["TORCH_EXTENSIONS_DIR"] = tempfile.mkdtemp(prefix="ext.", dir=work)
    env["PYTHONPATH"] = os.path.join(DATADIR, "python") + os.pathsep + env.get("PYTHONPATH", "")
    env["DICE_FASTBUILD"] = "1"
    subprocess.run([os.environ.get("DICE_PYTHON", sys.executable), "-c", CHILD,
                    mode, base + ".code.py", ref_path, base + ".json", cache,
                    device], env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    shutil.rmtree(env["TORCH_EXTENSIONS_DIR"], ignore_errors=True)
    try:
        with open(base + ".json") as f:
            return json.load(f), base + ".json.pt"
    except OSError:
        return {"ok": False, "error": "the child died", "seconds": None}, None


def same_outputs(plain_pt, dice_pt):
    """Whether both saved the same outputs bit for bit (or neither saved
    any); in a child, so that this script needs no torch."""
    have = [os.path.exists(p) for p in (plain_pt, dice_pt)]
    if not any(have):
        return True
    if not all(have):
        return False
    check = ("import sys, torch\n"
             "a, b = torch.load(sys.argv[1]), torch.load(sys.argv[2])\n"
             "eq = lambda x, y: torch.equal(x, y) if isinstance(x, torch.Tensor) "
             "else (all(eq(p, q) for p, q in zip(x, y)) and len(x) == len(y) "
             "if isinstance(x, (list, tuple)) else x == y)\n"
             "sys.exit(0 if type(a) is type(b) and eq(a, b) else 1)\n")
    return subprocess.run([os.environ.get("DICE_PYTHON", sys.executable), "-c",
                           check, plain_pt, dice_pt]).returncode == 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--out", help="write the per-candidate results as JSON lines")
    parser.add_argument("candidates", nargs="+")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="cold-build.")
    cache = os.path.join(work, "cache")
    rows, disagree, pch_ms = [], 0, 0.0
    out = open(args.out, "w") if args.out else None
    try:
        for i, (label, code, ref) in enumerate(candidates(args.candidates, args.limit)):
            plain, plain_pt = run("plain", work, i, code, ref, cache, args.device)
            # Cold for dice too: no build of this candidate is cached;
            # only the shared header survives.
            for entry in (os.listdir(cache) if os.path.isdir(cache) else []):
                if entry != "pch":
                    shutil.rmtree(os.path.join(cache, entry), ignore_errors=True)
            dice, dice_pt = run("dice", work, i, code, ref, cache, args.device)
            pch_ms += dice.get("pch_ms") or 0.0
            agree = plain["ok"] == dice["ok"] and \
                same_outputs(plain_pt or "", dice_pt or "")
            disagree += not agree
            rows.append((label, plain, dice, agree))
            print("%-48s plain %7.2f s  dice %7.2f s  %-6s %s%s" % (
                label[:48], plain["seconds"] or 0.0, dice["seconds"] or 0.0,
                dice.get("path") or "-", "built" if plain["ok"] else "failed",
                "" if agree else "  DISAGREE"), flush=True)
            if out:
                out.write(json.dumps({"id": label, "plain": plain, "dice": dice,
                                      "agree": agree}) + "\n")
                out.flush()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    timed = [(p["seconds"], d["seconds"]) for _, p, d, _ in rows
             if p["seconds"] is not None and d["seconds"] is not None]
    if timed:
        mp = statistics.median(t[0] for t in timed)
        md = statistics.median(t[1] for t in timed)
        print("%d candidates: median plain %.2f s, median dice %.2f s, ratio %.2fx"
              % (len(timed), mp, md, mp / md if md else float("inf")))
    # The figure that matters: candidates whose build succeeds (a failed
    # build costs each side whatever its compiler took to give up).
    built = [(p["seconds"], d["seconds"]) for _, p, d, _ in rows
             if p["ok"] and p["seconds"] is not None and d["seconds"] is not None]
    if built:
        mp = statistics.median(t[0] for t in built)
        md = statistics.median(t[1] for t in built)
        ratios = sorted(t[0] / t[1] for t in built if t[1])
        print("%d that build: median plain %.2f s, median dice %.2f s, ratio %.2fx; "
              "median per-candidate ratio %.2fx"
              % (len(built), mp, md, mp / md if md else float("inf"),
                 statistics.median(ratios) if ratios else float("nan")))
    print("one-time precompiled header: %.2f s (in the first candidate's dice time)"
          % (pch_ms / 1000.0))
    if disagree:
        print("%d candidates disagree" % disagree)
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
