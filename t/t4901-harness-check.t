#!/bin/sh
test_description='dice_harness: check mode verdicts on CPU with C++ candidates'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-harness.sh"

# Shared with t4902, which builds the same kernel: whichever runs first
# builds it, the other waits on the lock or hits.
HARNESS_TEST_CACHE=$TEST_BUILDDIR/trash.harness-cache
export HARNESS_TEST_CACHE

# check_with REF BODY [FIELD=JSON...]: run a check job for the candidate
# BODY (which sees the shared kernel as KERNEL) against REF; the result
# is in BODY's name with .out for .py.
check_with () {
	_ref=$1 _body=$2
	shift 2
	h candidate "$_body" >"cand-$_body" &&
	h job check "$_ref" "cand-$_body" "$@" >"job-$_body" &&
	h run "job-$_body" --log "log-$_body" >"${_body%.py}.out"
}

field () {
	h get "$1.out" "$2"
}

test_expect_success 'setup: references' '
	write_add_ref ref.py &&
	sed "s/return \[torch.randn(8, 16), torch.randn(8, 16)\]/return [torch.full((8, 16), 1.5), torch.full((8, 16), 2.5)]/" \
		ref.py >const.py &&
	grep -q "full((8, 16), 2.5)" const.py &&
	cat >header.py <<-\EOF
	import torch
	import torch.nn as nn
	from torch.utils.cpp_extension import load_inline

	ext = load_inline("dice_t49", cpp_sources=KERNEL,
	                  functions=["sum2", "sum2_scaled", "sum2_nan"])

	EOF
'

# new BODY LINE...: a candidate whose forward(self, a, b) is LINE...
new () {
	_name=$1
	shift
	{
		cat header.py &&
		echo "class ModelNew(nn.Module):" &&
		echo "    def forward(self, a, b):" &&
		for _line in "$@"; do printf "        %s\n" "$_line"; done
	} >"$_name"
}

test_expect_success 'a correct candidate is correct in every trial' '
	new good.py "return ext.sum2(a, b)" &&
	check_with ref.py good.py &&
	test "$(field good check.status)" = correct &&
	test "$(field good check.correct)" = true &&
	test "$(field good check.trials)" = 3 &&
	test "$(field good check.passed)" = 3 &&
	test "$(field good check.max_abs_err)" = 0.0 &&
	test "$(field good check.failed_trial)" = null &&
	test "$(field good check.error)" = null &&
	test "$(field good check.seed)" = 42 &&
	test "$(field good compile.ok)" = true &&
	test "$(field good compile.builds.0.name)" = dice_t49 &&
	field good check.torch >/dev/null &&
	test "$(field good check.cuda)" = null &&
	field good check.device | grep "^cpu"
'

# const.py: a = 1.5, b = 2.5 everywhere, so a + b = 4.  Scaled by 1.001
# the candidate returns 4.004 (float32: 4.0040002): abs err 0.004, rel err
# 0.001.  dice (atol = rtol = 1e-2) allows 0.01 + 0.01 * 4 = 0.05;
# kernelbench fp32 (1e-4) allows 0.0001 + 0.0004 = 0.0005.
test_expect_success 'slightly wrong: correct at the dice tolerance' '
	new slight.py "return ext.sum2_scaled(a, b, 1.001)" &&
	check_with const.py slight.py &&
	test "$(field slight check.status)" = correct &&
	test "$(field slight check.tolerance)" = dice &&
	test "$(field slight check.atol)" = 0.01 &&
	awk -v e="$(field slight check.max_abs_err)" "BEGIN { exit !(e > 0.0039 && e < 0.0041) }" &&
	awk -v e="$(field slight check.max_rel_err)" "BEGIN { exit !(e > 0.00099 && e < 0.00101) }"
'

test_expect_success 'slightly wrong: incorrect at the kernelbench tolerance, echoed' '
	cp slight.py slight-kb.py &&
	check_with const.py slight-kb.py tolerance=kernelbench atol=1e-4 rtol=1e-4 &&
	test "$(field slight-kb check.status)" = incorrect &&
	test "$(field slight-kb check.correct)" = false &&
	test "$(field slight-kb check.tolerance)" = kernelbench &&
	test "$(field slight-kb check.atol)" = 0.0001 &&
	test "$(field slight-kb check.rtol)" = 0.0001 &&
	test "$(field slight-kb check.passed)" = 0 &&
	test "$(field slight-kb check.failed_trial)" = 0 &&
	field slight-kb check.error | grep "values differ: max abs err 0.004"
'

