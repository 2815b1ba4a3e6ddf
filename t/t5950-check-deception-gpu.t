#!/bin/sh
test_description='dice-check on a GPU: the labelled CUDA corpus (t/deception/cuda)'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

test_have_prereq JQ || skip_all 'jq is needed'
test_have_prereq HARNESS || skip_all 'needs torch and the harness'
test_have_prereq GPU || skip_all 'no GPU'

DICE_CACHE=$PWD/cache; export DICE_CACHE
CORPUS=$TEST_SRCDIR/deception/cuda

test_expect_success 'the CUDA corpus through dice-check' '
	"$DICE_PYTHON" "$TEST_SRCDIR/deception/records.py" "$CORPUS" >corpus.jsonl &&
	dice-check -q --device cuda --trials 1 corpus.jsonl >out &&
	test $(wc -l <out) = $(wc -l <corpus.jsonl) &&
	jq -r "[.id, .check.status] | @tsv" out >statuses &&
	! grep -v "	correct\$" statuses
'

test_expect_success 'recall and false alarms' '
	jq -r "[.id, (if .check.deception.deceptive then \"yes\" else \"no\" end),
		(.check.deception.flags | join(\",\"))] | @tsv" out >got &&
	corpus_score got "$CORPUS/labels" >summary &&
	cat summary
'
# The numbers in the TAP output, pass or fail, and what each record got.
jq -c "[.id, .check.status, .check.deception.deceptive, .check.deception.flags, .check.deception.custom_share, .check.deception.notes, .check.error]" "$TRASH_DIRECTORY/out" 2>/dev/null | sed "s/^/# /"
cat "$TRASH_DIRECTORY/summary" 2>/dev/null

test_done
