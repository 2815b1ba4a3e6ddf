#!/bin/sh
test_description='dice-time times alone on its GPU, dice-check shares it: the per-GPU lock, with a stand-in harness and GPUs named by --gpus'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

fake_harness_env
unset CUDA_VISIBLE_DEVICES SLURM_STEP_GPUS SLURM_JOB_GPUS GPU_DEVICE_ORDINAL \
	DICE_GPU_LOCK CUDA_DEVICE_ORDER
DICE_LOCKDIR=$PWD/locks && export DICE_LOCKDIR

# checked ID CODE: a record that dice-check found correct.
checked () {
	record "$1" "$2" | jq -c '. + {check: {correct: true}}'
}

# span SECS: Python lines that sleep SECS and say when they ran, as
# "START END" in ERROR (the record's check.error).
span () {
	printf '%s\n' "import time" "_start = time.time()" "time.sleep($1)" \
		"ERROR = '%r %r' % (_start, time.time())"
}

# timed_span SECS: the same for dice-time: a good timing whose
# time.error says when it ran.
timed_span () {
	span "$1" &&
	printf '%s\n' "import json" "t = $(fake_timing "[2,2,2]" "[1,1,1]")" \
		"t['error'] = ERROR" \
		"RESULT = json.dumps({'compile': {'ok': True}, 'time': t})"
}

# timed_ok: the rest of a dice-time candidate: a good timing.
timed_ok () {
	printf '%s\n' "import json" \
		"RESULT = json.dumps({'compile': {'ok': True}, 'time': $(fake_timing "[2,2,2]" "[1,1,1]")})"
}

# meet ME OTHER...: Python lines that hold the lock on file ME, wait (15 s
# at most, then raise) until every OTHER is held too, and hold ME a second
# longer so that the others see it: a candidate that gets past them ran
# while the others ran.
meet () {
	_me=$1 && shift &&
	printf '%s\n' "import fcntl, time" \
		"_mine = open('$PWD/$_me')" \
		"fcntl.flock(_mine, fcntl.LOCK_EX)" \
		"_end = time.time() + 15" \
		"for _other in '$*'.split():" \
		"    while True:" \
		"        _probe = open('$PWD/' + _other)" \
		"        try:" \
		"            fcntl.flock(_probe, fcntl.LOCK_EX | fcntl.LOCK_NB)" \
		"        except OSError:" \
		"            break" \
		"        _probe.close()" \
		"        if time.time() > _end:" \
		"            raise RuntimeError('ran alone')" \
		"        time.sleep(0.01)" \
		"time.sleep(1)"
}

# hold_shared FILE: Python lines that hold a shared lock on FILE, which
# says to the shell that the candidate runs (wait_until_held).
hold_shared () {
	printf '%s\n' "import fcntl" "_held = open('$PWD/$1')" \
		"fcntl.flock(_held, fcntl.LOCK_SH)"
}

wait_until_held () {
	"$DICE_PYTHON" -c 'import fcntl, sys, time
end = time.time() + 20
while time.time() < end:
    probe = open(sys.argv[1])
    try:
        fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        sys.exit(0)
    probe.close()
    time.sleep(0.01)
sys.exit("nothing took " + sys.argv[1])' "$1"
}

# spans FILE...: the "START END" of every record of the FILEs.
spans () {
	jq -r 'if .time then .time.error else .check.error end' "$@"
}

# disjoint FILE: no two spans of FILE overlap.
disjoint () {
	sort -g "$1" | awk '
		NR > 1 && $1 < end { print "overlap: " $0 " starts before " end; bad = 1 }
		NR == 1 || $2 > end { end = $2 }
		END { exit bad }'
}

# apart A B: no span of A overlaps a span of B.
apart () {
	awk 'NR == FNR { s[NR] = $1; e[NR] = $2; n = NR; next }
		{ for (i = 1; i <= n; i++) if ($1 < e[i] && s[i] < $2) {
			print "overlap: " $0 " and " s[i] " " e[i]; bad = 1 } }
		END { exit bad }' "$1" "$2"
}

# statuses FILE: the status of each record, sorted and counted.
statuses () {
	jq -r 'if .time then .time.status else .check.status end' "$1" |
	sort | uniq -c | sed 's/^ *//'
}

