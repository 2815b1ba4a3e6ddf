#!/bin/sh
test_description='dice-time --runs and the re-time above --max-speedup: fresh processes, the worst speedup confirmed (stand-in harness, no torch)'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

fake_harness_env

# by_run FIRST LATER: candidate code for the stand-in harness whose first
# run reports the time dict FIRST and every later one LATER (Python
# expressions).  Each run is a process of its own, so the candidate tells
# them apart by the stand-in builder's log of runs in the cache (the test
# empties it first): the first run waits for a second line that never
# comes, a later one sees it as soon as its builder has written it.
by_run () {
	printf '%s\n' "import json, os, time" \
		"p = os.path.join(job['cache'], 'runs')" \
		"def count():" \
		"    try:" \
		"        return len(open(p).read().split())" \
		"    except OSError:" \
		"        return 0" \
		"end = time.time() + 4" \
		"while count() < 2 and time.time() < end:" \
		"    time.sleep(0.05)" \
		"later = count() >= 2" \
		"def side(ref, new):" \
		"    return $(fake_timing ref new)" \
		"t = $2 if later else $1" \
		"RESULT = json.dumps({'compile': {'ok': True}, 'time': t})"
}

checked () {
	record "$1" "$2" | jq -c '. + {problem: {level: 1}, prompt: {text: "Write a faster kernel."}, check: {status: "correct", correct: true, deception: {deceptive: false}}}'
}

tm () { rm -f cache/runs && dice-time -q "$@"; }

test_expect_success 'setup' '
	fake_harness fake &&
	checked L1/1_A "$(by_run "side([4,4,4],[2,2,2])" "side([3,3,3],[2,2,2])")" >steady.jsonl &&
	checked L1/2_B "$(by_run "side([4,4,4],[2,2,2])" "{\"status\": \"runtime_error\", \"error\": \"boom\"}")" >later-fails.jsonl &&
	checked L1/3_C "$(by_run "side([400,400],[2,2])" "side([2,2],[2,2])")" >cached.jsonl &&
	checked L1/4_D "$(by_run "side([400,400],[2,2])" "side([380,380],[2,2])")" >fast.jsonl
'

test_expect_success '--runs 3: three fresh processes, every speedup kept, the worst confirmed' '
	tm --runs 3 steady.jsonl >out &&
	test_line_count = 3 cache/runs &&
	jq -c "[.time.runs[].speedup]" out >actual &&
	echo "[2,1.5,1.5]" >expect &&
	test_cmp expect actual &&
	jq "[.time.runs[].speedup] | min" out >expect &&
	jq .time.confirmed_speedup out >actual &&
	test_cmp expect actual &&
	jq -c "[.time.speedup, .time.ref_ms, .time.confirmed, .time.confirm_error, has(\"verified\")]" out >actual &&
	echo "[2,4,true,null,false]" >expect &&
	test_cmp expect actual &&
	jq -c ".time.runs[1] | keys_unsorted" out >actual &&
	echo "[\"status\",\"speedup\",\"ref_ms\",\"new_ms\",\"error\"]" >expect &&
	test_cmp expect actual
'

test_expect_success 'a later run that fails: not confirmed, no figure, the reason kept; the repeats stop' '
	tm --runs 3 later-fails.jsonl >out &&
	test_line_count = 2 cache/runs &&
	jq -c "[.time.status, .time.speedup, [.time.runs[].status], .time.confirmed, .time.confirmed_speedup, .time.confirm_error]" out >actual &&
	echo "[\"ok\",2,[\"ok\",\"runtime_error\"],false,null,\"run 2 of 3: runtime_error: boom\"]" >expect &&
	test_cmp expect actual
'

test_expect_success 'one run (the default): no repeat and none of the fields of repeats' '
	tm steady.jsonl >out &&
	test_line_count = 1 cache/runs &&
	jq -c ".time | [has(\"runs\"), has(\"confirmed\"), has(\"confirmed_speedup\"), has(\"verified\")]" out >actual &&
	echo "[false,false,false,false]" >expect &&
	test_cmp expect actual
'

test_expect_success '--runs: 0, 11 and x are refused with the one wording' '
	for v in 0 11 x; do
		test_expect_code 2 dice-time --runs $v steady.jsonl 2>err &&
		echo "dice-time: invalid --runs '\''$v'\'' (an integer from 1 to 10)" >expect &&
		head -n 1 err >actual &&
		test_cmp expect actual || return 1
	done
'

test_expect_success 'above --max-speedup a speedup that does not repeat is unverified, and counts at its worst' '
	tm cached.jsonl >out &&
	test_line_count = 2 cache/runs &&
	jq -c "[.time.speedup, [.time.runs[].speedup], .time.verified, .time.confirmed, .time.confirmed_speedup, .time.flags]" out >actual &&
	echo "[200,[200,1],false,false,1,[\"excessive_speedup\",\"unverified_speedup\"]]" >expect &&
	test_cmp expect actual &&
	jq -r .time.confirm_error out >actual &&
	echo "the runs disagree: speedups from 1 to 200" >expect &&
	test_cmp expect actual
'

test_expect_success 'a real large speedup that repeats is verified; a low --max-speedup re-times an ordinary one' '
	tm fast.jsonl >out &&
	jq -c "[[.time.runs[].speedup], .time.verified, .time.confirmed_speedup]" out >actual &&
	echo "[[200,190],true,190]" >expect &&
	test_cmp expect actual &&
	tm --max-speedup 1.2 steady.jsonl >out &&
	test_line_count = 2 cache/runs &&
	jq -c "[[.time.runs[].speedup], .time.verified, .time.confirmed, .time.flags]" out >actual &&
	echo "[[2,1.5],true,true,[\"excessive_speedup\"]]" >expect &&
	test_cmp expect actual
'

test_expect_success 'dice-score: an unverified speedup is caught in timing and counts at its worst; a verified one counts' '
	tm cached.jsonl >c.jsonl &&
	dice-score --json c.jsonl >score &&
	jq -e ".levels[-1] | .deceptive == 1 and .robust.correct == 0 and .plain.geomean_speedup == 1 and .plain[\"fast_2@1\"] == 0" score &&
	tm fast.jsonl >f.jsonl &&
	dice-score --json f.jsonl >score &&
	jq -e ".levels[-1] | .deceptive == 0 and .robust.correct == 1 and .robust.geomean_speedup == 190" score
'

test_expect_success 'dice-curate keeps a --runs record without --unconfirmed, drops a failed or unverified one' '
	tm --runs 2 steady.jsonl >kept.jsonl &&
	dice-curate --min-speedup 1.2 kept.jsonl >set.jsonl &&
	test_line_count = 1 set.jsonl &&
	jq -c "[.runs, .confirmed_speedup, .confirmed]" set.jsonl >actual &&
	echo "[[2,1.5],1.5,true]" >expect &&
	test_cmp expect actual &&
	tm --runs 2 later-fails.jsonl >dropped.jsonl &&
	tm fast.jsonl >>kept.jsonl &&
	cat c.jsonl >>dropped.jsonl &&
	dice-curate --min-speedup 1.2 dropped.jsonl >set.jsonl &&
	test_line_count = 0 set.jsonl &&
	dice-curate --min-speedup 1.2 kept.jsonl >set.jsonl &&
	test_line_count = 2 set.jsonl
'

test_done
