#!/bin/sh
# scan-speed.sh: time lib/pyscan's static robust check over many candidates.
# Usage: contrib/bench/scan-speed.sh [CANDIDATES] [RUNS]
# Copies the bundled CUDA solutions (share/dice/examples/cuda, 15 modules
# of 2-5 KB) round-robin into CANDIDATES (default 1000) files, checks that
# every one scans with no flag and no error, then prints the median wall
# time of RUNS (default 11) runs of t/pyscan-dump -q over all of them (read,
# tokenize, outline, scan, build the JSON result; nothing printed).
# Run from a build directory (or set PYSCAN_DUMP and DICE_SRCDIR).
set -eu
n=${1:-1000}
runs=${2:-11}
here=$(cd "$(dirname "$0")/../.." && pwd)
srcdir=${DICE_SRCDIR:-$here}
prog=${PYSCAN_DUMP:-./t/pyscan-dump}
if [ ! -x "$prog" ]; then
	echo "$0: $prog is not built (make t/pyscan-dump in a build directory)" >&2
	exit 2
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

set -- "$srcdir"/share/dice/examples/cuda/level*/*.py
count=$#
i=0
while [ "$i" -lt "$n" ]; do
	shift_by=$((i % count + 1))
	eval "f=\${$shift_by}"
	cp "$f" "$dir/$i.py"
	i=$((i + 1))
done
bytes=$(cat "$dir"/*.py | wc -c)
"$prog" "$dir"/*.py >"$dir/results"
bad=$(grep -v -c '"flags":\[\],"evidence":{}.*"error":null' "$dir/results" || true)
if [ "$bad" -ne 0 ]; then
	echo "$0: $bad honest candidates were flagged" >&2
	exit 1
fi
echo "$n candidates, $bytes bytes ($count distinct modules)"

i=0
while [ "$i" -lt "$runs" ]; do
	start=$(date +%s%N)
	"$prog" -q "$dir"/*.py
	end=$(date +%s%N)
	echo $(( (end - start) / 1000 ))
	i=$((i + 1))
done | sort -n | awk -v n="$n" '{ t[NR] = $1 } END {
	printf "pyscan: median %.1f ms over %d runs (min %.1f, max %.1f), %.1f us a candidate\n",
	       t[int((NR + 1) / 2)] / 1000, NR, t[1] / 1000, t[NR] / 1000,
	       t[int((NR + 1) / 2)] / n }'