test_expect_success 'setup' '
	fake_harness fake &&
	touch a b c busy streaming &&
	for i in 1 2 3; do
		checked L1/$i "$(timed_span 0.3)" || return 1
	done >t3.jsonl &&
	for i in 1 2 3 4; do
		checked L1/$i "$(timed_span 0.2)" || return 1
	done >t4.jsonl &&
	# What GPU 0 is locked as: its UUID where NVML can tell, else "0".
	DICE_LOCKDIR=$PWD/naming dice-time -q --gpus 0 t3.jsonl >/dev/null &&
	ls naming | sed -n "s/\.gate\$//p" >gpu0 &&
	test_line_count = 1 gpu0 &&
	test -f "naming/$(cat gpu0).lock"
'

test_expect_success 'two dice-time runs on one GPU never time at once' '
	{ dice-time -q --gpus 0 t3.jsonl >one.out & } &&
	dice-time -q --gpus 0 t3.jsonl >two.out &&
	wait &&
	echo "6 ok" >expect &&
	cat one.out two.out >both.out &&
	statuses both.out >actual &&
	test_cmp expect actual &&
	spans both.out >spans &&
	disjoint spans
'

test_expect_success 'dice-time -j2 on one GPU runs one candidate at a time' '
	dice-time -q -j2 --gpus 0 t4.jsonl >out &&
	echo "4 ok" >expect &&
	statuses out >actual &&
	test_cmp expect actual &&
	spans out >spans &&
	disjoint spans
'

test_expect_success 'one GPU named two ways (the case of a UUID) is one lock' '
	{ dice-time -q --gpus GPU-ABCD01 t3.jsonl >one.out & } &&
	dice-time -q --gpus GPU-abcd01 t3.jsonl >two.out &&
	wait &&
	spans one.out two.out >spans &&
	disjoint spans &&
	test -f locks/GPU-abcd01.lock &&
	! test -e locks/GPU-ABCD01.lock
'

test_expect_success 'dice-time runs on two GPUs time at once' '
	checked L1/a "$(meet a b; timed_ok)" >a.jsonl &&
	checked L1/b "$(meet b a; timed_ok)" >b.jsonl &&
	{ dice-time -q --timeout 60 --gpus 0 a.jsonl >a.out & } &&
	dice-time -q --timeout 60 --gpus 1 b.jsonl >b.out &&
	wait &&
	cat a.out b.out >both.out &&
	echo "2 ok" >expect &&
	statuses both.out >actual &&
	test_cmp expect actual
'

test_expect_success 'dice-check -j3 on one GPU runs its candidates at once' '
	record L1/a "$(meet a b c)" >abc.jsonl &&
	record L1/b "$(meet b a c)" >>abc.jsonl &&
	record L1/c "$(meet c a b)" >>abc.jsonl &&
	dice-check -q -j3 --timeout 60 --gpus 0 abc.jsonl >out &&
	echo "3 correct" >expect &&
	statuses out >actual &&
	test_cmp expect actual
'

test_expect_success 'dice-check -j3 never runs while dice-time times on its GPU' '
	for i in 1 2 3 4 5 6 7 8 9; do
		record L1/c$i "$(hold_shared streaming; span 0.2)" || return 1
	done >stream.jsonl &&
	{ dice-check -q -j3 --gpus 0 stream.jsonl >stream.out & } &&
	wait_until_held streaming &&
	dice-time -q --gpus 0 t3.jsonl >timed.out &&
	wait &&
	echo "9 correct" >expect &&
	statuses stream.out >actual &&
	test_cmp expect actual &&
	spans stream.out >checks &&
	spans timed.out >times &&
	apart checks times
'

test_expect_success 'a dice-time run gets the GPU before a stream of checks ends' '
	for i in $(seq 1 18); do
		record L1/c$i "$(hold_shared streaming; span 0.3)" || return 1
	done >stream.jsonl &&
	{ dice-check -q -j3 --gpus 0 stream.jsonl >stream.out & } &&
	wait_until_held streaming &&
	checked L1/t "$(timed_span 0.1)" | dice-time -q --gpus 0 >timed.out &&
	wait &&
	spans stream.out >checks &&
	spans timed.out >times &&
	apart checks times &&
	# Some checks started after the timing had ended: it waited only
	# for the checks that were running.
	awk "NR == FNR { end = \$2; next } \$1 >= end { later++ }
		END { print later + 0; exit !(later >= 3) }" times checks
