#!/bin/sh
test_description='each worker starts its next harness while the present candidate runs: the job comes later, the clock starts with it, and nothing started ahead outlives the run'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

fake_harness_env
unset DICE_PRESTART

# A stand-in harness that, like the real one, does its slow start (the
# seconds in ./fake/preload, torch's import for the real one) before it
# reads its job, and holds a shared lock on ./alive for as long as it
# lives.  A candidate's check.error says "BORN READY GOT END": when the
# process started, finished its start, got its job and wrote its result.
# The candidate's code may sleep.
test_expect_success 'setup' '
	mkdir -p fake/python/dice_harness &&
	touch alive &&
	cat >fake/python/dice_harness/__main__.py <<-PYEOF &&
	import fcntl, json, os, sys, time
	born = time.time()
	_alive = open("$PWD/alive")
	fcntl.flock(_alive, fcntl.LOCK_SH)
	time.sleep(float(open("$PWD/fake/preload").read()))
	ready = time.time()
	job = json.load(sys.stdin)
	got = time.time()
	if sys.argv[1:] == ["--builder"]:
	    sys.exit(0)
	exec(job["code"], {})
	error = "%r %r %r %r" % (born, ready, got, time.time())
	fd = int(os.environ["DICE_RESULT_FD"])
	os.write(fd, json.dumps({
	    "compile": {"ok": True, "ms": 0, "cache": "hit", "key": "fake",
	                "arch": None, "log": "", "builds": []},
	    "check": {"status": "correct", "correct": True, "trials": 1,
	              "passed": 1, "max_abs_err": 0.0, "max_rel_err": 0.0,
	              "failed_trial": None, "error": error, "torch": "fake",
	              "cuda": None, "device": "cpu", "driver": None,
	              "seed": 42}}).encode())
	os.close(fd)
	PYEOF
	echo 0.5 >fake/preload &&
	for i in 1 2 3; do
		record L1/$i "import time; time.sleep(0.8)" || return 1
	done >three.jsonl
'

# lives FILE: each record's "BORN READY GOT END", in input order.
lives () {
	jq -r .check.error "$1"
}

test_expect_success 'with -j1, each next harness starts while the one before runs, and gets its job when that one is done' '
	dice-check -q -j1 --device cpu three.jsonl >out &&
	jq -r .check.status out >actual &&
	printf "correct\ncorrect\ncorrect\n" >expect &&
	test_cmp expect actual &&
	lives out >spans &&
	awk "NR > 1 && !(\$1 < end && \$3 >= end) { print \"record \" NR \": \" \$0 \" against \" end; bad = 1 }
	     { end = \$4 } END { exit bad }" spans
'

test_expect_success 'then nothing it started is left: no harness alive, no working directory' '
	nobody_holds alive &&
	! ls "$TMPDIR" | grep "^dice-"
'

test_expect_success 'DICE_PRESTART=0: each harness starts after the one before has ended' '
	DICE_PRESTART=0 dice-check -q -j1 --device cpu three.jsonl >out &&
	lives out >spans &&
	awk "NR > 1 && \$1 < end { print \"record \" NR \" started before \" end; bad = 1 }
	     { end = \$4 } END { exit bad }" spans
'

