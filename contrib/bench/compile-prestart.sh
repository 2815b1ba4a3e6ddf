#!/bin/sh
# compile-prestart.sh: how many harnesses dice-compile should start ahead
# per worker.  Each one started ahead is a sandbox, an interpreter and
# torch's import, and in dice-compile its builder with its own (dice(7),
# HARNESS PROTOCOL): CPU that the running builds, which are CPU-bound,
# compete with.  Runs dice-compile -j JOBS --device cpu over the bundled
# C++ solutions (share/dice/examples/cpu), each run into a copy of a cache
# that holds only the shared precompiled header (made once, before the
# runs), so that every candidate builds, with DICE_PRESTART set to each of
# DEPTHS in turn, RUNS times (alternating), and prints each run's wall
# and CPU seconds and each depth's medians.
#
# Usage: contrib/bench/compile-prestart.sh [RUNS] [DEPTHS]
#
# RUNS defaults to 3, DEPTHS to "0 1 2".  JOBS (default the number of
# cores) sets dice-compile -j, LIMIT how many solutions (default all).
# Needs: the dice tools on PATH (or BUILDDIR=build), jq, a Python with
# torch that builds C++ extensions (DICE_PYTHON, default python3).
# DICE_BYTECODE passes through: set it empty to see what the harnesses'
# starts cost without the bytecode cache.
set -eu

runs=${1:-3}
depths=${2:-0 1 2}
here=$(cd "$(dirname "$0")/../.." && pwd)
: "${DICE_PYTHON:=python3}"
: "${DICE_DATADIR:=$here/share/dice}"
: "${JOBS:=$(nproc)}"
: "${LIMIT:=0}"
export DICE_PYTHON DICE_DATADIR
if [ -n "${BUILDDIR:-}" ]; then PATH="$(cd "$BUILDDIR" && pwd)/bin:$PATH"; fi
command -v dice-compile >/dev/null || { echo "$0: dice-compile not on PATH (set BUILDDIR)" >&2; exit 2; }
command -v jq >/dev/null || { echo "$0: needs jq" >&2; exit 2; }
for depth in $depths $LIMIT; do
	case $depth in
	*[!0-9]*|'') echo "$0: DEPTHS and LIMIT: numbers, not '$depth'" >&2; exit 2 ;;
	esac
done
work=$(mktemp -d "${TMPDIR:-/tmp}/dice-prestart-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

for solution in "$DICE_DATADIR"/examples/cpu/level*/*.py; do
	level=${solution%/*}; level=${level##*/level}
	stem=${solution##*/}; stem=${stem%.py}
	jq -nc --arg id "L$level/$stem" --rawfile ref "$DICE_DATADIR/problems/level$level/$stem.py" \
		--rawfile code "$solution" '{id: $id, sample: {index: 0}, ref: $ref, code: $code}'
done | if [ "$LIMIT" -gt 0 ]; then head -n "$LIMIT"; else cat; fi >"$work/candidates.jsonl"
n=$(wc -l <"$work/candidates.jsonl" | tr -d ' ')
[ "$n" -gt 0 ] || { echo "$0: no C++ solutions in $DICE_DATADIR/examples/cpu" >&2; exit 2; }

# The shared header, made once by building the first candidate; every
# run starts from a copy of the cache without that build.
head -n 1 "$work/candidates.jsonl" >"$work/first.jsonl"
dice-compile -q --device cpu --cache "$work/header" "$work/first.jsonl" >"$work/first.out"
[ -d "$work/header/pch" ] || { echo "$0: the first build made no shared header (see $work/first.out)" >&2; exit 1; }
for entry in "$work/header"/*; do
	case ${entry##*/} in pch|locks) ;; *) rm -rf "$entry" ;; esac
done
echo "# $n candidates, dice-compile -j $JOBS; $("$DICE_PYTHON" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__)' 2>/dev/null)"

. "$here/contrib/bench/lib-measure.sh"

i=0
while [ "$i" -lt "$runs" ]; do
	for depth in $depths; do
		rm -rf "$work/cache" && cp -R "$work/header" "$work/cache"
		cpu_mark start
		t0=$(now)
		DICE_PRESTART=$depth dice-compile -q -j "$JOBS" --device cpu --cache "$work/cache" \
			"$work/candidates.jsonl" >"$work/out.jsonl"
		wall=$(since "$t0")
		cpu_mark end
		failed=$(jq -r 'select(.compile.ok != true) | .id' "$work/out.jsonl" | head -n 3)
		[ -z "$failed" ] || echo "# prestart $depth: did not build: $failed" >&2
		echo "$depth $wall $(cpu_between start end)" >>"$work/times"
	done
	i=$((i + 1))
done
echo "prestart wall_s cpu_s"
cat "$work/times"
for depth in $depths; do
	echo "DICE_PRESTART=$depth: median wall $(median_of "$work/times" "$depth" 2) s, CPU $(median_of "$work/times" "$depth" 3) s"
done
