#!/bin/sh
test_description='dice-sample --local: the sampler protocol, with a fake sampler'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

test_have_prereq JQ || skip_all 'jq is needed'
command -v python3 >/dev/null 2>&1 || skip_all 'python3 is needed'

# The fake sampler where dice-sample looks for the real one.
mkdir -p data/python/dice_sampler &&
cp "$TEST_SRCDIR/fake-sampler.py" data/python/dice_sampler/__main__.py || exit 1
DICE_DATADIR=$PWD/data
DICE_PYTHON=python3
FAKE_SAMPLER_LOG=$PWD/jobs.log
export DICE_DATADIR DICE_PYTHON FAKE_SAMPLER_LOG

test_expect_success 'setup' '
	cat >prompts.jsonl <<-\EOF
	{"id":"L1/1_A","prompt":{"text":"write A"}}
	{"id":"L1/2_B","prompt":{"text":"write B"}}
	EOF
'

test_expect_success 'n samples per prompt through the sampler' '
	DICE_API_KEY=sk-secret dice-sample --local ckpt -n 2 --seed 10 <prompts.jsonl >out 2>err &&
	jq -r "[.id, .sample.index, .sample.backend, .sample.model, .sample.tokens,
		.sample.ms, .sample.tokens_per_s, .sample.finish] | @tsv" out >actual &&
	cat >expect <<-\EOF &&
	L1/1_A	0	local	fake-ckpt	7	1.5	4667	stop
	L1/1_A	1	local	fake-ckpt	7	1.5	4667	stop
	L1/2_B	0	local	fake-ckpt	7	1.5	4667	stop
	L1/2_B	1	local	fake-ckpt	7	1.5	4667	stop
	EOF
	test_cmp expect actual &&
	grep "^dice-sample: fake-ckpt ready on cpu after" err
'

test_expect_success 'the candidate is extracted; the sampler sees no API key' '
	jq -r .code out | grep "seed = " >actual &&
	printf "    seed = %d\n" 10 11 10 11 >expect &&
	test_cmp expect actual &&
	jq -r .code out | grep -c "key = None" >n &&
	echo 4 >expect && test_cmp expect n
'

test_expect_success 'PYTHONPATH starts with the data directory'"'"'s python/' '
	jq -r .code out | sed -n "s/^    path = .\(.*\).$/\1/p" | sort -u >actual &&
	echo "$DICE_DATADIR/python" >expect &&
	test_cmp expect actual
'

test_expect_success 'one job per prompt with every field, defaults filled' '
	jq -c "[.job, .prompt, .raw, .n, .seed, .max_tokens, .temperature, .top_p,
		.top_k, .block_length, .steps, .unmasking, .threshold, .stop]" jobs.log >actual &&
	cat >expect <<-\EOF &&
	[0,"write A",false,2,10,4096,1,1,0,4,4,"dynamic",0.9,[]]
	[1,"write B",false,2,10,4096,1,1,0,4,4,"dynamic",0.9,[]]
	EOF
	test_cmp expect actual
'

test_expect_success 'the block-diffusion options reach the job' '
	rm -f jobs.log &&
	head -n 1 prompts.jsonl |
	dice-sample --local ckpt --raw --block-length 8 --steps 2 --unmasking static \
		--threshold 0.5 --max-tokens 64 --temperature 0 --top-k 1 --stop X -q >out 2>err &&
	test_must_be_empty err &&
	jq -c "[.raw, .n, .max_tokens, .temperature, .top_k, .block_length, .steps,
		.unmasking, .threshold, .stop]" jobs.log >actual &&
	echo "[true,1,64,0,1,8,2,\"static\",0.5,[\"X\"]]" >expect &&
	test_cmp expect actual
'

test_expect_success '--steps defaults to the block length' '
	rm -f jobs.log &&
	head -n 1 prompts.jsonl | dice-sample --local ckpt --block-length 16 -q >out &&
	jq -c "[.block_length, .steps]" jobs.log >actual &&
	echo "[16,16]" >expect &&
	test_cmp expect actual
'

