#!/bin/sh
test_description='dice-sample --exec: a command per sample, its timeout and failures'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

test_have_prereq JQ || skip_all 'jq is needed'

now_ms () {
	echo $(($(date +%s%N) / 1000000))
}

test_expect_success 'setup' '
	printf "%s\n" "{\"id\":\"L1/1_A\",\"prompt\":{\"text\":\"\`\`\`python\\nclass ModelNew:\\n    pass\\n\`\`\`\\n\"}}" >in &&
	jq -e .prompt.text in
'

test_expect_success 'the prompt on stdin, the completion from stdout' '
	dice-sample --exec cat -n 2 <in >out &&
	jq -r ".sample | [.index, .backend, .finish, (.text == \"\`\`\`python\\nclass ModelNew:\\n    pass\\n\`\`\`\\n\")] | @tsv" out >actual &&
	printf "0\texec\tstop\ttrue\n1\texec\tstop\ttrue\n" >expect &&
	test_cmp expect actual &&
	jq -r .code out >actual &&
	printf "class ModelNew:\n    pass\n\n" >expect1 && cat expect1 expect1 >expect &&
	test_cmp expect actual
'

test_expect_success 'DICE_SAMPLE_INDEX and DICE_SAMPLE_SEED; no API key' '
	DICE_API_KEY=sk-secret OPENAI_API_KEY=sk-other dice-sample -n 3 --seed 40 \
		--exec "echo \$DICE_SAMPLE_INDEX \$DICE_SAMPLE_SEED \$DICE_SAMPLE_ID \${DICE_API_KEY-none} \${OPENAI_API_KEY-none}" \
		<in >out &&
	jq -j .sample.text out >actual &&
	printf "%s L1/1_A none none\n" "0 40" "1 41" "2 42" >expect &&
	test_cmp expect actual
'

test_expect_success 'the command sees no variable that may hold a secret, by word or prefix' '
	HF_TOKEN=hf-x GITHUB_TOKEN=gh-x AWS_REGION=r MY_PASSWORD=p \
	SESSION_COOKIE=c HOMEDIR_OK=kept dice-sample \
		--exec "env | sed -n \"/^\\(HF_\\|GITHUB_\\|AWS_\\|MY_PASS\\|SESSION_\\|HOMEDIR_\\)/p\" | sort" \
		<in >out &&
	jq -j .sample.text out >actual &&
	echo HOMEDIR_OK=kept >expect &&
	test_cmp expect actual
'

test_expect_success 'a command past --timeout is killed with its whole group' '
	t0=$(date +%s) &&
	test_expect_code 1 dice-sample --timeout 0.3 \
		--exec "(sleep 7.31; touch late) & sleep 7.32; touch late2" <in >out 2>err &&
	t1=$(date +%s) &&
	test $((t1 - t0)) -lt 4 &&
	jq -r .sample.error out >actual &&
	echo "the command timed out after 0.3 s" >expect &&
	test_cmp expect actual &&
	jq -e ".sample.text == null and .code == null" out &&
	sleep 0.2 &&
	! ps -eo args | grep "^sleep 7.3[12]" &&
	grep "L1/1_A sample 0: the command timed out" err
'

test_expect_success 'a failing command: its status and the last line of its stderr' '
	test_expect_code 1 dice-sample \
		--exec "echo partial; echo first >&2; echo \"the model is gone\" >&2; exit 3" \
		<in >out 2>err &&
	jq -r .sample.error out >actual &&
	echo "the command failed (exit status 3): the model is gone" >expect &&
	test_cmp expect actual &&
	jq -e ".sample.text == null" out
'

test_expect_success 'a command killed by a signal' '
	test_expect_code 1 dice-sample --exec "kill -9 \$\$" <in >out 2>err &&
	jq -r .sample.error out >actual &&
	grep "^the command failed (killed by signal 9" actual
'

