#!/bin/sh
test_description='dice-check, dice-compile, dice-time: a record with no reference to judge by is an input error, not the candidate'"'"'s failure'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

fake_harness_env

# Checked records, so that dice-time times them rather than skip them.
checked () {
	record "$@" | jq -c '. + {check: {status: "correct", correct: true}}'
}

test_expect_success 'setup: good records around the three mistakes' '
	fake_harness fake &&
	{
		checked L1/1 "x = 1" &&
		checked L1/2 "x = 2" | jq -c "del(.ref)" &&
		checked L1/3 "x = 3" | jq -c ".ref = 42" &&
		checked L1/4 "x = 4" "import torch
class Net(torch.nn.Module):
    pass
# class Model is only in this comment, and in \"class Model\"
" &&
		checked L1/5 "x = 5"
	} >in.jsonl &&
	cat >expect.where <<-\EOF
	in.jsonl:2: no ref (the problem'"'"'s reference source, which dice-prompt writes): cannot be judged; skipped
	in.jsonl:3: ref is not a string: cannot be judged; skipped
	in.jsonl:4: ref defines no class Model: cannot be judged; skipped
	EOF
'

for tool in dice-check dice-compile dice-time; do
	test_expect_success "$tool: each mistake is prog:FILE:LINE, skipped; the rest judged; exit 1" "
		test_expect_code 1 $tool -q in.jsonl >out 2>err &&
		jq -r .id out >ids &&
		printf '%s\n' L1/1 L1/5 >expect &&
		test_cmp expect ids &&
		sed 's/^/$tool:/' expect.where >expect &&
		test_cmp expect err
	"

	test_expect_success "$tool: --strict stops at the first, exit 2" "
		test_expect_code 2 $tool -q --strict in.jsonl >out 2>err &&
		jq -r .id out >ids &&
		echo L1/1 >expect &&
		test_cmp expect ids &&
		test_line_count = 1 err &&
		grep '^$tool:in.jsonl:2: no ref' err
	"
done

test_expect_success 'honest look-alikes: Model bound otherwise, or defined under an if' '
	{
		record L2/1 "x = 1" "from somewhere import Model" &&
		record L2/2 "x = 2" "import torch
Model = torch.nn.ReLU" &&
		record L2/3 "x = 3" "import torch
if True:
    class Model(torch.nn.Module):
        pass" &&
		record L2/4 "x = 4" "this is not Python ((("
	} >honest.jsonl &&
	dice-check -q honest.jsonl >out 2>err &&
	test_must_be_empty err &&
	test_line_count = 4 out
'

test_expect_success 'what is not run needs no ref: no code, or (dice-time) not correct' '
	{
		echo "{\"id\":\"L3/1\"}" &&
		echo "{\"id\":\"L3/2\",\"code\":\"x = 1\",\"check\":{\"status\":\"incorrect\",\"correct\":false}}"
	} >norun.jsonl &&
	head -1 norun.jsonl | dice-check -q >out 2>err &&
	test_must_be_empty err &&
	jq -r .check.status out >actual &&
	echo no_code >expect &&
	test_cmp expect actual &&
	dice-time -q norun.jsonl >out 2>err &&
	test_must_be_empty err &&
	test_line_count = 2 out
'

test_done
