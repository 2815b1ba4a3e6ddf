#!/bin/sh
test_description='t/gpu-tests, the list that t/run-tests.sh --gpu runs on a GPU node: every entry a test of the suite, and every test that asks for a GPU on the list'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

list="$TOP_SRCDIR/t/gpu-tests"
suite="$TOP_SRCDIR/t/local.mk"

test_expect_success 'every entry is a test that make check runs' '
	sed "s/#.*//" "$list" | grep . >entries &&
	test -s entries &&
	while read -r t; do
		grep -Eq "(^|[[:space:]])$t([[:space:]]|\$)" "$suite" ||
			{ echo "$t is not in t/local.mk"; return 1; }
	done <entries
'

# The GPU prerequisite of test-lib.sh, asked for by the whole script or
# by some of its cases.
test_expect_success 'every shell test that asks for the GPU prerequisite is on the list' '
	for t in "$TOP_SRCDIR"/t/t*.t; do
		case $(head -c 2 "$t") in "#!") ;; *) continue ;; esac
		case ${t##*/} in t0202-*) continue ;; esac	# its own pattern
		grep -Eq "test_have_prereq GPU|test_expect_[a-z]+ ([A-Z_]+,)*GPU[ ,]" "$t" || continue
		grep -qx "t/${t##*/}" entries ||
			{ echo "t/${t##*/} needs a GPU and is not in t/gpu-tests"; return 1; }
	done
'

# A tree of its own, so that --gpu reads a list of stand-ins there.
test_expect_success 'run-tests.sh --gpu: the listed tests, then any named, each with its seconds' '
	mkdir -p tree/t &&
	cp "$TOP_SRCDIR/t/run-tests.sh" "$TOP_SRCDIR/t/test-env.sh" tree/t/ &&
	printf "#!/bin/sh\necho 1..1\necho ok 1 - fine\n" >tree/t/t9991-a.t &&
	printf "#!/bin/sh\necho 1..1\necho not ok 1 - broken\nexit 1\n" >tree/t/t9992-b.t &&
	printf "#!/bin/sh\necho \"1..0 # SKIP no GPU\"\n" >tree/t/t9993-c.t &&
	chmod +x tree/t/t999*.t &&
	printf "# stand-ins\nt/t9991-a.t\nt/t9992-b.t  # fails\n" >tree/t/gpu-tests &&
	test_expect_code 1 sh tree/t/run-tests.sh tree --gpu t/t9993-c.t >out &&
	sed -n "/^### summary/,\$p" out >summary &&
	grep -x "t9991-a.t: 1 passed, 0 failed, 0 skipped, exit 0, [0-9]* s" summary &&
	grep -x "t9992-b.t: 0 passed, 1 failed, 0 skipped, exit 1, [0-9]* s" summary &&
	grep -x "t9993-c.t: skipped (no GPU)" summary &&
	test $(wc -l <summary) = 4
'

test_expect_success 'RUN_TESTS_LOGS: each script'"'"'s output in a log of its own, written as it runs' '
	printf "#!/bin/sh\necho 1..2\necho ok 1 - first\nkill -TERM \$PPID\nsleep 5\necho ok 2 - never\n" >tree/t/t9994-d.t &&
	chmod +x tree/t/t9994-d.t &&
	RUN_TESTS_LOGS=$PWD/logs sh tree/t/run-tests.sh tree t/t9991-a.t >out &&
	grep -x "ok 1 - fine" logs/t9991-a.t.log &&
	grep -x "ok 1 - fine" out &&
	{ RUN_TESTS_LOGS=$PWD/logs sh tree/t/run-tests.sh tree t/t9994-d.t >out || :; } &&
	grep -x "ok 1 - first" logs/t9994-d.t.log &&
	! grep "^### summary" out
'

test_expect_success 'run-tests.sh: a usage error without a test' '
	test_expect_code 2 sh "$TOP_SRCDIR/t/run-tests.sh" "$TOP_BUILDDIR" 2>err &&
	grep "usage: .*--gpu" err
'

test_done
