"""The device and the inputs: what runs where, what it is, and how the
reference's inputs are made, the same way for check and time.

Seeds, so that a failing trial can be reproduced by hand (each
torch.manual_seed below also seeds Python's random and numpy's generator):
  torch.manual_seed(seed); Model(*get_init_inputs())
  torch.manual_seed(seed); ModelNew(*get_init_inputs())
  trial t (0-based): torch.manual_seed(seed + 1 + t); get_inputs()
get_inputs runs with the target device as torch's default device where
this torch can do that (torch >= 2.0: `with torch.device(...)`), so large
inputs are made where they are used; otherwise on the CPU, then moved.
CUDA and CPU generators give different numbers for the same seed, so
reproduce on the device named in the record.
"""

import os
import platform
import random
import sys


def device_info(device):
    import torch
    info = {"torch": torch.__version__, "cuda": torch.version.cuda,
            "device": None, "device_uuid": None, "driver": None}
    if device == "cuda" and torch.cuda.is_available():
        info["device"] = torch.cuda.get_device_name(torch.cuda.current_device())
        info["device_uuid"] = _device_uuid(torch)
        info["driver"] = _driver_version()
    else:
        info["device"] = "cpu: " + _cpu_name()
    return info


def _device_uuid(torch):
    """The GPU's UUID as nvidia-smi and CUDA_VISIBLE_DEVICES spell it, so
    that a record names the very GPU (or MIG instance) it ran on."""
    try:
        uuid = str(torch.cuda.get_device_properties(
            torch.cuda.current_device()).uuid)
    except (AttributeError, RuntimeError):
        return None
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    return ("MIG-" if visible.startswith("MIG-") else "GPU-") + uuid


def _cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine() or "unknown"


def _driver_version():
    import ctypes
    try:
        nvml = ctypes.CDLL("libnvidia-ml.so.1")
        if nvml.nvmlInit_v2() == 0:
            buf = ctypes.create_string_buffer(96)
            if nvml.nvmlSystemGetDriverVersion(buf, 96) == 0:
                return buf.value.decode()
    except (OSError, AttributeError):
        pass
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        v = ctypes.c_int()
        if cuda.cuDriverGetVersion(ctypes.byref(v)) == 0:
            return "cuda %d.%d" % (v.value // 1000, v.value % 1000 // 10)
    except (OSError, AttributeError):
        pass
    return None


def set_arch(job):
    """Make TORCH_CUDA_ARCH_LIST what the job says, or the device's own
    capability, so that the cache key and the build agree."""
    arch = job.get("arch")
    if not arch and job.get("device") == "cuda":
        import torch
        if torch.cuda.is_available():
            major, minor = torch.cuda.get_device_capability()
            arch = "%d.%d" % (major, minor)
    if arch:
        os.environ["TORCH_CUDA_ARCH_LIST"] = str(arch)
    return os.environ.get("TORCH_CUDA_ARCH_LIST") or None


def seed_all(seed):
    """torch's generators (CPU and every GPU), Python's, and numpy's when
    something has imported it."""
    import torch
    random.seed(seed)
    torch.manual_seed(seed)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(seed % (1 << 32))


def to_device(value, device):
    import torch
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, (list, tuple)):
        return type(value)(to_device(v, device) for v in value)
    return value


def clone(value):
    import torch
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, (list, tuple)):
        return type(value)(clone(v) for v in value)
    return value


def make_inputs(module, device, seed):
    """get_inputs() on DEVICE after torch.manual_seed(SEED): made there
    when torch allows a default device, else made on the CPU and moved."""
    import torch
    seed_all(seed)
    if device != "cpu" and hasattr(torch.device("cpu"), "__enter__"):
        try:
            with torch.device(device):
                return to_device(list(module.get_inputs()), device)
        except Exception:
            seed_all(seed)
    return to_device(list(module.get_inputs()), device)


def init_inputs(ref, new):
    for module in (ref, new):
        if module is not None and hasattr(module, "get_init_inputs"):
            return list(module.get_init_inputs())
    return []


def sync(device):
    if device == "cuda":
        import torch
        torch.cuda.synchronize()


