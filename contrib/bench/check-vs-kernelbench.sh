#!/bin/sh
# check-vs-kernelbench.sh: dice-check against KernelBench's own
# eval_kernel_against_ref on the same candidates and the same GPU, both
# with a cold build cache: candidates per hour, and how often the two
# agree on correct/incorrect.  For BENCHMARKS.md.
#
# Usage: contrib/bench/check-vs-kernelbench.sh KERNELBENCH_DIR [CANDIDATES]
#
# CANDIDATES is a JSON-lines file of records with id, ref and code (the
# output of dice-sample, say).  Without it, contrib/bench/kb-l1-candidates.py
# writes candidates for KernelBench's own level-1 activation problems.
#
# Needs: a GPU; the dice tools on PATH (or BUILDDIR=path/to/build); a
# Python (DICE_PYTHON, default python3) with torch and KernelBench's
# requirements (numpy, pydantic, requests, tqdm, python-dotenv; its
# utils module also imports the openai and litellm clients, which
# evaluation never calls: where they are missing, empty stand-ins are
# put on PYTHONPATH for the KernelBench side and the summary says so).
#
# Settings (environment): GPU (default 0), TRIALS (5), BUILD_JOBS (parallel
# builds of the dice-compile pipeline, default 8), STEPS (which of
# dice_cold, dice_pipeline, dice_warm and kernelbench to run; default all;
# empty: only the summary of what WORK holds),
# WORK (a scratch directory to use, so that steps can run in separate
# sessions and be summarised together; default a new one, whose path is
# printed), PROGRESS (--progress to see the tools' progress; default -q),
# KB_IDS (the ids KernelBench's step runs, default all: its evaluation is
# the slow one).
set -eu

[ $# -ge 1 ] || { echo "usage: $0 KERNELBENCH_DIR [CANDIDATES]" >&2; exit 2; }
kb=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")/../.." && pwd)
: "${DICE_PYTHON:=python3}"
: "${DICE_DATADIR:=$here/share/dice}"
: "${GPU:=0}"
: "${TRIALS:=5}"
: "${BUILD_JOBS:=8}"
: "${PROGRESS:=-q}"
: "${STEPS=dice_cold dice_pipeline dice_warm kernelbench}"
export DICE_PYTHON DICE_DATADIR PROGRESS
if [ -n "${BUILDDIR:-}" ]; then PATH="$(cd "$BUILDDIR" && pwd)/bin:$PATH"; fi
for step in $STEPS; do
	case $step in
	dice_cold|dice_pipeline|dice_warm)
		command -v dice-check >/dev/null ||
			{ echo "$0: dice-check not on PATH (set BUILDDIR)" >&2; exit 2; } ;;
	kernelbench) ;;
	*) echo "$0: unknown step '$step'" >&2; exit 2 ;;
	esac
done
# step NAME: whether STEPS has NAME.
step () {
	case " $STEPS " in *" $1 "*) return 0 ;; esac
	return 1
}
if [ -n "${WORK:-}" ]; then
	mkdir -p "$WORK" && work=$(cd "$WORK" && pwd)
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/dice-bench.XXXXXX")
fi
echo "# scratch directory: $work"
# KernelBench's evaluation must import before dice's steps are paid for.
if step kernelbench; then
	sh "$here/contrib/bench/kb-standins.sh" "$work/standins" "$kb" >/dev/null
fi