test_expect_success 'DICE_PRESTART=3: the fourth harness starts while the first runs, the fifth after' '
	echo 0.3 >fake/preload &&
	for i in 1 2 3 4 5; do
		record L1/$i "import time; time.sleep(0.8)" || return 1
	done >five.jsonl &&
	DICE_PRESTART=3 dice-check -q -j1 --device cpu five.jsonl >out &&
	lives out >spans &&
	awk "NR == 1 { end = \$4 } NR == 4 && \$1 >= end { print \"4th born after the 1st ended\"; bad = 1 }
	     NR == 5 && \$1 < end { print \"5th born before the 1st ended\"; bad = 1 }
	     END { exit bad }" spans &&
	nobody_holds alive
'

# The timeout and ms count from the job: a first harness whose start is
# longer than the timeout allows times out, and the second, whose start
# was done while the first ran, is within it, ms short of its life.
test_expect_success 'the clock starts with the job, not with the harness' '
	echo 2.5 >fake/preload &&
	for i in 1 2; do
		record L1/$i "import time; time.sleep(1)" || return 1
	done >two.jsonl &&
	dice-check -q -j1 --timeout 3 --device cpu two.jsonl >out &&
	jq -r .check.status out >actual &&
	printf "timeout\ncorrect\n" >expect &&
	test_cmp expect actual &&
	sed -n 2p out | jq -e ".check | .ms < 2500 and
		(.error | split(\" \") | map(tonumber) | .[3] - .[0] > 3)" &&
	nobody_holds alive
'

# The guard of a killed tool removes what the candidate's directory holds,
# but not the directory itself where it is a mount point in the guard's
# namespace (dice-check(1), SANDBOX), started ahead or not.
test_expect_success 'a run stopped by a signal leaves no harness behind, and nothing in its directories' '
	echo 0.2 >fake/preload &&
	for i in 1 2; do
		record L1/$i "import time; time.sleep(30)" || return 1
	done >long.jsonl &&
	dice-check -q -j1 --device cpu long.jsonl >out &
	pid=$! &&
	sleep 2 &&
	kill -TERM $pid &&
	{ wait $pid; true; } &&
	nobody_holds alive &&
	sleep 1 &&
	find "$TMPDIR" -path "*/dice-*/*" >left &&
	test_must_be_empty left &&
	rmdir "$TMPDIR"/dice-*
'

test_expect_success 'several workers: every record judged once, nothing left' '
	echo 0.2 >fake/preload &&
	for i in 1 2 3 4 5 6 7; do
		record L1/$i "import time; time.sleep(0.2)" || return 1
	done >seven.jsonl &&
	dice-check -q -j3 --device cpu seven.jsonl >out &&
	jq -r "[.id, .check.status] | @tsv" out >actual &&
	for i in 1 2 3 4 5 6 7; do printf "L1/%s\tcorrect\n" $i; done >expect &&
	test_cmp expect actual &&
	nobody_holds alive &&
	! ls "$TMPDIR" | grep "^dice-"
'

# A pipeline's first record comes after its producer's first build: a
# worker that has waited a second starts its harnesses ahead meanwhile,
# and the first record finds one ready.  What the input never brings is
# killed at its end.
test_expect_success 'input slow to come: the first record finds its harness started, and the spares go at the end' '
	echo 1.5 >fake/preload &&
	record L1/1 "pass" >one.jsonl &&
	{ sleep 4; cat one.jsonl; } | dice-check -q -j1 --device cpu >out &&
	jq -r .check.status out >actual &&
	echo correct >expect &&
	test_cmp expect actual &&
	lives out >spans &&
	awk "!(\$2 - \$1 > 1.4 && \$3 - \$2 > 1) { print \"not ready before its job: \" \$0; bad = 1 }
	     END { exit bad }" spans &&
	nobody_holds alive &&
	! ls "$TMPDIR" | grep "^dice-"
'

test_expect_success 'input slow to come, DICE_PRESTART=0: the first harness starts with its record' '
	echo 1 >fake/preload &&
	{ sleep 3; cat one.jsonl; } | DICE_PRESTART=0 dice-check -q -j1 --device cpu >out &&
	lives out >spans &&
	awk "\$3 - \$2 > 0.5 { print \"waited for its job: \" \$0; bad = 1 }
	     END { exit bad }" spans &&
	nobody_holds alive
'

test_expect_success 'input slow between records: each record after a wait finds its harness started, and each is judged once' '
	echo 0.5 >fake/preload &&
	for i in 1 2 3; do
		record L1/$i "pass" || return 1
	done >slow.jsonl &&
	{ sleep 2; sed -n 1p slow.jsonl; sleep 2; sed -n "2,\$p" slow.jsonl; } |
		dice-check -q -j2 --device cpu >out &&
	jq -r "[.id, .check.status] | @tsv" out >actual &&
	for i in 1 2 3; do printf "L1/%s\tcorrect\n" $i; done >expect &&
	test_cmp expect actual &&
	lives out >spans &&
	awk "!(\$3 - \$2 > 0.3) { print \"not ready before its job: \" \$0; bad = 1 }
	     END { exit bad }" spans &&
	nobody_holds alive &&
	! ls "$TMPDIR" | grep "^dice-"
'

test_done
