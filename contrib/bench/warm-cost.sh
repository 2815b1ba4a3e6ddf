#!/bin/sh
# warm-cost.sh: where a candidate's time goes when nothing needs building,
# phase by phase, in dice-check and dice-time.
# Usage: contrib/bench/warm-cost.sh [RUNS] [DEVICE]
# Makes one record per bundled problem from its example solution
# (share/dice/examples/cpu for DEVICE cpu, the default; examples/cuda for
# cuda), fills the build cache once, then runs dice-check -j1 RUNS times
# (default 3) and dice-time -j1 once with DICE_PHASES=1, so that each
# record carries the harness's phases_ms (dice-records(5)), and prints
# for each phase the median over candidates and runs in ms and its share
# of the whole, the record's ms (from the job's delivery to the end).
# Each worker starts its next candidate's harness ahead, while the present
# one runs (dice(7), HARNESS PROTOCOL): the phases before job_wait are
# then paid before the job comes, outside ms, and job_wait is the idle
# wait for it; "outside" is ms less the phases after job_wait: the
# sandbox's teardown after the result, and for a harness that was not
# ready when its job came (each run's first), the rest of its start.
# DICE_PRESTART=0 starts each harness with its job instead.  Last, the
# whole dice-check -j1 over the candidates, in seconds of wall time,
# with harnesses started ahead (the default) and without
# (DICE_PRESTART=0), alternating, RUNS times each, and the ratio of the
# medians.  Run from a configured build directory; needs jq and
# a Python with torch (DICE_PYTHON, default python3).  TIME_FLAGS adds
# options to dice-time (such as --trials 10 for a quicker run).
set -eu
runs=${1:-3}
device=${2:-cpu}
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(pwd)
if [ ! -x "$build/bin/dice-check" ]; then
	echo "$0: run from a build directory (no bin/dice-check here)" >&2
	exit 2
fi
DICE_PYTHON=${DICE_PYTHON:-python3}
DICE_DATADIR=${DICE_DATADIR:-$here/share/dice}
export DICE_PYTHON DICE_DATADIR
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for solution in "$DICE_DATADIR/examples/$device"/level*/*.py; do
	level=$(basename "$(dirname "$solution")")
	name=$(basename "$solution" .py)
	jq -nc --arg id "$level/$name" \
		--rawfile ref "$DICE_DATADIR/problems/$level/$name.py" \
		--rawfile code "$solution" \
		'{id: $id, sample: {index: 0}, ref: $ref, code: $code}'
done >"$work/candidates.jsonl"

check () {
	"$build/bin/dice-check" -q -j1 --device "$device" --cache "$work/cache" "$@"
}

check "$work/candidates.jsonl" >"$work/cold.jsonl"
test "$(jq -r .check.status "$work/cold.jsonl" | sort -u)" = correct || {
	echo "$0: not every example came out correct:" >&2
	jq -r '[.id, .check.status, .check.error] | @tsv' "$work/cold.jsonl" >&2
	exit 1
}

r=0
: >"$work/checked.jsonl"
while [ "$r" -lt "$runs" ]; do
	DICE_PHASES=1 check "$work/candidates.jsonl" >>"$work/checked.jsonl"
	r=$((r + 1))
done
# shellcheck disable=SC2086
DICE_PHASES=1 "$build/bin/dice-time" -q -j1 --device "$device" \
	--cache "$work/cache" ${TIME_FLAGS:-} "$work/cold.jsonl" >"$work/timed.jsonl"

# table KEY FILE: the phases of FILE's .KEY objects as a table.
table () {
	jq -rs --arg k "$1" '
	  def median: sort | if length == 0 then null
	    else .[(length - 1) / 2 | floor] end;
	  def after_wait: to_entries
	    | ((map(.key) | index("job_wait")) // -1) as $i
	    | .[$i + 1:] | map(.value) | add // 0;
	  [.[] | .[$k] | select(.phases_ms)
	   | .phases_ms + {outside: (.ms - (.phases_ms | after_wait))}
	   + {"(ms)": .ms}] as $rows
	  | [$rows[0] | keys_unsorted[] | select(. != "(ms)")] as $order
	  | ($rows | map(.["(ms)"]) | median) as $whole
	  | (($order | index("job_wait")) // -1) as $wait
	  | "\($rows | length) candidate runs, median ms \($whole | round)",
	    ($order[] | . as $n | ($rows | map(.[$n] // 0) | median) as $m
	     | "  \($n)\t\($m * 10 | round / 10)\t"
	       + (if ($order | index($n)) <= $wait then "before the job"
	          else "\((100 * $m / $whole) | round)%" end))
	' "$2"
}
echo "dice-check -j1 --device $device, warm build cache, $runs runs"
table check "$work/checked.jsonl"
echo "dice-time -j1 --device $device ${TIME_FLAGS:-}, warm build cache"
table time "$work/timed.jsonl"

# wall CMD...: the seconds CMD takes.
wall () {
	start=$(date +%s.%N)
	"$@" >/dev/null
	awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f\n", b - a }'
}
r=0
: >"$work/ahead.s"
: >"$work/plain.s"
while [ "$r" -lt "$runs" ]; do
	wall check "$work/candidates.jsonl" >>"$work/ahead.s"
	(DICE_PRESTART=0 && export DICE_PRESTART &&
		wall check "$work/candidates.jsonl") >>"$work/plain.s"
	r=$((r + 1))
done
median () { sort -g "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ahead=$(median "$work/ahead.s")
plain=$(median "$work/plain.s")
echo "dice-check -j1 --device $device, warm build cache, whole run, $runs runs each, alternating"
printf '  harnesses started ahead\t%s s\t(%s)\n' "$ahead" "$(tr '\n' ' ' <"$work/ahead.s")"
printf '  DICE_PRESTART=0\t%s s\t(%s)\n' "$plain" "$(tr '\n' ' ' <"$work/plain.s")"
awk -v a="$ahead" -v p="$plain" 'BEGIN { printf "  ratio\t%.2fx\n", p / a }'
