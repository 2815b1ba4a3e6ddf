#!/bin/sh
test_description='dice-check on a CPU torch: every way to reach load_inline goes through the cache'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

cpu_harness_env
check () { dice-check -q --device cpu --memory 4G "$@"; }

# The harness leaves torch.utils.cpp_extension unimported until a
# candidate asks for more than load_inline or load (importing it costs a
# quarter of a warm candidate).  Each way a candidate can reach the module
# must still get dice's load_inline, whose build the record lists.
# reach NAME LINES: a candidate whose module-level LINES bind `build` to
# load_inline; it builds CPP_SOURCE and forward is shifted_relu(x, 0).
reach () {
	printf '%s\n' "import torch" "$2" \
		"SRC = r'''$CPP_SOURCE'''" \
		"ext = build(name='dice_test_ext', cpp_sources=SRC, functions=['shifted_relu', 'null_write', 'spin'])" \
		"class ModelNew(torch.nn.Module):" \
		"    def __init__(self):" \
		"        super().__init__()" \
		"    def forward(self, x):" \
		"        return ext.shifted_relu(x, 0.0)" >"$1.py"
	record "$1" "$(cat "$1.py")"
}

test_expect_success 'candidates reach load_inline in eight ways' '
	{
	reach from-import "from torch.utils.cpp_extension import load_inline as build" &&
	reach module-alias "import torch.utils.cpp_extension as ce
build = ce.load_inline" &&
	reach from-package "from torch.utils import cpp_extension
build = cpp_extension.load_inline" &&
	reach attribute-path "import torch.utils.cpp_extension
build = torch.utils.cpp_extension.load_inline" &&
	reach importlib "import importlib
build = importlib.import_module(\"torch.utils.cpp_extension\").load_inline" &&
	reach other-name-first "from torch.utils.cpp_extension import include_paths, load_inline as build
assert include_paths()" &&
	reach alias-then-other "import torch.utils.cpp_extension as ce
home = ce.CUDA_HOME
build = ce.load_inline" &&
	reach other-then-path "import torch.utils.cpp_extension as ce
ce.include_paths()
build = torch.utils.cpp_extension.load_inline"
	} >in.jsonl &&
	test "$(wc -l <in.jsonl)" = 8
'

test_expect_success 'each one is correct, its build listed and from the cache' '
	check in.jsonl >out.jsonl &&
	jq -r "[.id, .check.status, (.check.compile.builds | length),
		(.check.compile.builds[0].cache // \"none\")] | @tsv" out.jsonl |
		sort >actual &&
	cut -f1,2,3 actual >got &&
	cat >expect <<-\EOF &&
	alias-then-other	correct	1
	attribute-path	correct	1
	from-import	correct	1
	from-package	correct	1
	importlib	correct	1
	module-alias	correct	1
	other-name-first	correct	1
	other-then-path	correct	1
	EOF
	test_cmp expect got &&
	! grep -v "	hit$" actual | grep -v "	miss$"
'

# A warm candidate whose build is a cache hit never needs setuptools or
# hipify: forward is correct only where the module stayed unimported.
test_expect_success 'a cache hit leaves the real module unimported' '
	record warm "$(cpp_candidate \
		"ext.shifted_relu(x, 1.0 if __import__(\"sys\").modules.get(\"setuptools\") else 0.0)")" \
		>warm.jsonl &&
	check warm.jsonl >warm.out &&
	jq -r "[.check.status, .check.compile.builds[0].cache] | @tsv" warm.out >actual &&
	printf "correct\thit\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a candidate that asks the module for a name it lacks gets the AttributeError' '
	record missing "$(candidate "import torch.utils.cpp_extension as ce
ce.no_such_function_here")" >missing.jsonl &&
	check missing.jsonl >missing.out &&
	jq -r ".check.status" missing.out >actual &&
	echo runtime_error >expect &&
	test_cmp expect actual &&
	jq -r ".check.error" missing.out | grep no_such_function_here
'

test_done
