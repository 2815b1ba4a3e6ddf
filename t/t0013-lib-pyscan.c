/* t0013-lib-pyscan: unit tests of the robust check's static scan: for
   each flag, candidates that must get it and honest look-alikes that must
   not; layouts that trip naive scanners; malformed modules.  */
#include "system.h"

#include "pyscan.h"
#include "tap.h"

#define IMPORTS \
  "import torch\n" \
  "import torch.nn as nn\n" \
  "from torch.utils.cpp_extension import load_inline\n"

#define KERNEL \
  "__global__ void relu_kernel(const float* x, float* y, int n) {\n" \
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n" \
  "  if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;\n" \
  "}\n"

#define WRAPPER \
  "torch::Tensor relu_forward(torch::Tensor x) {\n" \
  "  auto y = torch::empty_like(x);\n" \
  "  int n = x.numel();\n" \
  "  relu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(),\n" \
  "      y.data_ptr<float>(), n);\n" \
  "  return y;\n" \
  "}\n"

#define SRC "src = r\"\"\"\n#include <torch/extension.h>\n" KERNEL WRAPPER \
  "\"\"\"\n"
#define CPP "cpp = 'torch::Tensor relu_forward(torch::Tensor x);'\n"
#define LOAD \
  "ext = load_inline(name='relu', cpp_sources=cpp, cuda_sources=src,\n" \
  "                  functions=['relu_forward'], verbose=False)\n"
#define CLASS \
  "class ModelNew(nn.Module):\n" \
  "    def __init__(self):\n" \
  "        super().__init__()\n" \
  "\n" \
  "    def forward(self, x):\n"
#define EXT IMPORTS SRC CPP LOAD
#define HONEST EXT CLASS "        return ext.relu_forward(x)\n"

/* Source with its own wrapper body W (a C++ statement list).  */
#define SRC_WITH(w) \
  "src = r\"\"\"\n" KERNEL \
  "torch::Tensor relu_forward(torch::Tensor x) {\n" \
  "  auto y = torch::empty_like(x);\n  int n = x.numel();\n" w \
  "  return y;\n}\n\"\"\"\n"
#define EXT_WITH(w) IMPORTS SRC_WITH (w) CPP LOAD

static const char *const add_decoy[] = { "add_kernel", NULL };

/* The flags of R, space-separated, for messages.  */
static void
flag_string (json_t *r, char *buf, size_t size)
{
  size_t i;
  json_t *f;

  buf[0] = '\0';
  json_array_foreach (json_object_get (r, "flags"), i, f)
    {
      size_t n = strlen (buf);

      snprintf (buf + n, size - n, "%s%s", n ? " " : "", json_string_value (f));
    }
}

static bool
has_flag (json_t *r, const char *flag)
{
  size_t i;
  json_t *f;

  json_array_foreach (json_object_get (r, "flags"), i, f)
    if (strcmp (json_string_value (f), flag) == 0)
      return true;
  return false;
}

/* The shape of every result, whatever the input.  */
static void
check_shape (json_t *r, const char *name)
{
  static const char *const arrays[] = {
    "flags", "kernels", "launched", "exported", "invoked"
  };
  json_t *flags = json_object_get (r, "flags"), *ev;
  const char *prev = "";
  bool good = true;
  size_t i;
  json_t *f;

  for (size_t k = 0; k < DICE_ARRAY_SIZE (arrays); k++)
    good &= json_is_array (json_object_get (r, arrays[k]));
  good &= json_is_object (ev = json_object_get (r, "evidence"));
  good &= json_is_null (json_object_get (r, "error"))
    || json_is_string (json_object_get (r, "error"));
  good &= json_object_size (r) == 7;
  json_array_foreach (flags, i, f)
    {
      const char *s = json_string_value (f), *e;

      /* Sorted and unique, each with a "line N: " reason.  */
      good &= s && strcmp (prev, s) < 0;
      e = json_string_value (json_object_get (ev, s));
      good &= e && strncmp (e, "line ", 5) == 0 && strstr (e, ": ");
      prev = s ? s : "";
    }
  good &= json_object_size (ev) == json_array_size (flags);
  ok (good, "%s: result has the documented shape", name);
}

/* Scan CODE; it must have every flag in HAVE and none in LACK (space
   separated lists).  */
static void
check (const char *name, const char *code, const char *const *decoys,
       const char *have, const char *lack)
{
  json_t *r = dice_scan (code, strlen (code), decoys);
  char flags[512], list[512];

  if (!ok (r != NULL, "%s: scanned", name))
    return;
  check_shape (r, name);
  flag_string (r, flags, sizeof flags);
  for (int pass = 0; pass < 2; pass++)
    {
      const char *names = pass == 0 ? have : lack;

      if (names == NULL)
        continue;
      snprintf (list, sizeof list, "%s", names);
      for (char *w = strtok (list, " "); w; w = strtok (NULL, " "))
        if (!ok (has_flag (r, w) == (pass == 0), "%s: %s %s", name,
                 pass == 0 ? "has" : "lacks", w))
          printf ("#   flags: %s\n#   error: %s\n", flags,
                  json_string_value (json_object_get (r, "error")));
    }
  json_decref (r);
}

/* Every flag that implies deception: honest candidates get none.  */
#define ALL \
  "cached_result dynamic_exec example_decoy inherits_reference " \
  "introspection kernel_not_invoked kernel_not_launched lazy_output " \
  "library_call no_cuda_kernel precision_downgrade side_stream " \
  "thread_or_process timer_patch torch_compute_in_forward try_fallback"

