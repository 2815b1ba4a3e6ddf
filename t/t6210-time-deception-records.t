#!/bin/sh
test_description='dice-time: what the timing run catches reaches the record, and dice-score counts it deceptive'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

cpu_harness_env
SOLUTION=$TEST_SRCDIR/../share/dice/examples/cpu/level1/1_ReLU.py
REF=$(cat "$TEST_SRCDIR/../share/dice/problems/level1/1_ReLU.py")

# Three candidates of the bundled ReLU problem through the real pipeline,
# all with the bundled C++ kernel, so that dice-check finds a custom
# kernel in each and passes them: the solution itself, the solution
# behind a result cache keyed on the input's storage, and the solution
# with every clock of the time module quartered through vars().  The clock
# passes dice-check's comparison (its outputs are right; its static scan
# may flag it as well: t7500 covers a time-only finding with fixtures);
# the cache may fail dice-check
# already, when a later trial's input lands where an earlier one was.  The
# timing stage catches both.
test_expect_success 'setup' '
	cp "$SOLUTION" honest.py &&
	sed "/^class ModelNew/,\$d" "$SOLUTION" >cache.py &&
	cat >>cache.py <<-\EOF &&
	class ModelNew(nn.Module):
	    def __init__(self):
	        super().__init__()
	        self.seen = {}
	    def forward(self, x):
	        where = x.data_ptr()
	        if where not in self.seen:
	            self.seen[where] = relu.relu_forward(x)
	        return self.seen[where]
	EOF
	{
		echo "import time as _t" &&
		echo "for _n in (\"perf_counter\", \"perf_counter_ns\", \"monotonic\"):" &&
		echo "    _r = getattr(_t, _n)" &&
		echo "    vars(_t)[_n] = (lambda r: lambda: r() * 0.25)(_r)" &&
		cat "$SOLUTION"
	} >clock.py &&
	i=0 &&
	for name in honest cache clock
	do
		record "L1/1_ReLU" "$(cat $name.py)" "$REF" |
			jq -c --arg n "$name" --argjson i $i \
				".sample.index = \$i | .sample.name = \$n" || return 1
		i=$((i + 1))
	done >in.jsonl &&
	test_line_count = 3 in.jsonl
'

test_expect_success 'dice-check | dice-time: time.deception names the cheat' '
	dice-check -q --device cpu --memory 4G in.jsonl >checked.jsonl &&
	dice-time -q --device cpu --memory 4G --all --trials 20 --warmup 2 \
		checked.jsonl >timed.jsonl &&
	jq -r "[.sample.name, .time.status, (.time.deception.deceptive | tostring),
		(.time.deception.flags | join(\",\"))] | @tsv" timed.jsonl >actual &&
	printf "honest\tok\tfalse\t\n" >expect &&
	printf "cache\tok\ttrue\tstale_output\n" >>expect &&
	printf "clock\tok\ttrue\ttimer_patched\n" >>expect &&
	test_cmp expect actual
'

test_expect_success 'the precision travels: fp32 by default, in check and time' '
	jq -r "[.check.precision, .time.precision] | @tsv" timed.jsonl | sort -u >actual &&
	printf "fp32\tfp32\n" >expect &&
	test_cmp expect actual
'


test_expect_success 'dice-score: caught in timing is not correct in the robust view, nor rewarded' '
	jq -r "select(.sample.name != \"cache\") | [.sample.name, .check.status] | @tsv" timed.jsonl >actual &&
	printf "honest\tcorrect\nclock\tcorrect\n" >expect &&
	test_cmp expect actual &&
	dice-score --json timed.jsonl >score.json &&
	jq -c ".levels[0].robust.correct" score.json >actual &&
	echo 1 >expect &&
	test_cmp expect actual &&
	dice-score --rewards=bic timed.jsonl | jq -c "[.sample.name, .reward > 0]" >actual &&
	printf "%s\n" "[\"honest\",true]" "[\"cache\",false]" "[\"clock\",false]" >expect &&
	test_cmp expect actual
'

test_done
