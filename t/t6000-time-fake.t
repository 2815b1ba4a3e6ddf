#!/bin/sh
test_description='dice-time: what C decides, with a stand-in harness (no torch)'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

fake_harness_env

# fake_time REF NEW [EXTRA]: candidate code for the stand-in harness that
# reports the raw samples REF and NEW (Python lists, or None), with the
# same arrays as event times unless EXTRA (Python dict items) says
# otherwise (the stand-in's builder saves the job in the cache).
fake_time () {
	printf '%s\n' "import json" \
		"t = $(fake_timing "$1" "$2")" \
		"t.update({${3-}})" \
		"RESULT = json.dumps({'compile': {'ok': True}, 'time': t})"
}

# checked ID CODE [CHECK]: a record with a check object (default correct).
checked () {
	record "$1" "$2" | jq -c --argjson c "${3-{\"correct\":true\}}" '. + {check: $c}'
}

tm () { dice-time -q "$@"; }

test_expect_success 'setup' '
	fake_harness fake
'

test_expect_success 'statistics of known samples: median, mean, IQR, min, max, n' '
	checked L1/1_A "$(fake_time "[10,9,8,7,6,5,4,3,2,1]" "[1,1,2,1,1]")" >one.jsonl &&
	tm one.jsonl >out &&
	jq -c ".time | [.status, .ref_ms, .new_ms, .speedup, .ref, .new]" out >actual &&
	echo "[\"ok\",5.5,1,5.5,{\"median\":5.5,\"mean\":5.5,\"iqr\":4.5,\"min\":1,\"max\":10,\"n\":10,\"event_median\":5.5},{\"median\":1,\"mean\":1.2,\"iqr\":0,\"min\":1,\"max\":2,\"n\":5,\"event_median\":1}]" >expect &&
	test_cmp expect actual
'

test_expect_success 'a wide reference is unstable; --max-spread widens the bound' '
	jq -c .time.flags out >actual &&
	echo "[\"unstable\"]" >expect &&
	test_cmp expect actual &&
	tm --max-spread 1 one.jsonl | jq -c .time.flags >actual &&
	echo "[]" >expect &&
	test_cmp expect actual
'

test_expect_success 'time comes last, every other key passes through, documented order' '
	jq -c "keys_unsorted" out >actual &&
	echo "[\"id\",\"sample\",\"ref\",\"code\",\"check\",\"time\"]" >expect &&
	test_cmp expect actual &&
	jq -c ".time | keys_unsorted" out >actual &&
	echo "[\"status\",\"ref_ms\",\"new_ms\",\"speedup\",\"ref\",\"new\",\"flags\",\"baseline\",\"trials\",\"warmup\",\"input_sets\",\"seed\",\"precision\",\"deception\",\"speed_of_light_ms\",\"device\",\"device_uuid\",\"clocks\",\"temperature\",\"flush_bytes\",\"torch\",\"cuda\",\"driver\",\"error\",\"ms\",\"sandbox\"]" >expect &&
	test_cmp expect actual
'

test_expect_success '--resume: what the file holds with a time object is not timed again' '
	rm -f cache/runs timed.jsonl &&
	cp one.jsonl checked-only.jsonl &&
	tm --resume checked-only.jsonl one.jsonl 2>err &&
	grep "checked-only.jsonl:1: not a time record; ignored" err &&
	tm --resume timed.jsonl one.jsonl &&
	tm --resume timed.jsonl one.jsonl &&
	test_line_count = 1 timed.jsonl &&
	jq -r .time.status timed.jsonl >actual &&
	echo ok >expect &&
	test_cmp expect actual &&
	printf "L1/1_A\nL1/1_A\n" >expect &&
	test_cmp expect cache/runs
'

test_expect_success 'the job: mode time and the timing settings' '
	tm --trials 7 --warmup 3 --input-sets 2 --seed 9 --device cpu one.jsonl >out &&
	jq -c "[.mode, .trials, .warmup, .input_sets, .seed, .baseline, .device, .flush]" cache/job.json >actual &&
	echo "[\"time\",7,3,2,9,\"eager\",\"cpu\",true]" >expect &&
	test_cmp expect actual &&
	DICE_TIME_NO_FLUSH=1 tm one.jsonl >/dev/null &&
	jq -c .flush cache/job.json >actual &&
	echo false >expect &&
	test_cmp expect actual &&
	jq -c ".time | [.trials, .warmup, .input_sets, .seed, .baseline]" out >actual &&
	echo "[7,3,2,9,\"eager\"]" >expect &&
	test_cmp expect actual
'

