"""The two jobs: compile (build only) and check (build, run, compare),
and loading the reference and the candidate, which the time job shares.
How inputs and weights are seeded is device.py's.
"""

import os
import sys
import time
import types

from . import buildcache, evidence, phases
from .compare import compare, finite_or_none
from .device import cast, clone, init_inputs, make_inputs, precision_dtype, seed_all, sync
from .redact import clean, one_line
from .status import Failure, built_or_fail, import_status, reference

_started = time.monotonic()     # the harness's start, near enough


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
    ref = reference("source", lambda: load_source("dice_ref", job.get("ref") or "", directory))
    phases.mark("reference_load")
    try:
        new = load_source("dice_candidate", job.get("code") or "", directory)
    except BaseException as e:
        built_or_fail()
        raise Failure(import_status(e), one_line(e))
    phases.mark("candidate_load")
    dtype = precision_dtype(check["precision"])
    init = reference("get_init_inputs", lambda: cast(init_inputs(ref, None), dtype))
    seed_all(seed)
    ref_model = reference("Model", lambda: ref.Model(*init))
    phases.mark("reference_construct")
    seed_all(seed)
    new_model = new.ModelNew(*init)
    built_or_fail()
    copy_weights(ref_model, new_model)
    phases.mark("candidate_construct")
    ref_model = reference("Model", lambda: ref_model.to(device, dtype).eval())
    new_model = new_model.to(device, dtype).eval()
    phases.mark("to_device")
    first_failed, passed, measured = None, 0, False
    max_abs = max_rel = 0.0
    reason = None
    trials_started = time.monotonic()
    with torch.no_grad():
        for t in range(trials):
            inputs = reference("get_inputs", lambda: cast(
                make_inputs(ref, device, seed + 1 + t), dtype))
            mine = clone(inputs)
            sync(device)
            phases.mark("inputs")
            expected = reference("forward", lambda: ref_model(*inputs))
            sync(device)
            phases.mark("reference_forward")
            got = new_model(*mine)
            sync(device)
            phases.mark("candidate_forward")
            built_or_fail()
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
            phases.mark("compare")
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
            make_inputs=lambda s: cast(make_inputs(ref, device, s), dtype),
            sync=lambda: sync(device),
            trial_seconds=(time.monotonic() - trials_started) / trials,
            remaining=lambda: _remaining(job))
        check["dynamic"] = evidence.collect(ctx)
        phases.mark("evidence")
