#!/bin/sh
test_description='dice-sample --api: records, request bodies, the key'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/sample-lib.sh"

write_prompts
start_server srv || exit 1
url=$srv_url
key=sk-test-0123456789abcdef

test_expect_success 'n samples per prompt, in (input, index) order' '
	dice-sample --api "$url" --model tiny -n 3 <prompts.jsonl >out 2>err &&
	test_must_be_empty err &&
	keys out >actual &&
	cat >expect <<-\EOF &&
	L1/1_A 0
	L1/1_A 1
	L1/1_A 2
	L1/2_B 0
	L1/2_B 1
	L1/2_B 2
	EOF
	test_cmp expect actual &&
	test $(requests srv) = 6
'

test_expect_success 'each record: the prompt record, then sample and code' '
	jq -c "keys_unsorted" out | sort -u >actual &&
	echo "[\"id\",\"problem\",\"prompt\",\"sample\",\"code\"]" >expect &&
	test_cmp expect actual &&
	jq -c ".sample | keys_unsorted" out | sort -u >actual &&
	echo "[\"index\",\"backend\",\"model\",\"text\",\"finish\",\"tokens\",\"ms\",\"tokens_per_s\",\"error\"]" >expect &&
	test_cmp expect actual &&
	jq -e "select(.sample.backend != \"http\" or .sample.model != \"tiny\"
		or .sample.finish != \"stop\" or .sample.error != null
		or (.code | startswith(\"import torch\") | not)
		or (.sample.ms | type) != \"number\")" out >bad;
	test_must_be_empty bad
'

test_expect_success 'tokens from usage; tokens_per_s from tokens and ms' '
	# The fake server counts 4 characters a token: 143 characters, 35 tokens.
	jq -e "select(.sample.tokens != 35)" out >bad;
	test_must_be_empty bad &&
	jq -r ".sample | (.tokens * 1000 / .ms) / .tokens_per_s" out |
	awk "{ if (\$1 < 0.999 || \$1 > 1.001) exit 1 }"
'

test_expect_success 'every sampling field is sent, with the defaults' '
	jq -c ".body | [.model, .n, .max_tokens, .temperature, .top_p, .top_k,
		.stop, .stream, .messages]" srv.log | sort | uniq -c |
		sed "s/^ *//" >actual &&
	cat >expect <<-\EOF &&
	3 ["tiny",1,4096,1,1,0,[],false,[{"role":"user","content":"write A"}]]
	3 ["tiny",1,4096,1,1,0,[],false,[{"role":"user","content":"write B"}]]
	EOF
	test_cmp expect actual &&
	jq -r "[.body.messages[0].content, .body.seed] | @tsv" srv.log | sort >actual &&
	printf "write A\t%s\n" 0 1 2 >expect &&
	printf "write B\t%s\n" 0 1 2 >>expect &&
	test_cmp expect actual
'

test_expect_success 'sampling options and -o extras reach the body' '
	rm -f srv.log &&
	head -n 1 prompts.jsonl |
	dice-sample --api "$url" --model tiny -n 2 --seed 100 --max-tokens 7 \
		--temperature 0.25 --top-p 0.5 --top-k 3 --stop "</s>" --stop END \
		-o top_k=-1 -o repetition_penalty=1.5 -o tag=run7 \
		-o "chat_template_kwargs={\"enable_thinking\":false}" >out &&
	jq -c ".body | [.seed, .max_tokens, .temperature, .top_p, .top_k, .stop,
		.repetition_penalty, .tag, .chat_template_kwargs]" srv.log | sort >actual &&
	cat >expect <<-\EOF &&
	[100,7,0.25,0.5,-1,["</s>","END"],1.5,"run7",{"enable_thinking":false}]
	[101,7,0.25,0.5,-1,["</s>","END"],1.5,"run7",{"enable_thinking":false}]
	EOF
	test_cmp expect actual
'

test_expect_success '-o KEY alone leaves KEY out of the body' '
	rm -f srv.log &&
	head -n 1 prompts.jsonl |
	dice-sample --api "$url" --model tiny -o top_k -o stop -o seed=3 -o seed >out &&
	jq -c ".body | [has(\"top_k\"), has(\"stop\"), has(\"seed\"), has(\"top_p\")]" srv.log >actual &&
	echo "[false,false,false,true]" >expect &&
	test_cmp expect actual
