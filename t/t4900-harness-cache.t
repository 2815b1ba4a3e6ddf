#!/bin/sh
test_description='dice_harness: the build cache (miss, hit, keys, concurrency, killed builds)'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-harness.sh"

HARNESS_TEST_CACHE=$TRASH_DIRECTORY/cache
export HARNESS_TEST_CACHE

test_expect_success 'setup: reference, candidate, a ninja that logs its calls' '
	write_add_ref ref.py &&
	cat >body.py <<-\EOF &&
	import torch.nn as nn
	from torch.utils.cpp_extension import load_inline

	ext = load_inline("dice_t49", cpp_sources=KERNEL,
	                  functions=["sum2", "sum2_scaled", "sum2_nan"])

	class ModelNew(nn.Module):
	    def forward(self, a, b):
	        return ext.sum2(a, b)
	EOF
	h candidate body.py >cand.py &&
	h job compile ref.py cand.py >job &&
	mkdir bin &&
	real=$(command -v ninja) &&
	printf "#!/bin/sh\necho \"\$*\" >>\"%s\"\nexec \"%s\" \"\$@\"\n" \
		"$TRASH_DIRECTORY/ninja.log" "$real" >bin/ninja &&
	chmod +x bin/ninja &&
	: >ninja.log
'
PATH=$TRASH_DIRECTORY/bin:$PATH
export PATH

test_expect_success 'a build killed half-way leaves nothing in the cache and no held lock' '
	(h run job --pidfile pid >killed.out 2>&1 &) &&
	i=0 &&
	while ! grep -q '^-v' ninja.log 2>/dev/null; do
		i=$((i + 1)) && test $i -lt 600 || exit 1
		sleep 0.1
	done &&
	sleep 1 &&
	kill -9 -$(cat pid) &&
	i=0 &&
	while kill -0 $(cat pid) 2>/dev/null; do
		i=$((i + 1)) && test $i -lt 100 || exit 1
		sleep 0.1
	done &&
	ls cache/tmp >leftover &&
	test_line_count = 1 leftover &&
	! ls -d cache/[0-9a-f][0-9a-f] 2>/dev/null &&
	for lock in cache/locks/*.lock; do
		h unlocked "$lock" || exit 1
	done
'

test_expect_success 'two processes, one key: one builds, the other waits and hits' '
	: >ninja.log &&
	h run job >r1 2>e1 &
	h run job >r2 2>e2 &&
	wait &&
	for r in r1 r2; do
		test "$(h get $r compile.ok)" = true || exit 1
		h get $r compile.cache || exit 1
	done >caches &&
	sort caches >actual &&
	printf "hit\nmiss\n" >expect &&
	test_cmp expect actual &&
	test "$(h get r1 compile.key)" = "$(h get r2 compile.key)" &&
	grep -c '^-v' ninja.log >builds &&
	echo 1 >expect &&
	test_cmp expect builds
'

test_expect_success 'the dead builder'\''s leftover is gone; one entry, one lock' '
	ls cache/tmp >leftover &&
	test_must_be_empty leftover &&
	key=$(h get r1 compile.key) &&
	test -f cache/$(echo $key | cut -c1-2)/$key/meta.json &&
	ls cache/locks | grep -v "^pch-" >locks &&
	echo $key.lock >expect &&
	test_cmp expect locks
'

test_expect_success 'a third run hits without running ninja, and is much faster' '
	: >ninja.log &&
	h run job >r3 &&
	test "$(h get r3 compile.cache)" = hit &&
	test "$(h get r3 compile.builds.0.cache)" = hit &&
	test_must_be_empty ninja.log &&
	miss=$(for r in r1 r2; do
		if test "$(h get $r compile.cache)" = miss; then h get $r compile.ms; fi
	done) &&
	test -n "$miss" &&
	hit=$(h get r3 compile.ms) &&
	awk -v miss="$miss" -v hit="$hit" "BEGIN { exit !(hit * 10 < miss) }"
'

test_expect_success 'check mode reuses the entry compile made' '
	h job check ref.py cand.py >cjob &&
	h run cjob >r4 &&
	test "$(h get r4 compile.cache)" = hit &&
	test "$(h get r4 compile.key)" = "$(h get r1 compile.key)" &&
	test "$(h get r4 check.status)" = correct
'

test_expect_success 'the key follows sources, flags, functions, name, include paths and arch' '
	h key same >k.same &&
	h key same >k.again &&
	test_cmp k.same k.again &&
	for v in source flags functions name include arch; do
		h key $v >k.$v || exit 1
		! test_cmp k.same k.$v >/dev/null || exit 1
	done &&
	cat k.* | sort -u >all &&
	test_line_count = 7 all
'

test_expect_success 'a candidate that builds nothing: ok, no cache, no key' '
	cat >plain.py <<-\EOF &&
	import torch.nn as nn

	class ModelNew(nn.Module):
	    def forward(self, a, b):
	        return a + b
	EOF
	h job compile ref.py plain.py >pjob &&
	h run pjob >r5 &&
	test "$(h get r5 compile.ok)" = true &&
	test "$(h get r5 compile.cache)" = null &&
	test "$(h get r5 compile.key)" = null &&
	test "$(h get r5 compile.builds)" = "[]"
'

test_done