static void
test_honest (void)
{
  check ("honest", HONEST, add_decoy, NULL, ALL);
  check ("honest: reshapes around the kernel", EXT CLASS
         "        b = x.size(0)\n"
         "        y = ext.relu_forward(x.contiguous().view(b, -1))\n"
         "        return y.reshape(x.shape).permute(0, 1).flatten()\n",
         NULL, NULL, ALL);
  check ("honest: parameters from __init__",
         IMPORTS "import torch.nn.functional as F\n" SRC CPP LOAD
         "class ModelNew(nn.Module):\n"
         "    def __init__(self, n):\n"
         "        super().__init__()\n"
         "        self.w = nn.Parameter(torch.randn(n, n))\n"
         "        self.lin = nn.Linear(n, n)\n"
         "    def reference(self, x):\n"
         "        return F.relu(self.lin(x))\n"
         "    def forward(self, x):\n"
         "        w = self.lin.weight\n"
         "        out = torch.empty_like(x)\n"
         "        return ext.relu_forward(x + 0 * w.sum())\n",
         NULL, NULL,
         "kernel_not_invoked kernel_not_launched inherits_reference "
         "cached_result try_fallback library_call");
  check ("honest: examples kernel name only in a comment", IMPORTS
         "src = r'''\n// like add_kernel in the example\n" KERNEL WRAPPER
         "'''\n" CPP LOAD CLASS "        return ext.relu_forward(x)\n",
         add_decoy, NULL, "example_decoy");
}

static void
test_no_kernel (void)
{
  check ("torch only", IMPORTS CLASS "        return torch.relu(x)\n",
         NULL, "no_cuda_kernel kernel_not_invoked torch_compute_in_forward",
         NULL);
  check ("__global__ only in a C comment", IMPORTS
         "src = '// __global__ void k(float* x) {}\\n"
         "torch::Tensor relu_forward(torch::Tensor x) { return x; }'\n"
         CPP LOAD CLASS "        return ext.relu_forward(x)\n",
         NULL, "no_cuda_kernel", "kernel_not_invoked kernel_not_launched");
  check ("__global__ only in a Python comment and a docstring", IMPORTS
         "'''__global__ void doc_kernel(float* x) { }'''\n"
         "# __global__ void fake_kernel(float* x) { }\n"
         CLASS "        return x\n", NULL, "no_cuda_kernel", NULL);
  check ("kernel in an f-string", IMPORTS
         "B = 256\n"
         "src = f\"\"\"\n"
         "__global__ void relu_kernel(float* x) {{ x[0] = {B}; }}\n"
         "torch::Tensor relu_forward(torch::Tensor x) {{\n"
         "  relu_kernel<<<1, {B}>>>(x.data_ptr<float>());\n"
         "  return x;\n}}\n\"\"\"\n"
         CPP LOAD CLASS "        return ext.relu_forward(x)\n",
         NULL, NULL, ALL);
  check ("kernel in a .format() string", IMPORTS
         "src = '''__global__ void relu_kernel(float* x) {{ x[0] = {b}; }}\n"
         "torch::Tensor relu_forward(torch::Tensor x) {{\n"
         "  relu_kernel<<<1, {b}>>>(x.data_ptr<float>());\n"
         "  return x;\n}}\n'''.format(b=256)\n"
         CPP LOAD CLASS "        return ext.relu_forward(x)\n",
         NULL, NULL, ALL);
}

static void
test_not_invoked (void)
{
  check ("extension built, forward uses torch", EXT CLASS
         "        return torch.relu(x)\n", NULL,
         "kernel_not_invoked torch_compute_in_forward", "no_cuda_kernel");
  check ("extension called only from an unused method", EXT
         "class ModelNew(nn.Module):\n"
         "    def __init__(self):\n"
         "        super().__init__()\n"
         "        self.ext = ext\n"
         "    def unused(self, x):\n"
         "        return self.ext.relu_forward(x)\n"
         "    def forward(self, x):\n"
         "        return x.clamp(min=0)\n",
         NULL, "kernel_not_invoked", NULL);
  check ("no load_inline at all", IMPORTS "src = r'''" KERNEL "'''\n"
         CLASS "        return x\n", NULL, "kernel_not_invoked",
         "no_cuda_kernel");
  check ("through self.ext", EXT
         "class ModelNew(nn.Module):\n"
         "    def __init__(self):\n"
         "        super().__init__()\n"
         "        self.ext = ext\n"
         "    def forward(self, x):\n"
         "        return self.ext.relu_forward(x)\n", NULL, NULL, ALL);
  check ("through a helper function and a method", EXT
         "def run(x):\n    return ext.relu_forward(x)\n"
         "class ModelNew(nn.Module):\n"
         "    def _impl(self, x):\n"
         "        return run(x)\n"
         "    def forward(self, x):\n"
         "        return self._impl(x)\n", NULL, NULL, ALL);
  check ("through a cached getter", IMPORTS SRC CPP
         "def get_ext():\n"
         "    return load_inline(name='relu', cpp_sources=cpp,\n"
         "                       cuda_sources=src, functions=['relu_forward'])\n"
         CLASS "        return get_ext().relu_forward(x)\n", NULL, NULL,
         "kernel_not_invoked kernel_not_launched");
  check ("through a module built in __init__", IMPORTS SRC CPP
         "class ModelNew(nn.Module):\n"
         "    def __init__(self):\n"
         "        super().__init__()\n"
         "        self.mod = load_inline(name='r', cpp_sources=cpp,\n"
         "            cuda_sources=src, functions=['relu_forward'])\n"
         "    def forward(self, x):\n"
         "        return self.mod.relu_forward(x)\n", NULL, NULL,
         "kernel_not_invoked kernel_not_launched");
  check ("through a function alias and getattr", EXT
         "relu = ext.relu_forward\n"
         "class ModelNew(nn.Module):\n"
         "    def __init__(self):\n"
         "        super().__init__()\n"
         "        self.fn = getattr(ext, 'relu_forward')\n"
         "    def forward(self, x):\n"
         "        y = relu(x)\n"
         "        return getattr(ext, \"relu_forward\")(y)\n", NULL, NULL,
         "kernel_not_invoked kernel_not_launched");
  check ("through a line continuation", IMPORTS SRC CPP
         "mod = \\\n    load_inline('relu', cpp, src,\n"
         "                functions=('relu_forward',))\n"
         CLASS "        return mod.relu_forward(x)\n", NULL, NULL,
         "kernel_not_invoked kernel_not_launched");
  check ("through a submodule", EXT
         "class Block(nn.Module):\n"
         "    def forward(self, x):\n"
         "        return ext.relu_forward(x)\n"
         "class ModelNew(nn.Module):\n"
         "    def __init__(self):\n"
         "        super().__init__()\n"
         "        self.block = Block()\n"
         "    def forward(self, x):\n"
         "        return self.block(x)\n", NULL, NULL,
         "kernel_not_invoked kernel_not_launched");
}