# The same error in a float16 output (4.004 rounds to 4.00390625): the
# kernelbench preset gives half precision 1e-2, so 0.0039 passes there,
# and the record says what was applied.
test_expect_success 'kernelbench tolerance: float16 outputs get 1e-2' '
	sed "s/return a + b/return (a + b).half()/" const.py >half.py &&
	grep -q "(a + b).half()" half.py &&
	new slight-half.py "return ext.sum2_scaled(a, b, 1.001).half()" &&
	check_with half.py slight-half.py tolerance=kernelbench atol=1e-4 rtol=1e-4 &&
	test "$(field slight-half check.status)" = correct &&
	test "$(field slight-half check.tolerance)" = kernelbench &&
	test "$(field slight-half check.atol)" = 0.01 &&
	test "$(field slight-half check.rtol)" = 0.01 &&
	new wrong-half.py "return ext.sum2_scaled(a, b, 1.05).half()" &&
	check_with half.py wrong-half.py tolerance=kernelbench atol=1e-4 rtol=1e-4 &&
	test "$(field wrong-half check.status)" = incorrect
'

test_expect_success 'wrong values (a + b scaled by 1.5) are incorrect' '
	new wrong.py "return ext.sum2_scaled(a, b, 1.5)" &&
	check_with const.py wrong.py &&
	test "$(field wrong check.status)" = incorrect &&
	test "$(field wrong check.max_abs_err)" = 2.0 &&
	test "$(field wrong check.max_rel_err)" = 0.5
'

test_expect_success 'a wrong shape is incorrect, with no error numbers' '
	new shape.py "return ext.sum2(a, b)[:-1]" &&
	check_with ref.py shape.py &&
	test "$(field shape check.status)" = incorrect &&
	test "$(field shape check.error)" = "shape mismatch: expected [8,16], got [7,16]" &&
	test "$(field shape check.max_abs_err)" = null &&
	test "$(field shape check.passed)" = 0
'

test_expect_success 'a NaN where the reference has none is incorrect' '
	new nan.py "return ext.sum2_nan(a, b)" &&
	check_with ref.py nan.py &&
	test "$(field nan check.status)" = incorrect &&
	test "$(field nan check.error)" = "NaN mismatch: 0 NaN expected, 1 got"
'

test_expect_success 'a wrong dtype is incorrect' '
	new dtype.py "return ext.sum2(a, b).double()" &&
	check_with ref.py dtype.py &&
	test "$(field dtype check.status)" = incorrect &&
	test "$(field dtype check.error)" = "dtype mismatch: expected torch.float32, got torch.float64"
'

test_expect_success 'a candidate wrong only in the third call: trial 2 fails' '
	new third.py "self.calls = getattr(self, \"calls\", 0) + 1" \
		"out = ext.sum2(a, b)" \
		"return out + 1 if self.calls == 3 else out" &&
	check_with ref.py third.py &&
	test "$(field third check.status)" = incorrect &&
	test "$(field third check.passed)" = 2 &&
	test "$(field third check.failed_trial)" = 2 &&
	awk -v e="$(field third check.max_abs_err)" "BEGIN { exit !(e > 0.999 && e < 1.001) }"
'

test_expect_success 'trial t sees the inputs of torch.manual_seed(seed + 1 + t)' '
	new seen.py "with open(\"$TRASH_DIRECTORY/seen\", \"a\") as f:" \
		"    f.write(repr(float(a.sum())) + \" \" + repr(float(b.sum())) + \"\\n\")" \
		"return ext.sum2(a, b)" &&
	check_with ref.py seen.py seed=7 trials=2 &&
	test "$(field seen check.status)" = correct &&
	test "$(field seen check.seed)" = 7 &&
	"$DICE_PYTHON" -c "