def _nvml():
    """(NVML, this worker's device handle), or None.
    CUDA_VISIBLE_DEVICES, set by C to one number per worker, is NVML's
    index."""
    import ctypes
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0]
    if not visible.isdigit():
        return None
    try:
        nvml = ctypes.CDLL("libnvidia-ml.so.1")
        if nvml.nvmlInit_v2() != 0:
            return None
        handle = ctypes.c_void_p()
        if nvml.nvmlDeviceGetHandleByIndex_v2(int(visible),
                                              ctypes.byref(handle)) != 0:
            return None
    except (OSError, AttributeError):
        return None
    return nvml, handle


def _nvml_uint(call, *args):
    """NVML's unsigned answer to CALL(handle, *ARGS, &out), or None."""
    import ctypes
    found = _nvml()
    if found is None:
        return None
    nvml, handle = found
    value = ctypes.c_uint()
    try:
        if getattr(nvml, call)(handle, *args, ctypes.byref(value)) != 0:
            return None
    except AttributeError:
        return None
    return value.value or None


def gpu_state():
    """SM and memory clocks (MHz) and temperature (C) of this worker's
    GPU, or Nones."""
    sm = _nvml_uint("nvmlDeviceGetClockInfo", 1)
    memory = _nvml_uint("nvmlDeviceGetClockInfo", 2)
    clocks = {"sm": sm, "memory": memory} if sm and memory else None
    return clocks, _nvml_uint("nvmlDeviceGetTemperature", 0)


def memory_bandwidth():
    """This worker's GPU's peak memory bandwidth in bytes per second, from
    NVML (maximum memory clock, double data rate, times the bus width),
    or None."""
    clock = _nvml_uint("nvmlDeviceGetMaxClockInfo", 2)
    width = _nvml_uint("nvmlDeviceGetMemoryBusWidth")
    if not clock or not width:
        return None
    return 2.0 * clock * 1e6 * width / 8.0


# Floating-point operations per SM per clock above any GPU's in any
# precision (a Blackwell SM does about 31,000 in dense FP4): the FLOP
# bound must never exceed what a real kernel can do.
PEAK_FLOPS_PER_SM_CLOCK = 32768


def peak_flops():
    """An upper bound on this worker's GPU's floating-point operations per
    second: every SM at its highest clock doing PEAK_FLOPS_PER_SM_CLOCK;
    None without NVML or a GPU."""
    import torch
    clock = _nvml_uint("nvmlDeviceGetMaxClockInfo", 1)
    if not clock or not torch.cuda.is_available():
        return None
    sms = torch.cuda.get_device_properties(
        torch.cuda.current_device()).multi_processor_count
    return float(sms) * clock * 1e6 * PEAK_FLOPS_PER_SM_CLOCK


# --precision: what KernelBench's eval casts to.
PRECISIONS = ("fp32", "fp16", "bf16")


def precision_dtype(precision):
    """The torch dtype of PRECISION, None for fp32 (nothing is cast)."""
    import torch
    return {"fp32": None, "fp16": torch.float16,
            "bf16": torch.bfloat16}[precision]


def cast(value, dtype):
    """VALUE's floating-point tensors as DTYPE (None: unchanged), as
    KernelBench's eval casts inputs and init inputs; integer tensors
    (indices, labels) keep their type, which KernelBench's cast would
    break."""
    import torch
    if dtype is None:
        return value
    if isinstance(value, torch.Tensor):
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, (list, tuple)):
        return type(value)(cast(v, dtype) for v in value)
    return value


def tolerance(job, precision):
    """(atol, rtol) for PRECISION: the job's, and for fp16 and bf16 at
    least KernelBench's 1e-2 (torchbench's choice for half types)."""
    atol, rtol = job.get("atol"), job.get("rtol")
    atol = 1e-2 if not isinstance(atol, (int, float)) or isinstance(atol, bool) else float(atol)
    rtol = 1e-2 if not isinstance(rtol, (int, float)) or isinstance(rtol, bool) else float(rtol)
    if precision in ("fp16", "bf16"):
        atol, rtol = max(atol, 1e-2), max(rtol, 1e-2)
    return atol, rtol
