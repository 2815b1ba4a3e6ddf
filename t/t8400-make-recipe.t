#!/bin/sh
test_description='contrib/make/pipeline.mk: the pipeline as make rules over shards, on the CPU'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

test_have_prereq TORCH || skip_all 'no torch'
command -v make >/dev/null 2>&1 || skip_all 'no make'

pipeline="$TOP_SRCDIR/contrib/make/pipeline.mk"
sampler="'$DICE_PYTHON' '$TOP_SRCDIR/contrib/demo/demo-sampler.py' '$DICE_DATADIR' cpu"
DICE_CACHE=$TRASH_DIRECTORY/cache
export DICE_CACHE

# run_make [MAKE ARGUMENT]...: the recipe on two problems, two samples each.
run_make () {
	make -f "$pipeline" OUT=run PROBLEMS="L1:1 L1:2" SAMPLES=2 DEVICE=cpu \
		TIME_FLAGS="--trials 5" SAMPLER="--exec \"$sampler\"" "$@"
}

# records FILE: id, sample index and whether checked and timed, sorted.
records () {
	"$DICE_PYTHON" -c "
import json, sys
seen = [(r['id'], r['sample']['index'], 'check' in r, 'time' in r)
        for r in map(json.loads, open(sys.argv[1]))]
for s in sorted(seen): print(*s)
" "$1"
}

cat >expect <<\EOT
L1/1_ReLU 0 True True
L1/1_ReLU 1 True True
L1/2_Sum_Over_Last_Dim 0 True True
L1/2_Sum_Over_Last_Dim 1 True True
EOT

test_expect_success 'make -j2 with two shards runs every stage to the score' '
	run_make -j2 SHARDS=2 >out 2>err &&
	for s in samples checked timed; do
		test -s run/$s.1-of-2.jsonl && test -s run/$s.2-of-2.jsonl || return 1
	done &&
	grep -e "--shard 1/2" out && grep -e "--shard 2/2" out &&
	records run/records.jsonl >actual &&
	test_cmp expect actual &&
	grep "^samples  *4 " run/score.txt &&
	! ls run/*.part run/*.tmp
'

test_expect_success 'made again, it does nothing' '
	ls -l --full-time run >before &&
	run_make -q SHARDS=2 &&
	run_make -j2 SHARDS=2 >out &&
	grep "Nothing to be done" out &&
	ls -l --full-time run >after &&
	test_cmp before after
'

test_expect_success 'a stage cut short resumes from its .part file' '
	head -n 1 run/timed.1-of-2.jsonl >kept &&
	rm run/timed.1-of-2.jsonl run/records.jsonl run/score.txt &&
	cp kept run/timed.1-of-2.jsonl.part &&
	run_make -j2 SHARDS=2 >out 2>err &&
	grep -e "--resume run/timed.1-of-2.jsonl.part" out &&
	! grep "^dice-check\|^dice-sample\|^dice-time.*checked.2-of-2" out &&
	head -n 1 run/timed.1-of-2.jsonl >first &&
	test_cmp kept first &&
	records run/records.jsonl >actual &&
	test_cmp expect actual
'

test_expect_success 'more shards than problems: the empty shards are files too' '
	run_make -j2 OUT=three SHARDS=3 SAMPLES=1 >out 2>err &&
	cat three/samples.*-of-3.jsonl >all && test_line_count = 2 all &&
	for i in 1 2 3; do test -e three/timed.$i-of-3.jsonl || return 1; done &&
	test_line_count = 2 three/records.jsonl
'

test_expect_success 'no SAMPLER, or no shards: make stops with a message' '
	test_must_fail make -f "$pipeline" OUT=none PROBLEMS=L1:1 2>err &&
	grep "SAMPLER is not set" err &&
	! test -e none/samples.1-of-1.jsonl &&
	test_must_fail make -f "$pipeline" OUT=none SAMPLER=x SHARDS=0 2>err &&
	grep "invalid SHARDS .0." err
'

test_done
