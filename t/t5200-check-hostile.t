#!/bin/sh
test_description='dice-check on a CPU torch: hostile candidates harm only their own record'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

test_have_prereq JQ || skip_all 'jq is needed'
test_have_prereq HARNESS || skip_all 'needs torch and the harness'

# These candidates build nothing: the hostile part is module-level Python
# and forward is torch.relu, which the harness judges correct.
DICE_CACHE=$PWD/cache; export DICE_CACHE
check () { dice-check -q --device cpu --memory 4G "$@"; }
good=$(record L1/0_good "$(candidate "")")

test_expect_success 'killing the parent and the process groups' '
	{
		record L1/1_kill "$(candidate "import signal
for target in (os.getppid(), -os.getpgid(0), -os.getpgid(os.getppid()), 0, -1):
    try:
        os.kill(target, signal.SIGKILL)
    except OSError:
        pass")" &&
		printf "%s\n" "$good"
	} >kill.jsonl &&
	check kill.jsonl >out &&
	test_line_count = 2 out &&
	jq -r ".check.status" out >actual &&
	sed -n 2p actual >second &&
	echo correct >expect &&
	test_cmp expect second &&
	test_diag "killing the parent gave: $(head -n 1 actual)"
'

test_expect_success 'a lingering daemon is dead afterwards' '
	: >daemon.lock &&
	record L1/2_daemon "$(candidate "import time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        $(hold_lock "$PWD/daemon.lock" | sed "2,\$s/^/        /")
        time.sleep(600)
    os._exit(0)
$(wait_for_holder "$PWD/daemon.lock")")" | check >out &&
	jq -r .check.status out >actual &&
	echo correct >expect &&
	test_cmp expect actual &&
	lock_is_free daemon.lock
'

test_expect_success 'writing outside its directory' '
	record L1/3_write "$(candidate "
home = os.environ[\"HOME\"]
open(os.path.join(home, \"planted\"), \"w\").write(\"x\")
hidden = os.environ.get(\"DICE_TEST_OUTSIDE\")
try:
    open(\"$PWD/absolute-target\", \"w\").write(\"x\")
    absolute = \"written\"
except OSError as e:
    absolute = \"refused\"
print(\"home-is-cwd=%s hidden=%s absolute=%s\" % (home == os.getcwd(), hidden, absolute))")" >w.jsonl &&
	DICE_TEST_OUTSIDE=$PWD/hidden-target check w.jsonl >out &&
	jq -r .check.status out >actual &&
	echo correct >expect &&
	test_cmp expect actual &&
	! test -e hidden-target &&
	! test -e "$HOME/planted" &&
	if test "$(jq -r .check.sandbox.filesystem out)" = read-only; then
		! test -e absolute-target
	else
		test_diag "no mount namespace here: a path written into the code is writable"
	fi
'

test_expect_success 'reading an API key: absent from the environment and from /proc' '
	record L1/4_secret "$(candidate "
def probe():
    found = [k for k, v in os.environ.items() if \"sk-canary\" in v]
    for pid in os.listdir(\"/proc\"):
        try:
            if b\"sk-canary\" in open(\"/proc/%s/environ\" % pid, \"rb\").read():
                found.append(pid)
        except OSError:
            pass
    print(dict(os.environ), file=sys.stderr)
    raise RuntimeError(\"found %d\" % len(found))" "return probe()")" >s.jsonl &&
	DICE_API_KEY=sk-canary-8c1e55d0 OPENAI_API_KEY=sk-canary-77aa01 \
		check s.jsonl >out 2>err &&
	jq -r .check.status out >actual &&
	echo runtime_error >expect &&
	test_cmp expect actual &&
	jq -r .check.error out | grep "found 0" &&
	! grep -e 8c1e55d0 -e 77aa01 out err
'

test_expect_success 'os._exit(0) while loading: crashed' '
	record L1/5_exit "$(candidate "os._exit(0)")" | check >out &&
	jq -r .check.status out >actual &&
	echo crashed >expect &&
	test_cmp expect actual
'

test_expect_success 'an endless Python loop: timeout, and the next one is fine' '
	{
		record L1/6_loop "$(candidate "while True: pass")" &&
		printf "%s\n" "$good"
	} | check --timeout 15 >out &&
	jq -r .check.status out >actual &&
	printf "timeout\ncorrect\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a huge allocation in forward under --memory: oom' '
	record L1/7_huge "$(candidate "" "return torch.relu(x) + bytearray(1 << 40)[0]")" | check >out &&
	jq -r .check.status out >actual &&
	echo oom >expect &&
	test_cmp expect actual
'

test_done
