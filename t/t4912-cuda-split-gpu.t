#!/bin/sh
test_description='the CUDA split on a GPU: the same verdicts as the plain build, its fallbacks'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

test_have_prereq JQ || skip_all 'jq is needed'
test_have_prereq HARNESS || skip_all 'needs torch and the harness'
test_have_prereq GPU || skip_all 'needs a GPU'
EXAMPLES=$DICE_DATADIR/examples/cuda
PROBLEMS=$DICE_DATADIR/problems
check () { dice-check -q --device cuda -j 4 "$@"; }

# bundled REL [CODE]: a record of the bundled CUDA solution REL (or CODE)
# with its problem.
bundled () {
	code=${2:-$(cat "$EXAMPLES/$1")}
	jq -nc --arg id "$1" --arg code "$code" --rawfile ref "$PROBLEMS/$1" \
		"{id: \$id, sample: {index: 0}, ref: \$ref, code: \$code}"
}
RELU=$(cat "$EXAMPLES/level1/1_ReLU.py")

# ReLU rewritten: the kernel a template dispatched over float and double.
DISPATCH=$(printf "%s\n" "$RELU" | "$DICE_PYTHON" -c '
import sys
s = sys.stdin.read()
s = s.replace("__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y",
              "template <typename scalar_t>\n__global__ void relu_kernel(const scalar_t* __restrict__ x, scalar_t* __restrict__ y")
s = s.replace("y[i] = fmaxf(x[i], 0.0f);", "y[i] = x[i] > (scalar_t) 0 ? x[i] : (scalar_t) 0;")
s = s.replace("relu_kernel<<<blocks, threads>>>(in.data_ptr<float>(), out.data_ptr<float>(), n);",
              "AT_DISPATCH_FLOATING_TYPES(in.scalar_type(), \"relu\", ([&] {\n"
              "        relu_kernel<scalar_t><<<blocks, threads>>>(in.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), n);\n"
              "    }));")
s = s.replace("dice_cuda_l1_relu", "dice_split_dispatch")
print(s)')
# ReLU whose kernel does not compile: the plain build must say so.
BROKEN=$(printf "%s\n" "$RELU" | sed "s/fmaxf(x\[i\], 0.0f)/fmaxf(x[i], undeclared_in_kernel)/; s/dice_cuda_l1_relu/dice_split_broken/")
# ReLU that sets a kernel attribute: the splitter declines it.
DECLINED=$(printf "%s\n" "$RELU" | sed "s/const int threads = 256;/const int threads = 256; cudaFuncSetAttribute(relu_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 0);/; s/dice_cuda_l1_relu/dice_split_declined/")

test_expect_success 'a template kernel dispatched over float and double builds split and is correct (and makes the shared header)' '
	bundled level1/1_ReLU.py "$DISPATCH" >dispatch.jsonl &&
	check --cache "$PWD/fast" dispatch.jsonl >out &&
	jq -r ".check | [.status, .compile.builds[0].path] | @tsv" out >actual &&
	printf "correct\tsplit\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'bundled solutions: split and plain give the same verdicts and errors' '
	{ bundled level1/1_ReLU.py && bundled level2/1_Linear_ReLU.py &&
	  bundled level3/1_MLP.py; } >bundled.jsonl &&
	check --cache "$PWD/fast" bundled.jsonl >fast.out &&
	DICE_FASTBUILD=0 check --cache "$PWD/plain" bundled.jsonl >plain.out &&
	jq -r ".check.compile.builds[].path" fast.out | sort -u >paths &&
	echo split >expect && test_cmp expect paths &&
	jq -r ".check.compile.builds[].path" plain.out | sort -u >paths &&
	echo plain >expect && test_cmp expect paths &&
	view=".check | [.id, .status, .passed, .trials, .max_abs_err, .max_rel_err] | @json" &&
	jq -r "$view" fast.out >fast.view &&
	jq -r "$view" plain.out >plain.view &&
	test_cmp plain.view fast.view &&
	test "$(grep -c correct fast.view)" = 3
'

test_expect_success 'with the shared header made, each split build is several times faster than plain' '
	jq -s "[.[].check.compile.builds[0].pch_ms] | max == 0" fast.out | grep -x true &&
	fast=$(jq -s "[.[].check.compile.ms] | sort | .[1]" fast.out) &&
	plain=$(jq -s "[.[].check.compile.ms] | sort | .[1]" plain.out) &&
	echo "median compile ms: split $fast, plain $plain" &&
	jq -n "$plain / $fast > 3" | grep true
'

test_expect_success 'a kernel that does not compile: the plain build decides, with nvcc s own message' '
	bundled level1/1_ReLU.py "$BROKEN" >broken.jsonl &&
	check --cache "$PWD/fast" broken.jsonl >out &&
	jq -r ".check | [.status, .compile.builds[0].path, .compile.builds[0].plain_because] | @tsv" out >actual &&
	printf "compile_error\tplain\tthe split build failed\n" >expect &&
	test_cmp expect actual &&
	jq -r .check.compile.log out | grep "cuda.cu(.*undeclared_in_kernel"
'

test_expect_success 'a source the splitter declines builds plain, and the record says why' '
	bundled level1/1_ReLU.py "$DECLINED" >declined.jsonl &&
	check --cache "$PWD/fast" declined.jsonl >out &&
	jq -r ".check | [.status, .compile.builds[0].path] | @tsv" out >actual &&
	printf "correct\tplain\n" >expect &&
	test_cmp expect actual &&
	jq -r ".check.compile.builds[0].plain_because" out | grep "names the kernel relu_kernel outside a launch"
'

test_done