static void
test_not_launched (void)
{
  check ("wrapper hands the work to torch",
         EXT_WITH ("  y = torch::relu(x);\n") CLASS
         "        return ext.relu_forward(x)\n", NULL,
         "kernel_not_launched library_call", "kernel_not_invoked");
  check ("wrapper loops on the host",
         EXT_WITH ("  auto p = x.data_ptr<float>();\n"
                   "  for (int i = 0; i < n; i++) y[i] = p[i];\n") CLASS
         "        return ext.relu_forward(x)\n", NULL,
         "kernel_not_launched", "library_call");
  check ("wrapper launches through a helper", IMPORTS
         "src = r'''\n" KERNEL
         "static void launch(const float* x, float* y, int n) {\n"
         "  relu_kernel<<<(n + 255) / 256, 256>>>(x, y, n);\n}\n"
         "torch::Tensor relu_forward(torch::Tensor x) {\n"
         "  auto y = torch::empty_like(x);\n"
         "  launch(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());\n"
         "  return y;\n}\n'''\n" CPP LOAD CLASS
         "        return ext.relu_forward(x)\n", NULL, NULL, ALL);
  check ("PYBIND11 exports under another name", IMPORTS
         "src = r'''\n" KERNEL
         "torch::Tensor relu_impl(torch::Tensor x) {\n"
         "  auto y = torch::empty_like(x);\n"
         "  relu_kernel<<<1, 256, 0, at::cuda::getCurrentCUDAStream()>>>(\n"
         "      x.data_ptr<float>(), y.data_ptr<float>(), x.numel());\n"
         "  return y;\n}\n"
         "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
         "  m.def(\"relu\", &relu_impl, \"relu (CUDA)\");\n}\n'''\n"
         "ext = load_inline('relu', cpp_sources='', cuda_sources=src)\n"
         CLASS "        return ext.relu(x)\n", NULL, NULL, ALL);
  check ("PYBIND11 export of a host-only function", IMPORTS
         "src = r'''\n" KERNEL
         "torch::Tensor relu_impl(torch::Tensor x) { return x; }\n"
         "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
         "  m.def(\"relu\", &relu_impl);\n}\n'''\n"
         "ext = load_inline('relu', cpp_sources='', cuda_sources=src)\n"
         CLASS "        return ext.relu(x)\n", NULL, "kernel_not_launched",
         "kernel_not_invoked");
}

static void
test_decoy (void)
{
  static const char *const two[] = { "mul_kernel", "add_kernel", NULL };

  check ("example kernel left in", IMPORTS
         "src = r'''\n"
         "__global__ void add_kernel(const float* a, const float* b,\n"
         "                           float* out, long n) { }\n" KERNEL WRAPPER
         "'''\n" CPP LOAD CLASS "        return ext.relu_forward(x)\n",
         add_decoy, "example_decoy", NULL);
  check ("example kernel launched", IMPORTS
         "src = r'''\n"
         "__global__ void add_kernel(float* a, float* b, float* c, long n) {}\n"
         "torch::Tensor relu_forward(torch::Tensor x) {\n"
         "  add_kernel<<<1, 1>>>(0, 0, 0, 0);\n  return x;\n}\n'''\n"
         CPP LOAD CLASS "        return ext.relu_forward(x)\n",
         two, "example_decoy", "kernel_not_launched");
  check ("no decoys given", IMPORTS
         "src = r'''\n__global__ void add_kernel(float* a) { }\n'''\n"
         CLASS "        return x\n", NULL, NULL, "example_decoy");
}

static void
test_try (void)
{
  check ("try with a torch fallback", EXT CLASS
         "        try:\n"
         "            return ext.relu_forward(x)\n"
         "        except Exception:\n"
         "            return torch.relu(x)\n", NULL, "try_fallback", NULL);
  check ("one-line try in a helper", EXT
         "def run(x):\n"
         "    try: y = ext.relu_forward(x)\n"
         "    except: y = x.clamp(min=0)\n"
         "    return y\n"
         CLASS "        return run(x)\n", NULL, "try_fallback", NULL);
  check ("try that re-raises", EXT CLASS
         "        try:\n"
         "            return ext.relu_forward(x)\n"
         "        except RuntimeError as e:\n"
         "            raise RuntimeError('relu kernel failed') from e\n",
         NULL, NULL, "try_fallback");
  check ("try around the build, not the call", IMPORTS SRC CPP
         "try:\n"
         "    ext = load_inline('relu', cpp, src, functions=['relu_forward'])\n"
         "except Exception:\n"
         "    ext = None\n"
         CLASS
         "        try:\n"
         "            n = x.numel()\n"
         "        except AttributeError:\n"
         "            n = 0\n"
         "        return ext.relu_forward(x)\n", NULL, NULL,
         "try_fallback kernel_not_invoked");
}

