#!/bin/sh
test_description='contrib/bicrl: both BiC-RL stages on the bundled suite, on the CPU'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

test_have_prereq TORCH || skip_all 'no torch'

recipe="$TOP_SRCDIR/contrib/bicrl/bicrl.sh"

# One problem, two samples each stage: the oracle answers sample 0 right
# and sample 1 wrong (a truncated core; the reference passed off as
# ModelNew).
test_expect_success 'the recipe runs both stages' '
	"$recipe" -n 2 out L1:1 >report 2>err &&
	grep "^== infill" report && grep "^== end-to-end" report
'

verdicts () {
	"$DICE_PYTHON" -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    d = r["check"]["deception"] or {}
    print(r["id"], r["sample"]["index"], r["check"]["status"],
          d.get("deceptive"), r["reward"] > 0)' "$1"
}

test_expect_success 'infilling: the right core passes and is rewarded, the cut one not' '
	verdicts out/infill.jsonl >actual &&
	cat >expect <<-\EOT &&
	L1/1_ReLU 0 correct False True
	EOT
	head -n 1 actual >first && test_cmp expect first &&
	sed -n 2p actual >second &&
	! grep " correct " second && grep " False$" second &&
	"$DICE_PYTHON" -c "
import json
r = [json.loads(l) for l in open(\"out/infill.jsonl\")]
assert r[0][\"infill\"][\"joined\"][\"core\"], r[0][\"infill\"]
assert r[0][\"prompt\"][\"mode\"] == \"infill\"
"
'

test_expect_success 'the schedule comes from the first stage' '
	echo "{\"id\":\"L1/1_ReLU\",\"rank\":1,\"level\":1,\"samples\":2,\"passed\":1,\"pass_rate\":0.5}" >expect &&
	test_cmp expect out/schedule.jsonl
'

test_expect_success 'end to end: the solution is rewarded, the PyTorch cheat caught' '
	verdicts out/end-to-end.jsonl >actual &&
	cat >expect <<-\EOT &&
	L1/1_ReLU 0 correct False True
	L1/1_ReLU 1 correct True False
	EOT
	test_cmp expect actual
'

test_expect_success 'a bad option is a usage error' '
	test_expect_code 2 "$recipe" -x out2 2>err &&
	grep Usage err &&
	test_expect_code 2 "$recipe" 2>err
'

test_done