test_expect_success 'a command that cannot be found' '
	test_expect_code 1 dice-sample --exec "no-such-command-here" <in >out 2>err &&
	jq -r .sample.error out >actual &&
	grep "^the command failed (exit status 127): .*no-such-command-here" actual
'

test_expect_success 'output that is not UTF-8 is no completion' '
	test_expect_code 1 dice-sample --exec "printf \"\\377\\n\"" <in >out 2>err &&
	jq -r .sample.error out >actual &&
	echo "the completion is not UTF-8 text" >expect &&
	test_cmp expect actual
'

test_expect_success 'a command that ignores a large prompt does not hang' '
	awk "BEGIN { s = \"x\"; while (length(s) < 1048576) s = s s;
		printf \"{\\\"id\\\":\\\"big\\\",\\\"prompt\\\":{\\\"text\\\":\\\"%s\\\"}}\\n\", s }" >big &&
	dice-sample --timeout 20 --exec "echo ModelNew = 1" <big >out &&
	jq -j .code out >actual &&
	echo "ModelNew = 1" >expect &&
	test_cmp expect actual
'

test_expect_success 'samples come out in order, one per command run' '
	dice-sample -n 5 --exec "sleep 0.0\$DICE_SAMPLE_INDEX; echo \$DICE_SAMPLE_INDEX" <in >out &&
	jq -r ".sample.index, (.sample.text | rtrimstr(\"\\n\"))" out | paste - - >actual &&
	printf "%s\t%s\n" 0 0 1 1 2 2 3 3 4 4 >expect &&
	test_cmp expect actual
'

test_expect_success '--progress counts samples on stderr; -q silences it' '
	test_expect_code 1 dice-sample -n 3 --progress \
		--exec "test \$DICE_SAMPLE_INDEX != 1 && echo ModelNew = 1" <in >out 2>err &&
	grep "^dice-sample: 3/3 done in [0-9hms]*, 1 failed" err &&
	test_expect_code 1 dice-sample -n 3 --progress -q \
		--exec "test \$DICE_SAMPLE_INDEX != 1 && echo ModelNew = 1" <in >out 2>err &&
	echo "dice-sample: 1 of 3 samples failed (see sample.error)" >expect &&
	test_cmp expect err
'

test_expect_success '-j runs commands side by side; records stay in order' '
	t0=$(now_ms) &&
	dice-sample -n 6 -j 6 --exec "sleep 0.\$((6 - DICE_SAMPLE_INDEX)); echo \$DICE_SAMPLE_INDEX" <in >out &&
	t1=$(now_ms) &&
	test $((t1 - t0)) -lt 1800 &&
	jq -j ".sample.text" out >actual &&
	printf "%s\n" 0 1 2 3 4 5 >expect &&
	test_cmp expect actual
'

test_expect_success '-j: a command that hangs times out alone' '
	test_expect_code 1 dice-sample -n 4 -j 4 --timeout 0.5 \
		--exec "test \$DICE_SAMPLE_INDEX = 2 && sleep 9.87; echo ModelNew = 1" <in >out 2>err &&
	jq -r ".sample.error // \"ok\"" out >actual &&
	printf "%s\n" ok ok "the command timed out after 0.5 s" ok >expect &&
	test_cmp expect actual &&
	! ps -eo args | grep "^sleep 9.87"
'

test_expect_success 'SIGTERM to dice-sample kills the commands it runs' '
	{ dice-sample -n 4 -j 2 --exec "sleep 8.64; echo ModelNew = 1" <in >out 2>err & } &&
	pid=$! &&
	i=0 &&
	while test $(ps -eo args | grep -c "^sleep 8.64") -lt 2; do
		i=$((i + 1)); test $i -lt 200 || exit 1; sleep 0.02
	done &&
	kill -TERM $pid &&
	{ wait $pid; test $? = 143; } &&
	sleep 0.1 &&
	! ps -eo args | grep "^sleep 8.64"
'

test_done