static void
test_inherits (void)
{
  check ("ModelNew(Model)", HONEST "class Model(nn.Module):\n    pass\n",
         NULL, NULL, "inherits_reference");
  check ("ModelNew subclasses the reference", EXT
         "class ModelNew(Model):\n"
         "    def forward(self, x):\n"
         "        return ext.relu_forward(x)\n", NULL,
         "inherits_reference", NULL);
  check ("super().forward", EXT
         "class ModelNew(Base):\n"
         "    def forward(self, x):\n"
         "        return super().forward(x)\n", NULL,
         "inherits_reference kernel_not_invoked", NULL);
  check ("Model.forward called", EXT CLASS
         "        y = ext.relu_forward(x)\n"
         "        return Model.forward(self, y)\n", NULL,
         "inherits_reference", NULL);
  check ("torch.nn.Module and super().__init__", EXT
         "class ModelNew(torch.nn.Module):\n"
         "    def __init__(self):\n"
         "        super(ModelNew, self).__init__()\n"
         "    def forward(self, x):\n"
         "        return ext.relu_forward(x)\n", NULL, NULL, ALL);
}

static void
test_library (void)
{
  check ("cuBLAS in the wrapper",
         EXT_WITH ("  cublasHandle_t h; cublasCreate(&h);\n"
                   "  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, 0, 0,"
                   " 1, 0, 1, 0, 0, 1);\n"
                   "  relu_kernel<<<1, 1>>>(0, 0, 0);\n") CLASS
         "        return ext.relu_forward(x)\n", NULL, "library_call",
         "kernel_not_launched");
  check ("at::matmul in the wrapper",
         EXT_WITH ("  y = at::matmul(x, x);\n"
                   "  relu_kernel<<<1, 1>>>(0, 0, 0);\n") CLASS
         "        return ext.relu_forward(x)\n", NULL, "library_call", NULL);
  check ("torch.compile", EXT
         "class ModelNew(nn.Module):\n"
         "    def __init__(self):\n"
         "        super().__init__()\n"
         "        self.f = torch.compile(lambda x: x.relu())\n"
         "    def forward(self, x):\n"
         "        return ext.relu_forward(self.f(x))\n", NULL,
         "library_call", NULL);
  check ("torch.jit.script", HONEST "g = torch.jit.script(ModelNew())\n",
         NULL, "library_call", NULL);
  check ("allocation and streams from ATen",
         EXT_WITH ("  auto z = at::zeros({n}, x.options());\n"
                   "  auto w = torch::empty({n}, torch::kFloat32);\n"
                   "  auto s = at::cuda::getCurrentCUDAStream();\n"
                   "  relu_kernel<<<1, 256, 0, s>>>(x.data_ptr<float>(),"
                   " y.data_ptr<float>(), x.size(0));\n") CLASS
         "        return ext.relu_forward(x)\n", NULL, NULL, ALL);
  check ("cuBLAS only in a comment and a message",
         EXT_WITH ("  // faster than cublasSgemm(...) for this size\n"
                   "  /* at::matmul(x, x) would do */\n"
                   "  TORCH_CHECK(n > 0, \"cudnnConvolution(\");\n"
                   "  relu_kernel<<<1, 1>>>(0, 0, 0);\n") CLASS
         "        return ext.relu_forward(x)\n", NULL, NULL, ALL);
}

static void
test_stream (void)
{
  check ("torch.cuda.Stream in forward", EXT CLASS
         "        s = torch.cuda.Stream()\n"
         "        with torch.cuda.stream(s):\n"
         "            return ext.relu_forward(x)\n", NULL, "side_stream", NULL);
  check ("cudaStreamCreate in the wrapper",
         EXT_WITH ("  cudaStream_t s; cudaStreamCreate(&s);\n"
                   "  relu_kernel<<<1, 256, 0, s>>>(0, 0, 0);\n") CLASS
         "        return ext.relu_forward(x)\n", NULL, "side_stream", NULL);
  check ("launch on a stream from a variable",
         EXT_WITH ("  relu_kernel<<<1, 256, 0, g_stream>>>(0, 0, 0);\n")
         CLASS "        return ext.relu_forward(x)\n", NULL, "side_stream",
         NULL);
  check ("current stream from Python and C++",
         EXT_WITH ("  relu_kernel<<<1, 256, 0, "
                   "c10::cuda::getCurrentCUDAStream()>>>(0, 0, 0);\n"
                   "  relu_kernel<<<1, 256, 0, 0>>>(0, 0, 0);\n") CLASS
         "        s = torch.cuda.current_stream()\n"
         "        return ext.relu_forward(x)\n", NULL, NULL, ALL);
}

static void
test_thread (void)
{
  check ("import threading", "import threading\n" HONEST, NULL,
         "thread_or_process", NULL);
  check ("concurrent.futures in forward", "from concurrent import futures\n"
         HONEST, NULL, "thread_or_process", NULL);
  check ("std::thread in the wrapper",
         EXT_WITH ("  std::thread t([]{}); t.join();\n"
                   "  relu_kernel<<<1, 1>>>(0, 0, 0);\n") CLASS
         "        return ext.relu_forward(x)\n", NULL, "thread_or_process",
         NULL);
  check ("os.fork", "import os\n" HONEST "pid = os.fork()\n", NULL,
         "thread_or_process", NULL);
  check ("threads as words and variables",
         EXT_WITH ("  int threads = 256; // threading model: one per item\n"
                   "  relu_kernel<<<(n + threads - 1) / threads, threads>>>"
                   "(0, 0, 0);\n") CLASS
         "        num_threads = 256  # no threading here\n"
         "        return ext.relu_forward(x)\n", NULL, NULL, ALL);
}

