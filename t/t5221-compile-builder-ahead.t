#!/bin/sh
test_description='dice-compile starts each candidate'"'"'s builder with its harness, before the first build request; dice-check starts it only at the request; a builder that gets none goes unused'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

fake_harness_env
unset DICE_PRESTART

# A stand-in harness and builder.  Both hold a shared lock on ./alive for
# as long as they live.  The builder, like the real one, has a slow start
# (./fake/preload seconds), then reads its job and answers one build
# request with when it was born and when it got the request.  The
# candidate runs its code (which may sleep), then, unless the code set
# BUILD = False, sends one request, and reports "BORN ASKED ANSWERED" in
# compile.log (and check.error for a check): when its builder was born,
# when it asked, and when the answer came.
test_expect_success 'setup' '
	mkdir -p fake/python/dice_harness &&
	touch alive &&
	cat >fake/python/dice_harness/__main__.py <<-PYEOF &&
	import fcntl, json, os, socket, sys, time
	born = time.time()
	_alive = open("$PWD/alive")
	fcntl.flock(_alive, fcntl.LOCK_SH)
	if sys.argv[1:] == ["--builder"]:
	    time.sleep(float(open("$PWD/fake/preload").read()))
	    job = json.load(sys.stdin)
	    sock = socket.socket(fileno=int(os.environ["DICE_BUILD_FD"]))
	    requests = sock.makefile("rb")
	    for line in requests:
	        reply = {"ok": True, "key": "fake", "cache": "miss", "message": None,
	                 "born": born, "got": time.time()}
	        sock.sendall((json.dumps(reply) + "\n").encode())
	    sys.exit(0)
	job = json.load(sys.stdin)
	space = {"BUILD": True}
	exec(job["code"], space)
	log = "no request"
	if space["BUILD"]:
	    sock = socket.socket(fileno=int(os.environ["DICE_BUILD_FD"]))
	    asked = time.time()
	    sock.sendall(b"{\"kind\": \"inline\"}\n")
	    reply = json.loads(sock.makefile("rb").readline())
	    log = "%r %r %r" % (reply["born"], asked, time.time())
	compile = {"ok": True, "ms": 0, "cache": "miss", "key": "fake",
	           "arch": None, "log": log, "builds": []}
	result = {"compile": compile}
	if job["mode"] == "check":
	    result["check"] = {"status": "correct", "correct": True, "trials": 1,
	                       "passed": 1, "max_abs_err": 0.0, "max_rel_err": 0.0,
	                       "failed_trial": None, "error": log, "torch": "fake",
	                       "cuda": None, "device": "cpu", "driver": None,
	                       "seed": 42}
	fd = int(os.environ["DICE_RESULT_FD"])
	os.write(fd, json.dumps(result).encode())
	os.close(fd)
	PYEOF
	echo 1.5 >fake/preload &&
	for i in 1 2; do
		record L1/$i "import time; time.sleep(2)" || return 1
	done >two.jsonl
'

# The candidate asks 2 s after its start; a builder started with it has
# done its 1.5 s start by then and answers at once, one started at the
# request answers 1.5 s later.
test_expect_success 'dice-compile: the builder was born before the request and answered without its start' '
	dice-compile -q -j1 --device cpu two.jsonl >out &&
	jq -r .compile.log out >spans &&
	test $(wc -l <spans) = 2 &&
	awk "!(\$1 < \$2 - 1 && \$3 - \$2 < 1) { print \"record \" NR \": \" \$0; bad = 1 } END { exit bad }" spans
'

test_expect_success 'dice-check: the builder is born at the request, not before' '
	dice-check -q -j1 --device cpu two.jsonl >out &&
	jq -r .check.error out >spans &&
	test $(wc -l <spans) = 2 &&
	awk "!(\$1 >= \$2 && \$3 - \$2 >= 1.5) { print \"record \" NR \": \" \$0; bad = 1 } END { exit bad }" spans
'

test_expect_success 'dice-compile: a candidate that asks for no build still ends well, and its builder goes unused' '
	for i in 1 2 3; do
		record L1/$i "BUILD = False" || return 1
	done >nobuild.jsonl &&
	dice-compile -q -j1 --device cpu nobuild.jsonl >out &&
	jq -r .compile.log out >logs &&
	printf "no request\nno request\nno request\n" >expect &&
	test_cmp expect logs
'

test_expect_success 'then nothing either started is left: no process alive, no working directory' '
	nobody_holds alive &&
	! ls "$TMPDIR" | grep "^dice-"
'

test_expect_success 'dice-compile -j2 with builders started ahead: every record, in order' '
	for i in 1 2 3 4 5; do
		record L1/$i "import time; time.sleep(0.3)" || return 1
	done >five.jsonl &&
	echo 0.2 >fake/preload &&
	dice-compile -q -j2 --device cpu five.jsonl >out &&
	jq -r .id out >ids &&
	printf "L1/1\nL1/2\nL1/3\nL1/4\nL1/5\n" >expect &&
	test_cmp expect ids &&
	jq -se "map(.compile.log | split(\" \") | length == 3) | all" out &&
	nobody_holds alive
'

test_done
