#!/bin/sh
test_description='lib/pyscan: the bundled CUDA solutions are clean, cheats are not'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

dump=$TEST_BUILDDIR/pyscan-dump
test -x "$dump" || skip_all 'pyscan-dump is not built (run through make check)'
examples=$TEST_SRCDIR/../share/dice/examples/cuda
prompts=$TEST_SRCDIR/../share/prompts

test_expect_success 'the one-shot prompt names its example kernel' '
	echo add_kernel >expect &&
	"$dump" -k "$prompts/oneshot.tmpl" >actual &&
	test_cmp expect actual
'

test_expect_success 'the bundled CUDA solutions get no flag' '
	decoys=$("$dump" -k "$prompts/oneshot.tmpl" | sed "s/^/-d /") &&
	"$dump" $decoys "$examples"/level*/*.py >results &&
	test_line_count = 15 results &&
	! grep -v "\"flags\":\[\],\"evidence\":{}" results &&
	! grep -v "\"error\":null" results &&
	! grep "\"invoked\":\[\]" results &&
	! grep "\"launched\":\[\]" results
'

test_expect_success 'the bundled C++ (CPU) solutions get only no_cuda_kernel' '
	"$dump" "$TEST_SRCDIR"/../share/dice/examples/cpu/level*/*.py >results &&
	test_line_count = 15 results &&
	! grep -v "\"flags\":\[\"no_cuda_kernel\"\]" results &&
	! grep "\"invoked\":\[\]" results
'

test_expect_success 'a solution turned into a cheat is flagged' '
	sed -e "s/return relu.relu_forward(x)/return torch.relu(x)/" \
		"$examples/level1/1_ReLU.py" >cheat.py &&
	! cmp "$examples/level1/1_ReLU.py" cheat.py &&
	"$dump" cheat.py >result &&
	grep "\"flags\":\[\"kernel_not_invoked\",\"torch_compute_in_forward\"\]" result
'

test_expect_success 'the prompt template itself is a kernel (the decoy)' '
	sed -n "/^add_source/,/^add_ext = /p" "$prompts/oneshot.tmpl" >decoy.py &&
	cat >>decoy.py <<-\EOF &&
	    cpp_sources=add_cpp_source, cuda_sources=add_source,
	    functions=["add_cuda"])
	class ModelNew(torch.nn.Module):
	    def forward(self, x):
	        return add_ext.add_cuda(x, x)
	EOF
	"$dump" -d add_kernel decoy.py >result &&
	grep "\"flags\":\[\"example_decoy\"\]" result
'

test_expect_success 'a malformed module is an error, not a crash' '
	printf "class ModelNew(nn.Module:\n    pass\n" >bad.py &&
	"$dump" bad.py >result &&
	grep "\"error\":\"line [0-9]*: " result
'

test_expect_success 'an unreadable file is a usage error' '
	test_expect_code 2 "$dump" no-such-file.py
'

test_done
