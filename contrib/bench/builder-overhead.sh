#!/bin/sh
# builder-overhead.sh: what the builder sandbox costs dice-check per
# candidate, against a revision before it (or any other).
# Usage: contrib/bench/builder-overhead.sh [REV] [CANDIDATES] [RUNS]
# Builds REV (default 9157ad4, the last commit before the builder) in a
# temporary worktree, then runs dice-check -j2 --device cpu over CANDIDATES
# (default 8) CPU candidates that build nothing, RUNS (default 5) times,
# alternating REV's build and this build directory's, and prints each
# side's median wall and CPU seconds.  Run from a configured build
# directory; needs a Python with torch (DICE_PYTHON, default python3).
# SLOW_INPUT=SECONDS: the candidates reach dice-check that many seconds
# after it starts, as a pipeline's first record comes after its
# producer's first build, and its output goes on through dice-time -j1
# --all (20 timed calls): the wall is the whole pipeline's, the wait
# included.
# COMPILE=1: dice-compile -j1 --device cpu over the bundled C++ solutions
# (share/dice/examples/cpu; CANDIDATES is then ignored) instead, each run
# into a copy of a cache that holds only the shared precompiled header
# (made once, before the runs), so that every candidate builds: what
# starting the builder costs each build.
set -eu
rev=${1:-9157ad4}
n=${2:-8}
runs=${3:-5}
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(pwd)
if [ ! -x "$build/bin/dice-check" ]; then
	echo "$0: run from a build directory (no bin/dice-check here)" >&2
	exit 2
fi
DICE_PYTHON=${DICE_PYTHON:-python3}
export DICE_PYTHON
work=$(mktemp -d)
trap 'git -C "$here" worktree remove --force "$work/old" >/dev/null 2>&1; rm -rf "$work"' EXIT

git -C "$here" worktree add -q --detach "$work/old" "$rev"
(cd "$work/old" && autoreconf -fi >/dev/null 2>&1 && mkdir build && cd build &&
	../configure -q >/dev/null && make -j2 >/dev/null)

if [ -n "${COMPILE:-}" ]; then
	"$DICE_PYTHON" - "$here/share/dice" >"$work/candidates.jsonl" <<'PY'
import json, os, sys
root = sys.argv[1]
for level in ("level1", "level2", "level3"):
    solutions = os.path.join(root, "examples", "cpu", level)
    for name in sorted(os.listdir(solutions)) if os.path.isdir(solutions) else []:
        if name.endswith(".py"):
            print(json.dumps({"id": "L%s/%s" % (level[5:], name[:-3]),
                              "ref": open(os.path.join(root, "problems", level, name)).read(),
                              "code": open(os.path.join(solutions, name)).read()}))
PY
	n=$(wc -l <"$work/candidates.jsonl" | tr -d ' ')
	# The header, once: a run that made it would pay 30 s more than the other.
	head -n 1 "$work/candidates.jsonl" >"$work/first.jsonl"
	DICE_DATADIR=$here/share/dice "$build/bin/dice-compile" -q --device cpu \
		--cache "$work/header-cache" "$work/first.jsonl" >/dev/null
	test -d "$work/header-cache/pch" || { echo "$0: no shared header was made" >&2; exit 1; }
	find "$work/header-cache" -mindepth 1 -maxdepth 1 ! -name pch ! -name locks \
		-exec rm -rf {} +
else
	i=1
	while [ "$i" -le "$n" ]; do
		jq -nc --arg id "L1/${i}_T" --rawfile ref "$here/t/deception/ref-relu.py" \
			'{id: $id, sample: {index: 0}, ref: $ref,
			  code: "import torch\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return torch.relu(x)\n"}'
		i=$((i + 1))
	done >"$work/candidates.jsonl"
fi

# one NAME BUILD SRCDIR: append "NAME WALL CPU" to $work/times.
one () {
	if [ -n "${COMPILE:-}" ]; then
		rm -rf "$work/cache" && cp -a "$work/header-cache" "$work/cache"
		DICE_DATADIR=$3/share/dice /usr/bin/time -f "$1 %e %U %S" -o "$work/t" \
			"$2/bin/dice-compile" -q -j1 --device cpu --cache "$work/cache" \
			"$work/candidates.jsonl" >"$work/out"
		test "$(jq -r .compile.ok "$work/out" | sort -u)" = true || {
			echo "$0: $1: not every candidate built:" >&2
			jq -r 'select(.compile.ok != true) | "  \(.id): \(.compile.error // .compile.log // "" | .[0:300])"' \
				"$work/out" >&2
			exit 1
		}
		test "$(jq -s '[.[].compile.builds[]?.pch_ms // 0] | max' "$work/out")" = 0 || {
			echo "$0: $1 made a shared header of its own (its key is not this tree's): choose a later REV" >&2
			exit 1
		}
		awk '{ print $1, $2, $3 + $4 }' "$work/t" >>"$work/times"
		return
	fi
	if [ -n "${SLOW_INPUT:-}" ]; then
		DICE_DATADIR=$3/share/dice /usr/bin/time -f "$1 %e %U %S" -o "$work/t" \
			sh -c '{ sleep "$3"; cat "$4"; } |
				"$1/bin/dice-check" -q -j2 --device cpu --cache "$2" |
				"$1/bin/dice-time" -q -j1 --all --device cpu --cache "$2" \
					--trials 20 --warmup 2' \
			sh "$2" "$work/cache" "$SLOW_INPUT" "$work/candidates.jsonl" >"$work/out"
		test "$(jq -r .time.status "$work/out" | sort -u)" = ok || {
			echo "$0: $1: not every candidate was timed" >&2
			exit 1
		}
	else
		DICE_DATADIR=$3/share/dice /usr/bin/time -f "$1 %e %U %S" -o "$work/t" \
			"$2/bin/dice-check" -q -j2 --device cpu --cache "$work/cache" \
			"$work/candidates.jsonl" >"$work/out"
	fi
	test "$(jq -r .check.status "$work/out" | sort -u)" = correct || {
		echo "$0: $1: not every candidate came out correct" >&2
		exit 1
	}
	awk '{ print $1, $2, $3 + $4 }' "$work/t" >>"$work/times"
}

r=0
while [ "$r" -lt "$runs" ]; do
	one before "$work/old/build" "$work/old"
	one after "$build" "$here"
	r=$((r + 1))
done
if [ -n "${COMPILE:-}" ]; then
	echo "$n bundled C++ solutions, each built (the shared header made beforehand), dice-compile -j1 --device cpu, $runs runs each"
elif [ -n "${SLOW_INPUT:-}" ]; then
	echo "$n candidates that build nothing, coming after ${SLOW_INPUT} s, dice-check -j2 --device cpu | dice-time -j1 --all, $runs runs each"
else
	echo "$n candidates that build nothing, dice-check -j2 --device cpu, $runs runs each"
fi
# median COLUMN SIDE: the median of a column of $work/times for SIDE.
median () {
	awk -v side="$2" -v col="$1" '$1 == side { print $col }' "$work/times" |
		sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
for side in before after; do
	printf "%-6s %s: median wall %s s, median CPU %s s\n" "$side" \
		"$(if [ "$side" = before ]; then echo "$rev"; else echo "this tree"; fi)" \
		"$(median 2 "$side")" "$(median 3 "$side")"
done
