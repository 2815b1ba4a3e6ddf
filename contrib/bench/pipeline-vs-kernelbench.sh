#!/bin/sh
# pipeline-vs-kernelbench.sh: candidates fully judged (built, checked and
# timed) per GPU-hour, dice's pipeline against KernelBench's own batch
# evaluation, on the same candidates and the same GPU, both cold.  For
# BENCHMARKS.md.
#
# Usage: contrib/bench/pipeline-vs-kernelbench.sh KERNELBENCH_DIR CANDIDATES
#
# CANDIDATES: JSON lines with id, ref and code.  The two sides, one after
# the other:
#   dice         dice-compile -j BUILD_JOBS | dice-check -j CHECK_JOBS |
#                dice-time into
#                an empty cache (so the shared header, made once per
#                toolchain, is paid here and its seconds printed apart);
#   kernelbench  as its eval_from_generations script does: every
#                candidate's build_compile_cache, BUILD_JOBS at a time in
#                spawned processes, into fresh build directories, then
#                eval_kernel_against_ref with measure_performance, one
#                candidate at a time, each in a spawned process.
# Both check with 5 trials at KernelBench's tolerance, seed 42, and time
# with 100 trials (dice after 10 warm-up calls; KernelBench's own warm-up).
# Prints seconds, candidates per hour, the ratio, and how often the two
# agree on correct.  Needs a GPU, the dice tools on PATH (or
# BUILDDIR=path/to/build) and a Python (DICE_PYTHON) with torch and
# KernelBench's requirements (stand-ins for its LLM clients are made by
# kb-standins.sh, which stops the run at once when anything else is
# missing).  Settings: GPU (default 0), BUILD_JOBS
# (default the number of cores), CHECK_JOBS (candidates dice-check runs
# at once on the GPU, default 4; dice-time still times alone on it, by
# the GPU lock of dice-check(1)),
# WORK (the scratch directory, kept).
set -eu

[ $# -eq 2 ] || { echo "usage: $0 KERNELBENCH_DIR CANDIDATES" >&2; exit 2; }
kb=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")/../.." && pwd)
: "${DICE_PYTHON:=python3}"
: "${DICE_DATADIR:=$here/share/dice}"
: "${GPU:=0}"
: "${BUILD_JOBS:=$(nproc)}"
: "${CHECK_JOBS:=4}"
export DICE_PYTHON DICE_DATADIR
if [ -n "${BUILDDIR:-}" ]; then PATH="$(cd "$BUILDDIR" && pwd)/bin:$PATH"; fi
command -v dice-compile >/dev/null ||
	{ echo "$0: dice-compile not on PATH (set BUILDDIR)" >&2; exit 2; }
work=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/dice-pipeline.XXXXXX")}
mkdir -p "$work"
work=$(cd "$work" && pwd)
cp "$2" "$work/candidates.jsonl"
n=$(wc -l <"$work/candidates.jsonl" | tr -d ' ')
gpu_name=$(nvidia-smi -i "$GPU" --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo unknown)
echo "# scratch directory: $work"
echo "# $n candidates; GPU $GPU: $gpu_name; $(nproc) cores, BUILD_JOBS $BUILD_JOBS, CHECK_JOBS $CHECK_JOBS"

# KernelBench's side must be able to run before dice's side is paid for.
kbpath=$kb/src
standins=$(sh "$here/contrib/bench/kb-standins.sh" "$work/standins" "$kb")
[ -z "$standins" ] || kbpath=$kbpath:$standins

now () { date +%s.%N; }
since () { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

t0=$(now)
dice-compile -q -j "$BUILD_JOBS" --device cuda --cache "$work/dice-cache" \
	"$work/candidates.jsonl" |
	dice-check -q -j "$CHECK_JOBS" --gpus "$GPU" --cache "$work/dice-cache" --trials 5 \
		--tolerance kernelbench |
	dice-time -q --gpus "$GPU" --cache "$work/dice-cache" --trials 100 \
		--warmup 10 >"$work/dice.jsonl"
dice_s=$(since "$t0")
echo "# dice: $dice_s s"

cat >"$work/kb_full.py" <<'PY'
import json, multiprocessing as mp, os, sys, tempfile, time

kb, work, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])

def kb_eval():
    for path in (os.path.join(kb, "src"), kb):
        sys.path.insert(0, path)
    try:
        from kernelbench import eval as kbeval
    except ImportError:
        from src import eval as kbeval
    return kbeval

def build(args):
    code, build_dir = args
    ok, _, error = kb_eval().build_compile_cache(code, False, build_dir)
    return ok, error

