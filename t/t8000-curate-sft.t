#!/bin/sh
test_description='dice-curate: the fine-tuning set keeps only robust, confirmed, distinct speedups'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

# The fixture (t/curate/make-fixture.py says what each record is): twelve
# judged records of four problems.  By hand, with the default 2.0x:
#   kept-a   runs 2.5 2.2 3.0: confirmed 2.2 (the worst), kept
#   dup-a    kept-a's code with comments and spacing changed: duplicate
#   kept-a2  one token different from kept-a, runs 4.0 3.5 3.9: kept, 3.5
#   deceptive-check, deceptive-time: dropped however fast
#   failed-run (a run failed: null confirmed), single-run (no runs):
#            not confirmed
#   unconfirmed  runs 2.5 1.1 2.4: confirmed 1.1, below 2.0
#   incorrect, no-robust (--no-robust), untimed: dropped
#   kept-c   no sample.text, runs 4.0 4.5 5.0: kept, 4.0, code fenced
"$DICE_PYTHON" "$TEST_SRCDIR/curate/make-fixture.py" >fixture.jsonl ||
	skip_all 'cannot make the fixture'

ids () {
	"$DICE_PYTHON" -c '
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    print(d["id"], d["sample"], d["confirmed_speedup"])' "$1"
}

test_expect_success 'the default keeps the robust, confirmed, distinct pairs' '
	dice-curate --stats fixture.jsonl >sft.jsonl 2>stats &&
	ids sft.jsonl >actual &&
	cat >expect <<-\EOT &&
	L1/1_A 0 2.2
	L1/1_A 2 3.5
	L2/3_C 2 4.0
	EOT
	test_cmp expect actual
'

test_expect_success '--stats says why each record was dropped' '
	cat >expect <<-\EOT &&
	dice-curate: 3 of 12 records kept (confirmed speedup at least 2)
	dice-curate: dropped 1: not correct
	dice-curate: dropped 1: not checked for deception (--no-robust)
	dice-curate: dropped 1: deceptive in dice-check
	dice-curate: dropped 1: deceptive in dice-time
	dice-curate: dropped 1: not timed
	dice-curate: dropped 2: speedup not confirmed
	dice-curate: dropped 1: confirmed speedup below the threshold
	dice-curate: dropped 1: duplicate
	EOT
	test_cmp expect stats
'

# kept-a'"'"'s time.speedup (the median, 2.5) passes 2.3, its worst run (2.2)
# does not; dup-a (worst 2.4) is then the first of that code kept.
test_expect_success 'the confirmed figure is the worst run, not time.speedup' '
	dice-curate --min-speedup 2.3 fixture.jsonl >sft23.jsonl &&
	ids sft23.jsonl >actual &&
	cat >expect <<-\EOT &&
	L1/1_A 1 2.4
	L1/1_A 2 3.5
	L2/3_C 2 4.0
	EOT
	test_cmp expect actual &&
	dice-curate --min-speedup 1 fixture.jsonl >sft1.jsonl &&
	ids sft1.jsonl >actual &&
	grep "^L2/3_C 0 1.1$" actual
'

test_expect_success 'deceptive, unconfirmed and duplicate records never reach the set' '
	for min in 0 1 2 5; do
		dice-curate --min-speedup $min --unconfirmed fixture.jsonl ||
			return 1
	done >all.jsonl &&
	! grep -e "gelu" -e "dup-a" all.jsonl &&
	dice-curate --min-speedup 0 fixture.jsonl >zero.jsonl &&
	! grep -F "\"L1/2_B\"" zero.jsonl &&
	test_line_count = 4 zero.jsonl
'

test_expect_success '--unconfirmed takes time.speedup only where there are no runs' '
	dice-curate --unconfirmed fixture.jsonl >unc.jsonl &&
	ids unc.jsonl >actual &&
	cat >expect <<-\EOT &&
	L1/1_A 0 2.2
	L1/1_A 2 3.5
	L2/3_C 1 2.4
	L2/3_C 2 4.0
	EOT
	test_cmp expect actual
'

cat >schema.json <<\EOS
{"type": "object",
 "required": ["messages", "id", "sample", "level", "model", "device", "runs",
              "confirmed_speedup", "confirmed"],
 "properties": {
   "messages": {"type": "array", "minItems": 3, "maxItems": 3,
     "prefixItems": [
       {"type": "object", "properties": {"role": {"const": "system"}}},
       {"type": "object", "properties": {"role": {"const": "user"}}},
       {"type": "object", "properties": {"role": {"const": "assistant"}}}],
     "items": {"type": "object", "required": ["role", "content"],
               "additionalProperties": false,
               "properties": {"role": {"type": "string"},
                              "content": {"type": "string", "minLength": 1}}}},
   "id": {"type": "string"},
   "sample": {"type": ["integer", "null"]},
   "level": {"type": ["integer", "null"]},
   "model": {"type": ["string", "null"]},
   "device": {"type": ["string", "null"]},
   "runs": {"type": "array", "items": {"type": ["number", "null"]}},
   "confirmed_speedup": {"type": "number", "minimum": 2.0},
   "confirmed": {"type": "boolean"}},
 "additionalProperties": false}
