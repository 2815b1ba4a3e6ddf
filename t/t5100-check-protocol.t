#!/bin/sh
test_description='dice-check: what C decides, with a stand-in harness (no torch)'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

fake_harness_env

test_expect_success 'setup' '
	fake_harness fake &&
	record L1/1_A "x = 1" >one.jsonl
'

test_expect_success 'a passing candidate: check is added last, other keys kept' '
	dice-check -q one.jsonl >out &&
	jq -c "keys_unsorted" out >actual &&
	echo "[\"id\",\"sample\",\"ref\",\"code\",\"check\"]" >expect &&
	test_cmp expect actual &&
	jq -r ".check | [.status, .correct, .trials, .passed, .tolerance, .atol, .rtol, .seed, .error] | @tsv" out >actual &&
	printf "correct\ttrue\t5\t5\tdice\t0.01\t0.01\t42\t\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'check keys come in the documented order' '
	jq -c "[.check | keys_unsorted[]][:20]" out >actual &&
	echo "[\"status\",\"correct\",\"trials\",\"passed\",\"max_abs_err\",\"max_rel_err\",\"failed_trial\",\"tolerance\",\"atol\",\"rtol\",\"seed\",\"error\",\"ms\",\"device\",\"device_uuid\",\"torch\",\"cuda\",\"driver\",\"compile\",\"sandbox\"]" >expect &&
	test_cmp expect actual
'

test_expect_success 'the job: mode, device, cache, settings' '
	dice-check -q --trials 3 --seed 7 --tolerance kernelbench --arch 9.0 \
		--device cpu one.jsonl >out &&
	jq -c ".check.job | del(.secret_patterns)" out >actual &&
	echo "{\"mode\":\"check\",\"id\":\"L1/1_A\",\"device\":\"cpu\",\"cache\":\"$PWD/cache\",\"arch\":\"9.0\",\"trials\":3,\"seed\":7,\"atol\":0.0001,\"rtol\":0.0001,\"tolerance\":\"kernelbench\",\"timeout\":180,\"precision\":\"fp32\"}" >expect &&
	test_cmp expect actual &&
	test -d cache
'

test_expect_success 'every job carries the secret-name rule of lib/secrets' '
	record L1/1_A "import json; RESULT = json.dumps({\"compile\": {\"ok\": True, \"job\": job}})" >echo.jsonl &&
	dice-check -q --device cpu one.jsonl >out &&
	dice-compile -q --device cpu echo.jsonl >out2 &&
	for f in out out2
	do
		jq -r "(.check // .compile).job.secret_patterns | [(.words | index(\"TOKEN\") != null), (.words | index(\"COOKIE\") != null), (.prefixes | index(\"AWS_\") != null)] | @tsv" $f || return 1
	done >actual &&
	printf "true\ttrue\ttrue\ntrue\ttrue\ttrue\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'the job precision: the prompt'"'"'s, else fp32; --precision wins' '
	jq -c ". + {prompt: {precision: \"fp16\"}}" one.jsonl >half.jsonl &&
	jq -c ". + {prompt: {mode: \"end-to-end\"}}" one.jsonl >none.jsonl &&
	dice-check -q --device cpu half.jsonl none.jsonl >out &&
	dice-check -q --device cpu --precision bf16 half.jsonl >>out &&
	jq -r ".check.job.precision" out >actual &&
	printf "fp16\nfp32\nbf16\n" >expect &&
	test_cmp expect actual &&
	test_expect_code 2 dice-check --precision fp8 one.jsonl 2>err &&
	grep "invalid --precision .fp8. (fp32, fp16 or bf16)" err &&
	test_expect_code 2 dice-time --precision x one.jsonl 2>err &&
	grep "invalid --precision .x. (fp32, fp16 or bf16)" err
'

test_expect_success '--atol and --rtol make the tolerance custom' '
	dice-check -q --atol 0.5 --rtol 0 one.jsonl >out &&
	jq -r ".check | [.tolerance, .atol, .rtol] | @tsv" out >actual &&
	printf "custom\t0.5\t0\n" >expect &&
	test_cmp expect actual
'

test_expect_success '--cache beats DICE_CACHE, relative paths become absolute' '
	dice-check -q --cache other/c one.jsonl >out &&
	jq -r ".check.job.cache" out >actual &&
	echo "$PWD/other/c" >expect &&
	test_cmp expect actual
