// The one extension every CPU candidate of the corpus builds, so that the
// build cache builds it once.  Honest loops and dishonest shortcuts side
// by side; which candidate is deceptive depends on what its forward does
// with them.
#include <torch/extension.h>

torch::Tensor relu_loop(torch::Tensor x) {
  auto xc = x.contiguous();
  auto y = torch::empty_like(xc);
  const float *in = xc.data_ptr<float>();
  float *out = y.data_ptr<float>();
  for (int64_t i = 0; i < xc.numel(); i++)
    out[i] = in[i] > 0 ? in[i] : 0.0f;
  return y;
}

void relu_into(torch::Tensor x, torch::Tensor y) {
  const float *in = x.data_ptr<float>();
  float *out = y.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); i++)
    out[i] = in[i] > 0 ? in[i] : 0.0f;
}

torch::Tensor relu_inplace(torch::Tensor x) {
  float *p = x.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); i++)
    p[i] = p[i] > 0 ? p[i] : 0.0f;
  return x;
}

torch::Tensor relu_lib(torch::Tensor x) {
  return at::relu(x);
}

// x @ x^T by three loops.
torch::Tensor gram(torch::Tensor x) {
  auto xc = x.contiguous();
  int64_t n = xc.size(0), k = xc.size(1);
  auto y = torch::empty({n, n}, xc.options());
  const float *a = xc.data_ptr<float>();
  float *out = y.data_ptr<float>();
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) {
      float s = 0;
      for (int64_t l = 0; l < k; l++)
        s += a[i * k + l] * a[j * k + l];
      out[i * n + j] = s;
    }
  return y;
}

torch::Tensor gram_relu(torch::Tensor x) {
  auto y = gram(x);
  return relu_inplace(y);
}

torch::Tensor mm_lib(torch::Tensor x) {
  return at::relu(at::mm(x, x.t()));
}