EOS

if "$DICE_PYTHON" -c 'import jsonschema' 2>/dev/null; then
	test_set_prereq JSONSCHEMA
fi

test_expect_success JSONSCHEMA 'every line of the set matches the schema' '
	"$DICE_PYTHON" -c "
import json, sys, jsonschema
schema = json.load(open(\"schema.json\"))
jsonschema.Draft202012Validator.check_schema(schema)
for line in open(\"sft.jsonl\"):
    jsonschema.validate(json.loads(line), schema,
                        cls=jsonschema.Draft202012Validator)
"
'

test_expect_success 'the pair holds the prompt and the completion that made the kernel' '
	"$DICE_PYTHON" -c "
import json
fx = [json.loads(l) for l in open(\"fixture.jsonl\")]
sft = [json.loads(l) for l in open(\"sft.jsonl\")]
src = {(r[\"id\"], r[\"sample\"][\"index\"]): r for r in fx}
for p in sft:
    r = src[(p[\"id\"], p[\"sample\"])]
    user, assistant = p[\"messages\"][1][\"content\"], p[\"messages\"][2][\"content\"]
    assert user == r[\"prompt\"][\"text\"], user
    fence = chr(96) * 3
    want = r[\"sample\"][\"text\"] or fence + \"python\n\" + r[\"code\"] + fence
    assert assistant == want, (assistant, want)
    assert p[\"runs\"] == [x[\"speedup\"] for x in r[\"time\"][\"runs\"]]
    assert p[\"confirmed_speedup\"] == min(p[\"runs\"])
"
'

test_expect_success '--system changes the system message; empty leaves it out' '
	dice-curate --system "Be fast." fixture.jsonl >sys.jsonl &&
	grep -c "{\"role\":\"system\",\"content\":\"Be fast.\"}" sys.jsonl >n &&
	echo 3 >expect && test_cmp expect n &&
	dice-curate --system "" fixture.jsonl >nosys.jsonl &&
	! grep -F "\"system\"" nosys.jsonl &&
	test_line_count = 3 nosys.jsonl
'

if "$DICE_PYTHON" -c 'import datasets' 2>/dev/null; then
	test_set_prereq DATASETS
fi

test_expect_success DATASETS 'the set loads with the datasets library' '
	"$DICE_PYTHON" -c "
import datasets
d = datasets.load_dataset(\"json\", data_files=\"sft.jsonl\", split=\"train\")
assert len(d) == 3 and d[0][\"messages\"][1][\"role\"] == \"user\"
"
'

test_expect_success '--output replaces the file whole; - is standard output' '
	echo old >set.jsonl &&
	dice-curate -o set.jsonl fixture.jsonl &&
	test_cmp sft.jsonl set.jsonl &&
	dice-curate --output - fixture.jsonl >out.jsonl &&
	test_cmp sft.jsonl out.jsonl &&
	ls >files && ! grep tmp files
'

test_expect_success 'a failed run leaves the old file and no temporary' '
	echo old >keep.jsonl &&
	echo "{bad" >bad.jsonl &&
	test_expect_code 2 dice-curate --strict -o keep.jsonl fixture.jsonl bad.jsonl 2>err &&
	grep "^dice-curate:bad.jsonl:1: " err &&
	echo old >expect && test_cmp expect keep.jsonl &&
	ls >files && ! grep tmp files
'

test_expect_success 'a bad line is reported, skipped, and the status is 1' '
	test_expect_code 1 dice-curate fixture.jsonl bad.jsonl >skip.jsonl 2>err &&
	test_cmp sft.jsonl skip.jsonl
'

test_expect_success 'bad option values are usage errors' '
	test_expect_code 2 dice-curate --min-speedup -1 </dev/null 2>err &&
	grep "invalid --min-speedup" err &&
	test_expect_code 2 dice-curate --min-speedup x </dev/null &&
	test_expect_code 2 dice-curate -o nodir/x.jsonl </dev/null
'

test_expect_success DEVFULL 'a write error is an error' '
	test_expect_code 2 dice-curate fixture.jsonl >/dev/full
'

test_done
