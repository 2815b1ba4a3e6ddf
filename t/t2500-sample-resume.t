#!/bin/sh
test_description='dice-sample --resume: skip what is done, append the rest, survive kill -9'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

test_have_prereq JQ || skip_all 'jq is needed'

cmd='echo "ModelNew = $DICE_SAMPLE_INDEX"'

# expect_keys FILE N: FILE holds exactly samples 0..N-1 of L1/1_A and
# L1/2_B, each once, in any order, every line a whole record.
expect_keys () {
	jq -r ".id + \" \" + (.sample.index | tostring)" "$1" | sort >actual &&
	for id in L1/1_A L1/2_B; do
		i=0
		while test $i -lt "$2"; do echo "$id $i"; i=$((i + 1)); done
	done | sort >expect &&
	test_cmp expect actual &&
	test_line_count = $((2 * $2)) "$1"
}

test_expect_success 'setup' '
	cat >prompts.jsonl <<-\EOF
	{"id":"L1/1_A","prompt":{"text":"write A"}}
	{"id":"L1/2_B","prompt":{"text":"write B"}}
	EOF
'

test_expect_success 'a new file: every record goes to it, none to stdout' '
	dice-sample --resume out.jsonl -n 2 --exec "$cmd" <prompts.jsonl >stdout &&
	test_must_be_empty stdout &&
	expect_keys out.jsonl 2
'

test_expect_success 'run again: nothing to do, the file unchanged' '
	cp out.jsonl before &&
	dice-sample --resume out.jsonl -n 2 --exec "$cmd" <prompts.jsonl &&
	test_cmp before out.jsonl
'

test_expect_success 'a larger -n adds only the missing samples' '
	dice-sample --resume out.jsonl -n 3 --exec "$cmd" <prompts.jsonl &&
	expect_keys out.jsonl 3 &&
	head -n 4 out.jsonl >head && test_cmp before head
'

test_expect_success 'a torn last line is cut off and its sample made again' '
	head -c 30 out.jsonl >>out.jsonl &&
	test_expect_code 0 dice-sample --resume out.jsonl -n 4 --exec "$cmd" <prompts.jsonl 2>err &&
	grep "^dice-sample:out.jsonl:7: incomplete last line" err &&
	expect_keys out.jsonl 4 &&
	jq -c . out.jsonl >/dev/null
'

test_expect_success 'a whole last record without its newline is kept' '
	head -n 7 out.jsonl >cut && tail -n 1 out.jsonl | tr -d "\n" >>cut &&
	mv cut out.jsonl &&
	dice-sample --resume out.jsonl -n 4 --exec "$cmd" <prompts.jsonl 2>err &&
	test_must_be_empty err &&
	expect_keys out.jsonl 4
'

test_expect_success 'a line that is not a sample record is reported and kept' '
	echo "{\"note\":1}" >>out.jsonl &&
	dice-sample --resume out.jsonl -n 4 --exec "$cmd" <prompts.jsonl 2>err &&
	grep "^dice-sample:out.jsonl:9: not a sample record; ignored" err &&
	test_line_count = 9 out.jsonl
'

test_expect_success 'kill -9 mid-run, then resume: no duplicate, no loss' '
	{ SLOW=0.04 dice-sample --resume killed.jsonl -n 15 \
		--exec "sleep \${SLOW:-0}; $cmd" <prompts.jsonl 2>/dev/null & } &&
	pid=$! &&
	sleep 0.5 &&
	kill -9 $pid &&
	{ wait $pid; true; } &&
	n=$(wc -l <killed.jsonl) &&
	test "$n" -gt 0 && test "$n" -lt 30 &&
	dice-sample --resume killed.jsonl -n 15 --exec "sleep \${SLOW:-0}; $cmd" \
		<prompts.jsonl &&
	expect_keys killed.jsonl 15
'

test_expect_success 'kill -9 of an HTTP run with many requests in flight' '
	command -v python3 >/dev/null || exit 0
	{ python3 "$TEST_SRCDIR/fake-openai.py" --port-file port --mode slow \
		--delay 0.1 --lifetime 30 & } &&
	spid=$! &&
	while ! test -s port; do sleep 0.02; done &&
	url=http://127.0.0.1:$(cat port) &&
	{ dice-sample --resume http.jsonl -n 40 -j 8 --api "$url" --model m \
		<prompts.jsonl 2>/dev/null & } &&
	pid=$! &&
	sleep 0.4 &&
	kill -9 $pid &&
	{ wait $pid; true; } &&
	dice-sample --resume http.jsonl -n 40 -j 16 --api "$url" --model m \
		<prompts.jsonl &&
	kill $spid &&
	! grep -F "\"error\":\"" http.jsonl &&
	expect_keys http.jsonl 40
'

test_expect_success 'a record without id cannot be resumed: reported, skipped' '
	echo "{\"prompt\":{\"text\":\"x\"}}" >noid.jsonl &&
	test_expect_code 1 dice-sample --resume r.jsonl --exec "$cmd" <noid.jsonl 2>err &&
	grep "^dice-sample:-:1: no id, which --resume needs; skipped" err
'

test_expect_success 'an unwritable resume file is an error (exit 2)' '
	mkdir dir &&
	test_expect_code 2 dice-sample --resume dir --exec "$cmd" <prompts.jsonl 2>err &&
	grep "dir" err
'

test_done
