#!/bin/sh
test_description='dice-demo (make demo): the whole job on the bundled suite, on the CPU'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

test_have_prereq TORCH || skip_all 'no torch'
demo="$TEST_BUILDDIR/../contrib/demo/dice-demo"
test -x "$demo" || skip_all 'contrib/demo/dice-demo is not built'
DICE_DEMO_SAMPLER="$TOP_SRCDIR/contrib/demo/demo-sampler.py"
export DICE_DEMO_SAMPLER

# One problem keeps the test to one build; the sample per cheat is the same.
test_expect_success 'the demo runs the pipeline and writes a report' '
	"$demo" -d cpu -o out L1:1 >report 2>err &&
	for f in prompts samples checked records; do
		test -s out/$f.jsonl || return 1
	done &&
	test_line_count = 4 out/records.jsonl &&
	test -s out/report.md &&
	test_cmp out/report.md report
'

test_expect_success 'the honest solution passes; each cheat is caught' '
	"$DICE_PYTHON" -c "
import json
for r in map(json.loads, open(\"out/records.jsonl\")):
    c = r[\"check\"]
    print(r[\"sample\"][\"index\"], c[\"status\"], c[\"deception\"][\"deceptive\"],
          \"timed\" if r[\"time\"].get(\"speedup\") else \"untimed\")
" >actual &&
	cat >expect <<-\EOT &&
	0 correct False timed
	1 correct True untimed
	2 correct True untimed
	3 correct True untimed
	EOT
	test_cmp expect actual
'

test_expect_success 'the report shows the robust view below the plain one' '
	grep "^| 1 | robust | 1 | 4 |.* 25.0% |" report &&
	grep "^| 1 | plain | 1 | 4 |.* 100.0% |" report &&
	grep "L1/1_ReLU *1 *deceptive" err
'

test_expect_success 'bad usage' '
	test_expect_code 2 "$demo" -d tpu 2>err &&
	grep "invalid device" err &&
	test_expect_code 2 "$demo" -x 2>err &&
	"$demo" -h >help && grep "^Usage: dice-demo" help
'

test_done
