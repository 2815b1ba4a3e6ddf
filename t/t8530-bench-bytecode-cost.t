#!/bin/sh
test_description='contrib/bench/bytecode-cost.sh: dice-check with and without the bytecode cache, side by side'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

test_have_prereq JQ || skip_all 'jq is needed'
test_have_prereq HARNESS || skip_all 'needs torch and the harness'
script="$TOP_SRCDIR/contrib/bench/bytecode-cost.sh"

test_expect_success 'one run of each: the warm-up apart, each run, the medians and their ratios' '
	LIMIT=2 sh "$script" 1 >out 2>err &&
	grep "^# 2 candidates; python " out &&
	grep "^# first run into an empty bytecode cache: [0-9.]* s; a tool.s start once it is warm: [0-9.]* s$" out &&
	grep -c "^with [0-9.]* [0-9.]*$" out >n && echo 1 >expect && test_cmp expect n &&
	grep -c "^without [0-9.]* [0-9.]*$" out >n && test_cmp expect n &&
	grep "^median wall: with [0-9.]* s, without [0-9.]* s ([0-9.]*x)$" out &&
	grep "^median CPU: with [0-9.]* s, without [0-9.]* s ([0-9.]*x)$" out &&
	awk "/^with / && \$3 > 0 { ok = 1 } END { exit !ok }" out &&
	test_must_be_empty err
'

test_expect_success 'without the dice tools: exit 2, named' '
	test_expect_code 2 env PATH=/usr/bin:/bin BUILDDIR= sh "$script" 1 2>err &&
	grep "dice-check not on PATH" err
'

test_done
