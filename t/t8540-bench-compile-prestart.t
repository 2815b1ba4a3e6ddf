#!/bin/sh
test_description='contrib/bench/compile-prestart.sh: dice-compile with harnesses started ahead at several depths, side by side'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

test_have_prereq JQ || skip_all 'jq is needed'
test_have_prereq CXXBUILD || skip_all 'needs a torch that builds C++ extensions'
script="$TOP_SRCDIR/contrib/bench/compile-prestart.sh"

test_expect_success 'one solution, one run at two depths: each run, then each depth'"'"'s medians' '
	LIMIT=1 JOBS=1 sh "$script" 1 "0 1" >out 2>err &&
	grep "^# 1 candidates, dice-compile -j 1; python " out &&
	grep -c "^[01] [0-9.]* [0-9.]*$" out >n && echo 2 >expect && test_cmp expect n &&
	grep "^DICE_PRESTART=0: median wall [0-9.]* s, CPU [0-9.]* s$" out &&
	grep "^DICE_PRESTART=1: median wall [0-9.]* s, CPU [0-9.]* s$" out &&
	test_must_be_empty err
'

test_expect_success 'a depth or a limit that is not a number: exit 2, named' '
	test_expect_code 2 sh "$script" 1 "0 x" 2>err &&
	grep "DEPTHS and LIMIT: numbers, not .x." err &&
	test_expect_code 2 env LIMIT=-1 sh "$script" 1 2>err &&
	grep "not .-1." err
'

test_expect_success 'without the dice tools: exit 2, named' '
	test_expect_code 2 env PATH=/usr/bin:/bin BUILDDIR= sh "$script" 1 2>err &&
	grep "dice-compile not on PATH" err
'

test_done
