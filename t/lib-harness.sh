# lib-harness.sh: what the tests of the Python harness itself (t4900,
# t4901, t4902) share: their prerequisites, the job driver, and the a + b
# reference they judge candidates against.  Source after test-lib.sh.

test_have_prereq TORCH || skip_all 'the harness needs a Python with torch'
command -v ninja >/dev/null 2>&1 || skip_all 'building extensions needs ninja'
command -v c++ >/dev/null 2>&1 || skip_all 'building extensions needs a C++ compiler'

# h ARGS...: t/harness-tests.py, which makes jobs and runs the harness.
h () {
	"$DICE_PYTHON" "$TEST_SRCDIR/harness-tests.py" "$@"
}

# write_add_ref FILE: a reference whose forward is a + b on two 8x16
# random inputs.
write_add_ref () {
	cat >"$1" <<-\REF
	import torch
	import torch.nn as nn

	class Model(nn.Module):
	    def forward(self, a, b):
	        return a + b

	def get_inputs():
	    return [torch.randn(8, 16), torch.randn(8, 16)]

	def get_init_inputs():
	    return []
	REF
}
