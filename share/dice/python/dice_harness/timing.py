"""The time job: the reference and the candidate in this one process, on
the same device and inputs, called in turn (A B A B ...) under
torch.no_grad().  This module only measures; the C side (lib/harness-time.c)
turns the raw samples into medians, speedups and flags, so that those
decisions can be tested without torch.

Each call is measured device-wide: synchronise, host clock, call,
synchronise, host clock, so work the candidate put on any stream counts.
A CUDA event pair on the current stream is kept alongside; the C side
flags side_stream when the device-wide time is mostly outside the event
window.  On the CPU the "event" is the moment the call returned, and the
synchronisation also joins the threads the call started, so work hidden
in a Python thread is counted and the call is flagged (threads).
"""

import threading
import time

from . import runner, status
from .device import (clone, device_info, gpu_state, init_inputs, make_inputs,
                     seed_all)
from .redact import one_line
from .status import Failure, built_or_fail, reference

# Without a readable L2 size, flush with this much.
DEFAULT_FLUSH_BYTES = 50 << 20

# How long, in seconds, the end of a call waits for the Python threads the
# call left running (dice-time(1), TIMING): long enough for honest work,
# short enough that a thread that never ends cannot hold the job.
THREAD_JOIN_SECONDS = 10.0


class _Flusher:
    """Writes then reads a buffer larger than twice the device's L2 before
    each call, so neither side finds its data cached by the other or by
    its own previous call.  The job's flush false (dice-time under
    DICE_TIME_NO_FLUSH=1) turns it off, to measure what flushing changes."""

    def __init__(self, device, wanted):
        import torch
        self.buffer = None
        self.bytes = 0
        if device != "cuda" or not wanted:
            return
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        l2 = getattr(props, "L2_cache_size", 0) or 0
        self.bytes = 2 * l2 + (4 << 20) if l2 > 0 else DEFAULT_FLUSH_BYTES
        self.buffer = torch.empty(self.bytes // 4, dtype=torch.float32,
                                  device="cuda")

    def __call__(self):
        if self.buffer is not None:
            self.buffer.fill_(1.0)
            self.buffer.sum()


class _Timer:
    """One measured call: (device-wide ms, event ms, left threads)."""

    def __init__(self, device):
        import torch
        self.cuda = device == "cuda"
        self.torch = torch

    def _sync(self):
        if self.cuda:
            self.torch.cuda.synchronize()

    def __call__(self, fn, args):
        torch = self.torch
        before = set(threading.enumerate())
        if self.cuda:
            start, end = (torch.cuda.Event(enable_timing=True),
                          torch.cuda.Event(enable_timing=True))
        self._sync()
        t0 = time.perf_counter_ns()
        if self.cuda:
            start.record()
        fn(*args)
        if self.cuda:
            end.record()
        returned = time.perf_counter_ns()
        left = [t for t in threading.enumerate()
                if t not in before and t.is_alive()]
        deadline = time.monotonic() + THREAD_JOIN_SECONDS
        for t in left:
            t.join(max(0.0, deadline - time.monotonic()))
        self._sync()
        t1 = time.perf_counter_ns()
        wall = (t1 - t0) / 1e6
        if self.cuda:
            event = start.elapsed_time(end)
        else:
            event = (returned - t0) / 1e6
        return wall, event, bool(left)


def time_job(job, directory, out):
    """Fill OUT (the result's `time` object) for JOB: raw samples in ms.
    A Failure or any other exception raised here is the status."""
    import torch
    device = job.get("device") or "cpu"
    seed = out["seed"]
    trials, warmup, sets = out["trials"], out["warmup"], out["input_sets"]
    baseline = job.get("baseline") or "eager"
    if device == "cuda" and not torch.cuda.is_available():
        raise Failure("runtime_error", "device cuda asked for but torch sees no GPU")
    if baseline == "compile" and not hasattr(torch, "compile"):
        raise Failure("runtime_error", "--baseline compile needs torch.compile "
                      "(torch >= 2.0); this is torch %s" % torch.__version__)
    ref = reference("source", lambda: runner.load_source(
        "dice_ref", job.get("ref") or "", directory))
    try:
        new = runner.load_source("dice_candidate", job.get("code") or "", directory)
    except BaseException as e:
        built_or_fail()
        raise Failure("compile_error", one_line(e))
    init = reference("get_init_inputs", lambda: init_inputs(ref, None))
    seed_all(seed)
    ref_model = reference("Model", lambda: ref.Model(*init))
    seed_all(seed)
    new_model = new.ModelNew(*init)
    built_or_fail()
    runner.copy_weights(ref_model, new_model)
    ref_model = reference("Model", lambda: ref_model.to(device).eval())
    new_model = new_model.to(device).eval()
    ref_fn = ref_model
    if baseline == "compile":
        ref_fn = reference("torch.compile", lambda: torch.compile(ref_model))
    timed_ref = baseline != "file"

    ref_inputs = [reference("get_inputs", lambda: make_inputs(
        ref, device, seed + 1 + t)) for t in range(sets)]
    new_inputs = [clone(i) for i in ref_inputs]
    flush = _Flusher(device, job.get("flush", True) is not False)
    timer = _Timer(device)
    samples = {"ref": [], "new": [], "ref_event": [], "new_event": []}
    threads = False
    with torch.no_grad():
        for i in range(warmup + trials):
            k = i % sets
            for side, fn, inputs in (("ref", ref_fn, ref_inputs),
                                     ("new", new_model, new_inputs)):
                if side == "ref" and not timed_ref:
                    continue
                flush()
                if side == "ref":
                    wall, event, left = reference(
                        "forward", lambda: timer(fn, inputs[k]))
                else:
                    wall, event, left = timer(fn, inputs[k])
                    built_or_fail()
                    threads = threads or left
                if i >= warmup:
                    samples[side].append(wall)
                    samples[side + "_event"].append(event)
    clocks, temperature = (None, None)
    if device == "cuda":
        clocks, temperature = gpu_state()
    out.update({
        "status": "ok",
        "ref": samples["ref"] if timed_ref else None,
        "ref_event": samples["ref_event"] if timed_ref else None,
        "new": samples["new"],
        "new_event": samples["new_event"],
        "event_kind": "cuda" if device == "cuda" else "return",
        "threads": threads,
        "flush_bytes": flush.bytes,
        "clocks": clocks,
        "temperature": temperature,
    })


def run(job, directory, arch, number, compile_object):
    """The whole time job; returns the result object."""
    out = {"status": None, "error": None,
           "trials": number(job, "trials", 100, int),
           "warmup": number(job, "warmup", 10, int),
           "input_sets": number(job, "input_sets", 3, int),
           "seed": number(job, "seed", 42, int)}
    if out["trials"] < 1 or out["warmup"] < 0 or out["input_sets"] < 1:
        raise ValueError("job trials, warmup or input_sets out of range")
    if job.get("baseline", "eager") not in ("eager", "compile", "file", None):
        raise ValueError("job baseline must be eager, compile or file")
    out.update(device_info(job.get("device") or "cpu"))
    try:
        time_job(job, directory, out)
    except BaseException as e:
        out["status"], out["error"] = status.of(e)
    error = out["error"] if out["status"] == "compile_error" else None
    return {"compile": compile_object(arch, error), "time": out}
