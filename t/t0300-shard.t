#!/bin/sh
test_description='--shard I/N on every per-record tool: the N outputs are disjoint and together complete, whatever the input order'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

test_have_prereq JQ || skip_all 'jq is needed'
"$DICE_PYTHON" -c 'import json' 2>/dev/null || skip_all "no Python ($DICE_PYTHON)"
DICE_CACHE=$PWD/cache; export DICE_CACHE

# records SEED COUNT: COUNT records with random ids and sample indices,
# some ids repeated with several samples, some without a sample.
records () {
	"$DICE_PYTHON" - "$1" "$2" <<-\PYEOF
	import json, random, sys
	rng = random.Random(int(sys.argv[1]))
	seen = set()
	while len(seen) < int(sys.argv[2]):
	    key = ("L%d/%d_%s" % (rng.randint(1, 3), rng.randint(1, 40),
	                          rng.choice(["ReLU", "Conv", "Gemm", "x"])),
	           rng.choice([None, 0, 1, 2, 15]))
	    if key in seen:
	        continue
	    seen.add(key)
	    rec = {"id": key[0], "prompt": {"text": "ModelNew = 1"}}
	    if key[1] is not None:
	        rec["sample"] = {"index": key[1]}
	    print(json.dumps(rec))
	PYEOF
}

# shuffled SEED FILE: FILE in an order of its own.
shuffled () {
	"$DICE_PYTHON" -c '
import random, sys
lines = open(sys.argv[2]).readlines()
random.Random(int(sys.argv[1])).shuffle(lines)
sys.stdout.write("".join(lines))' "$1" "$2"
}

keys () {
	jq -r '"\(.id)\t\(.sample.index // "none")"' "$@" | sort
}

# sharded N TOOL ARGS...: run TOOL on a shuffle of in.jsonl of its own
# for each shard of N; the union of the outputs must be the unsharded
# output (complete) and hold no key twice (disjoint).
sharded () {
	n=$1; shift
	"$@" <in.jsonl >whole &&
	keys whole >expect &&
	: >union &&
	i=1 &&
	while test $i -le $n; do
		shuffled $i in.jsonl >in.$i &&
		"$@" --shard=$i/$n <in.$i >part.$i || return 1
		cat part.$i >>union
		i=$((i + 1))
	done &&
	keys union >actual &&
	test_cmp expect actual &&
	keys union | uniq -d >dups &&
	test_must_be_empty dups
}

test_expect_success 'setup' '
	records 7 200 >in.jsonl &&
	test_line_count = 200 in.jsonl
'

for n in 1 2 3 7; do
	test_expect_success "dice-split: $n shards" "
		sharded $n dice-split
	"
	test_expect_success "dice-prompt (records): $n shards" "
		sharded $n dice-prompt -
	"
done

test_expect_success 'every shard of 3 holds some of 200 records' '
	for i in 1 2 3; do
		test -s part.$i || return 1
	done &&
	shuffled 1 in.jsonl >a && shuffled 2 in.jsonl >b &&
	dice-split --shard=2/3 a >sa && dice-split --shard=2/3 b >sb &&
	keys sa >ka && keys sb >kb && test_cmp ka kb
'

test_expect_success 'dice-prompt (the bundled suite): 4 shards' '
	dice-prompt all >whole &&
	jq -r .id whole | sort >expect &&
	for i in 1 2 3 4; do
		dice-prompt --shard=$i/4 all || return 1
	done >union &&
	jq -r .id union | sort >actual &&
	test_cmp expect actual
'

test_expect_success 'dice-sample: by prompt, every sample of a prompt in its shard' '
	records 11 40 | jq -c "del(.sample)" | sort -u >in.jsonl &&
	sharded 3 dice-sample --exec cat -n 3 &&
	jq -r .id union | sort | uniq -c | awk "\$1 != 3" >odd &&
	test_must_be_empty odd
'

test_expect_success 'checking tools: records without code (skipped quickly)' '
	records 13 60 | jq -c "del(.prompt)" >in.jsonl &&
	sharded 3 dice-check -q &&
	sharded 3 dice-compile -q &&
	sharded 2 dice-time -q
'

for bad in 0/0 3/2 0/3 x 1/x 1/ /2 -1/2 1/2/3 " 1/2" 1/1000001; do
	for tool in dice-prompt dice-sample dice-split dice-check dice-compile dice-time; do
		test_expect_success "$tool --shard='$bad': a usage error" "
			test_expect_code 2 $tool --shard='$bad' </dev/null >out 2>err &&
			test_must_be_empty out &&
			grep \"^$tool: invalid --shard '$bad' (I/N, with I from 1 to N\" err &&
			grep \"^Try '$tool --help'\" err
		"
	done
done

test_expect_success 'kill -9 mid-run on a shard, then --resume: every record of the shard once' '
	records 17 30 | jq -c "del(.sample)" | sort -u >in.jsonl &&
	dice-sample --exec cat -n 2 --shard=2/3 <in.jsonl >expect.out &&
	keys expect.out >expect &&
	test -s expect &&
	{ SLOW=0.05 dice-sample --exec "sleep \${SLOW:-0}; cat" -n 2 -j 1 \
		--shard=2/3 --resume=run.jsonl <in.jsonl & } &&
	pid=$! &&
	n=0 &&
	while ! test -s run.jsonl && test $n -lt 400; do
		sleep 0.05; n=$((n + 1))
	done &&
	kill -9 $pid &&
	{ wait $pid; true; } &&
	test $(wc -l <run.jsonl) -lt $(wc -l <expect) &&
	shuffled 5 in.jsonl >in.5 &&
	dice-sample --exec "sleep \${SLOW:-0}; cat" -n 2 --shard=2/3 \
		--resume=run.jsonl <in.5 &&
	keys run.jsonl >actual &&
	test_cmp expect actual
'

test_expect_success 'dice-score has no --shard: it summarises' '
	test_expect_code 2 dice-score --shard=1/2 </dev/null 2>err
'

test_done
