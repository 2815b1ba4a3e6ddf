#!/bin/sh
# bicrl.sh: the two BiC-RL stages of the DICE paper, run with dice: kernel
# infilling (prompts made from solutions with their kernel source left out,
# rewarded by the joined module's correctness), then end-to-end generation
# with the problems scheduled from easy to hard by the first stage's pass
# rates.  Each stage leaves its records, with a reward per sample, for a
# trainer to read; the training itself is not dice's.
#
# Usage: bicrl.sh [-n SAMPLES] [-d DEVICE] [-s cpu|cuda] OUTDIR [SELECTOR]...
#
# SELECTORs are dice-prompt's (default L1).  The sampler is the command in
# $SAMPLER, dice-sample's options (for a model: SAMPLER='--api URL --model
# NAME'); without it, oracle-sampler answers from the bundled solutions, so
# the recipe runs on a machine with no GPU and no model server.
set -eu

samples=2 device=cpu solutions=cpu
while getopts n:d:s: opt; do
	case $opt in
	n) samples=$OPTARG ;;
	d) device=$OPTARG ;;
	s) solutions=$OPTARG ;;
	*) echo "Usage: $0 [-n SAMPLES] [-d DEVICE] [-s cpu|cuda] OUTDIR [SELECTOR]..." >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))
test $# -ge 1 || { echo "$0: no OUTDIR" >&2; exit 2; }
out=$1
shift
test $# -ge 1 || set -- L1

# Run from a source tree, the bundled suite is the tree's own.
here=$(cd "$(dirname "$0")" && pwd)
if test -z "${DICE_DATADIR:-}" && test -d "$here/../../share/dice/problems"; then
	DICE_DATADIR=$(cd "$here/../../share/dice" && pwd)
	DICE_PROMPTDIR=$(cd "$here/../../share/prompts" && pwd)
	export DICE_DATADIR DICE_PROMPTDIR
fi
datadir=${DICE_DATADIR:-$(dirname "$(command -v dice-prompt)")/../share/dice}

sample () {
	if test -n "${SAMPLER:-}"; then
		# shellcheck disable=SC2086  # SAMPLER is a list of options
		dice-sample -n "$samples" $SAMPLER
	else
		dice-sample -n "$samples" \
			--exec "'$here/oracle-sampler' $1 '$datadir' '$solutions'"
	fi
}

mkdir -p "$out"

# Stage 1, infilling: the solutions cut around their kernel source, the
# model writes the source back, the joined module is judged and rewarded.
dice-prompt --solutions="$solutions" "$@" | dice-split |
	dice-prompt --infill | sample infill | dice-split --join |
	dice-check --device "$device" | dice-score --rewards >"$out/infill.jsonl"

# The schedule: stage 1's problems, easiest first.
dice-curate --difficulty "$out/infill.jsonl" >"$out/schedule.jsonl"

# Stage 2, end to end, in the schedule's order: the model writes the whole
# module from the reference.
sed -n 's|^{"id":"L\([0-9]*\)/\([0-9]*\)_.*|L\1:\2|p' "$out/schedule.jsonl" |
	while read -r problem; do dice-prompt "$problem"; done |
	sample end-to-end | dice-check --device "$device" |
	dice-score --rewards >"$out/end-to-end.jsonl"

for stage in infill end-to-end; do
	echo "== $stage"
	dice-score "$out/$stage.jsonl"
done
