#!/bin/sh
# run-tests.sh: run test scripts from a built tree without make, for a
# machine that has the build but no compilers (a GPU node).  Builds
# nothing.  Usage: t/run-tests.sh BUILDDIR TEST...  (TEST as t/tNNNN-x.t,
# or --gpu for the tests listed in t/gpu-tests, those with cases that
# only a GPU runs).  Prints each script's TAP, then one line per script,
# with its seconds, and a summary; exits 1 if any test failed.
# RUN_TESTS_LOGS=DIR also writes each script's output to DIR/NAME.log as
# it runs, so that a run stopped half-way (a device command's time limit)
# leaves what it had.
set -u
[ $# -ge 2 ] || { echo "usage: $0 BUILDDIR TEST... (or --gpu)" >&2; exit 2; }
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
top_builddir=$(cd "$1" && pwd)
shift
if [ "$1" = --gpu ]; then
	shift
	set -- $(sed 's/#.*//' "$top_srcdir/t/gpu-tests") "$@"
fi
. "$top_srcdir/t/test-env.sh"
mkdir -p "$TEST_BUILDDIR"

failed=0
summary=
for t in "$@"; do
	name=${t##*/}
	echo "### $name"
	case $t in
	*.t) [ -f "$top_builddir/$t" ] && prog="$top_builddir/$t" || prog="$top_srcdir/$t" ;;
	esac
	started=$(date +%s)
	if [ -n "${RUN_TESTS_LOGS:-}" ]; then
		mkdir -p "$RUN_TESTS_LOGS"
		"$prog" >"$RUN_TESTS_LOGS/$name.log" 2>&1
		status=$?
		out=$(cat "$RUN_TESTS_LOGS/$name.log")
	else
		out=$("$prog" 2>&1)
		status=$?
	fi
	seconds=$(($(date +%s) - started))
	printf '%s\n' "$out"
	pass=$(printf '%s\n' "$out" | grep -c '^ok ' | tr -d ' ')
	skip=$(printf '%s\n' "$out" | grep -ci '^ok .*# skip' | tr -d ' ')
	fail=$(printf '%s\n' "$out" | grep -c '^not ok ' | tr -d ' ')
	if printf '%s\n' "$out" | grep -q '^1\.\.0 # SKIP'; then
		line="$name: skipped ($(printf '%s\n' "$out" | sed -n 's/^1\.\.0 # SKIP //p'))"
	else
		line="$name: $((pass - skip)) passed, $fail failed, $skip skipped, exit $status, ${seconds} s"
	fi
	[ "$fail" = 0 ] && [ "$status" = 0 ] || failed=1
	summary="$summary$line
"
done
echo "### summary"
printf '%s' "$summary"
exit $failed