static void
test_timer (void)
{
  check ("torch.cuda.synchronize patched", HONEST
         "torch.cuda.synchronize = lambda *a: None\n", NULL, "timer_patch",
         NULL);
  check ("time.perf_counter patched under an alias",
         "import time as _t\n" HONEST "_t.perf_counter = lambda: 0.0\n",
         NULL, "timer_patch", NULL);
  check ("Event.elapsed_time patched in __init__", EXT
         "class ModelNew(nn.Module):\n"
         "    def __init__(self):\n"
         "        super().__init__()\n"
         "        torch.cuda.Event.elapsed_time = lambda s, e: 0.001\n"
         "    def forward(self, x):\n"
         "        return ext.relu_forward(x)\n", NULL, "timer_patch", NULL);
  check ("setattr on time", "import time\n" HONEST
         "setattr(time, 'time', lambda: 0)\n", NULL, "timer_patch", NULL);
  check ("timer calls and backends settings", "import time\n" HONEST
         "torch.backends.cudnn.benchmark = True\n"
         "t0 = time.time()\n"
         "torch.cuda.synchronize()\n"
         "x = torch.zeros(1); x.data = torch.ones(1)\n", NULL, NULL, ALL);
}

static void
test_lazy (void)
{
  check ("__torch_function__", HONEST
         "class Lazy:\n"
         "    @classmethod\n"
         "    def __torch_function__(cls, func, types, args=(), kw=None):\n"
         "        return func(*args)\n", NULL, "lazy_output", NULL);
  check ("a Tensor subclass", HONEST
         "class Lazy(torch.Tensor):\n    pass\n", NULL, "lazy_output", NULL);
  check ("_make_subclass", HONEST
         "y = torch.Tensor._make_subclass(object, torch.zeros(1))\n", NULL,
         "lazy_output", NULL);
  check ("Tensor annotations", EXT
         "from torch import Tensor\n"
         "class ModelNew(nn.Module):\n"
         "    def forward(self, x: torch.Tensor) -> Tensor:\n"
         "        y: torch.Tensor = ext.relu_forward(x)\n"
         "        return y\n", NULL, NULL, ALL);
}

static void
test_precision (void)
{
  check (".half() in forward", EXT CLASS
         "        return ext.relu_forward(x.half()).float()\n", NULL,
         "precision_downgrade", NULL);
  check ("tf32 switched on", "import torch\n"
         "torch.backends.cuda.matmul.allow_tf32 = True\n" HONEST, NULL,
         "precision_downgrade", "timer_patch");
  check ("__half in the kernel", IMPORTS
         "src = r'''\n#include <cuda_fp16.h>\n"
         "__global__ void relu_kernel(const float* x, float* y, int n) {\n"
         "  __half h = __float2half(x[0]); y[0] = __half2float(h);\n}\n"
         WRAPPER "'''\n" CPP LOAD CLASS "        return ext.relu_forward(x)\n",
         NULL, "precision_downgrade", NULL);
  check ("set_float32_matmul_precision", HONEST
         "torch.set_float32_matmul_precision('medium')\n", NULL,
         "precision_downgrade", NULL);
  check ("float32 everywhere, tf32 off", "import torch\n"
         "torch.backends.cuda.matmul.allow_tf32 = False\n" EXT CLASS
         "        x = x.float().to(torch.float32)\n"
         "        return ext.relu_forward(x.to(dtype=torch.float32))\n",
         NULL, NULL, ALL);
}

static void
test_cached (void)
{
  check ("cached in self", EXT
         "class ModelNew(nn.Module):\n"
         "    def __init__(self):\n"
         "        super().__init__()\n"
         "        self.cache = None\n"
         "    def forward(self, x):\n"
         "        if self.cache is not None:\n"
         "            return self.cache\n"
         "        self.cache = ext.relu_forward(x)\n"
         "        return self.cache\n", NULL, "cached_result", NULL);
  check ("memo keyed by data_ptr", EXT CLASS
         "        key = (x.data_ptr(), tuple(x.shape))\n"
         "        if key in self._memo: return self._memo[key]\n"
         "        self._memo[key] = ext.relu_forward(x)\n"
         "        return self._memo[key]\n", NULL, "cached_result", NULL);
  check ("module-level cache", EXT "_CACHE = {}\n" CLASS
         "        if id(x) in _CACHE:\n"
         "            return _CACHE[id(x)]\n"
         "        y = _CACHE[id(x)] = ext.relu_forward(x)\n"
         "        return y\n", NULL, "cached_result", NULL);
  check ("lru_cache on a reached helper", EXT
         "import functools\n"
         "@functools.lru_cache(maxsize=None)\n"
         "def run(shape):\n    return ext.relu_forward(torch.zeros(shape))\n"
         CLASS "        return run(tuple(x.shape))\n", NULL,
         "cached_result", NULL);
  check ("output buffer reused, kernel rerun", IMPORTS
         SRC_WITH ("  relu_kernel<<<1, 1>>>(0, 0, 0);\n")
         "cpp = 'void relu_out(torch::Tensor x, torch::Tensor y);'\n" LOAD
         "class ModelNew(nn.Module):\n"
         "    def __init__(self):\n"
         "        super().__init__()\n"
         "        self.out = None\n"
         "        self.training_mode = False\n"
         "    def forward(self, x):\n"
         "        if self.out is None or self.out.shape != x.shape:\n"
         "            self.out = torch.empty_like(x)\n"
         "        if self.training_mode:\n"
         "            return ext.relu_forward(x)\n"
         "        ext.relu_forward(x)\n"
         "        return self.out\n", NULL, NULL, ALL);
  check ("getter cached with lru_cache is not in forward's reach", IMPORTS
         SRC CPP "import functools\n"
         "@functools.lru_cache(None)\n"
         "def get_ext():\n"
         "    return load_inline('relu', cpp, src, functions=['relu_forward'])\n"
         CLASS "        return get_ext().relu_forward(x)\n", NULL, NULL,
         "kernel_not_invoked kernel_not_launched");
}

