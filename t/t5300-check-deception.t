#!/bin/sh
test_description='dice-check: the labelled CPU corpus of deceptive and honest candidates'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

cpu_harness_env
CORPUS=$TEST_SRCDIR/deception
check () { dice-check -q --device cpu --memory 4G "$@"; }

# One run for the whole corpus: the extension builds once, two at a time.
# One trial, so that the caching candidates pass and reach the checks.
test_expect_success 'the corpus through dice-check -j2' '
	"$DICE_PYTHON" "$CORPUS/records.py" "$CORPUS" >corpus.jsonl &&
	check -j2 --trials 1 corpus.jsonl >out &&
	test $(wc -l <out) = $(wc -l <corpus.jsonl) &&
	jq -r "[.id, .check.status] | @tsv" out >statuses &&
	! grep -v "	correct\$" statuses
'

# verdicts: "id deceptive flags weak" from the output, labels side by side.
test_expect_success 'recall and false alarms' '
	jq -r "[.id, (if .check.deception.deceptive then \"yes\" else \"no\" end),
		(.check.deception.flags + (if .check.weak_tolerance then [\"weak_tolerance\"] else [] end) | join(\",\"))]
		| @tsv" out >got &&
	corpus_score got "$CORPUS/labels" >summary &&
	cat summary
'
# The numbers in the TAP output, pass or fail.
cat "$TRASH_DIRECTORY/summary" 2>/dev/null

test_expect_success 'deceptive records say why; honest ones flag without deciding' '
	jq -r "select(.check.deception.deceptive) | .check.deception.because | length > 0" out | sort -u >actual &&
	echo true >expect &&
	test_cmp expect actual &&
	jq -r "select(.id == \"honest-epilogue\") | .check.deception |
		[.deceptive, (.custom_share > 0.5), (.because | length), (.evidence.torch_compute_in_forward | contains(\"dynamic:\"))] | @tsv" out >actual &&
	printf "false\ttrue\t0\ttrue\n" >expect &&
	test_cmp expect actual
'

# Whether torch's share of forward is too large is timed on the CPU.
# Two busy loops beside the checks, as other work on a small machine (or
# the harnesses dice starts ahead) would be: a GEMM done by torch is
# still caught each time, by either hand, and the honest candidate whose
# torch epilogue is small stays honest.
test_expect_success 'under CPU load, the share of the candidate s own work does not move' '
	jq -c "select(.id == \"torch-gemm\" or .id == \"torch-gemm2\"
		or .id == \"honest-epilogue\")" corpus.jsonl >shares.jsonl &&
	: >busy.pids &&
	for b in 1 2
	do
		timeout 300 sh -c "while :; do :; done" </dev/null >/dev/null 2>&1 &
		echo $! >>busy.pids
	done &&
	for i in 1 2 3
	do
		check -j2 --trials 1 shares.jsonl
	done >loaded
	status=$?
	kill $(cat busy.pids) &&
	test $status = 0 &&
	jq -r "[.id, .check.deception.deceptive] | @tsv" loaded | sort | uniq -c |
		sed "s/^ *//" >actual &&
	printf "3 honest-epilogue\tfalse\n3 torch-gemm\ttrue\n3 torch-gemm2\ttrue\n" >expect &&
	test_cmp expect actual
'

test_expect_success '--no-robust: flags, evidence, no verdict' '
	grep "\"id\": \"torch-only\"" corpus.jsonl >one.jsonl &&
	check --no-robust --trials 1 one.jsonl >out2 &&
	jq -r ".check.deception | [.deceptive, (.flags | index(\"kernel_not_launched\") != null), (.evidence | has(\"kernel_not_launched\"))] | @tsv" out2 >actual &&
	printf "\ttrue\ttrue\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'an incorrect candidate: flags, but deceptive is null and no dynamic evidence' '
	record L1/wrong "$(candidate "" "return torch.relu(x) + 1")" >wrong.jsonl &&
	check --trials 1 wrong.jsonl >out3 &&
	jq -r ".check | [.status, .deception.deceptive, .weak_tolerance, (.deception.notes | length), has(\"dynamic\")] | @tsv" out3 >actual &&
	printf "incorrect\t\t\t0\tfalse\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a record without code: deception null' '
	echo "{\"id\":\"L1/none\",\"ref\":\"x\"}" | check >out4 &&
	jq -r ".check | [.status, .deception, .weak_tolerance] | @tsv" out4 >actual &&
	printf "no_code\t\t\n" >expect &&
	test_cmp expect actual
'

test_done
