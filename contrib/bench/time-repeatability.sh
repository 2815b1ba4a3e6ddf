#!/bin/sh
# time-repeatability.sh: how repeatable dice-time's speedups are.  Times
# the same candidates in two separate runs and prints each problem's
# speedup in both and the median relative difference between the runs;
# with KB_DIR (a KernelBench checkout), also KernelBench's own CUDA-event
# timer (time_execution_with_cuda_event, called from that checkout) on
# the same models and inputs, for comparison.  For BENCHMARKS.md.
#
# Usage: contrib/bench/time-repeatability.sh [CANDIDATES]
#
# CANDIDATES is a JSON-lines file of records with id, ref and code (and
# check, though every record is timed: --all).  Without it, the bundled
# suite's problems with their CUDA solutions (share/dice/examples/cuda)
# are used.  Needs: a GPU; the dice tools on PATH (or BUILDDIR=build); a
# Python (DICE_PYTHON, default python3) with torch (and, for KB_DIR,
# KernelBench's requirements).  GPU=n (default 0), TRIALS (default 100),
# WARMUP (default 10); DEVICE=cpu runs C++ candidates on a CPU torch
# (to try the script without a GPU); CACHE, the build cache (default one in
# the scratch directory; a cache that dice-compile -j filled beforehand
# saves the first run's builds).  Results go to stdout and to a scratch
# directory that is kept (its path is printed).
set -eu

here=$(cd "$(dirname "$0")/../.." && pwd)
: "${DICE_PYTHON:=python3}"
: "${DICE_DATADIR:=$here/share/dice}"
: "${GPU:=0}"
: "${TRIALS:=100}"
: "${WARMUP:=10}"
export DICE_PYTHON DICE_DATADIR
if [ -n "${BUILDDIR:-}" ]; then PATH="$(cd "$BUILDDIR" && pwd)/bin:$PATH"; fi
command -v dice-time >/dev/null || { echo "$0: dice-time not on PATH (set BUILDDIR)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/dice-time-bench.XXXXXX")
echo "# scratch directory: $work"
# KernelBench's timer must import before dice's runs are paid for.
if [ -n "${KB_DIR:-}" ]; then
	sh "$here/contrib/bench/kb-standins.sh" "$work/standins" "$KB_DIR" >/dev/null
fi

if [ $# -ge 1 ]; then
	cp "$1" "$work/candidates.jsonl"
else
	"$DICE_PYTHON" - "$DICE_DATADIR" >"$work/candidates.jsonl" <<'PY'
import json, os, sys
root = sys.argv[1]
for level in ("level1", "level2", "level3"):
    problems = os.path.join(root, "problems", level)
    if not os.path.isdir(problems):
        continue
    for name in sorted(os.listdir(problems)):
        solution = os.path.join(root, "examples", "cuda", level, name)
        if name.endswith(".py") and os.path.exists(solution):
            print(json.dumps({"id": "L%s/%s" % (level[5:], name[:-3]),
                              "ref": open(os.path.join(problems, name)).read(),
                              "code": open(solution).read()}))
PY
fi
n=$(wc -l <"$work/candidates.jsonl" | tr -d ' ')
echo "# $n candidates; GPU $GPU: $(nvidia-smi -i "$GPU" --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo unknown)"
echo "# trials $TRIALS, warm-up $WARMUP"

# Two separate runs; the first also fills the build cache, so the second
# times the same builds.
for run in 1 2; do
	if [ "${DEVICE:-cuda}" = cpu ]; then where="--device cpu"; else where="--gpus $GPU"; fi
	dice-time -q --all $where --cache "${CACHE:-$work/cache}" \
		--trials "$TRIALS" --warmup "$WARMUP" \
		"$work/candidates.jsonl" >"$work/run$run.jsonl"
done

if [ -n "${KB_DIR:-}" ]; then
	kb=$(cd "$KB_DIR" && pwd)
	standins=$(sh "$here/contrib/bench/kb-standins.sh" "$work/standins")
	if [ -n "$standins" ]; then
		echo "# KernelBench's timer runs with stand-ins for openai, litellm"
		PYTHONPATH=$standins${PYTHONPATH:+:$PYTHONPATH}
		export PYTHONPATH
	fi
	# One fresh process per candidate, as KernelBench's scripts do; only
	# KernelBench's timer is called, on models made the way dice makes
	# them (seed 42 for the weights, get_inputs after seed 43).
	cat >"$work/kb_time.py" <<'PY'
import importlib, inspect, json, os, sys, tempfile, types

kb, work, trials, warmup = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
for path in (os.path.join(kb, "src"), kb):
    sys.path.insert(0, path)

def timer():
    for name in ("kernelbench.timing", "src.timing", "kernelbench.eval", "src.eval"):
        try:
            module = importlib.import_module(name)
        except Exception:
            continue
        if hasattr(module, "time_execution_with_cuda_event"):
            return name, module.time_execution_with_cuda_event
    raise SystemExit("no time_execution_with_cuda_event in %s" % kb)

def module(name, source, directory):
    path = os.path.join(directory, name + ".py")
    with open(path, "w") as f:
        f.write(source)
    m = types.ModuleType(name)
    m.__file__ = path
    sys.modules[name] = m
    exec(compile(source, path, "exec"), m.__dict__)
    return m

def call(fn, model, inputs):
    params = inspect.signature(fn).parameters
    kw = {}
    for key, value in (("num_trials", trials), ("num_warmup", warmup),
                       ("num_warmups", warmup), ("verbose", False),
                       ("device", torch.device("cuda:0"))):
        if key in params:
            kw[key] = value
    star = any(p.kind == p.VAR_POSITIONAL for p in params.values())
    times = fn(model, *inputs, **kw) if star else fn(model, inputs, **kw)
    return sorted(times)[len(times) // 2], sum(times) / len(times)

import torch
source, fn = timer()
for line in sys.stdin:
    rec = json.loads(line)
    out = {"id": rec["id"], "timer": source}
    directory = tempfile.mkdtemp(dir=work, prefix="kb.")
    try:
        ref = module("kb_ref_%d" % len(sys.modules), rec["ref"], directory)
        new = module("kb_new_%d" % len(sys.modules), rec["code"], directory)
        init = ref.get_init_inputs()
        torch.manual_seed(42)
        ref_model = ref.Model(*init).cuda().eval()
        torch.manual_seed(42)
        new_model = new.ModelNew(*init).cuda().eval()
        torch.manual_seed(43)
        inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in ref.get_inputs()]
        with torch.no_grad():
            out["ref_median"], out["ref_mean"] = call(fn, ref_model, inputs)
            out["new_median"], out["new_mean"] = call(fn, new_model, inputs)
        out["speedup"] = out["ref_mean"] / out["new_mean"]
    except Exception as e:
        out["error"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200] if str(e) else "")
    print(json.dumps(out), flush=True)
