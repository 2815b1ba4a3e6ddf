#!/bin/sh
test_description='the harness: DICE_PHASES=1 says where its time went, and it exits as Python would, without the teardown'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

test_have_prereq JQ || skip_all 'jq is needed'
test_have_prereq HARNESS || skip_all 'needs torch and the harness'

DICE_CACHE=$PWD/cache; export DICE_CACHE
check () { dice-check -q --device cpu "$@"; }

# What a record's check says, less what changes from run to run.
verdict () {
	jq -c '.check | del(.ms, .phases_ms)
	       | .deception |= (if . then del(.custom_share) else . end)' "$1"
}

test_expect_success 'DICE_PHASES=1: each phase of a check, in order, within ms' '
	record L1/1 "$(candidate "")" >ok.jsonl &&
	DICE_PHASES=1 check ok.jsonl >phases.out &&
	jq -r ".check.status" phases.out >actual &&
	echo correct >expect &&
	test_cmp expect actual &&
	jq -r ".check.phases_ms | keys_unsorted[]" phases.out >actual &&
	printf "%s\n" start torch_import harness_import dispatch_mode job_wait device_setup cpp_extension_import \
		device_info reference_load candidate_load reference_construct \
		candidate_construct to_device inputs reference_forward \
		candidate_forward compare evidence result >expect &&
	test_cmp expect actual &&
	jq -e ".check | (.phases_ms | map_values(select(type != \"number\" or . < 0)) == {})
	       and ([.phases_ms | to_entries[] | select(.key as \$k
	             | [\"start\", \"torch_import\", \"harness_import\", \"dispatch_mode\", \"job_wait\"]
	             | index(\$k) | not) | .value] | add) <= .ms
	       and .phases_ms.torch_import > 0" phases.out
'

test_expect_success 'without DICE_PHASES, or with another value: none, and the same verdict' '
	check ok.jsonl >plain.out &&
	DICE_PHASES=yes check ok.jsonl >yes.out &&
	jq -r ".check | has(\"phases_ms\")" plain.out yes.out >actual &&
	printf "false\nfalse\n" >expect &&
	test_cmp expect actual &&
	verdict phases.out >expect &&
	verdict plain.out >actual &&
	test_cmp expect actual
'

test_expect_success 'an incorrect candidate: phases up to the verdict, the same verdict' '
	record L1/2 "$(candidate "" "return torch.relu(x) + 1")" >wrong.jsonl &&
	DICE_PHASES=1 check wrong.jsonl >wrong-phases.out &&
	check wrong.jsonl >wrong-plain.out &&
	verdict wrong-phases.out >expect &&
	verdict wrong-plain.out >actual &&
	test_cmp expect actual &&
	jq -r ".check | [.status, (.phases_ms | has(\"compare\")), (.phases_ms | has(\"evidence\"))] | @tsv" wrong-phases.out >actual &&
	printf "incorrect\ttrue\tfalse\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a harness that dies before its result: no phases' '
	record L1/3 "$(candidate "os._exit(3)")" | DICE_PHASES=1 check >out &&
	jq -r ".check | [.status, has(\"phases_ms\")] | @tsv" out >actual &&
	printf "crashed\tfalse\n" >expect &&
	test_cmp expect actual
'

# Python's own exit waits for the threads that are not daemons, then runs
# the exit handlers; the harness's quicker exit must do the same, so that
# what a candidate leaves running at the end is judged as before.
test_expect_success 'threads that are not daemons finish, then exit handlers run' '
	TMPDIR=$PWD/kept && mkdir kept && export TMPDIR &&
	record L1/4 "$(candidate "import atexit, threading, time
def late():
    time.sleep(1)
    open(\"thread-done\", \"w\").write(\"x\")
threading.Thread(target=late).start()
atexit.register(lambda: open(\"atexit-ran\", \"w\").write(
    \"after the thread\" if os.path.exists(\"thread-done\") else \"before\"))")" |
	check --keep-temp >out &&
	jq -r .check.status out >actual &&
	echo correct >expect &&
	test_cmp expect actual &&
	cat kept/dice-*/atexit-ran >actual &&
	printf "after the thread" >expect &&
	test_cmp expect actual
'

test_expect_success 'a thread that never ends, an exit handler that never returns: timeout, as before' '
	{
		record L1/5 "$(candidate "import threading, time
threading.Thread(target=lambda: time.sleep(600)).start()")" &&
		record L1/6 "$(candidate "import atexit, time
atexit.register(lambda: time.sleep(600))")"
	} >stuck.jsonl &&
	check -j2 --timeout 15 stuck.jsonl >out &&
	jq -r "[.id, .check.status] | @tsv" out >actual &&
	printf "L1/5\ttimeout\nL1/6\ttimeout\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'an exit handler that kills the process after the result: the result counts, as before' '
	record L1/7 "$(candidate "import atexit, signal
atexit.register(lambda: os.kill(os.getpid(), signal.SIGKILL))")" | check >out &&
	jq -r .check.status out >actual &&
	echo correct >expect &&
	test_cmp expect actual
'

test_expect_success 'DICE_PHASES=1: each phase of a timing' '
	DICE_PHASES=1 dice-time -q --all --device cpu --trials 3 \
		--warmup 1 plain.out >timed.out &&
	jq -r ".time.status, (.time.phases_ms | keys_unsorted | join(\" \"))" timed.out >actual &&
	printf "%s\n" ok "start torch_import harness_import dispatch_mode job_wait device_setup cpp_extension_import device_info reference_load candidate_load construct inputs timed_calls speed_of_light result" >expect &&
	test_cmp expect actual &&
	dice-time -q --all --device cpu --trials 3 --warmup 1 \
		plain.out >timed.plain &&
	jq -r ".time | has(\"phases_ms\")" timed.plain >actual &&
	echo false >expect &&
	test_cmp expect actual
'

test_done
