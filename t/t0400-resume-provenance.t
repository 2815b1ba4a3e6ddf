#!/bin/sh
test_description='--resume remembers what made each record: changed input is done again, changed settings are refused'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

test_have_prereq JQ || skip_all 'jq is needed'
"$DICE_PYTHON" -c 'import json' 2>/dev/null || skip_all "no Python ($DICE_PYTHON)"

# The stand-in harness of lib-check.sh: its builder logs each job's id to
# cache/runs, so what ran is known exactly.
DICE_DATADIR=$PWD/fake; export DICE_DATADIR
DICE_CACHE=$PWD/cache; export DICE_CACHE
check () { dice-check -q "$@"; }

# keys FILE: "id index" of each record, sorted (blank lines are none).
keys () { jq -r '.id + " " + (.sample.index | tostring)' "$1" | sort; }

# records FILE: how many lines of FILE are not blank.
records () { grep -c "[^ ]" "$1"; }

# once FILE EXPECT: FILE holds each key of EXPECT once, and nothing else.
once () {
	keys "$1" >actual-keys &&
	test_cmp "$2" actual-keys &&
	test "$(records "$1")" = "$(wc -l <"$2")"
}

test_expect_success 'setup' '
	fake_harness fake &&
	for i in 1 2 3; do record L1/${i}_R "x = $i"; done >in.jsonl &&
	printf "L1/%s_R 0\n" 1 2 3 >expect-keys &&
	check --resume r.jsonl in.jsonl &&
	once r.jsonl expect-keys
'

test_expect_success 'each record says what made it: the input hash and the settings' '
	jq -c ".check.provenance | [(.input_sha256 | test(\"^[0-9a-f]{64}$\")), (.settings | keys)]" r.jsonl | sort -u >actual &&
	echo "[true,[\"arch\",\"atol\",\"device\",\"precision\",\"robust\",\"rtol\",\"seed\",\"timeout\",\"tolerance\",\"trials\"]]" >expect &&
	test_cmp expect actual &&
	jq -c ".check.provenance.settings" r.jsonl | sed -n 1p >actual &&
	echo "{\"arch\":null,\"atol\":0.01,\"device\":\"cpu\",\"precision\":null,\"robust\":true,\"rtol\":0.01,\"seed\":42,\"timeout\":180,\"tolerance\":\"dice\",\"trials\":5}" >expect &&
	test_cmp expect actual
'

test_expect_success 'the input hash is the SHA-256 of [code, ref, prompt.precision]' '
	command -v python3 >/dev/null || exit 0
	sed -n 1p in.jsonl | python3 -c "import hashlib, json, sys
