#!/bin/sh
test_description='dice-prompt: templates, precision and --infill'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

test_have_prereq JQ || skip_all 'jq is needed'

test_expect_success 'the bundled templates all render' '
	for t in oneshot zeroshot; do
		dice-prompt -t $t L1:1 >out &&
		jq -e ".prompt.template == \"$t\" and (.prompt.text | length > 100)" out || exit 1
	done
'

test_expect_success 'oneshot has a worked example, zeroshot has none' '
	dice-prompt L1:1 | jq -r .prompt.text >one &&
	dice-prompt -t zeroshot L1:1 | jq -r .prompt.text >zero &&
	grep -c "^class ModelNew" one >n1 && echo 1 >expect && test_cmp expect n1 &&
	grep "add_kernel" one &&
	! grep "add_kernel" zero
'

test_expect_success 'a template file by path, with every problem variable' '
	printf "%s\n" "{{id}}|{{name}}|{{level}}|{{index}}|{{precision}}" "{{open}}x}}" >my.tmpl &&
	dice-prompt -t ./my.tmpl L2:3 >out &&
	jq -j .prompt.text out >actual &&
	id=$(jq -r .id out) && name=$(jq -r .problem.name out) &&
	printf "%s\n" "$id|$name|2|3|fp32" "{{x}}" >expect &&
	test_cmp expect actual &&
	jq -e ".prompt.template == \"my\"" out
'

test_expect_success 'an unknown variable: exit 2, file and line, nothing written' '
	printf "%s\n" "line one" "{{ref}} and {{reference}}" >bad.tmpl &&
	test_expect_code 2 dice-prompt -t ./bad.tmpl L1 >out 2>err &&
	test_must_be_empty out &&
	echo "dice-prompt:./bad.tmpl:2: unknown template variable '"'"'reference'"'"'" >expect &&
	test_cmp expect err
'

test_expect_success 'an unknown template name: exit 2' '
	test_expect_code 2 dice-prompt -t nosuch L1 >out 2>err &&
	test_must_be_empty out &&
	grep "no template named .nosuch." err
'

test_expect_success '--precision is recorded and explained in the prompt' '
	dice-prompt --precision bf16 L1:1 >out &&
	jq -e ".prompt.precision == \"bf16\" and (.prompt.text | contains(\"bfloat16\"))" out &&
	test_expect_code 2 dice-prompt --precision fp8 L1:1 2>err &&
	grep "^dice-prompt: invalid --precision .fp8. (fp32, fp16 or bf16)$" err
'

test_expect_success 'an infill template needs input records' '
	test_expect_code 2 dice-prompt -t infill L1:1 >out 2>err &&
	grep "use --infill" err
'

test_expect_success 'setup: split records' '
	dice-prompt L1:1-2 >p &&
	jq -c "{id, problem, ref, code: \"PREFIX\nCORE\nSUFFIX\", infill: {prefix: \"PRE_PART\", core: \"CORE\", suffix: \"SUF_PART\", names: [\"SRC\"]}, extra: [1, 0.5]}" p >split
'

test_expect_success '--infill renders each record and keeps its keys in order' '
	dice-prompt --infill <split >out &&
	test_line_count = 2 out &&
	jq -c "keys_unsorted" out | sort -u >actual &&
	echo "[\"id\",\"problem\",\"ref\",\"code\",\"infill\",\"extra\",\"prompt\"]" >expect &&
	test_cmp expect actual &&
	jq -e ".prompt.mode == \"infill\" and .prompt.template == \"infill\" and
		(.prompt.text | contains(\"PRE_PART\") and contains(\"SUF_PART\") and (contains(\"CORE\") | not))" out &&
	jq -c "del(.prompt)" out >kept &&
	test_cmp split kept
'

test_expect_success '{{names}}: the variables of the core, in backquotes, joined as prose' '
	for names in "[\"a\"]" "[\"a\",\"b\"]" "[\"a\",\"b\",\"c\"]"; do
		jq -c ".infill.names = $names" split | sed -n 1p || exit 1
	done >named &&
	printf "%s" "{{names}}" >names.tmpl &&
	dice-prompt --infill -t ./names.tmpl named | jq -r .prompt.text >actual &&
	printf "%s\n" "\`a\`" "\`a\` and \`b\`" "\`a\`, \`b\` and \`c\`" >expect &&
	test_cmp expect actual &&
	dice-prompt --infill named | jq -r .prompt.text | grep -c "assignment of \`a\` and \`b\`, the CUDA source" >count &&
	echo 1 >expect &&
	test_cmp expect count
'

test_expect_success "'-' as the source and FILE arguments read records too" '
	dice-prompt - <split >a &&
	dice-prompt --infill split >b &&
	dice-prompt --infill <split >c &&
	test_cmp a c && test_cmp b c
'

test_expect_success 'a record lacking the infill parts gets prompt.error, exit 0' '
	jq -c "del(.infill)" split >noinfill &&
	dice-prompt --infill <noinfill >out 2>err &&
	test_line_count = 2 out &&
	jq -e "(.prompt.error | contains(\"needs infill.names\")) and (.prompt | has(\"text\") | not)" out &&
	grep "^dice-prompt: 2 records got no prompt text" err
'

test_expect_success 'malformed lines: reported with file and line, skipped, exit 1' '
	{ head -n 1 split && echo "{bad" && echo "[1]" && tail -n 1 split; } >mixed &&
	test_expect_code 1 dice-prompt --infill mixed >out 2>err &&
	test_line_count = 2 out &&
	grep "^dice-prompt:mixed:2: invalid JSON" err &&
	grep "^dice-prompt:mixed:3: expected a JSON object, found an array" err
'

test_expect_success '--strict stops at the first malformed line, exit 2' '
	test_expect_code 2 dice-prompt --strict --infill <mixed >out 2>err &&
	test_line_count = 1 out &&
	grep "^dice-prompt:-:2: invalid JSON" err
'

test_expect_success 'a missing input file: exit 2' '
	test_expect_code 2 dice-prompt --infill nosuch 2>err &&
	grep "cannot open .nosuch." err
'

test_done
