"""The two jobs: compile (build only) and check (build, run, compare).

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
import time
import types

from . import buildcache, evidence
from .compare import compare, finite_or_none


class Failure(Exception):
    """A verdict reached early: STATUS with a one-line MESSAGE."""

    def __init__(self, status, message):
        Exception.__init__(self, message)
        self.status = status


_secrets = []
_started = time.monotonic()     # the harness's start, near enough


def remember_secrets(environ):
    """Values of variables that look secret; never echoed in a result.
    C scrubs the environment before the harness runs; this is a second
    line in case it did not."""
    for name, value in environ.items():
        upper = name.upper()
        if len(value) >= 4 and any(w in upper for w in (
                "KEY", "TOKEN", "SECRET", "PASSW", "CREDENTIAL", "AUTH")):
            _secrets.append(value)


def clean(text):
    for value in _secrets:
        text = text.replace(value, "[redacted]")
    return text


def one_line(exc):
    """EXC as `Type: first line of its message`, at most 300 characters."""
    text = str(exc).strip()
    first = text.splitlines()[0] if text else ""
    line = type(exc).__name__ + (": " + first if first else "")
    return clean(line)[:300]


def is_oom(exc):
    if isinstance(exc, MemoryError):
        return True
    name = type(exc).__name__
    text = str(exc)
    return (name == "OutOfMemoryError" or "out of memory" in text
            or "can't allocate memory" in text)


def import_status(exc):
    """The status of a candidate module that raised EXC while loading,
    its builds having succeeded: code that Python cannot compile or
    imports that cannot be found do not build (compile_error, as in
    KernelBench); memory that ran out is oom; anything else the module
    did on purpose or by mistake while running is a runtime_error."""
    if isinstance(exc, (SyntaxError, ImportError)):
        return "compile_error"
    return "oom" if is_oom(exc) else "runtime_error"


def load_source(name, source, directory):
    """Execute SOURCE as a module NAME whose __file__ is in DIRECTORY."""
    path = os.path.join(directory, name + ".py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module
    code = compile(source, path, "exec")
    exec(code, module.__dict__)
    return module


def device_info(device):
    import torch
    info = {"torch": torch.__version__, "cuda": torch.version.cuda,
            "device": None, "driver": None}
    if device == "cuda" and torch.cuda.is_available():
        info["device"] = torch.cuda.get_device_name(torch.cuda.current_device())
        info["driver"] = _driver_version()
    else:
        info["device"] = "cpu: " + _cpu_name()
    return info


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


def copy_weights(ref_model, new_model):
    """Give ModelNew the reference's parameters and buffers where the
    names and shapes agree, so candidates that build their layers in
    another order still start from the same weights."""
    import torch
    theirs = new_model.state_dict()
    same = {k: v for k, v in ref_model.state_dict().items()
            if k in theirs and isinstance(theirs[k], torch.Tensor)
            and theirs[k].shape == v.shape and theirs[k].dtype == v.dtype}
    if same:
        new_model.load_state_dict(same, strict=False)


def compile_job(job, directory):
    """Execute the candidate and construct ModelNew so that builds at
    import and in __init__ happen; then, if none happened, one forward
    call to catch builds made lazily on first use."""
    import torch
    ref = None
    if job.get("ref"):
        try:
            ref = load_source("dice_ref", job["ref"], directory)
        except BaseException as e:
            ref = None
            print("dice_harness: reference: %s" % one_line(e), file=sys.stderr)
    error = None
    try:
        new = load_source("dice_candidate", job.get("code") or "", directory)
        model = new.ModelNew(*init_inputs(ref, new))
        if not buildcache.builds:
            device = job.get("device") or "cpu"
            if device == "cpu" or torch.cuda.is_available():
                try:
                    model = model.to(device)
                    source = ref if ref and hasattr(ref, "get_inputs") else new
                    with torch.no_grad():
                        model(*make_inputs(source, device, int(job.get("seed", 42)) + 1))
                    sync(device)
                except BaseException as e:
                    print("dice_harness: forward: %s" % one_line(e), file=sys.stderr)
    except BaseException as e:
        error = e
    return error


def _reference(what, call):
    """Run CALL for the reference; its failures are the problem's, and
    say so (an out-of-memory stays oom: the candidate would not fit
    either)."""
    try:
        return call()
    except BaseException as e:
        raise Failure("oom" if is_oom(e) else "runtime_error",
                      "reference %s: %s" % (what, one_line(e)))


def _built_or_fail():
    summary = buildcache.summary()
    if not summary["ok"]:
        raise Failure("compile_error", summary["error"])


def _remaining(job):
    """Seconds left before C's timeout (the job's), less a margin for
    writing the result; None when the job does not say."""
    limit = job.get("timeout")
    if not isinstance(limit, (int, float)) or isinstance(limit, bool):
        return None
    return 0.8 * limit - (time.monotonic() - _started)


def check_job(job, directory, check):
    """Fill CHECK (the result's `check` object) for JOB; a Failure or any
    other exception raised here is the verdict's status."""
    import torch
    device = job.get("device") or "cpu"
    seed, trials = check["seed"], check["trials"]
    atol, rtol = check["atol"], check["rtol"]
    # KernelBench's preset: its fp32 numbers (from the job) and 1e-2 for
    # half-precision outputs.
    low_precision = (1e-2, 1e-2) if check["tolerance"] == "kernelbench" else None
    applied_atol = applied_rtol = None
    if device == "cuda" and not torch.cuda.is_available():
        raise Failure("runtime_error", "device cuda asked for but torch sees no GPU")
    threads = evidence.python_threads()
    ref = _reference("source", lambda: load_source("dice_ref", job.get("ref") or "", directory))
    try:
        new = load_source("dice_candidate", job.get("code") or "", directory)
    except BaseException as e:
        _built_or_fail()
        raise Failure(import_status(e), one_line(e))
    init = _reference("get_init_inputs", lambda: init_inputs(ref, None))
    seed_all(seed)
    ref_model = _reference("Model", lambda: ref.Model(*init))
    seed_all(seed)
    new_model = new.ModelNew(*init)
    _built_or_fail()
    copy_weights(ref_model, new_model)
    ref_model = _reference("Model", lambda: ref_model.to(device).eval())
    new_model = new_model.to(device).eval()
    first_failed, passed, measured = None, 0, False
    max_abs = max_rel = 0.0
    reason = None
    trials_started = time.monotonic()
    with torch.no_grad():
        for t in range(trials):
            inputs = _reference("get_inputs", lambda: make_inputs(ref, device, seed + 1 + t))
            mine = clone(inputs)
            sync(device)
            expected = _reference("forward", lambda: ref_model(*inputs))
            sync(device)
            got = new_model(*mine)
            sync(device)
            _built_or_fail()
            verdict = compare(expected, got, atol, rtol, low_precision)
            if verdict.atol is not None:
                applied_atol = max(applied_atol or 0.0, verdict.atol)
                applied_rtol = max(applied_rtol or 0.0, verdict.rtol)
            if verdict.measured:
                measured = True
                max_abs = max(max_abs, verdict.max_abs)
                max_rel = max(max_rel, verdict.max_rel)
            if verdict.ok:
                passed += 1
            elif first_failed is None:
                first_failed, reason = t, verdict.reason
            inputs = mine = expected = got = None   # free before the next trial
    correct = passed == trials
    check.update({
        "status": "correct" if correct else "incorrect",
        "passed": passed,
        "max_abs_err": finite_or_none(max_abs) if measured else None,
        "max_rel_err": finite_or_none(max_rel) if measured else None,
        "failed_trial": first_failed,
        "error": clean(reason)[:300] if reason else None,
    })
    if applied_atol is not None:
        check["atol"], check["rtol"] = applied_atol, applied_rtol
    if correct and job.get("evidence", True):
        ctx = types.SimpleNamespace(
            device=device, ref=ref, new=new, ref_model=ref_model,
            new_model=new_model, seed=seed, atol=check["atol"], rtol=check["rtol"],
            code=job.get("code") or "", threads=threads,
            make_inputs=lambda s: make_inputs(ref, device, s),
            sync=lambda: sync(device),
            trial_seconds=(time.monotonic() - trials_started) / trials,
            remaining=lambda: _remaining(job))
        check["dynamic"] = evidence.collect(ctx)