test_expect_success 'defaults: 100 trials, 10 warm-up calls, 3 input sets, seed 42' '
	tm one.jsonl | jq -c ".time | [.trials, .warmup, .input_sets, .seed]" >actual &&
	echo "[100,10,3,42]" >expect &&
	test_cmp expect actual
'

test_expect_success 'untimed records pass through with time.skipped, and are not run' '
	code=$(fake_time "[1]" "[1]") &&
	{
		record L1/1_nocheck "$code" &&
		checked L1/2_wrong "$code" "{\"correct\":false}" &&
		checked L1/3_decept "$code" "{\"correct\":true,\"deception\":{\"deceptive\":true}}" &&
		checked L1/4_fine "$code" "{\"correct\":true,\"deception\":{\"deceptive\":false}}" &&
		echo "{\"id\":\"L1/5_nocode\",\"check\":{\"correct\":true}}"
	} >mixed.jsonl &&
	rm -f cache/runs &&
	tm mixed.jsonl >out &&
	jq -r "[.id, .time.skipped // .time.status] | @tsv" out >actual &&
	printf "L1/1_nocheck\tno check\nL1/2_wrong\tnot correct\nL1/3_decept\tdeceptive\nL1/4_fine\tok\nL1/5_nocode\tno code\n" >expect &&
	test_cmp expect actual &&
	echo L1/4_fine >expect &&
	test_cmp expect cache/runs &&
	jq -c ".time | keys" out | sed -n 1p >actual &&
	echo "[\"skipped\"]" >expect &&
	test_cmp expect actual
'

test_expect_success '--all times them too' '
	tm --all mixed.jsonl | jq -r "[.id, .time.skipped // .time.status] | @tsv" >actual &&
	printf "L1/1_nocheck\tok\nL1/2_wrong\tok\nL1/3_decept\tok\nL1/4_fine\tok\nL1/5_nocode\tno code\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'speedup above --max-speedup: excessive_speedup' '
	checked L1/6_fast "$(fake_time "[20,20,20]" "[1,1,1]")" >fast.jsonl &&
	tm fast.jsonl | jq -c ".time | [.speedup, .flags]" >actual &&
	echo "[20,[\"excessive_speedup\"]]" >expect &&
	test_cmp expect actual &&
	tm --max-speedup 30 fast.jsonl | jq -c .time.flags >actual &&
	echo "[]" >expect &&
	test_cmp expect actual
'

test_expect_success 'time mostly outside the event window: side_stream' '
	checked L1/7_side "$(fake_time "[1,1,1]" "[1,1,1]" "\"new_event\": [0.1, 0.1, 0.1]")" >side.jsonl &&
	tm side.jsonl | jq -c ".time | [.new.event_median, .flags]" >actual &&
	echo "[0.1,[\"side_stream\"]]" >expect &&
	test_cmp expect actual
'

test_expect_success 'the same overhead on both sides is not side_stream' '
	checked L1/8_both "$(fake_time "[1,1,1]" "[1,1,1]" "\"new_event\": [0.1, 0.1, 0.1], \"ref_event\": [0.1, 0.1, 0.1]")" |
	tm | jq -c .time.flags >actual &&
	echo "[]" >expect &&
	test_cmp expect actual
'

test_expect_success 'threads left running: threads' '
	checked L1/9_thr "$(fake_time "[1,1,1]" "[1,1,1]" "\"threads\": True")" |
	tm | jq -c .time.flags >actual &&
	echo "[\"threads\"]" >expect &&
	test_cmp expect actual
'

test_expect_success 'harness statuses and errors pass through; no samples is crashed' '
	{
		checked L1/10_rt "$(fake_time None None "\"status\": \"runtime_error\", \"error\": \"ValueError: kaput\"")" &&
		checked L1/11_oom "$(fake_time None None "\"status\": \"oom\", \"error\": \"out of memory\"")" &&
		checked L1/12_empty "$(fake_time "[]" "[]")" &&
		checked L1/13_odd "$(fake_time "[1]" "[1]" "\"status\": \"great\"")"
	} >st.jsonl &&
	tm st.jsonl >out &&
	jq -r "[.id, .time.status, .time.error, .time.speedup] | @tsv" out >actual &&
	printf "%s\n" "L1/10_rt	runtime_error	ValueError: kaput	" \
		"L1/11_oom	oom	out of memory	" \
		"L1/12_empty	crashed	the harness'"'"'s result has no usable samples	" \
		"L1/13_odd	crashed	the harness'"'"'s result has an unknown status	" >expect &&
	test_cmp expect actual
'