'

test_expect_success 'the wait is not the timeout nor the ms, and the progress line says it' '
	record L1/busy "$(hold_shared busy; span 2.6)" >busy.jsonl &&
	{ dice-check -q --gpus 0 busy.jsonl >busy.out & } &&
	wait_until_held busy &&
	checked L1/t "$(timed_span 0.1)" >t.jsonl &&
	DICE_PROGRESS_INTERVAL=0 dice-time --progress=always --timeout 1 \
		--gpus 0 t.jsonl >t.out 2>err &&
	wait &&
	jq -r ".time | [.status, .ms < 1000] | @tsv" t.out >actual &&
	printf "ok\ttrue\n" >expect &&
	test_cmp expect actual &&
	spans busy.out >checks &&
	spans t.out >times &&
	apart checks times &&
	grep "^dice-time: 0/1 done.*(1 waiting for a GPU)" err
'

test_expect_success 'DICE_GPU_LOCK=0: dice-time runs on one GPU overlap' '
	checked L1/a "$(meet a b; timed_ok)" >a.jsonl &&
	checked L1/b "$(meet b a; timed_ok)" >b.jsonl &&
	{ DICE_GPU_LOCK=0 dice-time -q --timeout 60 --gpus 0 a.jsonl >a.out & } &&
	DICE_GPU_LOCK=0 dice-time -q --timeout 60 --gpus 0 b.jsonl >b.out &&
	wait &&
	cat a.out b.out >both.out &&
	echo "2 ok" >expect &&
	statuses both.out >actual &&
	test_cmp expect actual
'

test_expect_success '--device cpu takes no GPU lock' '
	checked L1/a "$(meet a b; timed_ok)" >a.jsonl &&
	checked L1/b "$(meet b a; timed_ok)" >b.jsonl &&
	{ dice-time -q --device cpu --timeout 60 --gpus 0 a.jsonl >a.out & } &&
	dice-time -q --device cpu --timeout 60 --gpus 0 b.jsonl >b.out &&
	wait &&
	cat a.out b.out >both.out &&
	echo "2 ok" >expect &&
	statuses both.out >actual &&
	test_cmp expect actual
'

test_expect_success 'dice-compile takes no GPU lock: it builds while dice-time times' '
	record L1/a "$(meet a b)" >a.jsonl &&
	checked L1/b "$(meet b a; timed_ok)" >b.jsonl &&
	{ dice-compile -q --timeout 60 --gpus 0 a.jsonl >a.out & } &&
	dice-time -q --timeout 60 --gpus 0 b.jsonl >b.out &&
	wait &&
	echo "1 ok" >expect &&
	statuses b.out >actual &&
	test_cmp expect actual
'

test_expect_success 'a lock directory it makes is for every user: 1777, its files 0666' '
	(umask 077 && DICE_LOCKDIR=$PWD/fresh dice-time -q --gpus 0 t3.jsonl >out) &&
	stat -c "%a %n" fresh fresh/* >actual &&
	printf "%s\n" "1777 fresh" "666 fresh/$(cat gpu0).gate" \
		"666 fresh/$(cat gpu0).lock" >expect &&
	test_cmp expect actual
'

test_expect_success 'lock files that cannot be written are locked all the same' '
	mkdir -p readonly &&
	touch readonly/$(cat gpu0).gate readonly/$(cat gpu0).lock &&
	chmod 444 readonly/* &&
	{ DICE_LOCKDIR=$PWD/readonly dice-time -q --gpus 0 t3.jsonl >one.out 2>err1 & } &&
	DICE_LOCKDIR=$PWD/readonly dice-time -q --gpus 0 t3.jsonl >two.out 2>err2 &&
	wait &&
	test_must_be_empty err1 &&
	test_must_be_empty err2 &&
	spans one.out two.out >spans &&
	disjoint spans
'

for tool in dice-time dice-check; do
	test_expect_success "$tool: a lock directory that is a file: one warning, every candidate runs" "
		touch afile &&
		DICE_LOCKDIR=\$PWD/afile $tool -q -j2 --gpus 0 t3.jsonl >out 2>err &&
		test_line_count = 3 out &&
		! grep -v '^$tool: warning: cannot use the GPU lock directory .*/afile.: Not a directory; running without GPU locks\$' err &&
		test_line_count = 1 err
	"
