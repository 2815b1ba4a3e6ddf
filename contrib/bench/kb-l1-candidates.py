#!/usr/bin/env python3
"""kb-l1-candidates.py: candidate records for KernelBench level-1
activation problems, written for dice's benchmarks.

Usage: kb-l1-candidates.py KERNELBENCH_DIR > candidates.jsonl

Each record has id ("L1/19_ReLU"), sample.index, ref (KernelBench's own
problem file, verbatim) and code: a load_inline module with one
grid-stride CUDA kernel.  Most are correct; two are wrong on purpose, so
that agreement between harnesses is measured on both verdicts:
26_GELU_ uses the tanh approximation of GELU (off by up to about 1e-4 on
KernelBench's inputs in [0, 1): near the edge of the 1e-4 tolerance), and
32_HardTanh leaves the last element unwritten.  The expected verdict is in
"expect" (correct or incorrect; GELU's depends on the tolerance).
"""

import json
import os
import sys

# name: (init parameters, CUDA expression of v (float) and the
# parameters, expected verdict)
PROBLEMS = {
    "19_ReLU": ("", "fmaxf(v, 0.0f)", "correct"),
    "20_LeakyReLU": ("float negative_slope = 0.01f",
                     "v > 0.0f ? v : v * negative_slope", "correct"),
    "21_Sigmoid": ("", "1.0f / (1.0f + expf(-v))", "correct"),
    "22_Tanh": ("", "tanhf(v)", "correct"),
    "25_Swish": ("", "v / (1.0f + expf(-v))", "correct"),
    "26_GELU_": ("", "0.5f * v * (1.0f + tanhf(0.7978845608f * "
                 "(v + 0.044715f * v * v * v)))", "tolerance"),
    "31_ELU": ("float alpha = 1.0f", "v > 0.0f ? v : alpha * (expf(v) - 1.0f)",
               "correct"),
    "32_HardTanh": ("", "fminf(fmaxf(v, -1.0f), 1.0f)", "incorrect"),
}

TEMPLATE = '''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void {fn}_kernel(const float* __restrict__ x, float* __restrict__ y,
                            int64_t n{kparams}) {{
    int64_t stride = (int64_t) gridDim.x * blockDim.x;
    for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {{
        float v = x[i];
        y[i] = {expr};
    }}
}}

torch::Tensor {fn}_forward(torch::Tensor x{hparams}) {{
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "float32 CUDA tensor");
    auto in = x.contiguous();
    auto out = torch::empty_like(in);
    const int64_t n = in.numel(){shorten};
    if (n <= 0)
        return out;
    const int threads = 256;
    const int blocks = (int) std::min<int64_t>((n + threads - 1) / threads, 65535);
    {fn}_kernel<<<blocks, threads>>>(in.data_ptr<float>(), out.data_ptr<float>(), n{kargs});
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "{fn}_kernel launch failed");
    return out;
}}
"""

cpp_source = "torch::Tensor {fn}_forward(torch::Tensor x{hparams});"

ext = load_inline(name="kb_l1_{fn}", cpp_sources=cpp_source,
                  cuda_sources=cuda_source, functions=["{fn}_forward"],
                  verbose=False)


class ModelNew(nn.Module):
    def __init__(self{pyparams}):
        super().__init__()
{pyinit}
    def forward(self, x):
        return ext.{fn}_forward(x{pyargs})
'''


def candidate(name, params, expr, verdict):
    fn = name.split("_", 1)[1].strip("_").lower()
    names = [p.split()[1] for p in filter(None, [params])]
    defaults = [p.split("=")[1].strip().rstrip("f") for p in filter(None, [params])]
    return TEMPLATE.format(
        fn=fn, expr=expr,
        kparams="".join(", float " + n for n in names),
        hparams="".join(", double " + n for n in names),
        kargs="".join(", (float) " + n for n in names),
        shorten=" - 1" if verdict == "incorrect" else "",
        pyparams="".join(", %s=%s" % (n, d) for n, d in zip(names, defaults)),
        pyinit="".join("        self.%s = %s\n" % (n, n) for n in names),
        pyargs="".join(", self." + n for n in names))


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = sys.argv[1]
    if os.path.isdir(os.path.join(root, "KernelBench")):
        root = os.path.join(root, "KernelBench")
    for name, (params, expr, verdict) in PROBLEMS.items():
        path = os.path.join(root, "level1", name + ".py")
        with open(path, encoding="utf-8") as f:
            ref = f.read()
        print(json.dumps({"id": "L1/" + name, "sample": {"index": 0},
                          "expect": verdict, "ref": ref,
                          "code": candidate(name, params, expr, verdict)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