if [ ! -s "$work/candidates.jsonl" ]; then
	if [ $# -ge 2 ]; then
		cp "$2" "$work/candidates.jsonl"
	else
		"$DICE_PYTHON" "$here/contrib/bench/kb-l1-candidates.py" "$kb" >"$work/candidates.jsonl"
	fi
fi
n=$(wc -l <"$work/candidates.jsonl" | tr -d ' ')
gpu_name=$(nvidia-smi -i "$GPU" --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo unknown)
echo "# $n candidates; GPU $GPU: $gpu_name"

now () { date +%s.%N; }
# timed NAME COMMAND...: run it, append "NAME SECONDS" to the times file.
timed () {
	_name=$1
	shift
	_t0=$(now)
	"$@"
	_secs=$(awk -v a="$_t0" -v b="$(now)" 'BEGIN { print b - a }')
	echo "$_name $_secs" >>"$work/times"
	echo "# $_name: $_secs s"
}

if step dice_cold; then
	# dice-check alone, cold cache, KernelBench's tolerance (the one its
	# eval uses), one candidate at a time on the GPU.
	timed dice_cold sh -c 'dice-check $PROGRESS --gpus "$1" --cache "$2/dice-cache" --trials "$3" --tolerance kernelbench "$2/candidates.jsonl" >"$2/dice.jsonl"' \
		sh "$GPU" "$work" "$TRIALS"
fi
if step dice_pipeline; then
	# The pipeline a user with many CPU cores runs: builds in parallel on
	# the CPU into a second cold cache, then the GPU checks.
	timed dice_pipeline sh -c 'dice-compile $PROGRESS -j "$4" --device cuda --cache "$2/pipe-cache" "$2/candidates.jsonl" | dice-check $PROGRESS --gpus "$1" --cache "$2/pipe-cache" --trials "$3" --tolerance kernelbench >"$2/dice-pipe.jsonl"' \
		sh "$GPU" "$work" "$TRIALS" "$BUILD_JOBS"
fi
if step dice_warm; then
	warm_cache=$work/dice-cache
	[ -d "$warm_cache" ] || warm_cache=$work/pipe-cache
	# Again, warm cache: what a second pass over the same candidates
	# costs (a rerun with another tolerance, say).
	timed dice_warm sh -c 'dice-check $PROGRESS --gpus "$1" --cache "$4" --trials "$3" --tolerance kernelbench "$2/candidates.jsonl" >"$2/dice-warm.jsonl"' \
		sh "$GPU" "$work" "$TRIALS" "$warm_cache"
fi

if step kernelbench; then
	# KernelBench: a fresh process per candidate (as its eval scripts do),
	# a fresh build directory each, the same trials and seed.  The driver
	# is a file, so that multiprocessing's spawn can import it.
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
        r = eval_kernel_against_ref(ref, code, seed_num=42,
                                    num_correct_trials=trials,
                                    measure_performance=False,
                                    build_dir=build_dir, device=0)
        queue.put({"compiled": bool(r and r.compiled),
                   "correct": bool(r and r.correctness), "error": None,
                   "metadata": {k: str(v)[:200] for k, v in
                                (r.metadata if r else {}).items()}})
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
        p.join(300)
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
	kbpath=$kb/src
	standins=$(sh "$here/contrib/bench/kb-standins.sh" "$work/standins")
	if [ -n "$standins" ]; then
		kbpath=$kbpath:$standins
		echo "stand-ins for openai, litellm" >"$work/kb-notes"
	fi
	# Resumable: candidates already in kernelbench.jsonl are not run
	# again, and the time is the sum of each candidate's own, so a long
	# run can be split over several sessions with the same WORK.
	touch "$work/kernelbench.jsonl"
	"$DICE_PYTHON" - "$work" "${KB_IDS:-}" <<'PY'
import json, sys
work = sys.argv[1]
done = {json.loads(l)["id"] for l in open(work + "/kernelbench.jsonl")}
only = sys.argv[2].split()
with open(work + "/kb-todo.jsonl", "w") as out:
    for line in open(work + "/candidates.jsonl"):
        id = json.loads(line)["id"]
        if id not in done and (not only or id in only):
            out.write(line)
PY
	# A fresh torch extensions directory: KernelBench's build_dir names
	# where sources go, torch's cache would otherwise make it warm.
	env CUDA_VISIBLE_DEVICES="$GPU" \
		TORCH_EXTENSIONS_DIR="$work/kb-torch-extensions" \
		PYTHONPATH="$kbpath${PYTHONPATH:+:$PYTHONPATH}" \
		"$DICE_PYTHON" "$work/kb_eval.py" "$kb" "$work" "$TRIALS" \
		<"$work/kb-todo.jsonl" | tee -a "$work/kernelbench.jsonl"
fi

"$DICE_PYTHON" - "$work" "$gpu_name" <<'PY'
import json, os, sys
work, gpu = sys.argv[1], sys.argv[2]
times = {}
if os.path.exists(os.path.join(work, "times")):
    for line in open(os.path.join(work, "times")):
        name, secs = line.split()
        times[name] = float(secs)
def load(name):
    path = os.path.join(work, name)
    return [json.loads(l) for l in open(path)] if os.path.exists(path) else None
kb = load("kernelbench.jsonl")
if kb:
    times["kernelbench"] = sum(k["s"] for k in kb)
cands = load("candidates.jsonl")
n = len(cands)
print("GPU: %s; candidates: %d" % (gpu, n))
rows = [("dice-check, cold cache", "dice_cold", "dice.jsonl"),
        ("dice-check, warm cache", "dice_warm", "dice-warm.jsonl"),
        ("dice-compile -j | dice-check, cold", "dice_pipeline", "dice-pipe.jsonl"),
        ("KernelBench eval_kernel_against_ref, cold", "kernelbench", "kernelbench.jsonl")]
results = {}
print("%-44s %9s %12s %8s" % ("", "seconds", "per hour", "correct"))
for label, key, name in rows:
    recs = load(name)
    if recs is None or key not in times:
        continue
    results[key] = recs
    correct = sum((r["check"]["correct"] if "check" in r else r["correct"]) for r in recs)
    print("%-44s %9.1f %12.0f %8d%s" % (label, times[key], 3600.0 * len(recs) / times[key],
                                       correct, "" if len(recs) == n else " (%d run)" % len(recs)))
per_candidate = {key: times[key] / len(results[key]) for key in results}
for key, label in (("dice_cold", "dice-check cold"), ("dice_pipeline", "the dice pipeline")):
    if key in per_candidate and "kernelbench" in per_candidate:
        print("%s: %.2fx KernelBench's throughput"
              % (label, per_candidate["kernelbench"] / per_candidate[key]))
if "dice_cold" in results and "kernelbench" in results:
    by_id = {k["id"]: k for k in results["kernelbench"]}
    dice = results["dice_cold"]
    kb = [by_id.get(d["id"], {"correct": None, "error": "not run"}) for d in dice]
    both = [(d, k) for d, k in zip(dice, kb) if k["correct"] is not None]
    agree = sum(d["check"]["correct"] == k["correct"] for d, k in both)
    print("agreement on correct/incorrect: %d of %d (the candidates both judged)"
          % (agree, len(both)))
    for c, d, k in zip(cands, dice, kb):
        print("  %-18s expect %-9s dice %-10s kernelbench %-5s  dice max_abs_err %s%s"
              % (c["id"], c.get("expect", "?"), d["check"]["status"],
                 {True: "correct", False: "wrong", None: "-"}[k["correct"]],
                 d["check"]["max_abs_err"],
                 "" if k["correct"] in (None, d["check"]["correct"]) else "  DIFFER: %s / %s"
                 % (d["check"]["error"], k.get("error") or k.get("metadata"))))
if os.path.exists(os.path.join(work, "kb-notes")):
    print("note: KernelBench side ran with " + open(os.path.join(work, "kb-notes")).read().strip())
PY
