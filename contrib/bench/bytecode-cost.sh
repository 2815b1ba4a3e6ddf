#!/bin/sh
# bytecode-cost.sh: what the bytecode cache (dice(7), Bytecode cache)
# saves dice-check, on candidates that build nothing, so that what is
# left is the harnesses' own start: dice-check -j1 over the bundled
# level-1 problems (each candidate the reference's own Model, renamed
# ModelNew), with a bytecode cache warmed beforehand (its one-time
# warm-up timed apart) and without one (DICE_BYTECODE empty),
# alternating, RUNS times each (default 3).  Prints each run's wall and
# CPU seconds (the tool and every process it waited for), the medians and
# their ratio.
#
# Usage: contrib/bench/bytecode-cost.sh [RUNS]
#
# The saving depends on the interpreter: where torch's package has
# bytecode files of its own, Python reads those without the cache, and
# the two should come out the same; where it has none (installed with pip
# --no-compile, or images that set PYTHONDONTWRITEBYTECODE=1 before
# installing), every harness compiles torch's sources.  PYTHONDONTWRITEBYTECODE=1
# is set here, as dice sets it for every harness.  Needs: the dice tools
# on PATH (or BUILDDIR=build), jq, a Python with torch (DICE_PYTHON,
# default python3).  LIMIT (default 8) sets how many problems.
set -eu

runs=${1:-3}
here=$(cd "$(dirname "$0")/../.." && pwd)
: "${DICE_PYTHON:=python3}"
: "${DICE_DATADIR:=$here/share/dice}"
: "${LIMIT:=8}"
export DICE_PYTHON DICE_DATADIR
PYTHONDONTWRITEBYTECODE=1; export PYTHONDONTWRITEBYTECODE
if [ -n "${BUILDDIR:-}" ]; then PATH="$(cd "$BUILDDIR" && pwd)/bin:$PATH"; fi
command -v dice-check >/dev/null || { echo "$0: dice-check not on PATH (set BUILDDIR)" >&2; exit 2; }
command -v jq >/dev/null || { echo "$0: needs jq" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/dice-bytecode-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

for ref in "$DICE_DATADIR"/problems/level1/*.py; do
	stem=${ref##*/}
	jq -nc --arg id "L1/${stem%.py}" --rawfile ref "$ref" \
		'{id: $id, sample: {index: 0}, ref: $ref, code: ($ref + "\nModelNew = Model\n")}'
done | head -n "$LIMIT" >"$work/candidates.jsonl"
n=$(wc -l <"$work/candidates.jsonl" | tr -d ' ')
echo "# $n candidates; $("$DICE_PYTHON" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__)' 2>/dev/null)"

. "$here/contrib/bench/lib-measure.sh"

run () {
	label=$1; shift
	cpu_mark start
	t0=$(now)
	env "$@" dice-check -q -j 1 --device cpu --cache "$work/cache" "$work/candidates.jsonl" \
		>"$work/out.$label.jsonl"
	wall=$(since "$t0")
	cpu_mark end
	bad=$(jq -r 'select(.check.status != "correct") | .id' "$work/out.$label.jsonl" | head -n 3)
	[ -z "$bad" ] || echo "# $label: not correct: $bad" >&2
	echo "$label $wall $(cpu_between start end)" >>"$work/times"
}

# The one-time warm-up: the first run with an empty cache pays it.
t0=$(now)
env DICE_BYTECODE="$work/bytecode" dice-check -q -j 1 --device cpu --cache "$work/cache" \
	"$work/candidates.jsonl" >/dev/null
first=$(since "$t0")
t0=$(now)
env DICE_BYTECODE="$work/bytecode" dice-check -q -j 1 --device cpu --cache "$work/cache" /dev/null
warm=$(since "$t0")
echo "# first run into an empty bytecode cache: $first s; a tool's start once it is warm: $warm s"

i=0
while [ "$i" -lt "$runs" ]; do
	run with DICE_BYTECODE="$work/bytecode"
	run without DICE_BYTECODE=
	i=$((i + 1))
done
echo "run wall_s cpu_s"
cat "$work/times"
ww=$(median_of "$work/times" with 2) wo=$(median_of "$work/times" without 2)
cw=$(median_of "$work/times" with 3) co=$(median_of "$work/times" without 3)
awk -v ww="$ww" -v wo="$wo" -v cw="$cw" -v co="$co" 'BEGIN {
	printf "median wall: with %.2f s, without %.2f s (%.2fx)\n", ww, wo, wo / ww
	printf "median CPU: with %.2f s, without %.2f s (%.2fx)\n", cw, co, co / cw
}'
