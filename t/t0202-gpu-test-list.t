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

test_expect_success 'run-tests.sh: a usage error without a test' '
	test_expect_code 2 sh "$TOP_SRCDIR/t/run-tests.sh" "$TOP_BUILDDIR" 2>err &&
	grep "usage: .*--gpu" err
'

test_done