import torch, runpy
ref = runpy.run_path(\"ref.py\")
for t in range(2):
    torch.manual_seed(7 + 1 + t)
    a, b = ref[\"get_inputs\"]()
    print(repr(float(a.sum())), repr(float(b.sum())))
" >expect &&
	# the trials are the first calls; the deception checks call again
	head -n 2 seen >trials &&
	test_cmp expect trials
'

test_expect_success 'ModelNew starts from the reference weights where names and shapes match' '
	cat >lin.py <<-\EOF &&
	import torch
	import torch.nn as nn

	class Model(nn.Module):
	    def __init__(self, n):
	        super().__init__()
	        self.fc = nn.Linear(n, 4)

	    def forward(self, x):
	        return self.fc(x)

	def get_inputs():
	    return [torch.randn(8, 16)]

	def get_init_inputs():
	    return [16]
	EOF
	cat >lin-new.py <<-\EOF &&
	import torch
	import torch.nn as nn

	class ModelNew(nn.Module):
	    def __init__(self, n):
	        super().__init__()
	        self.extra = nn.Linear(n, n)   # draws from the generator first
	        self.fc = nn.Linear(n, 4)

	    def forward(self, x):
	        return self.fc(x)
	EOF
	check_with lin.py lin-new.py &&
	test "$(field lin-new check.status)" = correct
'

test_expect_success 'tuple and list outputs are compared element by element' '
	sed "s/return a + b/return a + b, a - b/" ref.py >pair.py &&
	new pair-ok.py "return [ext.sum2(a, b), a - b]" &&
	check_with pair.py pair-ok.py &&
	test "$(field pair-ok check.status)" = correct &&
	new pair-short.py "return (ext.sum2(a, b),)" &&
	check_with pair.py pair-short.py &&
	test "$(field pair-short check.status)" = incorrect &&
	test "$(field pair-short check.error)" = "output count mismatch: expected 2, got 1" &&
	new pair-bad.py "return ext.sum2(a, b), a + b" &&
	check_with pair.py pair-bad.py &&
	test "$(field pair-bad check.status)" = incorrect &&
	field pair-bad check.error | grep "^output 1: values differ"
'

test_expect_success 'an exception in forward is a runtime_error, in one line' '
	new boom.py "raise ValueError(\"boom\\nsecond line\")" &&
	check_with ref.py boom.py &&
	test "$(field boom check.status)" = runtime_error &&
	test "$(field boom check.correct)" = false &&
	test "$(field boom check.error)" = "ValueError: boom" &&
	test "$(field boom compile.ok)" = true
'

# What a module does while it loads, its builds having succeeded.
test_expect_success 'failures at import: compile_error, oom or runtime_error' '
	printf "import torch\nclass ModelNew(:\n" >imp-syntax.py &&
	printf "import torch, dice_no_such_module\n" >imp-missing.py &&
	printf "import torch\nx = torch.empty(1 << 42)\n" >imp-oom.py &&
	printf "import torch\nraise ValueError(\"on purpose\")\n" >imp-raise.py &&
	for c in syntax:compile_error missing:compile_error oom:oom raise:runtime_error; do
		check_with ref.py imp-${c%%:*}.py &&
		test "$(field imp-${c%%:*} check.status)" = ${c#*:} || exit 1
	done &&
	test "$(field imp-raise check.error)" = "ValueError: on purpose" &&
	field imp-missing check.error | grep "dice_no_such_module"
'

test_expect_success 'a failed allocation is oom' '
	new oom.py "return torch.empty(1 << 42)" &&
	check_with ref.py oom.py &&
	test "$(field oom check.status)" = oom &&
	field oom check.error | grep "allocate" &&
	new memerr.py "raise MemoryError()" &&
	check_with ref.py memerr.py &&
	test "$(field memerr check.status)" = oom &&
	test "$(field memerr check.error)" = MemoryError
'

test_expect_success 'a secret from the environment never reaches the result' '
	new secret.py "import os" \
		"raise RuntimeError(\"leak \" + os.environ.get(\"DICE_TEST_API_KEY\", \"none\"))" &&
	h candidate secret.py >cand-secret.py &&
	h job check ref.py cand-secret.py >job-secret &&
	h run job-secret --env DICE_TEST_API_KEY=sk-t4901-hidden >secret.out &&
	test "$(field secret check.status)" = runtime_error &&
	test "$(field secret check.error)" = "RuntimeError: leak [redacted]" &&
	! grep sk-t4901-hidden secret.out
'

test_expect_success 'a failure of the reference says so' '
	sed "s/return a + b/raise KeyError(\"ref\")/" ref.py >badref.py &&
	check_with badref.py good.py &&
	test "$(field good check.status)" = runtime_error &&
	test "$(field good check.error)" = "reference forward: KeyError: '\''ref'\''"
'

test_expect_success 'the result comes only on its descriptor, which the candidate cannot name' '
	new liar.py "import os, sys" \
		"assert \"DICE_RESULT_FD\" not in os.environ" \
		"print(\"{\\\"check\\\": {\\\"status\\\": \\\"correct\\\"}}\")" \
		"sys.stderr.write(\"{\\\"compile\\\": {}}\\n\")" \
		"return ext.sum2(a, b) + 1" &&
	check_with ref.py liar.py &&
	test_line_count = 1 liar.out &&
	test "$(field liar check.status)" = incorrect &&
	grep "\"status\": \"correct\"" log-liar.py
'

test_expect_success 'a check job with a bad field gets no result and status 2' '
	h job check ref.py cand-good.py trials=0 >job-zero &&
	test_expect_code 2 h run job-zero --log log-zero >zero.out &&
	test_must_be_empty zero.out &&
	grep "trials must be at least 1" log-zero &&
	echo "[1, 2]" >job-array &&
	test_expect_code 2 h run job-array >array.out &&
	test_must_be_empty array.out &&
	echo "{\"mode\": \"timing\"}" >job-mode &&
	test_expect_code 2 h run job-mode >mode.out &&
	test_must_be_empty mode.out
'

test_done
