#!/bin/sh
test_description='dice-prompt: the records it writes'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

test_have_prereq JQ || skip_all 'jq is needed'
command -v sha256sum >/dev/null 2>&1 && test_set_prereq SHA256SUM

test_expect_success 'setup: a problem with awkward text' '
	mkdir -p kb/level1 &&
	printf "%s\n" "import torch" "import torch.nn as nn" \
		"# quotes \" and \\\\ backslashes, a tab	and unicode: é ∑" \
		"class Model(nn.Module):" "    pass" "" \
		"def get_inputs():" "    return []" "" \
		"def get_init_inputs():" "    return []" >kb/level1/7_Odd_Name.py &&
	printf "no final newline" >>kb/level1/7_Odd_Name.py &&
	dice-prompt --problems kb >out
'

test_expect_success 'one compact record per line, keys in order' '
	test_line_count = 1 out &&
	jq -c "keys_unsorted" out >actual &&
	echo "[\"id\",\"problem\",\"ref\",\"prompt\"]" >expect &&
	test_cmp expect actual &&
	jq -c . out >compact &&
	test_cmp compact out
'

test_expect_success 'id and problem fields' '
	jq -r ".id, .problem.level, .problem.index, .problem.name, .problem.path" out >actual &&
	printf "%s\n" L1/7_Odd_Name 1 7 Odd_Name kb/level1/7_Odd_Name.py >expect &&
	test_cmp expect actual
'

test_expect_success SHA256SUM 'problem.sha256 is the file digest' '
	jq -r .problem.sha256 out >actual &&
	sha256sum <kb/level1/7_Odd_Name.py | cut -d" " -f1 >expect &&
	test_cmp expect actual
'

test_expect_success 'ref is the file, byte for byte' '
	jq -j .ref out >ref &&
	cmp ref kb/level1/7_Odd_Name.py
'

test_expect_success 'the prompt holds the reference verbatim and names the problem' '
	jq -r ".prompt | .template, .mode, .precision" out >actual &&
	printf "%s\n" oneshot end-to-end fp32 >expect &&
	test_cmp expect actual &&
	jq -e "(.prompt.text | contains(\$r)) and (.prompt.text | contains(\"problem L1/7_Odd_Name\"))" \
		--arg r "$(cat kb/level1/7_Odd_Name.py)" out
'

test_expect_success 'the bundled suite: every reference is inside its prompt' '
	dice-prompt all >all &&
	jq -c "select(.ref as \$r | .prompt.text | contains(\$r) | not) | .id" all >bad &&
	test_must_be_empty bad &&
	jq -r ".id" all >ids &&
	test_line_count = $(find "$DICE_DATADIR/problems" -name "*_*.py" | wc -l) ids &&
	test_line_count -ge 12 all
'

test_expect_success '--solutions DIR: code after ref, byte for byte; a missing one is said' '
	mkdir -p sol/level1 kb/level1 &&
	cp kb/level1/7_Odd_Name.py kb/level1/8_Unsolved.py &&
	printf "class ModelNew:\n    pass  # é\n" >sol/level1/7_Odd_Name.py &&
	test_expect_code 1 dice-prompt --problems kb --solutions ./sol >out 2>err &&
	jq -c "[.id, keys_unsorted]" out >actual &&
	printf "%s\n" "[\"L1/7_Odd_Name\",[\"id\",\"problem\",\"ref\",\"code\",\"prompt\"]]" \
		"[\"L1/8_Unsolved\",[\"id\",\"problem\",\"ref\",\"prompt\"]]" >expect &&
	test_cmp expect actual &&
	sed -n 1p out | jq -j .code >code &&
	test_cmp sol/level1/7_Odd_Name.py code &&
	grep "1 problem had no solution in .\./sol." err &&
	rm kb/level1/8_Unsolved.py
'

test_expect_success '--solutions NAME: the bundled sets; bad names and --infill are usage errors' '
	dice-prompt --solutions=cuda L1 >out &&
	jq -r ".code" out >codes &&
	test $(grep -c "^class ModelNew" codes) = $(wc -l <out) &&
	grep -q load_inline codes &&
	dice-prompt --solutions=cpu L2:1 | jq -e ".code | contains(\"cpp_sources\")" &&
	test_expect_code 2 dice-prompt --solutions=nope L1 2>err &&
	grep "no bundled solutions named .nope." err &&
	test_expect_code 2 dice-prompt --solutions=../examples L1 2>err &&
	test_expect_code 2 dice-prompt --solutions=./missing L1 2>err &&
	grep "not a directory" err &&
	test_expect_code 2 dice-prompt --solutions=cuda --infill </dev/null 2>err &&
	grep "not to --infill" err
'

test_expect_success '--unbuffered gives the same output' '
	dice-prompt --unbuffered all >unbuf &&
	test_cmp all unbuf
'

test_expect_success DEVFULL 'a full disk is an error, exit 2' '
	test_expect_code 2 dice-prompt all >/dev/full 2>err &&
	grep "^dice-prompt: write error" err
'

test_done
