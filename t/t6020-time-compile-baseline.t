#!/bin/sh
test_description='dice-time --baseline compile on a torch that cannot compile: one error before any candidate runs'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

fake_harness_env

# fake_torch DIR BODY: a torch package in DIR whose __init__ is BODY, put
# first on the interpreter's path the way a real one would be found.
fake_torch () {
	mkdir -p "$1/torch" &&
	printf '%s\n' "$2" >"$1/torch/__init__.py"
}

tm () { dice-time -q --device cpu "$@"; }

test_expect_success 'setup: a torch 1.13 without compile, a 2.0 whose dynamo refuses, a 2.4 that compiles' '
	fake_harness fake &&
	{ echo "import os, sys" && candidate; } >code.py &&
	record L1/1_A "$(cat code.py)" | jq -c ". + {check: {correct: true}}" >in.jsonl &&
	fake_torch old "__version__ = \"1.13.1\"" &&
	fake_torch refusing "__version__ = \"2.0.1\"
def compile(m): return m" &&
	mkdir -p refusing/torch/_dynamo &&
	: >refusing/torch/_dynamo/__init__.py &&
	printf "%s\n" "def check_if_dynamo_supported():" \
		"    raise RuntimeError(\"Python 3.12+ not yet supported for torch.compile\")" \
		>refusing/torch/_dynamo/eval_frame.py &&
	fake_torch good "__version__ = \"2.4.0\"
def compile(m): return m"
'

test_expect_success 'torch without torch.compile: exit 2, one line, no candidate run' '
	rm -f cache/runs &&
	test_expect_code 2 env PYTHONPATH=$PWD/old dice-time -q --device cpu --baseline compile in.jsonl >out 2>err &&
	test_must_be_empty out &&
	echo "dice-time: --baseline compile needs torch.compile: torch 1.13.1 has no torch.compile (it came in torch 2.0)" >expect &&
	test_cmp expect err &&
	! test -e cache/runs
'

test_expect_success 'torch.compile there but unusable: exit 2, torch'"'"'s reason' '
	test_expect_code 2 env PYTHONPATH=$PWD/refusing dice-time -q --device cpu --baseline compile in.jsonl >out 2>err &&
	test_must_be_empty out &&
	echo "dice-time: --baseline compile needs torch.compile: torch 2.0.1 cannot compile here: Python 3.12+ not yet supported for torch.compile" >expect &&
	test_cmp expect err
'

test_expect_success 'no torch at all: exit 2' '
	mkdir -p none &&
	printf "%s\n" "raise ImportError(\"No module named torch\")" >none/torch.py &&
	test_expect_code 2 env PYTHONPATH=$PWD/none dice-time -q --device cpu --baseline compile in.jsonl 2>err &&
	grep "^dice-time: --baseline compile needs torch.compile: cannot import torch: No module named torch$" err
'

test_expect_success 'a torch that compiles: the run goes on; eager never asks' '
	env PYTHONPATH=$PWD/good dice-time -q --device cpu --baseline compile in.jsonl >out 2>err &&
	test_line_count = 1 out &&
	test -e cache/runs &&
	env PYTHONPATH=$PWD/old dice-time -q --device cpu in.jsonl >out 2>err &&
	test_line_count = 1 out
'

test_done