test_expect_success 'with --resume, only the missing samples are asked for' '
	rm -f jobs.log &&
	dice-sample --local ckpt -n 2 -q --resume res.jsonl <prompts.jsonl &&
	dice-sample --local ckpt -n 5 -q --resume res.jsonl <prompts.jsonl &&
	jq -c "[.n, .seed]" jobs.log >actual &&
	printf "[2,0]\n[2,0]\n[3,2]\n[3,2]\n" >expect &&
	test_cmp expect actual &&
	jq -r ".id + \" \" + (.sample.index|tostring) + \" \" + (.code | capture(\"seed = (?<s>[0-9]+)\").s)" res.jsonl | sort >actual &&
	for id in L1/1_A L1/2_B; do for i in 0 1 2 3 4; do echo "$id $i $i"; done; done >expect &&
	test_cmp expect actual
'

test_expect_success 'sampler errors become sample.error' '
	echo "{\"id\":\"x\",\"prompt\":{\"text\":\"sampler-error\"}}" >e.jsonl &&
	test_expect_code 1 dice-sample --local ckpt -n 2 -q <e.jsonl >out 2>err &&
	jq -r .sample.error out >actual &&
	printf "out of memory\nout of memory\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a sampler that cannot load: its message, exit 2' '
	test_expect_code 2 dice-sample --local fail-load <prompts.jsonl >out 2>err &&
	test_must_be_empty out &&
	grep "^dice-sample: the local sampler could not load .fail-load.: no checkpoint at .fail-load.$" err
'

test_expect_success 'a sampler that dies before it is ready: exit 2' '
	test_expect_code 2 dice-sample --local die-at-load <prompts.jsonl >out 2>err &&
	test_must_be_empty out &&
	grep "ended before it was ready (exit status 3)" err
'

test_expect_success 'a sampler that dies mid-run: the rest get sample.error, exit 1' '
	test_expect_code 1 dice-sample --local crash -n 2 -q <prompts.jsonl >out 2>err &&
	jq -r ".sample.error // \"ok\"" out >actual &&
	printf "%s\n" ok "the local sampler ended early (exit status 9)" \
		"the local sampler ended early (exit status 9)" \
		"the local sampler ended early (exit status 9)" >expect &&
	test_cmp expect actual
'

test_expect_success 'a sampler that stops answering is killed at --timeout' '
	t0=$(date +%s) &&
	test_expect_code 1 dice-sample --local hang -n 2 -q --timeout 0.5 <prompts.jsonl >out 2>err &&
	t1=$(date +%s) &&
	test $((t1 - t0)) -lt 10 &&
	jq -r ".sample.error // \"ok\"" out >actual &&
	printf "%s\n" ok "the local sampler sent nothing for 0.5 s and was killed" \
		"the local sampler sent nothing for 0.5 s and was killed" \
		"the local sampler sent nothing for 0.5 s and was killed" >expect &&
	test_cmp expect actual
'

# SIGHUP, as a shell ignores SIGINT in its background jobs; but under
# nohup SIGHUP is ignored from the start, and dice-sample leaves an
# ignored signal ignored (lib/proc.c), so then SIGTERM.
hangup=HUP hangup_status=129
case $(sed -n "s/^SigIgn:[[:space:]]*//p" /proc/$$/status 2>/dev/null) in
*[13579bdfBDF]) hangup=TERM hangup_status=143 ;;
esac

test_expect_success "SIG$hangup to dice-sample kills the sampler" '
	{ FAKE_SAMPLER_LOG=$PWD/int.log dice-sample --local hang -n 2 -q <prompts.jsonl >out 2>err & } &&
	pid=$! &&
	i=0 &&
	while ! test -s int.log; do
		i=$((i + 1)); test $i -lt 250 || exit 1; sleep 0.02
	done &&
	# The sampler is dice-sample'"'"'s own child: found by its parent, not by
	# its command line, which ps may cut short or share with others.
	sampler=$(ps -o pid= --ppid $pid | tr -d " ") &&
	test -n "$sampler" &&
	kill -$hangup $pid &&
	{ wait $pid; test $? = $hangup_status; } &&
	# Gone, or a zombie waiting to be reaped.  A loaded machine may take
	# a moment to deliver the kill.
	i=0 &&
	while state=$(ps -o stat= -p $sampler) && test -n "$state" &&
		case $state in Z*) false ;; *) true ;; esac
	do
		i=$((i + 1))
		test $i -lt 100 || { ps -o pid,ppid,stat,args -p $sampler; exit 1; }
		sleep 0.05
	done
'

test_expect_success 'an interpreter that is not there: exit 2' '
	test_expect_code 2 env DICE_PYTHON=/no/such/python dice-sample --local ckpt <prompts.jsonl 2>err &&
	grep "ended before it was ready (exit status 127)" err
'

test_done