def evaluate(ref, code, build_dir, queue):
    try:
        r = kb_eval().eval_kernel_against_ref(
            ref, code, seed_num=42, num_correct_trials=5,
            num_perf_trials=100, measure_performance=True,
            build_dir=build_dir, device=0)
        queue.put({"compiled": bool(r and r.compiled),
                   "correct": bool(r and r.correctness),
                   "runtime_us": r.runtime if r else None, "error": None})
    except Exception as e:
        queue.put({"compiled": False, "correct": False, "runtime_us": None,
                   "error": "%s: %s" % (type(e).__name__, e)})

if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    recs = [json.loads(l) for l in open(os.path.join(work, "candidates.jsonl"))]
    dirs = [tempfile.mkdtemp(dir=work, prefix="kb-build.") for _ in recs]
    start = time.time()
    with ctx.Pool(jobs) as pool:
        built = pool.map(build, [(r["code"], d) for r, d in zip(recs, dirs)])
    print("# kernelbench builds: %.1f s" % (time.time() - start), file=sys.stderr)
    # Its builds print ninja's lines on stdout: the results go apart.
    results = open(os.path.join(work, "kernelbench.jsonl"), "w")
    for rec, build_dir, (ok, error) in zip(recs, dirs, built):
        queue = ctx.Queue()
        p = ctx.Process(target=evaluate, args=(rec["ref"], rec["code"], build_dir, queue))
        p.start()
        p.join(600)
        if p.is_alive():
            p.kill()
            out = {"compiled": False, "correct": False, "error": "timeout"}
        else:
            out = queue.get() if not queue.empty() else {
                "compiled": False, "correct": False, "error": "exit %s" % p.exitcode}
        out.update(id=rec["id"], prebuilt=ok)
        results.write(json.dumps(out) + "\n")
        results.flush()
PY
t0=$(now)
env CUDA_VISIBLE_DEVICES="$GPU" TORCH_EXTENSIONS_DIR="$work/kb-torch-extensions" \
	PYTHONPATH="$kbpath${PYTHONPATH:+:$PYTHONPATH}" \
	"$DICE_PYTHON" "$work/kb_full.py" "$kb" "$work" "$BUILD_JOBS" >"$work/kernelbench.log"
kb_s=$(since "$t0")
echo "# kernelbench: $kb_s s"

"$DICE_PYTHON" - "$work" "$dice_s" "$kb_s" "$n" <<'PY'
import json, sys
work, dice_s, kb_s, n = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
dice = {r["id"]: r for r in map(json.loads, open(work + "/dice.jsonl"))}
kb = {r["id"]: r for r in map(json.loads, open(work + "/kernelbench.jsonl"))}
def builds(r):
    # dice-compile's own object saw the misses; check's only sees cache hits
    return (r.get("compile") or (r.get("check") or {}).get("compile") or {}).get("builds") or []
pch = max((b.get("pch_ms") or 0 for r in dice.values() for b in builds(r)), default=0)
paths = {}
for r in dice.values():
    for b in builds(r):
        paths[b.get("path")] = paths.get(b.get("path"), 0) + 1
print("| side | candidates | seconds | candidates/hour | correct | timed |")
print("|---|---|---|---|---|---|")
dc = sum(1 for r in dice.values() if (r.get("check") or {}).get("correct"))
dt = sum(1 for r in dice.values() if (r.get("time") or {}).get("status") == "ok")
kc = sum(1 for r in kb.values() if r.get("correct"))
kt = sum(1 for r in kb.values() if r.get("runtime_us") not in (None, -1))
print("| dice | %d | %.1f | %.0f | %d | %d |" % (n, dice_s, 3600 * n / dice_s, dc, dt))
print("| KernelBench | %d | %.1f | %.0f | %d | %d |" % (n, kb_s, 3600 * n / kb_s, kc, kt))
print("ratio (KernelBench seconds / dice seconds): %.2fx" % (kb_s / dice_s))
print("dice's one-time shared header: %.1f s (in dice's seconds); build paths: %s"
      % (pch / 1000, json.dumps(paths, sort_keys=True)))
both = [i for i in dice if i in kb]
agree = sum(1 for i in both if bool((dice[i].get("check") or {}).get("correct")) == kb[i]["correct"])
print("agreement on correct: %d of %d" % (agree, len(both)))
for i in both:
    d = dice[i].get("check") or {}
    if bool(d.get("correct")) != kb[i]["correct"]:
        print("  %s: dice %s (%s), KernelBench %s (%s)" % (
            i, d.get("status"), (d.get("deception") or {}).get("verdict"),
            kb[i]["correct"], (kb[i].get("error") or "")[:120]))
PY