static void
test_dynamic (void)
{
  check ("exec", HONEST "exec('import os')\n", NULL, "dynamic_exec", NULL);
  check ("base64", "import base64\n" HONEST
         "code = base64.b64decode('cHJpbnQ=')\n", NULL, "dynamic_exec",
         NULL);
  check ("__import__ in forward", EXT CLASS
         "        m = __import__('os')\n"
         "        return ext.relu_forward(x)\n", NULL, "dynamic_exec", NULL);
  check ("eval() as a method, compile flags", IMPORTS SRC CPP
         "ext = load_inline('relu', cpp, src, functions=['relu_forward'],\n"
         "                  extra_cuda_cflags=['-O3'], verbose=False)\n"
         "m = torch.nn.Linear(1, 1).eval()\n"
         "compile_flags = ['-O3']\n"
         CLASS "        self.eval()\n        return ext.relu_forward(x)\n",
         NULL, NULL, ALL);
}

static void
test_introspection (void)
{
  check ("sys._getframe", "import sys\n" HONEST
         "f = sys._getframe(1)\n", NULL, "introspection", NULL);
  check ("os.environ", "import os\n" HONEST
         "os.environ['CUDA_LAUNCH_BLOCKING'] = '0'\n", NULL, "introspection",
         NULL);
  check ("gc.get_objects", "import gc\n" HONEST
         "objs = gc.get_objects()\n", NULL, "introspection", NULL);
  check ("os.path and sys.path", "import os, sys\n" HONEST
         "here = os.path.dirname(os.path.abspath(__file__))\n"
         "sys.path.insert(0, here)\n", NULL, NULL, ALL);
}

static void
test_torch_compute (void)
{
  check ("torch.matmul", EXT CLASS
         "        y = torch.matmul(x, x)\n"
         "        return ext.relu_forward(y)\n", NULL,
         "torch_compute_in_forward", "kernel_not_invoked");
  check ("nn layer called", IMPORTS SRC CPP LOAD
         "class ModelNew(nn.Module):\n"
         "    def __init__(self, n):\n"
         "        super().__init__()\n"
         "        self.linear = nn.Linear(n, n)\n"
         "    def forward(self, x):\n"
         "        return ext.relu_forward(self.linear(x))\n", NULL,
         "torch_compute_in_forward", NULL);
  check ("F.gelu and @", "import torch.nn.functional as F\n" EXT CLASS
         "        y = F.gelu(x @ x.t())\n"
         "        return ext.relu_forward(y)\n", NULL,
         "torch_compute_in_forward", NULL);
  check ("tensor method .softmax()", EXT CLASS
         "        return ext.relu_forward(x).softmax(dim=-1)\n", NULL,
         "torch_compute_in_forward", NULL);
  check ("views and allocation", EXT CLASS
         "        x = x.contiguous().view(-1)\n"
         "        y = torch.empty_like(x)\n"
         "        z = torch.zeros(x.shape[0], device=x.device)\n"
         "        x = x.to(torch.float32).permute(0).reshape(-1)\n"
         "        return ext.relu_forward(x).view(x.size())\n",
         NULL, NULL, ALL);
}

static void
test_layouts (void)
{
  check ("quotes inside a raw triple-quoted source", IMPORTS
         "src = r'''\n"
         "// it's \"quoted\" ''' is not the end here? no: \\''' is\n"
         "'''\n"
         "src += r\"\"\"\n" KERNEL
         "torch::Tensor relu_forward(torch::Tensor x) {\n"
         "  printf(\"it's a \\\"}\\\" {\\n\");\n"
         "  char c = '}';\n"
         "  relu_kernel<<<1, 1>>>(0, 0, 0);\n  return x;\n}\n\"\"\"\n"
         CPP LOAD CLASS "        return ext.relu_forward(x)  # __global__\n",
         NULL, NULL, ALL);
  check ("templated kernel with launch bounds", IMPORTS
         "src = '''\n"
         "template <typename T, int B>\n"
         "__global__ void __launch_bounds__(256) relu_kernel(T* x) { }\n"
         "torch::Tensor relu_forward(torch::Tensor x) {\n"
         "  relu_kernel<float, 256><<<1, 256>>>(x.data_ptr<float>());\n"
         "  return x;\n}\n'''\n"
         CPP LOAD CLASS "        return ext.relu_forward(x)\n",
         NULL, NULL, ALL);
  check ("f-string in forward, semicolons", EXT CLASS
         "        msg = f\"{x.shape!r} {'}'}\"; y = ext.relu_forward(x)\n"
         "        return y\n", NULL, NULL, ALL);
}

/* The evidence of FLAG in the scan of CODE must start with WANT.  */
static void
check_evidence (const char *name, const char *code,
                const char *const *decoys, const char *flag, const char *want)
{
  json_t *r = dice_scan (code, strlen (code), decoys);
  const char *e = json_string_value (json_object_get (json_object_get
                                                      (r, "evidence"), flag));

  if (!ok (e && strncmp (e, want, strlen (want)) == 0, "%s: evidence %s",
           name, want))
    printf ("#   got: %s\n", e ? e : "(null)");
  json_decref (r);
}