'

test_expect_success '--raw asks /v1/completions with the prompt as is' '
	rm -f srv.log &&
	dice-sample --api "$url" --model tiny --raw <prompts.jsonl >out &&
	jq -r "[.path, .body.prompt, (.body.messages == null)] | @tsv" srv.log >actual &&
	printf "/v1/completions\twrite %s\ttrue\n" A B >expect &&
	test_cmp expect actual &&
	jq -e "select(.code == null)" out >bad;
	test_must_be_empty bad
'

test_expect_success '--batch-n: one request per prompt, with n' '
	rm -f srv.log &&
	dice-sample --api "$url" --model tiny -n 3 --batch-n --seed 5 <prompts.jsonl >out &&
	test $(requests srv) = 2 &&
	jq -c "[.body.n, .body.seed]" srv.log >actual &&
	printf "[3,5]\n[3,5]\n" >expect &&
	test_cmp expect actual &&
	keys out >actual &&
	printf "L1/1_A %s\n" 0 1 2 >expect &&
	printf "L1/2_B %s\n" 0 1 2 >>expect &&
	test_cmp expect actual &&
	jq -r ".code" out | grep -c "seed=" >n &&
	echo 6 >expect && test_cmp expect n
'

test_expect_success 'the base URL may end in /v1 or name the endpoint' '
	rm -f srv.log &&
	head -n 1 prompts.jsonl >one.jsonl &&
	dice-sample --api "$url/v1/" --model tiny <one.jsonl >/dev/null &&
	dice-sample --api "$url/v1/chat/completions" --model tiny <one.jsonl >/dev/null &&
	DICE_API_BASE=$url dice-sample --model tiny <one.jsonl >/dev/null &&
	jq -r .path srv.log | sort -u >actual &&
	echo /v1/chat/completions >expect &&
	test_cmp expect actual && test $(requests srv) = 3
'

test_expect_success 'the key goes as a bearer token, from DICE_API_KEY or OPENAI_API_KEY' '
	rm -f srv.log &&
	dice-sample --api "$url" --model tiny <one.jsonl >/dev/null &&
	DICE_API_KEY=$key dice-sample --api "$url" --model tiny <one.jsonl >/dev/null &&
	OPENAI_API_KEY=$key dice-sample --api "$url" --model tiny <one.jsonl >/dev/null &&
	jq -r .auth srv.log >actual &&
	printf "false\ntrue\ntrue\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'the key never appears, even when the server echoes it' '
	cat >echo.jsonl <<-\EOF &&
	{"id":"L1/1_A","prompt":{"text":"fake-mode=echo-auth"}}
	{"id":"L1/2_B","prompt":{"text":"fake-mode=error-echo"}}
	EOF
	echo "{\"id\":\"L1/3_C\",\"prompt\":{\"text\":\"fake-mode=401\"}}" \
		>refused.jsonl &&
	# Apart, because a 401 stops the run: records still in flight with
	# it would be cut short, and the echoes must have been written.
	test_expect_code 1 env DICE_API_KEY=$key dice-sample --api "$url" \
		--model tiny --progress <echo.jsonl >out 2>err &&
	test_expect_code 2 env DICE_API_KEY=$key dice-sample --api "$url" \
		--model tiny --progress <refused.jsonl >>out 2>>err &&
	! grep -F "$key" out err &&
	test $(grep -c -F "[redacted]" out) = 2 &&
	grep -F "[redacted]" err
'

test_expect_success '--unordered writes the same records' '
	dice-sample --api "$url" --model tiny -n 4 -j 3 --unordered <prompts.jsonl >out &&
	keys out | sort >actual &&
	dice-sample --api "$url" --model tiny -n 4 -j 1 <prompts.jsonl >out1 &&
	keys out1 >expect &&
	test_cmp expect actual
'

test_expect_success 'no input, no request' '
	rm -f srv.log &&
	dice-sample --api "$url" --model tiny </dev/null >out &&
	test_must_be_empty out && test $(requests srv) = 0
'

stop_servers
test_done