'

test_expect_success 'the sandbox is described' '
	dice-check -q --device cpu --memory 2G --timeout 30 one.jsonl >out &&
	jq -r ".check.sandbox | [.memory, .timeout, (.network | test(\"^(isolated|shared)$\")), (.pid_namespace | type), (.filesystem | test(\"^(read-only|shared)$\"))] | @tsv" out >actual &&
	printf "2147483648\t30\ttrue\tboolean\ttrue\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'an exception: runtime_error, its message on one line' '
	record L1/2_B "raise ValueError(\"first\\nsecond\")" | dice-check -q >out &&
	jq -r ".check | [.status, .correct, .error] | @tsv" out >actual &&
	printf "runtime_error\tfalse\tValueError: first second\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'no code, empty code, null code: no_code, nothing run' '
	rm -f cache/runs &&
	{
		echo "{\"id\":\"a\",\"ref\":\"r\"}" &&
		echo "{\"id\":\"b\",\"ref\":\"r\",\"code\":\"\"}" &&
		echo "{\"id\":\"c\",\"ref\":\"r\",\"code\":null}"
	} | dice-check -q >out &&
	jq -r ".check.status" out >actual &&
	printf "no_code\nno_code\nno_code\n" >expect &&
	test_cmp expect actual &&
	! test -e cache/runs
'

test_expect_success 'os._exit(0) without a result: crashed' '
	record L1/3 "import os; print(\"bye\"); os._exit(0)" | dice-check -q >out &&
	jq -r ".check | [.status, .error] | @tsv" out >actual &&
	printf "crashed\tthe harness exited with status 0 without a result; last output: bye\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a segmentation fault: crashed, with the signal' '
	record L1/4 "import ctypes; ctypes.string_at(0)" | dice-check -q >out &&
	jq -r ".check | [.status, .error] | @tsv" out >actual &&
	printf "crashed\tkilled by signal 11 (Segmentation fault)\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a hang: timeout at the deadline, not later' '
	record L1/5 "while True: pass" | dice-check -q --timeout 1 >out &&
	jq -r ".check | [.status, .error, .ms < 4000] | @tsv" out >actual &&
	printf "timeout\ttimed out after 1 s (build and run)\ttrue\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a malformed result: crashed' '
	record L1/6 "RESULT = \"{not json\"" | dice-check -q >out &&
	jq -r ".check.status" out >actual &&
	echo crashed >expect &&
	test_cmp expect actual &&
	jq -r ".check.error" out | grep "^the harness wrote a malformed result"
'

test_expect_success 'an unknown status from the harness: crashed' '
	record L1/7 "STATUS = \"great\"" | dice-check -q >out &&
	jq -r ".check | [.status, .error] | @tsv" out >actual &&
	printf "crashed\tthe harness'"'"'s result has an unknown status\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'killing the parent and the process groups harms no one' '
	{
		record L1/8 "import os, signal
for target in (os.getppid(), -os.getpgid(0), 0, -1):
    try:
        os.kill(target, signal.SIGKILL)
    except OSError:
        pass" &&
		record L1/9 "x = 1"
	} | dice-check -q >out &&
	test_line_count = 2 out &&
	jq -r ".check.status" out >actual &&
	tail -n 1 actual >last &&
	echo correct >expect &&
	test_cmp expect last
'

test_expect_success 'without namespaces: killing the parent kills only the guard' '
	{
		record L1/8 "import os, signal
os.kill(os.getppid(), signal.SIGKILL)
import time; time.sleep(5)" &&
		record L1/9 "x = 1"
	} | DICE_SANDBOX=none dice-check -q >out &&
	jq -r ".check | [.status, .sandbox.network, .sandbox.pid_namespace, .sandbox.filesystem] | @tsv" out >actual &&
	printf "crashed\tshared\tfalse\tshared\ncorrect\tshared\tfalse\tshared\n" >expect &&
	test_cmp expect actual &&
	jq -r .check.error out | head -n 1 | grep "guard process was killed or stopped"
'

test_expect_success 'without namespaces: a lingering daemon is still found and killed' '
	record L1/10 "import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        open(\"$PWD/cache/plain.pid\", \"w\").write(str(os.getpid()))
        time.sleep(300)
    os._exit(0)
