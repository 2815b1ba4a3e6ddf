#!/bin/sh
# check-vs-kernelbench.sh: dice-check against KernelBench's own
# eval_kernel_against_ref on the same candidates and the same GPU, both
# with a cold build cache: candidates per hour, and how often the two
# agree on correct/incorrect.  For BENCHMARKS.md.
#
# Usage: contrib/bench/check-vs-kernelbench.sh KERNELBENCH_DIR [CANDIDATES]
#
# CANDIDATES is a JSON-lines file of records with id, ref and code (the
# output of dice-sample, say).  Without it, the bundled suite's level-1
# problems with their CUDA solutions (share/dice/examples/cuda) are used.
# Needs: a GPU; the dice tools on PATH (or BUILDDIR=path/to/build); a
# Python (DICE_PYTHON, default python3) with torch and KernelBench's
# requirements (pydantic, numpy, requests).  GPU: 0 by default (GPU=n).
# Results go to stdout and to a scratch directory that is kept (its path
# is printed).
set -eu

[ $# -ge 1 ] || { echo "usage: $0 KERNELBENCH_DIR [CANDIDATES]" >&2; exit 2; }
kb=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")/../.." && pwd)
: "${DICE_PYTHON:=python3}"
: "${DICE_DATADIR:=$here/share/dice}"
: "${GPU:=0}"
: "${TRIALS:=5}"
export DICE_PYTHON DICE_DATADIR
if [ -n "${BUILDDIR:-}" ]; then PATH="$(cd "$BUILDDIR" && pwd)/bin:$PATH"; fi
command -v dice-check >/dev/null || { echo "$0: dice-check not on PATH (set BUILDDIR)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/dice-bench.XXXXXX")
echo "# scratch directory: $work"

if [ $# -ge 2 ]; then
	cp "$2" "$work/candidates.jsonl"
else
	"$DICE_PYTHON" - "$DICE_DATADIR" >"$work/candidates.jsonl" <<'PY'
import json, os, sys
root = sys.argv[1]
level = os.path.join(root, "problems", "level1")
for name in sorted(os.listdir(level), key=lambda n: int(n.split("_")[0])):
    solution = os.path.join(root, "examples", "cuda", "level1", name)
    if name.endswith(".py") and os.path.exists(solution):
        print(json.dumps({"id": "L1/" + name[:-3],
                          "ref": open(os.path.join(level, name)).read(),
                          "code": open(solution).read()}))
PY
fi
n=$(wc -l <"$work/candidates.jsonl" | tr -d ' ')
echo "# $n candidates; GPU $GPU: $(nvidia-smi -i "$GPU" --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo unknown)"

now () { date +%s.%N; }

# dice-check, cold cache, KernelBench's tolerance (the one its eval uses).
t0=$(now)
dice-check -q --gpus "$GPU" --cache "$work/dice-cache" --trials "$TRIALS" \
	--tolerance kernelbench "$work/candidates.jsonl" >"$work/dice.jsonl"
t1=$(now)
# Again, warm cache, the default (DICE paper) tolerance.
dice-check -q --gpus "$GPU" --cache "$work/dice-cache" --trials "$TRIALS" \
	"$work/candidates.jsonl" >"$work/dice-warm.jsonl"
t2=$(now)

# KernelBench: a fresh process per candidate (as its eval scripts do),
# a fresh build directory each, the same trials and seed.  The driver is
# a file, so that multiprocessing's spawn can import it.
cat >"$work/kb_eval.py" <<'PY'
import json, multiprocessing as mp, os, sys, tempfile, time

kb, work, trials = sys.argv[1], sys.argv[2], int(sys.argv[3])

def evaluate(ref, code, build_dir, queue):
    for path in (os.path.join(kb, "src"), kb):
        sys.path.insert(0, path)
    try:
        try:
            from kernelbench.eval import eval_kernel_against_ref
        except ImportError:
            from src.eval import eval_kernel_against_ref
        import torch
        r = eval_kernel_against_ref(ref, code, seed_num=42,
                                    num_correct_trials=trials,
                                    measure_performance=False,
                                    build_dir=build_dir, device=0)
        queue.put({"compiled": bool(r and r.compiled),
                   "correct": bool(r and r.correctness), "error": None})
    except Exception as e:
        queue.put({"compiled": False, "correct": False,
                   "error": "%s: %s" % (type(e).__name__, e)})

if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    for line in sys.stdin:
        rec = json.loads(line)
        queue = ctx.Queue()
        build_dir = tempfile.mkdtemp(dir=work, prefix="kb-build.")
        start = time.time()
        p = ctx.Process(target=evaluate,
                        args=(rec["ref"], rec["code"], build_dir, queue))
        p.start()
        p.join(180)
        if p.is_alive():
            p.kill()
            out = {"compiled": False, "correct": False, "error": "timeout"}
        else:
            out = queue.get() if not queue.empty() else {
                "compiled": False, "correct": False,
                "error": "exit %s" % p.exitcode}
        out.update(id=rec["id"], s=round(time.time() - start, 2))
        print(json.dumps(out), flush=True)
PY
t3=$(now)
CUDA_VISIBLE_DEVICES=$GPU "$DICE_PYTHON" "$work/kb_eval.py" "$kb" "$work" \
	"$TRIALS" <"$work/candidates.jsonl" >"$work/kernelbench.jsonl"
t4=$(now)

"$DICE_PYTHON" - "$work" "$t0" "$t1" "$t2" "$t3" "$t4" <<'PY'
import json, sys
work = sys.argv[1]
t0, t1, t2, t3, t4 = map(float, sys.argv[2:])
load = lambda f: [json.loads(l) for l in open("%s/%s" % (work, f))]
dice, warm, kb = load("dice.jsonl"), load("dice-warm.jsonl"), load("kernelbench.jsonl")
n = len(dice)
per_hour = lambda secs: 3600.0 * n / secs if secs > 0 else float("nan")
agree = sum(d["check"]["correct"] == k["correct"] for d, k in zip(dice, kb))
print("candidates: %d" % n)
print("dice-check (cold cache, kernelbench tolerance): %.1f s, %.0f candidates/hour, %d correct"
      % (t1 - t0, per_hour(t1 - t0), sum(d["check"]["correct"] for d in dice)))
print("dice-check (warm cache, dice tolerance):        %.1f s, %.0f candidates/hour, %d correct"
      % (t2 - t1, per_hour(t2 - t1), sum(d["check"]["correct"] for d in warm)))
print("KernelBench eval_kernel_against_ref (cold):     %.1f s, %.0f candidates/hour, %d correct"
      % (t4 - t3, per_hour(t4 - t3), sum(k["correct"] for k in kb)))
print("agreement on correct/incorrect: %d of %d" % (agree, n))
for d, k in zip(dice, kb):
    if d["check"]["correct"] != k["correct"]:
        print("  differ: %s dice=%s (%s) kernelbench=%s (%s)"
              % (d["id"], d["check"]["status"], d["check"]["error"],
                 k["correct"], k["error"]))
PY
