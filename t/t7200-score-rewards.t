#!/bin/sh
test_description='dice-score --rewards: BiC-RL and composite rewards'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

test_have_prereq JQ || skip_all 'jq is needed'

# Seven samples of three problems, the groups interleaved:
#   L1/1_A  correct (1); incorrect (0); correct but deceptive (0); never
#           checked (0): mean 1/4, population variance (9/16 + 3/16)/4 =
#           3/16, sd sqrt(3)/4: z = (3/4)/(sqrt(3)/4) = sqrt(3) =
#           1.7320508076 and (-1/4)/(sqrt(3)/4) = -1/sqrt(3) = -0.5773502692
#   L1/2_B  incorrect, incorrect: no variance, 0 for both
#   L2/1_C  one correct sample: a group of one has no variance, 0
test_expect_success 'setup' '
	cat >samples.jsonl <<-\EOF
	{"id":"L1/1_A","sample":{"index":0},"check":{"correct":true},"extra":[1,{"k":"v"}]}
	{"id":"L1/2_B","sample":{"index":0},"check":{"correct":false}}
	{"id":"L1/1_A","sample":{"index":1},"check":{"correct":false}}
	{"id":"L1/2_B","sample":{"index":1},"check":{"status":"timeout"}}
	{"id":"L1/1_A","sample":{"index":2},"check":{"correct":true,"deception":{"deceptive":true}}}
	{"id":"L2/1_C","sample":{"index":0},"check":{"status":"correct"},"reward":99}
	{"id":"L1/1_A","sample":{"index":3}}
	EOF
	printf "%s\n" 1732050808 0 -577350269 0 -577350269 0 -577350269 >expect.bic
'

test_expect_success '--rewards: BiC-RL, z-scored within each id, input order kept' '
	dice-score --rewards samples.jsonl >out &&
	test_line_count = 7 out &&
	jq ".reward * 1e9 | round" out >actual &&
	test_cmp expect.bic actual &&
	jq -c "[.id, .sample.index]" samples.jsonl >expect &&
	jq -c "[.id, .sample.index]" out >actual &&
	test_cmp expect actual
'

test_expect_success '--rewards=bic reads stdin; other keys pass through, in order' '
	dice-score --rewards=bic <samples.jsonl >out &&
	jq -c "del(.reward)" out >actual &&
	# the old reward of C is replaced in its place
	jq -c "del(.reward)" samples.jsonl >expect &&
	test_cmp expect actual &&
	jq -c "keys_unsorted" out | sed -n "1p;6p" >actual &&
	printf "%s\n" "[\"id\",\"sample\",\"check\",\"extra\",\"reward\"]" \
		"[\"id\",\"sample\",\"check\",\"reward\"]" >expect &&
	test_cmp expect actual &&
	! grep "[:,] " out &&
	# rewards are always reals, 0 too
	sed -n 2p out | grep "\"reward\":0.0}$"
'

test_expect_success 'spaced lines come out compact, as compact ones do' '
	dice-score --rewards samples.jsonl >compact.out &&
	sed "s/,/, /g" samples.jsonl >spaced.jsonl &&
	dice-score --rewards spaced.jsonl >spaced.out &&
	test_cmp compact.out spaced.out
'

test_expect_success 'groups span files' '
	head -n 3 samples.jsonl >one.jsonl &&
	tail -n 4 samples.jsonl >two.jsonl &&
	dice-score --rewards one.jsonl two.jsonl >out &&
	jq ".reward * 1e9 | round" out >actual &&
	test_cmp expect.bic actual
'