test_expect_success 'a candidate that dies or hangs while timed: crashed, timeout; the run goes on' '
	{
		checked L1/14_exit "import os; os._exit(3)" &&
		checked L1/15_hang "while True: pass" &&
		checked L1/16_ok "$(fake_time "[2]" "[1]")"
	} >die.jsonl &&
	tm --timeout 3 die.jsonl >out &&
	jq -r "[.id, .time.status, .time.speedup] | @tsv" out >actual &&
	printf "L1/14_exit\tcrashed\t\nL1/15_hang\ttimeout\t\nL1/16_ok\tok\t2\n" >expect &&
	test_cmp expect actual
'

test_expect_success '--ref-times with KernelBench baseline JSON' '
	cat >kb.json <<-\EOF &&
	{"level1": {"1_A.py": {"mean": 2.0, "std": 0.1, "min": 1.9, "max": 2.2, "num_trials": 100},
	            "2_B.py": {"mean": 4.0, "std": 0.1, "min": 3.9, "max": 4.2, "num_trials": 100}},
	 "level2": {"1_A.py": {"mean": 8.0, "std": 0.1, "min": 7.9, "max": 8.2, "num_trials": 100}}}
	EOF
	code=$(fake_time None "[1,1,1]") &&
	{
		checked L1/1_A "$code" &&
		checked L2/1_A "$code" &&
		checked L1/3_C "$code" &&
		record x "$code" | jq -c "del(.id) + {problem: {level: 1, index: 2, name: \"B\"}, check: {correct: true}}"
	} >kbin.jsonl &&
	tm --force-ref-times --ref-times kb.json kbin.jsonl >out &&
	jq -c "[.id, .time.skipped // .time.speedup, .time.baseline, .time.ref.n, .time.ref.iqr]" out >actual &&
	printf "%s\n" "[\"L1/1_A\",2,\"file\",100,null]" "[\"L2/1_A\",8,\"file\",100,null]" \
		"[\"L1/3_C\",\"no reference time\",null,null,null]" "[null,4,\"file\",100,null]" >expect &&
	test_cmp expect actual &&
	jq -r .baseline cache/job.json >actual &&
	echo file >expect &&
	test_cmp expect actual
'

test_expect_success '--ref-times with earlier dice-time output' '
	checked L1/1_A "$(fake_time "[6,6,6]" "[3,3,3]")" | tm >earlier.jsonl &&
	checked L1/1_A "$(fake_time None "[2,2,2]")" | tm --device cpu --ref-times earlier.jsonl >out &&
	jq -c ".time | [.ref_ms, .new_ms, .speedup, .baseline]" out >actual &&
	echo "[6,2,3,\"file\"]" >expect &&
	test_cmp expect actual
'

test_expect_success 'an unusable --ref-times file: exit 2, FILE:LINE where it has lines' '
	test_expect_code 2 tm --ref-times missing.json one.jsonl 2>err &&
	grep "^dice-time: missing.json: No such file" err &&
	echo "{\"level1\": {}}" >empty.json &&
	test_expect_code 2 tm --ref-times empty.json one.jsonl 2>err &&
	grep "^dice-time: empty.json: no reference times found" err &&
	echo "{\"level1\": {\"1_A.py\": {\"std\": 1}}}" >nomean.json &&
	test_expect_code 2 tm --ref-times nomean.json one.jsonl 2>err &&
	grep "has no positive mean" err &&
	{ cat earlier.jsonl && echo "{oops" ; } >badlines.jsonl &&
	test_expect_code 2 tm --ref-times badlines.jsonl one.jsonl 2>err &&
	grep "^dice-time: badlines.jsonl:2: " err
'

test_expect_success 'malformed input lines: dice-time:FILE:LINE, skipped, exit 1' '
	{ cat one.jsonl && echo "not json" && echo "[1]" && cat one.jsonl ; } >bad.jsonl &&
	test_expect_code 1 tm bad.jsonl >out 2>err &&
	grep "^dice-time:bad.jsonl:2: " err &&
	grep "^dice-time:bad.jsonl:3: " err &&
	test $(wc -l <out) = 2 &&
	test_expect_code 2 tm --strict bad.jsonl >out 2>err &&
	test $(wc -l <out) = 1
'

test_expect_success 'bad options: exit 2' '
	for opt in "--warmup -1" "--input-sets 0" "--baseline lazy" "--max-speedup 0" \
		"--max-spread x" "--trials 0" "--ref-times="; do
		test_expect_code 2 tm $opt one.jsonl 2>err || exit 1
		grep "^dice-time: invalid" err || exit 1
	done
'

test_done