done

test_expect_success 'a lock directory whose parent is missing: a warning, every candidate runs' '
	DICE_LOCKDIR=$PWD/no/such dice-time -q --gpus 0 t3.jsonl >out 2>err &&
	echo "3 ok" >expect &&
	statuses out >actual &&
	test_cmp expect actual &&
	grep "^dice-time: warning: cannot use the GPU lock directory .*/no/such.: No such file or directory; running without GPU locks$" err
'

# probe: Python lines that look for the lock directory and a lock in it
# from inside the sandbox, and say what they found in ERROR.
probe () {
	printf '%s\n' "import os" \
		"try:" "    _seen = sorted(os.listdir('$DICE_LOCKDIR'))" \
		"except OSError:" "    _seen = 'unlistable'" \
		"try:" "    open('$DICE_LOCKDIR/$(cat gpu0).gate').close()" "    _open = 'opened'" \
		"except OSError:" "    _open = 'refused'" \
		"ERROR = '%s %s' % (_seen, _open)"
}

# Where the sandbox has a mount namespace (its file systems read-only),
# the lock directory is covered: a candidate cannot hold a lock to stall
# the node's other runs.  Without one there is nothing to cover it with.
test_expect_success 'the lock directory is hidden from candidates, GPU run or not' '
	test -f "$DICE_LOCKDIR/$(cat gpu0).gate" &&
	checked L1/gpu "$(probe)" >probe.jsonl &&
	dice-check -q --gpus 0 probe.jsonl >gpu.out &&
	dice-check -q --device cpu probe.jsonl >cpu.out &&
	checked L1/time "$(probe; printf "%s\n" "import json" \
		"t = $(fake_timing "[2,2,2]" "[1,1,1]")" "t[\"error\"] = ERROR" \
		"RESULT = json.dumps({\"compile\": {\"ok\": True}, \"time\": t})")" >time.jsonl &&
	dice-time -q --gpus 0 time.jsonl >time.out &&
	for out in gpu cpu time
	do
		mode=check && test $out != time || mode=time
		fs=$(jq -r ".$mode.sandbox.filesystem" $out.out) &&
		if test "$fs" = read-only
		then
			echo "[] refused" >expect &&
			jq -r ".$mode.error" $out.out >actual &&
			test_cmp expect actual || return 1
		else
			say "# $out: no mount namespace here ($fs): nothing to check"
		fi
	done
'

test_expect_success 'a lock directory that holds the candidate'"'"'s own stays in sight' '
	checked L1/tmp "$(candidate "" "return torch.relu(x)")" >tmp.jsonl &&
	DICE_LOCKDIR=$TMPDIR dice-check -q --gpus 0 tmp.jsonl >tmp.out 2>err &&
	jq -r ".check.status" tmp.out >actual &&
	test -s actual && ! grep -i "crashed\|not_started" actual
'

test_expect_success 'a lock directory that holds anything but locks stays in sight' '
	mkdir -p shared-locks &&
	echo mine >shared-locks/notes &&
	checked L1/shared "$(printf "%s\n" "import os" \
		"ERROR = str(sorted(os.listdir(\"$PWD/shared-locks\")))")" >shared.jsonl &&
	DICE_LOCKDIR=$PWD/shared-locks dice-check -q --gpus 0 shared.jsonl >shared.out &&
	echo "[Q$(cat gpu0).gateQ, Q$(cat gpu0).lockQ, QnotesQ]" | tr Q "\047" >expect &&
	jq -r ".check.error" shared.out >actual &&
	test_cmp expect actual
'

if test "$(id -u)" != 0; then test_set_prereq NOT_ROOT; fi

test_expect_success NOT_ROOT 'a lock directory that cannot be written: a warning, every candidate runs' '
	mkdir -p shut &&
	chmod 555 shut &&
	DICE_LOCKDIR=$PWD/shut dice-check -q --gpus 0 t3.jsonl >out 2>err &&
	test_line_count = 3 out &&
	grep "^dice-check: warning: cannot use the GPU lock .*/shut/$(cat gpu0).gate.: Permission denied; running without GPU locks$" err
'

test_done