PY
	# Builds are not what is measured: build every candidate at once, in
	# one extensions directory that the timed processes then reuse.
	ext=$work/kb-extensions
	mkdir -p "$ext"
	while IFS= read -r line; do
		printf '%s\n' "$line" | TORCH_EXTENSIONS_DIR=$ext "$DICE_PYTHON" -c '
import json, sys
rec = json.loads(sys.stdin.read())
exec(compile(rec["code"], "candidate", "exec"), {"__name__": "kb_build"})
' >>"$work/kb-build.log" 2>&1 &
	done <"$work/candidates.jsonl"
	wait
	while IFS= read -r line; do
		printf '%s\n' "$line" | CUDA_VISIBLE_DEVICES=$GPU TORCH_EXTENSIONS_DIR=$ext \
			"$DICE_PYTHON" "$work/kb_time.py" "$kb" "$work" "$TRIALS" "$WARMUP" \
			>>"$work/kernelbench.jsonl" 2>>"$work/kernelbench.log" ||
			echo "{\"id\": null, \"error\": \"driver failed\"}" >>"$work/kernelbench.jsonl"
	done <"$work/candidates.jsonl"
fi

"$DICE_PYTHON" - "$work" <<'PY'
import json, os, sys
work = sys.argv[1]
# KernelBench's timer prints a line of its own on standard output.
load = lambda f: [json.loads(l) for l in open(os.path.join(work, f)) if l.startswith("{")]
runs = [load("run1.jsonl"), load("run2.jsonl")]
kb = {}
if os.path.exists(os.path.join(work, "kernelbench.jsonl")):
    kb = {r["id"]: r for r in load("kernelbench.jsonl") if r.get("id")}

def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return None if n == 0 else (xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2)

def rel(a, b):
    return abs(a - b) / ((a + b) / 2)

print("%-32s %9s %9s %7s %-22s%s" % ("id", "speedup1", "speedup2", "diff", "flags",
                                     " kb_speedup  kb_diff" if kb else ""))
diffs, kbdiffs = [], []
for a, b in zip(*runs):
    ta, tb = a.get("time", {}), b.get("time", {})
    s1, s2 = ta.get("speedup"), tb.get("speedup")
    d = rel(s1, s2) if s1 and s2 else None
    if d is not None:
        diffs.append(d)
    line = "%-32s %9s %9s %7s %-22s" % (
        a.get("id"), "%.3f" % s1 if s1 else ta.get("status", ta.get("skipped")),
        "%.3f" % s2 if s2 else tb.get("status", tb.get("skipped")),
        "%.1f%%" % (100 * d) if d is not None else "-",
        ",".join(sorted(set(ta.get("flags", []) + tb.get("flags", [])))) or "-")
    if kb:
        k = kb.get(a.get("id"), {})
        ks = k.get("speedup")
        kd = rel(s1, ks) if s1 and ks else None
        if kd is not None:
            kbdiffs.append(kd)
        line += " %10s %8s" % ("%.3f" % ks if ks else (k.get("error") or "-")[:10],
                               "%.1f%%" % (100 * kd) if kd is not None else "-")
    print(line)
m = median(diffs)
print("# timed in both runs: %d of %d; median relative difference of speedups: %s"
      % (len(diffs), len(runs[0]), "%.2f%%" % (100 * m) if m is not None else "n/a"))
if kb:
    m = median(kbdiffs)
    print("# dice run 1 against KernelBench's timer (speedup of its means, its own"
          " warm-up and trials): median relative difference %s over %d"
          % ("%.2f%%" % (100 * m) if m is not None else "n/a", len(kbdiffs)))
PY