# Composite, default weights a = 0.1, b = 1, c = 1, cap 10:
#   x0 compiled, correct, 2x          0.1 + 1 + 2        = 3.1
#   x1 compiled, incorrect            0.1                = 0.1
#   x2 compile.ok false               0                  = 0
#   y0 correct (a build implied), 25x 0.1 + 1 + min(25,10) = 11.1
#   y1 compiled, correct, deceptive   0.1 (not correct)  = 0.1
#   y2 correct, speedup NaN           0.1 + 1 + 0        = 1.1
test_expect_success 'setup: composite fixture' '
	cat >comp.jsonl <<-\EOF
	{"id":"X","compile":{"ok":true},"check":{"correct":true},"time":{"speedup":2}}
	{"id":"X","compile":{"ok":true},"check":{"correct":false}}
	{"id":"X","compile":{"ok":false},"check":{"status":"compile_error"}}
	{"id":"Y","check":{"correct":true},"time":{"speedup":25}}
	{"id":"Y","compile":{"ok":true},"check":{"correct":true,"deception":{"deceptive":true}},"time":{"speedup":5}}
	{"id":"Y","check":{"correct":true},"time":{"speedup":"NaN"}}
	EOF
	dice-score --rewards=composite comp.jsonl >out &&
	jq ".reward * 1000 | round" out >actual &&
	printf "%s\n" 3100 100 0 11100 100 1100 >expect &&
	test_cmp expect actual
'

# a = 0, b = 2, c = 0.5, cap 4:
#   x: 2 + 0.5*2 = 3, 0, 0        y: 2 + 0.5*4 = 4, 0, 2 + 0 = 2
# --normalize: x mean 1, variance (4 + 1 + 1)/3 = 2: z = 2/sqrt(2) =
#   1.4142135624, -1/sqrt(2) = -0.7071067812 twice; y mean 2, variance
#   (4 + 4 + 0)/3 = 8/3: z = 2/sqrt(8/3) = sqrt(3/2) = 1.2247448714,
#   -sqrt(3/2), 0.
test_expect_success 'composite weights, cap and --normalize' '
	dice-score --rewards=composite --compile-weight 0 --correct-weight 2 \
		--speed-weight 0.5 --speedup-cap 4 comp.jsonl >out &&
	jq ".reward * 1000 | round" out >actual &&
	printf "%s\n" 3000 0 0 4000 0 2000 >expect &&
	test_cmp expect actual &&
	dice-score --rewards=composite --compile-weight=0 --correct-weight=2 \
		--speed-weight=0.5 --speedup-cap=4 --normalize comp.jsonl >out &&
	jq ".reward * 1e9 | round" out >actual &&
	printf "%s\n" 1414213562 -707106781 -707106781 1224744871 -1224744871 0 >expect &&
	test_cmp expect actual
'

test_expect_success 'reward options are usage errors where they do not apply' '
	test_expect_code 2 dice-score --rewards --json samples.jsonl >out 2>err &&
	test_must_be_empty out &&
	grep "^dice-score: --rewards writes records, not a summary" err &&
	test_expect_code 2 dice-score --rewards --speed-weight 2 samples.jsonl 2>err &&
	grep "need --rewards=composite" err &&
	test_expect_code 2 dice-score --normalize samples.jsonl 2>err &&
	test_expect_code 2 dice-score --rewards=best samples.jsonl 2>err &&
	grep "^dice-score: invalid --rewards .best. (bic or composite)$" err &&
	test_expect_code 2 dice-score --rewards=composite --speedup-cap x samples.jsonl 2>err &&
	grep "^dice-score: invalid --speedup-cap .x. (a number)$" err
'

test_expect_success 'a bad line is reported and skipped; the rest are scored' '
	{ head -n 2 samples.jsonl && echo "{\"id\":" && echo "{\"sample\":{}}" &&
	  tail -n 5 samples.jsonl; } >bad.jsonl &&
	test_expect_code 1 dice-score --rewards bad.jsonl >out 2>err &&
	jq ".reward * 1e9 | round" out >actual &&
	test_cmp expect.bic actual &&
	grep "^dice-score:bad.jsonl:3: invalid JSON: " err &&
	grep "^dice-score:bad.jsonl:4: record has no id$" err &&
	test_expect_code 2 dice-score --rewards --strict bad.jsonl >out 2>err &&
	test_must_be_empty out
'

test_done