time.sleep(0.5)" | DICE_SANDBOX=none dice-check -q >out &&
	jq -r ".check.status" out >actual &&
	echo correct >expect &&
	test_cmp expect actual &&
	pid=$(cat cache/plain.pid) &&
	test -n "$pid" &&
	! test -e /proc/$pid
'

test_expect_success 'a lingering child is dead afterwards' '
	: >child.lock &&
	record L1/10 "import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        $(hold_lock "$PWD/child.lock" | sed "2,\$s/^/        /")
        time.sleep(300)
    os._exit(0)
$(wait_for_holder "$PWD/child.lock")" | dice-check -q >out &&
	jq -r ".check.status" out >actual &&
	echo correct >expect &&
	test_cmp expect actual &&
	lock_is_free child.lock
'

test_expect_success 'writing outside: HOME is the working directory, then gone' '
	record L1/11 "import os
home = os.environ[\"HOME\"]
open(os.path.join(home, \"planted\"), \"w\").write(\"x\")
outside = os.environ.get(\"DICE_TEST_OUTSIDE\")
try:
    open(\"$PWD/absolute\", \"w\").write(\"x\")
    absolute = \"written\"
except OSError:
    absolute = \"refused\"
try:
    open(\"$PWD/cache/in-cache\", \"w\").write(\"x\")
    cache = \"written\"
except OSError:
    cache = \"refused\"
ERROR = \"home=%s outside=%s cwd=%s absolute=%s cache=%s\" % (home == os.getcwd(), outside, os.getcwd() == os.environ[\"TMPDIR\"], absolute, cache)
STATUS = \"incorrect\"" >w.jsonl &&
	DICE_TEST_OUTSIDE=$PWD/outside dice-check -q w.jsonl >out &&
	jq -r ".check.error" out >actual &&
	if test "$(jq -r .check.sandbox.filesystem out)" = read-only; then
		echo "home=True outside=None cwd=True absolute=refused cache=refused" >expect &&
		test_cmp expect actual &&
		! test -e cache/in-cache
	else
		echo "home=True outside=None cwd=True absolute=written cache=written" >expect &&
		test_cmp expect actual
	fi &&
	! test -e outside &&
	! test -e "$HOME/planted"
'

test_expect_success 'secrets: not in the environment, not readable in /proc, not in the output' '
	record L1/12 "import os
found = [k for k, v in os.environ.items() if \"canary\" in v]
for pid in os.listdir(\"/proc\"):
    try:
        if b\"canary\" in open(\"/proc/%s/environ\" % pid, \"rb\").read():
            found.append(pid)
    except OSError:
        pass
print(os.environ)
ERROR = \"found %d\" % len(found)
STATUS = \"incorrect\"" >s.jsonl &&
	DICE_API_KEY=canary-3f9a7d11 MY_TOKEN=canary-token-b2c4 \
		dice-check -q s.jsonl >out 2>err &&
	jq -r ".check.error" out >actual &&
	echo "found 0" >expect &&
	test_cmp expect actual &&
	! grep -e 3f9a7d11 -e token-b2c4 out err
'

test_expect_success 'the keep-temp directory holds what the candidate left' '
	TMPDIR=$PWD/tmp && mkdir -p tmp && export TMPDIR &&
	record L1/13 "open(\"left\", \"w\").write(\"x\")" | dice-check -q --keep-temp >out &&
	ls tmp/dice-*/left &&
	record L1/13 "open(\"left\", \"w\").write(\"x\")" | dice-check -q >out &&
	test $(ls tmp | wc -l) = 1
'

# The guard empties the directory; it cannot remove the directory itself,
# a mount point in its own mount namespace.
test_expect_success 'dice-check killed: its candidates die, their files go' '
	mkdir -p tmp2 &&
	: >victim.lock &&
	record L1/14 "import os, time
open(\"stuff\", \"w\").write(\"x\")
$(hold_lock "$PWD/victim.lock")
time.sleep(60)" >victim.jsonl &&
	{ TMPDIR=$PWD/tmp2 dice-check -q victim.jsonl >out & } &&
	checker=$! &&
	i=0 &&
	while lock_is_free victim.lock && test $i -lt 100; do
		sleep 0.1; i=$((i + 1))
	done &&
	! lock_is_free victim.lock &&
	kill -9 $checker &&
	i=0 &&
	while ! lock_is_free victim.lock && test $i -lt 50; do
		sleep 0.1; i=$((i + 1))
	done &&
	lock_is_free victim.lock &&
	sleep 0.2 &&
	test_must_be_empty out &&
	test -z "$(find tmp2 -mindepth 2)"
'

test_expect_success '20 mixed candidates, -j 2: all out, in input order' '
	: >mixed.jsonl &&
	: >want &&
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		case $((i % 5)) in
		0) code="x = 1"; s=correct ;;
		1) code="raise RuntimeError(\"no\")"; s=runtime_error ;;
		2) code="import time; time.sleep(0.$i)"; s=correct ;;
		3) code="import os; os._exit(3)"; s=crashed ;;
		4) code="STATUS = \"incorrect\""; s=incorrect ;;
		esac &&
		record "L1/$i" "$code" >>mixed.jsonl &&
		printf "L1/%s\t%s\n" $i $s >>want || exit 1
	done &&
	dice-check -q -j 2 mixed.jsonl >out &&
	jq -r "[.id, .check.status] | @tsv" out >actual &&
	test_cmp want actual
'

test_expect_success '--resume: a second run does only what the first did not' '
	for i in 1 2 3; do record L1/${i}_R "x = $i"; done >first.jsonl &&
	for i in 1 2 3 4 5; do record L1/${i}_R "x = $i"; done >all.jsonl &&
	rm -f cache/runs resumed.jsonl &&
	dice-check -q --resume resumed.jsonl first.jsonl >out &&
	test_must_be_empty out &&
	dice-check -q --resume resumed.jsonl all.jsonl >out &&
	test_must_be_empty out &&
	jq -r .id resumed.jsonl >actual &&
	printf "L1/%s_R\n" 1 2 3 4 5 >expect &&
	test_cmp expect actual &&
	test_cmp expect cache/runs &&
	jq -r .check.status resumed.jsonl | sort -u >actual &&
	echo correct >expect &&
	test_cmp expect actual
'

test_expect_success '--resume: a torn last line is cut and done again; samples count apart' '
	head -n 2 resumed.jsonl >torn.jsonl &&
	sed -n 3p resumed.jsonl | head -c 40 >>torn.jsonl &&
	rm -f cache/runs &&
	dice-check -q --resume torn.jsonl all.jsonl 2>err &&
	grep "^dice-check:torn.jsonl:3: incomplete last line (an interrupted run); removed" err &&
	jq -r .id torn.jsonl >actual &&
	printf "L1/%s_R\n" 1 2 3 4 5 >expect &&
	test_cmp expect actual &&
	printf "L1/%s_R\n" 3 4 5 >expect &&
	test_cmp expect cache/runs &&
	jq -c ".sample.index = 1" all.jsonl >second.jsonl &&
	rm -f cache/runs &&
	dice-check -q --resume torn.jsonl all.jsonl second.jsonl &&
	test_line_count = 10 torn.jsonl &&
	test_line_count = 5 cache/runs
'

test_expect_success '--resume: a record without an id is skipped (exit 1); other lines are ignored' '
	echo "{\"code\":\"x = 1\"}" >noid.jsonl &&
	echo "{\"id\":\"L1/9_Z\"}" >other.jsonl &&
	test_expect_code 1 dice-check -q --resume other.jsonl noid.jsonl 2>err &&
	grep "^dice-check:noid.jsonl:1: no id, which --resume needs; skipped" err &&
	dice-check -q --resume other.jsonl one.jsonl 2>err &&
	grep "^dice-check:other.jsonl:1: not a check record; ignored" err &&
	test_must_fail dice-check -q --resume /no/such/dir/file one.jsonl 2>err &&
	grep "cannot write to ./no/such/dir/file." err
'

test_expect_success '--unordered: the same records, in any order' '
	dice-check -q -j 3 --unordered mixed.jsonl >out &&
	jq -r "[.id, .check.status] | @tsv" out | sort >actual &&
	sort want >expect &&
	test_cmp expect actual
'

test_expect_success '--progress counts on standard error' '
	dice-check --progress mixed.jsonl >out 2>err &&
	tail -n 1 err >last &&
	grep "^dice-check: 20/20 done in " last &&
	grep "correct 8" last
'

test_done