static void
test_more_lookalikes (void)
{
  check ("metaclass keyword is no base", EXT
         "class ModelNew(nn.Module, metaclass=type):\n"
         "    def forward(self, x):\n"
         "        return ext.relu_forward(x)\n", NULL, NULL, ALL);
  check ("a parameter shadowing a module-level name", EXT
         "x = torch.randn(4)\n" CLASS
         "        if x.numel() == 0:\n"
         "            return x\n"
         "        return ext.relu_forward(x)\n", NULL, NULL, ALL);
  check ("except that logs and re-raises", EXT CLASS
         "        try:\n"
         "            return ext.relu_forward(x)\n"
         "        except RuntimeError:\n"
         "            print('relu kernel failed')\n"
         "            raise\n", NULL, NULL, ALL);
  check ("except that only logs", EXT CLASS
         "        try:\n"
         "            y = ext.relu_forward(x)\n"
         "        except RuntimeError:\n"
         "            print('relu kernel failed')\n"
         "            y = x * (x > 0)\n"
         "        return y\n", NULL, "try_fallback", NULL);
  check ("load() of files", "import torch.nn as nn\n"
         "from torch.utils.cpp_extension import load\n"
         "ext = load(name='relu', sources=['relu.cpp', 'relu_kernel.cu'])\n"
         CLASS "        return ext.relu_forward(x)\n", NULL,
         "no_cuda_kernel", "kernel_not_invoked kernel_not_launched");
}

static void
test_real_world (void)
{
  check ("AT_DISPATCH with a templated launch, build variables",
         "import os\n"
         "os.environ['TORCH_CUDA_ARCH_LIST'] = '8.0;9.0'\n"
         "os.environ.setdefault(\"MAX_JOBS\", \"4\")\n" IMPORTS
         "src = r'''\n"
         "template <typename scalar_t>\n"
         "__global__ void relu_kernel(const scalar_t* x, scalar_t* y, int n) {\n"
         "  int half = blockDim.x / 2;\n"
         "  if (threadIdx.x < half) y[0] = x[0];\n}\n"
         "torch::Tensor relu_forward(torch::Tensor x) {\n"
         "  auto y = at::empty_like(x);\n"
         "  const int threads = 256;\n"
         "  cudaStream_t stream = at::cuda::getCurrentCUDAStream();\n"
         "  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), \"relu\", ([&] {\n"
         "    relu_kernel<scalar_t><<<(x.numel() + threads - 1) / threads,\n"
         "        threads, 0, stream>>>(x.data_ptr<scalar_t>(),\n"
         "        y.data_ptr<scalar_t>(), x.numel());\n"
         "  }));\n"
         "  return y;\n}\n'''\n" CPP
         "relu_mod = load_inline(name='relu', cpp_sources=cpp, cuda_sources=src,\n"
         "    functions=['relu_forward'], extra_cuda_cflags=['-O3'])\n"
         "class ModelNew(nn.Module):\n"
         "    def __init__(self):\n"
         "        super().__init__()\n"
         "        self.relu_mod = relu_mod\n"
         "        self.half = 2\n"
         "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n"
         "        return self.relu_mod.relu_forward(x.contiguous())\n",
         NULL, NULL, ALL);
  check ("cudaLaunchKernel, functions= through a name", IMPORTS
         "src = r'''\n" KERNEL
         "torch::Tensor relu_forward(torch::Tensor x) {\n"
         "  void* args[] = {&x};\n"
         "  cudaLaunchKernel((const void*)relu_kernel, dim3(1), dim3(256),\n"
         "                   args, 0, 0);\n  return x;\n}\n'''\n" CPP
         "FUNCS = ['relu_forward']\n"
         "ext = load_inline('relu', cpp, src, functions=FUNCS)\n"
         CLASS "        return ext.relu_forward(x)\n", NULL, NULL, ALL);
  check ("os.environ read", "import os\n" HONEST
         "level = os.environ.get('DICE_LEVEL')\n", NULL, "introspection",
         NULL);
  check ("half as a type in the kernel", IMPORTS
         "src = r'''\n#include <cuda_fp16.h>\n"
         "__global__ void relu_kernel(const half* x, float* y, int n) {\n"
         "  y[0] = (float)x[0];\n}\n" WRAPPER "'''\n" CPP LOAD CLASS
         "        return ext.relu_forward(x)\n", NULL, "precision_downgrade",
         NULL);
}

static void
test_evidence (void)
{
  check_evidence ("decoy", IMPORTS "src = r'''\n\n"
                  "__global__ void add_kernel(float* a) { }\n'''\n"
                  CLASS "        return x\n", add_decoy, "example_decoy",
                  "line 6: kernel add_kernel is the prompt's example");
  check_evidence ("load() of files", "import torch.nn as nn\n"
                  "from torch.utils.cpp_extension import load\n"
                  "ext = load(name='relu', sources=['relu.cu'])\n"
                  CLASS "        return ext.relu_forward(x)\n", NULL,
                  "no_cuda_kernel", "line 3: no __global__ function in any "
                  "source string; load() compiles files not read here");
  check_evidence ("torch in forward", EXT CLASS
                  "        y = torch.mm(x, x)\n"
                  "        return ext.relu_forward(y @ y).sum()\n", NULL,
                  "torch_compute_in_forward",
                  "line 26: torch.mm, @, .sum()");
  check_evidence ("a wrapper without launch",
                  EXT_WITH ("  y.zero_();\n") CLASS
                  "        return ext.relu_forward(x)\n", NULL,
                  "kernel_not_launched",
                  "line 9: relu_forward launches no kernel");
  check_evidence ("timer", HONEST "time.time = lambda: 0\n", NULL,
                  "timer_patch", "line 27: assignment to time.time");
}

