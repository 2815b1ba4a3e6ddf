#!/bin/sh
test_description='dice-compile: the compile object, with a stand-in harness (no torch)'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

fake_harness_env

test_expect_success 'setup' '
	fake_harness fake
'

test_expect_success 'the harness compile object becomes compile, added last' '
	record L1/1 "x = 1" | dice-compile -q >out &&
	jq -c "keys_unsorted" out >actual &&
	echo "[\"id\",\"sample\",\"ref\",\"code\",\"compile\"]" >expect &&
	test_cmp expect actual &&
	jq -c .compile out >actual &&
	echo "{\"ok\":true,\"ms\":0,\"cache\":\"hit\",\"key\":\"fake\",\"arch\":null,\"log\":\"\",\"builds\":[]}" >expect &&
	test_cmp expect actual
'

test_expect_success 'the job says compile' '
	record L1/1 "import json
RESULT = json.dumps({\"compile\": {\"ok\": True, \"mode\": job[\"mode\"]}})" |
	dice-compile -q >out &&
	jq -c .compile out >actual &&
	echo "{\"ok\":true,\"mode\":\"compile\"}" >expect &&
	test_cmp expect actual
'

test_expect_success 'no code: ok false, error, nothing run' '
	rm -f cache/runs &&
	echo "{\"id\":\"a\"}" | dice-compile -q >out &&
	jq -c .compile out >actual &&
	echo "{\"ok\":false,\"ms\":0,\"cache\":null,\"key\":null,\"arch\":null,\"log\":\"\",\"builds\":[],\"error\":\"no code\"}" >expect &&
	test_cmp expect actual &&
	! test -e cache/runs
'

test_expect_success 'a hang: ok false, the timeout in error' '
	record L1/2 "while True: pass" | dice-compile -q --timeout 1 >out &&
	jq -r ".compile | [.ok, .error] | @tsv" out >actual &&
	printf "false\ttimed out after 1 s (build and run)\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a result without a compile object: ok false' '
	record L1/3 "RESULT = \"{}\"" | dice-compile -q >out &&
	jq -r ".compile | [.ok, .error] | @tsv" out >actual &&
	printf "false\tthe harness'"'"'s result has no compile object\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'several at once keep the input order' '
	for i in 1 2 3 4 5 6; do
		record L1/$i "import time; time.sleep(0.$((7 - i)))" || exit 1
	done >six.jsonl &&
	dice-compile -q -j 3 six.jsonl >out &&
	jq -r .id out >actual &&
	printf "L1/%s\n" 1 2 3 4 5 6 >expect &&
	test_cmp expect actual
'

test_expect_success '--resume: built records are not built again; a checked one is not a compile record' '
	record L1/1_A "x = 1" >a.jsonl &&
	record L1/2_B "x = 2" >>a.jsonl &&
	rm -f cache/runs built.jsonl &&
	sed -n 1p a.jsonl | dice-compile -q --resume built.jsonl &&
	dice-compile -q --resume built.jsonl a.jsonl >out &&
	test_must_be_empty out &&
	jq -r "[.id, .compile.ok] | @tsv" built.jsonl >actual &&
	printf "L1/1_A\ttrue\nL1/2_B\ttrue\n" >expect &&
	test_cmp expect actual &&
	printf "L1/1_A\nL1/2_B\n" >expect &&
	test_cmp expect cache/runs &&
	jq -c ". + {check: {status: \"correct\"}}" a.jsonl >checked.jsonl &&
	dice-compile -q --resume checked.jsonl a.jsonl 2>err &&
	grep "^dice-compile:checked.jsonl:1: not a compile record; ignored" err &&
	test_line_count = 4 checked.jsonl
'

test_done
