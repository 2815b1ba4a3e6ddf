#!/bin/sh
test_description='dice-compile on a CPU torch: builds, the cache, compiler errors'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

cpu_harness_env
compile () { dice-compile -q --device cpu "$@"; }

# A source with an error on its line 3: line 4 of the main.cpp that
# load_inline writes, which starts with an #include of its own.
BAD_SOURCE='#include <torch/extension.h>
torch::Tensor shifted_relu(torch::Tensor x, double shift) {
  return x + undeclared_thing;
}'

test_expect_success 'a good candidate builds: ok, a miss, a key' '
	record L1/1 "$(cpp_candidate "ext.shifted_relu(x, 0.0)")" >good.jsonl &&
	compile good.jsonl >out &&
	jq -r ".compile | [.ok, .cache, (.key | type), (.builds | length), .log] | @tsv" out >actual &&
	printf "true\tmiss\tstring\t1\t\n" >expect &&
	test_cmp expect actual &&
	jq -r .compile.key out >key1
'

test_expect_success 'built again: a hit, the same key, in the shared cache' '
	compile good.jsonl >out &&
	jq -r ".compile | [.ok, .cache] | @tsv" out >actual &&
	printf "true\thit\n" >expect &&
	test_cmp expect actual &&
	jq -r .compile.key out >key2 &&
	test_cmp key1 key2 &&
	test -n "$(ls cache)"
'

test_expect_success 'dice-check then finds it built' '
	dice-check -q --device cpu good.jsonl >out &&
	jq -r ".check | [.status, .compile.cache] | @tsv" out >actual &&
	printf "correct\thit\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a build inside __init__ is found too' '
	record L1/2 "$(cpp_candidate "ext.shifted_relu(x, 0.0)" |
		sed "s/^ext = load_inline/def build(): return load_inline/;
		     s/super().__init__()/super().__init__(); global ext; ext = build()/")" >lazy.jsonl &&
	compile lazy.jsonl >out &&
	jq -r ".compile | [.ok, (.builds | length)] | @tsv" out >actual &&
	printf "true\t1\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a compiler error caught by the candidate: a failed build, with its line' '
	record L1/4 "$(cpp_candidate "x" "$BAD_SOURCE" |
		sed "s/^ext = load_inline(\(.*\))$/try:\n    ext = load_inline(\1)\nexcept Exception:\n    ext = None/")" >caught.jsonl &&
	jq -r .code caught.jsonl | grep -q "^except Exception" &&
	compile caught.jsonl >out &&
	jq -r .compile.ok out >actual &&
	echo false >expect &&
	test_cmp expect actual &&
	jq -r .compile.log out >log &&
	grep "main.cpp:4:.*undeclared_thing" log
'

test_done
