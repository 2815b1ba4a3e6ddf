#!/bin/sh
test_description='dice-sample --index-offset: sample numbering from K, seeds from the index, so shards never collide'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/sample-lib.sh"

write_prompts
start_server srv || exit 1
url=$srv_url

# Each --exec sample says its index and seed.
show='echo "$DICE_SAMPLE_ID $DICE_SAMPLE_INDEX $DICE_SAMPLE_SEED"'

test_expect_success '--exec: indices K to K+n-1, seeds --seed plus the index' '
	dice-sample --exec "$show" -n 3 --index-offset 5 --seed 100 \
		<prompts.jsonl >out &&
	keys out >actual &&
	printf "L1/1_A %s\n" 5 6 7 >expect &&
	printf "L1/2_B %s\n" 5 6 7 >>expect &&
	test_cmp expect actual &&
	jq -j .sample.text out >actual &&
	printf "L1/1_A %s\n" "5 105" "6 106" "7 107" >expect &&
	printf "L1/2_B %s\n" "5 105" "6 106" "7 107" >>expect &&
	test_cmp expect actual
'

test_expect_success 'four shards of -n 2, merged with cat, are one run of -n 8' '
	dice-sample --exec "$show" -n 8 --seed 7 <prompts.jsonl >whole &&
	: >merged &&
	for k in 6 2 0 4; do
		dice-sample --exec "$show" -n 2 --index-offset $k --seed 7 \
			<prompts.jsonl >>merged || return 1
	done &&
	jq -c "[.id, .sample.index, .sample.text]" whole | sort >expect &&
	jq -c "[.id, .sample.index, .sample.text]" merged | sort >actual &&
	test_cmp expect actual &&
	keys merged | sort | uniq -d >dups &&
	test_must_be_empty dups
'

test_expect_success 'HTTP: each request carries the seed of its sample index' '
	rm -f srv.log &&
	dice-sample --api "$url" --model tiny -n 2 --index-offset 10 --seed 3 \
		<prompts.jsonl >out &&
	keys out >actual &&
	printf "L1/1_A %s\n" 10 11 >expect &&
	printf "L1/2_B %s\n" 10 11 >>expect &&
	test_cmp expect actual &&
	jq -r "[.body.messages[0].content, .body.seed] | @tsv" srv.log | sort >actual &&
	printf "write A\t%s\n" 13 14 >expect &&
	printf "write B\t%s\n" 13 14 >>expect &&
	test_cmp expect actual
'

test_expect_success 'HTTP --batch-n: one request per prompt, the seed of its first sample' '
	rm -f srv.log &&
	dice-sample --api "$url" --model tiny -n 3 --batch-n --index-offset 4 \
		<prompts.jsonl >out &&
	jq -c "[.body.n, .body.seed]" srv.log >actual &&
	printf "[3,4]\n[3,4]\n" >expect &&
	test_cmp expect actual &&
	keys out >actual &&
	printf "L1/1_A %s\n" 4 5 6 >expect &&
	printf "L1/2_B %s\n" 4 5 6 >>expect &&
	test_cmp expect actual
'

test_expect_success '--resume skips only what this shard already has' '
	dice-sample --exec "$show" -n 4 --index-offset 0 --resume r.jsonl \
		<prompts.jsonl &&
	dice-sample --exec "$show" -n 4 --index-offset 2 --resume r.jsonl \
		<prompts.jsonl &&
	keys r.jsonl | sort >actual &&
	printf "L1/1_A %s\n" 0 1 2 3 4 5 >expect &&
	printf "L1/2_B %s\n" 0 1 2 3 4 5 >>expect &&
	test_cmp expect actual
'

test_expect_success '--replay with -n takes saved samples K to K+n-1' '
	dice-sample --exec "$show" -n 6 <prompts.jsonl >saved.jsonl &&
	dice-sample --replay saved.jsonl -n 2 --index-offset 3 \
		<prompts.jsonl >out &&
	jq -j ".id + \" \" + (.sample.index | tostring) + \" \" + .sample.text" out >actual &&
	printf "L1/1_A %s\n" "3 L1/1_A 3 3" "4 L1/1_A 4 4" >expect &&
	printf "L1/2_B %s\n" "3 L1/2_B 3 3" "4 L1/2_B 4 4" >>expect &&
	test_cmp expect actual
'

test_expect_success 'an offset out of range is a usage error' '
	test_expect_code 2 dice-sample --exec cat --index-offset -1 \
		<prompts.jsonl 2>err &&
	grep "^dice-sample: invalid --index-offset .-1. (an integer from 0 to" err &&
	test_expect_code 2 dice-sample --exec cat --index-offset 9x \
		<prompts.jsonl 2>err &&
	grep "invalid --index-offset .9x." err
'

test_done
