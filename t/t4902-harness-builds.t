#!/bin/sh
test_description='dice_harness: builds wherever they happen, failed ones too'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-harness.sh"

# Shared with t4901 (the same kernel, built once).
HARNESS_TEST_CACHE=$TEST_BUILDDIR/trash.harness-cache
export HARNESS_TEST_CACHE

# run_job MODE REF BODY [FIELD=JSON...]: the result lands in BODY.MODE.
run_job () {
	_mode=$1 _ref=$2 _body=$3
	shift 3
	h candidate "$_body" >"cand-$_body" &&
	h job "$_mode" "$_ref" "cand-$_body" "$@" >"job-$_body.$_mode" &&
	h run "job-$_body.$_mode" --log "log-$_body.$_mode" >"$_body.$_mode"
}

test_expect_success 'setup: a reference' '
	write_add_ref ref.py
'

test_expect_success 'a build on the first forward is found by compile, once' '
	cat >lazy.py <<-\EOF &&
	import torch.nn as nn
	import torch.utils.cpp_extension

	class ModelNew(nn.Module):
	    def forward(self, a, b):
	        ext = torch.utils.cpp_extension.load_inline(
	            "dice_t49", cpp_sources=KERNEL,
	            functions=["sum2", "sum2_scaled", "sum2_nan"])
	        return ext.sum2(a, b)
	EOF
	run_job compile ref.py lazy.py &&
	test "$(h get lazy.py.compile compile.ok)" = true &&
	test "$(h get lazy.py.compile compile.builds.0.name)" = dice_t49 &&
	test "$(h get lazy.py.compile compile.builds.0.ok)" = true &&
	test "$(h get lazy.py.compile compile.builds.1 2>/dev/null)" = ""
'

test_expect_success 'check: a build asked for on every call is built and listed once' '
	run_job check ref.py lazy.py &&
	test "$(h get lazy.py.check check.status)" = correct &&
	test "$(h get lazy.py.check compile.builds.0.cache)" = hit &&
	test "$(h get lazy.py.check compile.builds.1 2>/dev/null)" = ""
'

test_expect_success 'a build in ModelNew.__init__ with get_init_inputs from the reference' '
	sed "s/return \[\]$/return [3]/" ref.py >ref3.py &&
	cat >init.py <<-\EOF &&
	import torch.nn as nn
	from torch.utils.cpp_extension import load_inline

	class ModelNew(nn.Module):
	    def __init__(self, k):
	        super().__init__()
	        assert k == 3
	        self.ext = load_inline("dice_t49", cpp_sources=KERNEL,
	                               functions=["sum2", "sum2_scaled", "sum2_nan"])

	    def forward(self, a, b):
	        raise AssertionError("compile mode never calls this after a build")
	EOF
	run_job compile ref3.py init.py &&
	test "$(h get init.py.compile compile.ok)" = true &&
	test "$(h get init.py.compile compile.builds.0.ok)" = true
'

test_expect_success 'a build failing inside try/except is recorded as failed' '
	cat >hidden.py <<-\EOF &&
	import torch
	import torch.nn as nn
	from torch.utils.cpp_extension import load_inline

	try:
	    ext = load_inline("dice_t49_flags", cpp_sources=KERNEL, functions=["sum2"],
	                      extra_cflags=["-include", "dice-no-such-header.h"])
	except RuntimeError:
	    ext = None

	class ModelNew(nn.Module):
	    def forward(self, a, b):
	        return ext.sum2(a, b) if ext else torch.add(a, b)
	EOF
	run_job compile ref.py hidden.py &&
	test "$(h get hidden.py.compile compile.ok)" = false &&
	test "$(h get hidden.py.compile compile.builds.0.ok)" = false &&
	test "$(h get hidden.py.compile compile.builds.0.name)" = dice_t49_flags &&
	h get hidden.py.compile compile.log | grep "dice-no-such-header.h: No such file" &&
	run_job check ref.py hidden.py &&
	test "$(h get hidden.py.check check.status)" = compile_error &&
	test "$(h get hidden.py.check check.correct)" = false &&
	h get hidden.py.check check.error | grep "^build of dice_t49_flags failed" &&
	test "$(h get hidden.py.check compile.ok)" = false