static void
test_results (void)
{
  json_t *r = dice_scan (HONEST, strlen (HONEST), add_decoy);
  json_t *k;

  ok (r != NULL, "honest: scanned");
  k = json_object_get (r, "kernels");
  ok (json_array_size (k) == 1
      && strcmp (json_string_value (json_array_get (k, 0)),
                 "relu_kernel") == 0, "kernels lists relu_kernel");
  k = json_object_get (r, "launched");
  ok (json_array_size (k) == 1
      && strcmp (json_string_value (json_array_get (k, 0)),
                 "relu_kernel") == 0, "launched lists relu_kernel");
  k = json_object_get (r, "exported");
  ok (json_array_size (k) == 1
      && strcmp (json_string_value (json_array_get (k, 0)),
                 "relu_forward") == 0, "exported lists relu_forward");
  k = json_object_get (r, "invoked");
  ok (json_array_size (k) == 1
      && strcmp (json_string_value (json_array_get (k, 0)),
                 "relu_forward") == 0, "invoked lists relu_forward");
  ok (json_is_null (json_object_get (r, "error")), "no error");
  json_decref (r);
  r = dice_scan (HONEST, strlen (HONEST), NULL);
  ok (r && json_array_size (json_object_get (r, "flags")) == 0,
      "NULL decoys are allowed");
  json_decref (r);
}

static void
test_malformed (void)
{
  static const struct
  {
    const char *name, *code, *want;
  } bad[] = {
    {"unterminated triple string", IMPORTS "src = '''\n__global__", "line 4"},
    {"bad indent", "class ModelNew:\n  def forward(self):\n return 1\n",
     "line 3"},
    {"unmatched bracket", "class ModelNew(nn.Module:\n    pass\n", "line "},
    {"empty module", "", "line 1: no class ModelNew"},
    {"no forward", "class ModelNew(nn.Module):\n    pass\n",
     "line 1: ModelNew has no forward"},
    {"not Python", "\x01\x02 }}}} <<<>>> __global__ (", "line 1"},
  };

  for (size_t i = 0; i < DICE_ARRAY_SIZE (bad); i++)
    {
      json_t *r = dice_scan (bad[i].code, strlen (bad[i].code), add_decoy);
      const char *e = json_string_value (json_object_get (r, "error"));

      if (!ok (r != NULL, "%s: scanned", bad[i].name))
        continue;
      check_shape (r, bad[i].name);
      if (!ok (e && strncmp (e, bad[i].want, strlen (bad[i].want)) == 0,
               "%s: error %s...", bad[i].name, bad[i].want))
        printf ("#   got: %s\n", e ? e : "(null)");
      json_decref (r);
    }
  /* A NUL byte and a truncated UTF-8 sequence inside the module.  */
  {
    static const char nul[] = "x = 1\n\0y = 2\nclass ModelNew:\n  pass\n";
    json_t *r = dice_scan (nul, sizeof nul - 1, NULL);

    ok (r && json_is_string (json_object_get (r, "error")),
        "NUL byte: an error, no crash");
    json_decref (r);
    r = dice_scan (HONEST "\xc3", strlen (HONEST) + 1, NULL);
    ok (r != NULL, "truncated UTF-8: no crash");
    json_decref (r);
  }
  /* Every prefix of a real candidate: no crash, always the shape.  */
  {
    const char *code = HONEST;
    size_t n = strlen (code);
    bool good = true;

    for (size_t len = 0; len <= n; len++)
      {
        json_t *r = dice_scan (code, len, add_decoy);

        good &= r != NULL && json_object_size (r) == 7;
        json_decref (r);
      }
    ok (good, "every prefix of a candidate scans");
  }
  /* Without a terminating NUL, on the heap, so that the sanitizers see
     any read past the end.  */
  {
    static const char *const codes[] = {
      HONEST, IMPORTS "src = '''__global__ void k(", "x = '\\", "@",
      "src = r'''#define X \\", "src = '__global__ void'",
      "s = 'k<<<1,1>>>(a); f<T><<<'", "s = '/* __global__'",
      "s = 'm.def(\"f\", &'", "s = \"'\""
    };
    bool good = true;

    for (size_t i = 0; i < DICE_ARRAY_SIZE (codes); i++)
      {
        size_t n = strlen (codes[i]);
        char *copy = malloc (n ? n : 1);
        json_t *r;
        char **names;

        memcpy (copy, codes[i], n);
        r = dice_scan (copy, n, add_decoy);
        names = dice_scan_kernel_names (copy, n);
        good &= r != NULL && names != NULL;
        json_decref (r);
        dice_scan_free_names (names);
        free (copy);
      }
    ok (good, "unterminated buffers scan");
  }
}

static void
test_kernel_names (void)
{
  static const char prompt[] =
    "Here is an example:\n```python\n"
    "add_source = r\"\"\"\n"
    "__global__ void add_kernel(const float* a, float* out) {\n}\n"
    "template <int B> __global__ void\n  scale_kernel (float* x) { }\n"
    "\"\"\"\n```\nDon't copy it; it's only an example (see __global__).\n"
    "// __global__ void commented_kernel() {}\n";
  char **names = dice_scan_kernel_names (prompt, sizeof prompt - 1);

  ok (names != NULL, "kernel names: a list");
  if (names)
    {
      is_str (names[0], "add_kernel", "kernel names: add_kernel");
      is_str (names[1], "scale_kernel", "kernel names: scale_kernel");
      ok (names[1] && names[2] == NULL, "kernel names: only those two");
    }
  dice_scan_free_names (names);
  names = dice_scan_kernel_names ("", 0);
  ok (names && names[0] == NULL, "kernel names: none in empty text");
  dice_scan_free_names (names);
  dice_scan_free_names (NULL);
}

int
main (void)
{
  test_honest ();
  test_no_kernel ();
  test_not_invoked ();
  test_not_launched ();
  test_decoy ();
  test_try ();
  test_inherits ();
  test_library ();
  test_stream ();
  test_thread ();
  test_timer ();
  test_lazy ();
  test_precision ();
  test_cached ();
  test_dynamic ();
  test_introspection ();
  test_torch_compute ();
  test_layouts ();
  test_more_lookalikes ();
  test_real_world ();
  test_evidence ();
  test_results ();
  test_malformed ();
  test_kernel_names ();
  return done_testing ();
}
