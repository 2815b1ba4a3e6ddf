// The one CUDA extension the GPU corpus builds (once).
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

torch::Tensor relu_cuda(torch::Tensor x);
torch::Tensor relu_inplace_cuda(torch::Tensor x);
torch::Tensor gram_cuda(torch::Tensor x);

__global__ void relu_kernel(const float *in, float *out, long n) {
  long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] > 0 ? in[i] : 0.0f;
}

__global__ void gram_kernel(const float *a, float *out, long n, long k) {
  long i = blockIdx.y * (long) blockDim.y + threadIdx.y;
  long j = blockIdx.x * (long) blockDim.x + threadIdx.x;
  if (i < n && j < n) {
    float s = 0;
    for (long l = 0; l < k; l++)
      s += a[i * k + l] * a[j * k + l];
    out[i * n + j] = s;
  }
}

torch::Tensor relu_cuda(torch::Tensor x) {
  auto xc = x.contiguous();
  auto y = torch::empty_like(xc);
  long n = xc.numel();
  relu_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      xc.data_ptr<float>(), y.data_ptr<float>(), n);
  return y;
}

torch::Tensor relu_inplace_cuda(torch::Tensor x) {
  long n = x.numel();
  relu_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      x.data_ptr<float>(), x.data_ptr<float>(), n);
  return x;
}

torch::Tensor gram_cuda(torch::Tensor x) {
  auto xc = x.contiguous();
  long n = xc.size(0), k = xc.size(1);
  auto y = torch::empty({n, n}, xc.options());
  dim3 block(16, 16), grid((n + 15) / 16, (n + 15) / 16);
  gram_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
      xc.data_ptr<float>(), y.data_ptr<float>(), n, k);
  return y;
}