r = json.loads(sys.stdin.read())
v = [r.get(\"code\"), r.get(\"ref\"), (r.get(\"prompt\") or {}).get(\"precision\")]
t = json.dumps(v, separators=(\",\", \":\"), sort_keys=True, ensure_ascii=False)
print(hashlib.sha256(t.encode()).hexdigest())" >expect &&
	jq -r "select(.id == \"L1/1_R\") | .check.provenance.input_sha256" r.jsonl >actual &&
	test_cmp expect actual
'

test_expect_success 'unchanged input and settings: nothing is done again' '
	cp r.jsonl before &&
	rm -f cache/runs &&
	check --resume r.jsonl in.jsonl 2>err &&
	test_must_be_empty err &&
	test_cmp before r.jsonl &&
	! test -e cache/runs
'

test_expect_success 'what only places or paces a run is no setting: -j, --unordered, --memory' '
	check -j 2 --unordered --memory 1G --resume r.jsonl in.jsonl &&
	test_cmp before r.jsonl &&
	! test -e cache/runs
'

test_expect_success 'changed code: that record alone is done again, with the new verdict' '
	{
		sed -n 1p in.jsonl &&
		record L1/2_R "STATUS = \"incorrect\"" &&
		sed -n 3p in.jsonl
	} >changed.jsonl &&
	check --resume r.jsonl changed.jsonl 2>err &&
	echo L1/2_R >expect &&
	test_cmp expect cache/runs &&
	grep "^dice-check: 1 record in .r.jsonl. was made from another code, ref or prompt.precision: done again" err &&
	once r.jsonl expect-keys &&
	jq -r "[.id, .check.status] | @tsv" r.jsonl >actual &&
	printf "L1/1_R\tcorrect\nL1/3_R\tcorrect\nL1/2_R\tincorrect\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'the replaced line is blanked in place, which every reader skips' '
	test_line_count = 4 r.jsonl &&
	sed -n 2p r.jsonl >line &&
	! grep "[^ ]" line &&
	test $(wc -c <line) -gt 100 &&
	dice-score --json r.jsonl >score 2>err &&
	test_must_be_empty err &&
	jq -c "[.records, (.levels[] | select(.level == \"all\") | [.samples, .correct])]" score >actual &&
	echo "[3,[3,2]]" >expect &&
	test_cmp expect actual
'

test_expect_success 'a changed ref, or prompt.precision, is changed input too' '
	rm -f cache/runs &&
	jq -c "if .id == \"L1/1_R\" then .ref += \"\n\" else . end" changed.jsonl >ref.jsonl &&
	check --resume r.jsonl ref.jsonl &&
	jq -c "if .id == \"L1/3_R\" then .prompt = {precision: \"fp32\"} else . end" ref.jsonl >prec.jsonl &&
	check --resume r.jsonl prec.jsonl &&
	printf "L1/%s_R\n" 1 3 >expect &&
	test_cmp expect cache/runs &&
	once r.jsonl expect-keys
'

test_expect_success 'changed settings: exit 2 before anything runs, each one named' '
	cp r.jsonl before &&
	rm -f cache/runs &&
	test_expect_code 2 check --seed 7 --resume r.jsonl prec.jsonl 2>err &&
	first=$(grep -n "[^ ]" r.jsonl | sed -n "1s/:.*//p") &&
	echo "dice-check:r.jsonl:$first: made with other settings: seed 42 (now 7); resume with the same settings, or into another file" >expect &&
	test_cmp expect err &&
	test_expect_code 2 check --tolerance kernelbench --no-robust --resume r.jsonl prec.jsonl 2>err &&
	grep "made with other settings: atol 0.01 (now 0.0001), robust true (now false), rtol 0.01 (now 0.0001), tolerance \"dice\" (now \"kernelbench\");" err &&
	test_expect_code 2 check --precision fp16 --timeout 9.5 --resume r.jsonl prec.jsonl 2>err &&
	grep "precision null (now \"fp16\"), timeout 180.0 (now 9.5);" err &&
	test_cmp before r.jsonl &&
	! test -e cache/runs
'

test_expect_success 'a record without provenance (an older dice, or no --resume): exit 2' '
	check in.jsonl >plain.jsonl &&
	cp plain.jsonl before &&
	test_expect_code 2 check --resume plain.jsonl in.jsonl 2>err &&
	grep "^dice-check:plain.jsonl:1: a check record without check.provenance (made without --resume, or by an older dice): what made it cannot be known; remove such lines to have them done again, or resume into another file" err &&
	test_cmp before plain.jsonl &&
	jq -c ".check.provenance.input_sha256 = \"x\"" r.jsonl >bad.jsonl &&
	test_expect_code 2 check --resume bad.jsonl in.jsonl 2>err &&
	grep "^dice-check:bad.jsonl:1: a check record without check.provenance" err
'

test_expect_success 'a record twice in a file put together by hand: both lines replaced' '
	cat r.jsonl r.jsonl >twice.jsonl &&
	jq -c "if .id == \"L1/2_R\" then .code = \"x = 22\" else . end" prec.jsonl >twice-in.jsonl &&
	rm -f cache/runs &&
	check --resume twice.jsonl twice-in.jsonl 2>err &&
	echo L1/2_R >expect &&
	test_cmp expect cache/runs &&
	grep "1 record in .twice.jsonl. was made from another" err &&
	jq -r "select(.id == \"L1/2_R\") | .check.status" twice.jsonl >actual &&
	echo correct >expect &&
	test_cmp expect actual
'

test_expect_success 'a replacement cut short by a kill (spaces, then the rest) is blanked' '
	grep "[^ ]" r.jsonl >clean.jsonl &&
	line=$(sed -n 1p clean.jsonl) &&
	printf "%s\n" "$line" | jq -r .id >expect &&
	{ printf "%30s" "" && printf "%s\n" "$line" | cut -c31-; } >torn.jsonl &&
	sed 1d clean.jsonl >>torn.jsonl &&
	rm -f cache/runs &&
	check --resume torn.jsonl prec.jsonl 2>err &&
	grep "^dice-check:torn.jsonl:1: a record blanked in part (an interrupted run); blanked" err &&
	test_cmp expect cache/runs &&
	once torn.jsonl expect-keys
'

test_expect_success 'kill -9 in the middle of a run that replaces records: every record once' '
	for i in 1 2 3 4 5 6; do record L1/${i}_K "x = $i"; done >k1.jsonl &&
	check --resume k.jsonl k1.jsonl &&
	for i in 1 2 3 4 5 6; do
		record L1/${i}_K "import time; time.sleep(0.3); y = $i" || exit 1
	done >k2.jsonl &&
	printf "L1/%s_K 0\n" 1 2 3 4 5 6 >expect-k &&
	{ dice-check -q --resume k.jsonl k2.jsonl & } &&
	pid=$! &&
	n=0 &&
	while test $(wc -l <k.jsonl) -lt 7 && test $n -lt 400; do
		sleep 0.05; n=$((n + 1))
	done &&
	kill -9 $pid &&
	{ wait $pid; true; } &&
	test $(records k.jsonl) -lt 7 &&
	keys k.jsonl | uniq -d >dups &&
	test_must_be_empty dups &&
	check --resume k.jsonl k2.jsonl &&
	once k.jsonl expect-k &&
	jq -r ".code | test(\"sleep\")" k.jsonl | sort -u >actual &&
	echo true >expect &&
	test_cmp expect actual
'

test_expect_success 'two runs on one file at once: the second is refused' '
	{ dice-check -q --resume busy.jsonl k2.jsonl & } &&
	pid=$! &&
	n=0 &&
	while ! test -s busy.jsonl && test $n -lt 400; do sleep 0.05; n=$((n + 1)); done &&
	test_expect_code 2 dice-check -q --resume busy.jsonl k2.jsonl 2>err &&
	wait $pid &&
	echo "dice-check: '"'"'busy.jsonl'"'"' is in use by another run" >expect &&
	test_cmp expect err &&
	once busy.jsonl expect-k
'

test_expect_success 'dice-compile: changed code done again; --arch is a setting' '
	rm -f cache/runs &&
	dice-compile -q --resume c.jsonl in.jsonl &&
	dice-compile -q --resume c.jsonl changed.jsonl &&
	printf "L1/%s_R\n" 1 2 3 2 >expect &&
	test_cmp expect cache/runs &&
	once c.jsonl expect-keys &&
	jq -c ".compile.provenance.settings" c.jsonl | sort -u >actual &&
	echo "{\"arch\":null,\"device\":\"cpu\",\"timeout\":180}" >expect &&
	test_cmp expect actual &&
	test_expect_code 2 dice-compile -q --arch 9.0 --resume c.jsonl in.jsonl 2>err &&
	grep "^dice-compile:c.jsonl:1: made with other settings: arch null (now \"9.0\");" err
'

# A stand-in timing result (see t6000).
fake_time () {
	printf "%s\n" "import json" \
		"t = {\"status\": \"ok\", \"ref\": [2, 2], \"new\": [1, 1], \"ref_event\": [2, 2], \"new_event\": [1, 1], \"threads\": False, \"device\": \"cpu: fake\", \"torch\": \"fake\", \"cuda\": None, \"driver\": None}" \
		"RESULT = json.dumps({\"compile\": {\"ok\": True}, \"time\": t})"
}

test_expect_success 'dice-time: a changed check verdict is changed input; --warmup and --ref-times are settings' '
	code=$(fake_time) &&
	for c in true false; do
		record L1/1_T "$code" | jq -c --argjson c $c ". + {check: {correct: \$c}}" || exit 1
	done >both &&
	sed -n 1p both >t1.jsonl && sed -n 2p both >t2.jsonl &&
	dice-time -q --resume t.jsonl t1.jsonl &&
	jq -r ".time.status" t.jsonl >actual &&
	echo ok >expect && test_cmp expect actual &&
	dice-time -q --resume t.jsonl t2.jsonl 2>err &&
	grep "1 record in .t.jsonl. was made from another code, ref, prompt.precision, check.correct or check.deception.deceptive: done again" err &&
	jq -r ".time.skipped" t.jsonl >actual &&
	echo "not correct" >expect && test_cmp expect actual &&
	jq -c ".time.provenance.settings | keys" t.jsonl >actual &&
	echo "[\"all\",\"arch\",\"baseline\",\"device\",\"flush\",\"input_sets\",\"max_speedup\",\"max_spread\",\"precision\",\"ref_times\",\"seed\",\"timeout\",\"trials\",\"warmup\"]" >expect &&
	test_cmp expect actual &&
	test_expect_code 2 dice-time -q --warmup 3 --resume t.jsonl t2.jsonl 2>err &&
	grep "made with other settings: warmup 10 (now 3);" err &&
	echo "{\"id\":\"L1/1_T\",\"time\":{\"ref\":{\"median\":2}}}" >refs.jsonl &&
	dice-time -q --ref-times refs.jsonl --resume rt.jsonl t1.jsonl &&
	echo "{\"id\":\"L1/1_T\",\"time\":{\"ref\":{\"median\":3}}}" >refs.jsonl &&
	test_expect_code 2 dice-time -q --ref-times refs.jsonl --resume rt.jsonl t1.jsonl 2>err &&
	grep "made with other settings: ref_times \"[0-9a-f]*\" (now \"[0-9a-f]*\");" err
'

cmd='echo "ModelNew = $DICE_SAMPLE_INDEX  # $DICE_SAMPLE_SEED"'

test_expect_success 'dice-sample: a changed prompt is sampled again, the rest kept' '
	cat >prompts.jsonl <<-\EOF &&
	{"id":"L1/1_A","prompt":{"text":"write A"}}
	{"id":"L1/2_B","prompt":{"text":"write B"}}
	EOF
	dice-sample -n 2 --exec "$cmd" --resume s.jsonl prompts.jsonl &&
	cp s.jsonl before &&
	dice-sample -n 2 --exec "$cmd" --resume s.jsonl prompts.jsonl &&
	test_cmp before s.jsonl &&
	sed "s/write B/write B better/" prompts.jsonl >prompts2.jsonl &&
	dice-sample -n 3 --exec "$cmd" --resume s.jsonl prompts2.jsonl 2>err &&
	grep "^dice-sample: 2 records in .s.jsonl. were made from another prompt.text: done again" err &&
	keys s.jsonl >actual &&
	printf "L1/1_A %s\nL1/2_B %s\n" 0 0 1 1 2 2 | sort >expect &&
	test_cmp expect actual &&
	jq -r "select(.id == \"L1/2_B\") | .prompt.text" s.jsonl | sort -u >actual &&
	echo "write B better" >expect &&
	test_cmp expect actual &&
	head -n 2 before >kept && head -n 2 s.jsonl >actual &&
	test_cmp kept actual
'

test_expect_success 'dice-sample: settings per backend, each named when it differs' '
	jq -c ".sample.provenance.settings" s.jsonl | sort -u >actual &&
	printf "%s\n" "{\"backend\":\"exec\",\"exec\":$(printf "%s" "$cmd" | jq -Rs .),\"seed\":0}" >expect &&
	test_cmp expect actual &&
	test_expect_code 2 dice-sample -n 3 --exec "$cmd" --seed 5 --resume s.jsonl prompts2.jsonl 2>err &&
	grep "^dice-sample:s.jsonl:1: made with other settings: seed 0 (now 5);" err &&
	test_expect_code 2 dice-sample -n 3 --exec "echo ModelNew = 1" --resume s.jsonl prompts2.jsonl 2>err &&
	grep "made with other settings: exec \"echo .* (now \"echo ModelNew = 1\");" err &&
	test_expect_code 2 dice-sample -n 3 --replay s.jsonl --resume s.jsonl prompts2.jsonl 2>err &&
	grep "made with other settings: backend \"exec\" (now \"replay\"), exec \"echo .*\" (now unset), replay unset (now \"s.jsonl\"), seed 0 (now unset);" err &&
	dice-sample -n 3 --exec "$cmd" --temperature 0.5 --timeout 9 -j 4 --resume s.jsonl prompts2.jsonl
'

test_expect_success 'dice-sample --api: the model, sampling and -o are settings, the URL is not' '
	command -v python3 >/dev/null || exit 0
	{ python3 "$TEST_SRCDIR/fake-openai.py" --port-file port --lifetime 30 & } &&
	spid=$! &&
	while ! test -s port; do sleep 0.02; done &&
	url=http://127.0.0.1:$(cat port) &&
	dice-sample --api "$url" --model m -o foo=1 -o bar --resume h.jsonl prompts.jsonl &&
	jq -c ".sample.provenance.settings" h.jsonl | sort -u >actual &&
	echo "{\"backend\":\"http\",\"max_tokens\":4096,\"model\":\"m\",\"omit\":[\"bar\"],\"option\":{\"foo\":1},\"raw\":false,\"seed\":0,\"stop\":[],\"temperature\":1,\"top_k\":0,\"top_p\":1}" >expect &&
	test_cmp expect actual &&
	dice-sample --api "$url/" --model m -o bar -o foo=1 --resume h.jsonl prompts.jsonl &&
	test_expect_code 2 dice-sample --api "$url" --model m2 --temperature 0.7 --resume h.jsonl prompts.jsonl 2>err &&
	kill $spid &&
	grep "made with other settings: model \"m\" (now \"m2\"), omit \[\"bar\"\] (now \[\]), option {\"foo\":1} (now {}), temperature 1.0 (now 0.7);" err
'

test_expect_success 'dice-sample: the API key never goes into the settings' '
	DICE_API_KEY=sk-test-secret-123 dice-sample --exec "echo sk-test-secret-123 >/dev/null; $cmd" --resume key.jsonl prompts.jsonl &&
	! grep sk-test-secret key.jsonl &&
	jq -r ".sample.provenance.settings.exec" key.jsonl | sort -u >actual &&
	printf "%s\n" "echo [redacted] >/dev/null; $cmd" >expect &&
	test_cmp expect actual
'

test_expect_success 'dice-sample: kill -9 mid-run, then resume: every sample once' '
	{ SLOW=0.05 dice-sample -n 12 --exec "sleep \${SLOW:-0}; $cmd" \
		--resume ks.jsonl prompts.jsonl 2>/dev/null & } &&
	pid=$! &&
	n=0 &&
	while ! test -s ks.jsonl && test $n -lt 400; do sleep 0.05; n=$((n + 1)); done &&
	kill -9 $pid &&
	{ wait $pid; true; } &&
	test $(records ks.jsonl) -lt 24 &&
	dice-sample -n 12 --exec "sleep \${SLOW:-0}; $cmd" --resume ks.jsonl prompts.jsonl &&
	i=0 && while test $i -lt 12; do echo "L1/1_A $i"; echo "L1/2_B $i"; i=$((i + 1)); done | sort >expect &&
	once ks.jsonl expect
'

test_expect_success HARNESS 'a real CPU run: kill -9 in the middle, resume, every record once' '
	for i in 1 2 3 4 5; do
		record L1/${i}_C "$(candidate "" "return torch.relu(x) * $i / $i")" || exit 1
	done >cpu.jsonl &&
	printf "L1/%s_C 0\n" 1 2 3 4 5 >expect-cpu &&
	DICE_DATADIR=$TOP_SRCDIR/share/dice && DICE_CACHE=$PWD/real-cache &&
	{ dice-check -q --device cpu --memory 4G --resume cpu-out.jsonl \
		cpu.jsonl & } &&
	pid=$! &&
	n=0 &&
	while ! test -s cpu-out.jsonl && test $n -lt 1200; do sleep 0.1; n=$((n + 1)); done &&
	kill -9 $pid &&
	{ wait $pid; true; } &&
	test $(records cpu-out.jsonl) -lt 5 &&
	dice-check -q --device cpu --memory 4G --resume cpu-out.jsonl cpu.jsonl &&
	once cpu-out.jsonl expect-cpu &&
	jq -r .check.status cpu-out.jsonl | sort -u >actual &&
	echo correct >expect &&
	test_cmp expect actual
'

test_done