'

test_expect_success 'a compile error: the first errors with file:line; the second run fails from the cache' '
	cat >broken.py <<-\EOF &&
	import torch.nn as nn
	from torch.utils.cpp_extension import load_inline

	ext = load_inline("dice_t49_broken", functions=["sum2"],
	                  cpp_sources=KERNEL + "\nint broken() { return undeclared_thing; }\n")

	class ModelNew(nn.Module):
	    def forward(self, a, b):
	        return ext.sum2(a, b)
	EOF
	run_job compile ref.py broken.py &&
	test "$(h get broken.py.compile compile.ok)" = false &&
	h get broken.py.compile compile.log >log &&
	grep "^main.cpp:[0-9]*:[0-9]*: error: .undeclared_thing. was not declared" log &&
	! grep "c++ -MMD" log &&
	test $(wc -c <log) -le 2048 &&
	cp broken.py broken2.py &&
	run_job check ref.py broken2.py &&
	test "$(h get broken2.py.check check.status)" = compile_error &&
	test "$(h get broken2.py.check compile.builds.0.cache)" = hit &&
	test "$(h get broken2.py.check compile.builds.0.ok)" = false &&
	h get broken2.py.check compile.log >log2 &&
	test_cmp log log2 &&
	awk -v ms="$(h get broken2.py.check compile.ms)" "BEGIN { exit !(ms < 2000) }"
'

# A plain shared library (no torch headers: it builds in a second or two)
# loaded with torch.ops.load_library, as load(is_python_module=False) does.
# Its own cache, so that the first build is a miss however often this runs.
test_expect_success 'load() with source files is cached by their contents' '
	HARNESS_TEST_CACHE=$TRASH_DIRECTORY/own-cache &&
	export HARNESS_TEST_CACHE &&
	cat >files.py <<-\EOF &&
	import os
	import torch
	import torch.nn as nn
	from torch.utils.cpp_extension import load

	here = os.path.dirname(os.path.abspath(__file__))
	src = os.path.join(here, "answer.cpp")
	with open(src, "w") as f:
	    f.write("extern \"C\" int dice_t49_answer(void) { return 42; }\n")
	assert load("dice_t49_files", [src], is_python_module=False) is None

	class ModelNew(nn.Module):
	    def forward(self, a, b):
	        return torch.add(a, b)
	EOF
	run_job check ref.py files.py &&
	test "$(h get files.py.check check.status)" = correct &&
	test "$(h get files.py.check compile.cache)" = miss &&
	test "$(h get files.py.check compile.builds.0.name)" = dice_t49_files &&
	test "$(h get files.py.check compile.builds.0.ok)" = true &&
	cp files.py files2.py &&
	run_job check ref.py files2.py &&
	test "$(h get files2.py.check check.status)" = correct &&
	test "$(h get files2.py.check compile.builds.0.cache)" = hit &&
	test "$(h get files2.py.check compile.key)" = "$(h get files.py.check compile.key)" &&
	sed "s/return 42/return 43/" files.py >files3.py &&
	run_job compile ref.py files3.py &&
	test "$(h get files3.py.compile compile.cache)" = miss &&
	test "$(h get files3.py.compile compile.key)" != "$(h get files.py.check compile.key)"
'

test_expect_success 'compile: a Python error in the candidate fails it, with no builds' '
	printf "import torch\nclass ModelNew(:\n" >syntax.py &&
	run_job compile ref.py syntax.py &&
	test "$(h get syntax.py.compile compile.ok)" = false &&
	test "$(h get syntax.py.compile compile.builds)" = "[]" &&
	h get syntax.py.compile compile.log | grep "^SyntaxError: " &&
	printf "import torch\n" >nomodel.py &&
	run_job compile ref.py nomodel.py &&
	test "$(h get nomodel.py.compile compile.ok)" = false &&
	h get nomodel.py.compile compile.log | grep "^AttributeError: .*ModelNew"
'

test_expect_success 'compile: only the compile object' '
	h get syntax.py.compile check 2>err && exit 1
	grep KeyError err
'

test_done
