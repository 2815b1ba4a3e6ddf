#!/bin/sh
test_description='the CUDA split: what it cuts, how launches become stub calls, what it declines'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

"${DICE_PYTHON:-python3}" -c 'import sys' 2>/dev/null || skip_all 'no Python'
show () { "${DICE_PYTHON:-python3}" "$TEST_SRCDIR/cudasplit-show.py" "$@"; }
EXAMPLES=$DICE_DATADIR/examples/cuda
NVCC=$(command -v nvcc || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
test -n "$NVCC" && test_set_prereq NVCC

# unsure NAME REASON-PATTERN: the source in NAME.cu is declined, saying why.
unsure () {
	show "$1.cu" >out && grep "^unsure: .*$2" out
}

test_expect_success 'every bundled CUDA solution splits; the device part names no torch' '
	for f in "$EXAMPLES"/level*/*.py; do
		show "$f" >out && grep "^split [a-z]" out || { cat out; return 1; }
		b=$(basename "$f")
		! grep -E "torch|ATen|c10" "$b.device.cu" || return 1
		! grep -E "__global__|<<<" "$b.host.cpp" || return 1
		for k in $(sed "s/^split //" out); do
			grep "^void dice_split_launch_$k(dim3" "$b.device.cu" &&
			grep "^void dice_split_launch_$k(dim3.*);\$" "$b.host.cpp" || return 1
		done
	done
'

cat >launch.cu <<'EOF_CU'
#include <torch/extension.h>
__global__ void k(const float* __restrict__ x, float* y, int n) { y[0] = x[0] + n; }
__global__ void none() {}
torch::Tensor f(torch::Tensor x) {
    auto y = torch::empty_like(x);
    cudaStream_t s = 0;
    k<<<dim3(1, 2), 32>>>(x.data_ptr<float>(), y.data_ptr<float>(), (int) x.numel());
    k<<<1, 32, 64>>>(x.data_ptr<float>(), y.data_ptr<float>(), 3);
    k<<<(n + 255) / 256, 256, 0, s>>>(x.data_ptr<float>(), y.data_ptr<float>(), f2(1, 2));
    auto launch = [&]() { none<<<1, 1>>>(); };
    launch();
    TORCH_CHECK(true, "k<<<1, 1>>>() in a string is text");
    return y;  // k<<<in a comment>>>
}
EOF_CU
test_expect_success 'each launch form becomes a stub call with the same configuration' '
	show launch.cu >out &&
	echo "split k none" >expect && test_cmp expect out &&
	grep -F "dice_split_launch_k(dim3(1, 2), 32, 0, 0, x.data_ptr<float>(), y.data_ptr<float>(), (int) x.numel());" launch.cu.host.cpp &&
	grep -F "dice_split_launch_k(1, 32, 64, 0, x.data_ptr<float>(), y.data_ptr<float>(), 3);" launch.cu.host.cpp &&
	grep -F "dice_split_launch_k((n + 255) / 256, 256, 0, s, x.data_ptr<float>(), y.data_ptr<float>(), f2(1, 2));" launch.cu.host.cpp &&
	grep -F "dice_split_launch_none(1, 1, 0, 0);" launch.cu.host.cpp &&
	grep -F "\"k<<<1, 1>>>() in a string is text\"" launch.cu.host.cpp &&
	grep -F "// k<<<in a comment>>>" launch.cu.host.cpp &&
	grep -F "k<<<dice_grid_, dice_block_, dice_shmem_, dice_stream_>>>(x, y, n);" launch.cu.device.cu &&
	grep -F "const float* __restrict__ x, float* y, int n) {" launch.cu.device.cu &&
	grep -F "none<<<dice_grid_, dice_block_, dice_shmem_, dice_stream_>>>();" launch.cu.device.cu
'

cat >dispatch.cu <<'EOF_CU'
#include <torch/extension.h>
#define BLOCK 128
template <typename scalar_t, int WIDTH>
__global__ void scale_kernel(const scalar_t* in, scalar_t* out, scalar_t a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * a;
}
torch::Tensor scale(torch::Tensor x, double a) {
    auto y = torch::empty_like(x);
    AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "scale", ([&] {
        scale_kernel<scalar_t, BLOCK><<<1, BLOCK>>>(x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(),
                                                    (scalar_t) a, (int) x.numel());
    }));
    return y;
}
EOF_CU
test_expect_success 'a template kernel under AT_DISPATCH_FLOATING_TYPES: a template stub, instantiated for float and double' '
	show dispatch.cu >out &&
	echo "split scale_kernel" >expect && test_cmp expect out &&
	grep -F "dice_split_launch_scale_kernel<scalar_t, BLOCK>(1, BLOCK, 0, 0, x.data_ptr<scalar_t>()" dispatch.cu.host.cpp &&
	grep -F "template void dice_split_launch_scale_kernel<float, BLOCK>(dim3 dice_grid_, dim3 dice_block_, size_t dice_shmem_, cudaStream_t dice_stream_, const float* in, float* out, float a, int n);" dispatch.cu.device.cu &&
	grep -F "template void dice_split_launch_scale_kernel<double, BLOCK>(" dispatch.cu.device.cu &&
	grep -F "scale_kernel<scalar_t, WIDTH><<<dice_grid_" dispatch.cu.device.cu
'

cat >externc.cu <<'EOF_CU'
#include <torch/extension.h>
extern "C" __global__ void relu(float* x, int n) { if (x[0] < 0) x[0] = 0; }
torch::Tensor f(torch::Tensor x) {
    int blocks = std::min(4, 8);
    relu<<<blocks, 32>>>(x.data_ptr<float>(), 1);
    return x;
}
EOF_CU
test_expect_success 'look-alikes that split: a lone extern "C" kernel, std::min in host code' '
	show externc.cu >out &&
	echo "split relu" >expect && test_cmp expect out
'

# The declined: each makes the host part mean something else, or names
# what only one part has.
cat >namespace.cu <<'EOF_CU'
namespace { __global__ void k(float* x) { x[0] = 1; } }
void f(float* x) { k<<<1, 1>>>(x); }
EOF_CU
cat >externblock.cu <<'EOF_CU'
extern "C" {
__global__ void k(float* x) { x[0] = 1; }
}
void f(float* x) { k<<<1, 1>>>(x); }
EOF_CU
cat >cudacc.cu <<'EOF_CU'
__global__ void k(float* x) { x[0] = 1; }
void f(float* x) {
#ifdef __CUDACC__
    k<<<1, 1>>>(x);
#endif
}
EOF_CU
cat >attribute.cu <<'EOF_CU'
__global__ void k(float* x) { extern __shared__ float s[]; x[0] = s[0]; }
void f(float* x) {
    cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536);
    k<<<1, 1, 65536>>>(x);
}
EOF_CU
cat >pointer.cu <<'EOF_CU'
__global__ void k(float* x) { x[0] = 1; }
void f(float* x) {
    void* args[] = {&x};
    cudaLaunchKernel((void*) k, 1, 1, args, 0, 0);
}
EOF_CU
cat >symbol.cu <<'EOF_CU'
__constant__ float weights[16];
__global__ void k(float* x) { x[0] = weights[0]; }
void f(float* x, const float* w) {
    cudaMemcpyToSymbol(weights, w, 16 * sizeof(float));
    k<<<1, 1>>>(x);
}
EOF_CU
cat >half.cu <<'EOF_CU'
#include <torch/extension.h>
template <typename scalar_t> __global__ void k(scalar_t* x) { x[0] = x[1]; }
void f(torch::Tensor x) {
    AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "k", ([&] {
        k<scalar_t><<<1, 1>>>(x.data_ptr<scalar_t>());
    }));
}
EOF_CU
cat >local.cu <<'EOF_CU'
#include "helpers.cuh"
__global__ void k(float* x) { x[0] = 1; }
void f(float* x) { k<<<1, 1>>>(x); }
EOF_CU
cat >unnamed.cu <<'EOF_CU'
__global__ void k(float* x, int) { x[0] = 1; }
void f(float* x) { k<<<1, 1>>>(x, 0); }
EOF_CU
cat >else.cu <<'EOF_CU'
__global__ void k(float* x) { x[0] = 1; }
void f(float* x) {
#if FAST
    if (x) {
#else
    if (!x) {
#endif
        k<<<1, 1>>>(x);
    }
}
EOF_CU
cat >minmax.cu <<'EOF_CU'
__global__ void k(float* x) { x[0] = 1; }
void f(float* x, int n) { k<<<min(n, 1024), 1>>>(x); }
EOF_CU
cat >local-targ.cu <<'EOF_CU'
template <int B> __global__ void k(float* x) { x[0] = B; }
void f(float* x) {
    constexpr int block_size = 256;
    k<block_size><<<1, block_size>>>(x);
}
EOF_CU
cat >twice.cu <<'EOF_CU'
__global__ void k(float* x) { x[0] = 1; }
__global__ void k(double* x) { x[0] = 1; }
void f(float* x) { k<<<1, 1>>>(x); }
EOF_CU

test_expect_success 'declined: namespaces and extern blocks' '
	unsure namespace "namespace or extern block" &&
	unsure externblock "namespace or extern block"
'
test_expect_success 'declined: code that asks which compiler it is under' '
	unsure cudacc "which compiler"
'
test_expect_success 'declined: a kernel named other than in a launch (attribute, pointer)' '
	unsure attribute "names the kernel k outside a launch" &&
	unsure pointer "names the kernel k outside a launch"
'
test_expect_success 'declined: host code that names a device symbol' '
	unsure symbol "device symbol weights"
'
test_expect_success 'declined: scalar types the device part cannot name without torch' '
	unsure half "AT_DISPATCH_FLOATING_TYPES_AND_HALF"
'
test_expect_success 'declined: local includes, unnamed parameters, #else inside a definition' '
	unsure local "local include" &&
	unsure unnamed "unnamed kernel parameter" &&
	unsure else "preprocessor line that cuts"
'
test_expect_success 'declined: CUDA min/max in host code, a template argument only the host names, two kernels of one name' '
	unsure minmax "CUDA.s min" &&
	unsure local-targ "block_size" &&
	unsure twice "two kernels named k"
'

test_expect_success 'a bound function that cpp_sources do not declare keeps the plain build (it fails there)' '
	PYTHONPATH=$DICE_DATADIR/python "${DICE_PYTHON:-python3}" -c "
from dice_harness import fastbuild
cases = [
    ({\"cpp_sources\": [\"\"], \"functions\": [\"forward\"]}, \"forward\"),
    ({\"cpp_sources\": [\"torch::Tensor forward(torch::Tensor x);\"], \"functions\": [\"forward\"]}, None),
    ({\"cpp_sources\": [\"torch::Tensor forward_all(torch::Tensor x);\"], \"functions\": {\"forward\": \"doc\"}}, \"forward\"),
    ({\"cpp_sources\": [\"void f (int);\"], \"functions\": None}, None),
]
for parts, expect in cases:
    got = fastbuild.undeclared_binding(parts)
    assert got == expect, (parts, got)
print(\"ok\")" >out &&
	echo ok >expect && test_cmp expect out
'

test_expect_success 'flags: empty ones (KernelBench passes extra_cflags=[""]) and device-only ones keep the split; host-reaching ones refuse it' '
	PYTHONPATH=$DICE_DATADIR/python "${DICE_PYTHON:-python3}" -c "
from dice_harness import fastbuild
fastbuild._split_refusal.supported = True   # torch 1.13 lacks no_implicit_headers
keep = [
    {\"extra_cflags\": [\"\"], \"extra_ldflags\": [\"\"]},
    {\"extra_cflags\": [\" \", \"-O3\"], \"extra_cuda_cflags\": [\"\", \"-O3\", \"--use_fast_math\"]},
    {\"extra_cuda_cflags\": [\"-Xptxas\", \"-v\", \"-arch=sm_90\"]},
]
refuse = [
    ({\"extra_cflags\": [\"\", \"-DFOO\"]}, \"-DFOO\"),
    ({\"extra_cuda_cflags\": [\"\", \"-std=c++20\"]}, \"-std=c++20\"),
    ({\"extra_cuda_cflags\": [\"-I/opt/x\"]}, \"-I/opt/x\"),
]
for parts in keep:
    assert fastbuild._split_refusal(parts) is None, parts
for parts, flag in refuse:
    why = fastbuild._split_refusal(parts)
    assert why and flag in why, (parts, why)
print(\"ok\")" >out &&
	echo ok >expect && test_cmp expect out
'

test_expect_success NVCC 'every bundled device part compiles with CUDA headers alone' '
	for f in "$EXAMPLES"/level*/*.py dispatch.cu launch.cu; do
		show "$f" >out || return 1
		b=$(basename "$f")
		"$NVCC" -std=c++17 -c -o "$b.o" "$b.device.cu" || return 1
	done
'

test_done
