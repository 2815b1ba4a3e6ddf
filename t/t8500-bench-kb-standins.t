#!/bin/sh
test_description='contrib/bench/kb-standins.sh: stand-ins for the LLM clients, and KernelBench importable before a benchmark starts'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

"$DICE_PYTHON" -c '' 2>/dev/null || skip_all 'no Python'
standins="$TOP_SRCDIR/contrib/bench/kb-standins.sh"

# fake_kb DIR LAYOUT [IMPORT]: a KernelBench checkout whose package
# imports the LLM clients as kernelbench.utils does, and IMPORT too;
# LAYOUT new (src/kernelbench/eval.py) or old (src/eval.py).
fake_kb () {
	if test "$2" = new
	then
		pkg=$1/src/kernelbench
	else
		pkg=$1/src
	fi &&
	mkdir -p "$pkg" &&
	printf '%s\n' "from openai import OpenAI" "from litellm import completion" \
		${3:+"import $3"} >"$pkg/__init__.py" &&
	echo "def eval_kernel_against_ref(*args): pass" >"$pkg/eval.py" &&
	touch "$1/requirements.txt"
}

test_expect_success 'a checkout that imports (with stand-ins where needed): exit 0' '
	fake_kb kb-new new &&
	sh "$standins" "$PWD/st" "$PWD/kb-new" >out &&
	if test -s out
	then
		echo "$PWD/st" >expect && test_cmp expect out &&
		test -f st/openai.py && test -f st/litellm.py
	fi
'

test_expect_success 'the older layout (src/eval.py) imports too' '
	fake_kb kb-old old &&
	sh "$standins" "$PWD/st" "$PWD/kb-old" >/dev/null
'

test_expect_success 'a missing requirement: exit 1, named, before anything runs' '
	fake_kb kb-lacking new no_such_requirement_for_dice &&
	test_expect_code 1 sh "$standins" "$PWD/st" "$PWD/kb-lacking" >out 2>err &&
	test_must_be_empty out &&
	grep "does not import" err &&
	grep "No module named .no_such_requirement_for_dice." err &&
	grep "kb-lacking/requirements.txt" err
'

test_expect_success 'without a checkout: only the stand-ins' '
	sh "$standins" "$PWD/st2" >out &&
	! test -s out || test -f st2/openai.py
'

test_expect_success 'bad usage: exit 2' '
	test_expect_code 2 sh "$standins" 2>err &&
	grep "usage:" err &&
	test_expect_code 2 sh "$standins" a b c 2>err
'

test_done
