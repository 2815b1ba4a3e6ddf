#!/bin/sh
test_description='builds: the precompiled-header path, its fallbacks, first use under concurrency and kills'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

cpu_harness_env
compile () { dice-compile -q --device cpu "$@"; }
EXAMPLES=${DICE_DATADIR:-$TEST_SRCDIR/../share/dice}/examples/cpu
PROBLEMS=${DICE_DATADIR:-$TEST_SRCDIR/../share/dice}/problems

# variant N: a C++ candidate whose source differs from the others' by a
# comment, so that each is a build of its own.
variant () {
	record "L1/$1" "$(cpp_candidate "ext.shifted_relu(x, 0.0)" "$CPP_SOURCE
// variant $1")"
}

test_expect_success 'a build killed while making the header leaves nothing to use' '
	variant 0 >killed.jsonl &&
	compile --timeout 12 killed.jsonl >out &&
	test "$(jq -r .compile.ok out)" = false &&
	ls cache/tmp | grep "^pch-" &&
	! ls cache/pch 2>/dev/null | grep .
'

test_expect_success 'three builds on a cold cache: one makes the header, all use it' '
	{ variant 1 && variant 2 && variant 3; } >three.jsonl &&
	compile -j3 three.jsonl >out &&
	jq -r ".compile | [.ok, .builds[0].path] | @tsv" out | sort -u >actual &&
	printf "true\tpch\n" >expect &&
	test_cmp expect actual &&
	test "$(jq -s "[.[].compile.builds[0].pch_ms | select(. > 0)] | length" out)" = 1 &&
	test "$(ls cache/pch | wc -l)" = 1 &&
	test -f cache/pch/*/torch/extension.h.gch &&
	test -L cache/pch/*/torch/extension.h &&
	! ls cache/tmp | grep "^pch-"
'

test_expect_success 'what it built runs: dice-check finds it, correct' '
	dice-check -q --device cpu three.jsonl >out &&
	jq -r ".check | [.status, .compile.cache] | @tsv" out | sort -u >actual &&
	printf "correct\thit\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'flags that change what a header means take the plain path' '
	record L1/5 "$(cpp_candidate "ext.shifted_relu(x, 0.0)" |
		sed "s/functions=/extra_cflags=[\"-include\", \"cstddef\"], functions=/")" >include.jsonl &&
	grep -q "extra_cflags" include.jsonl &&
	compile include.jsonl >out &&
	jq -r ".compile | [.ok, .builds[0].path] | @tsv" out >actual &&
	printf "true\tplain\n" >expect &&
	test_cmp expect actual
'

# KernelBench's prompt shows extra_cflags=[""]: an empty flag reaches no
# compiler (torch joins the flags with spaces, the shell splits them), so
# it keeps the fast path and the header made for candidates without it.
test_expect_success 'empty flags, as KernelBench candidates pass them, keep the header path and its header' '
	record L1/6 "$(cpp_candidate "ext.shifted_relu(x, 0.0)" "$CPP_SOURCE
// empty flags" |
		sed "s/functions=/extra_cflags=[\"\"], extra_ldflags=[\"\", \" \"], functions=/")" >empty.jsonl &&
	grep -q "extra_ldflags" empty.jsonl &&
	compile empty.jsonl >out &&
	jq -r ".compile | [.ok, .builds[0].path, .builds[0].pch_ms] | @tsv" out >actual &&
	printf "true\tpch\t0\n" >expect &&
	test_cmp expect actual &&
	test "$(ls cache/pch | wc -l)" = 1
'

test_expect_success 'a compiler error: the plain build is retried, its own message reported' '
	record L1/6 "$(cpp_candidate "x" "#include <torch/extension.h>
torch::Tensor shifted_relu(torch::Tensor x, double shift) {
  return x + undeclared_thing;
}")" >bad.jsonl &&
	compile bad.jsonl >out &&
	jq -r ".compile | [.ok, .builds[0].path] | @tsv" out >actual &&
	printf "false\tplain\n" >expect &&
	test_cmp expect actual &&
	jq -r .compile.log out | grep "main.cpp:[0-9]*:[0-9]*: error:.*undeclared_thing"
'

test_expect_success 'DICE_FASTBUILD=0: the plain path, under another key' '
	variant 1 >one.jsonl &&
	DICE_FASTBUILD=0 compile one.jsonl >out &&
	jq -r ".compile | [.ok, .cache, .builds[0].path] | @tsv" out >actual &&
	printf "true\tmiss\tplain\n" >expect &&
	test_cmp expect actual
'

# bundled REL: a record of the bundled C++ solution REL with its problem.
bundled () {
	jq -nc --arg id "$1" --rawfile code "$EXAMPLES/$1" --rawfile ref "$PROBLEMS/$1" \
		"{id: \$id, sample: {index: 0}, ref: \$ref, code: \$code}"
}

test_expect_success 'bundled solutions: the same verdict and errors by either path' '
	{ bundled level1/1_ReLU.py && bundled level2/4_Add_Tanh_Multiply.py &&
	  bundled level3/4_SwiGLU_MLP.py; } >bundled.jsonl &&
	dice-check -q --device cpu --cache "$PWD/fastcache" bundled.jsonl >fast.out &&
	DICE_FASTBUILD=0 dice-check -q --device cpu --cache "$PWD/plaincache" bundled.jsonl >plain.out &&
	jq -r ".check.compile.builds[].path" fast.out | sort -u >paths &&
	echo pch >expect && test_cmp expect paths &&
	view=".check | [.status, .passed, .trials, .max_abs_err, .max_rel_err] | @json" &&
	jq -r "$view" fast.out >fast &&
	jq -r "$view" plain.out >plain &&
	test_cmp plain fast &&
	grep -q correct fast
'

test_done
