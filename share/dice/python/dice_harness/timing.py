"""The time job: the reference and the candidate in this one process, on
the same device and inputs, called in turn (A B A B ...) under
torch.no_grad().  This module measures, and says what it saw the
candidate do to the timer (time.deception, with guard.py); the C side
(lib/harness-time.c) turns the raw samples into medians, speedups and
the statistical flags, so that those decisions can be tested without
torch.

Every call gets inputs of its own, made before the flush and outside the
timed window, and every timed output is compared with the reference's
for the same inputs: a cache of results cannot hit unnoticed.

Each call is measured device-wide: synchronise, host clock, call,
synchronise, host clock, so work the candidate put on any stream counts.
A CUDA event pair on the current stream is kept alongside; the C side
flags side_stream when the device-wide time is mostly outside the event
window.  On the CPU the "event" is the moment the call returned, and the
synchronisation also joins the threads the call started, so work hidden
in a Python thread is counted and the call is flagged (threads).
"""

from torch import Tensor as _Tensor

from . import guard, phases, runner, status
from .compare import compare, flatten
from .device import (PRECISIONS, cast, clone, device_info, gpu_state,
                     init_inputs, make_inputs, memory_bandwidth, peak_flops,
                     precision_dtype, seed_all, tolerance)
from .redact import one_line
from .status import Failure, built_or_fail, reference

# Without a readable L2 size, flush with this much.
DEFAULT_FLUSH_BYTES = 50 << 20

# How long, in seconds, the end of a call waits for the Python threads the
# call left running (dice-time(1), Method): long enough for honest work,
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
    """One measured call: (device-wide ms, event ms, left threads, what
    the call returned).  Every clock and synchronisation is guard's,
    bound before the candidate loaded."""

    def __init__(self, device):
        self.cuda = device == "cuda"
        # Calls on which the second clock, read just outside the window,
        # saw much more time pass than the timer's clock did inside it.
        self.disagreements = 0
        self.calls = 0

    def _sync(self):
        if self.cuda:
            guard.cuda_synchronize()

    def __call__(self, fn, args):
        before = set(guard.enumerate_threads())
        if self.cuda:
            start = guard.CudaEvent(enable_timing=True)
            end = guard.CudaEvent(enable_timing=True)
        self._sync()
        r0 = guard.monotonic_raw_ns()
        t0 = guard.perf_counter_ns()
        if self.cuda:
            guard._event_record(start)
        out = fn(*args)
        if self.cuda:
            guard._event_record(end)
        returned = guard.perf_counter_ns()
        left = [t for t in guard.enumerate_threads()
                if t not in before and t.is_alive()]
        deadline = guard.monotonic() + THREAD_JOIN_SECONDS
        for t in left:
            t.join(max(0.0, deadline - guard.monotonic()))
        self._sync()
        t1 = guard.perf_counter_ns()
        r1 = guard.monotonic_raw_ns()
        self.calls += 1
        if (r1 - r0) - (t1 - t0) > 50000 + (r1 - r0) // 10:
            self.disagreements += 1
        wall = (t1 - t0) / 1e6
        if self.cuda:
            event = guard._event_elapsed(start, end)
        else:
            event = (returned - t0) / 1e6
        return wall, event, bool(left), out


def _bytes(value):
    return sum(t.numel() * t.element_size() for t in flatten(value)
               if isinstance(t, _Tensor))


def time_job(job, directory, out):
    """Fill OUT (the result's `time` object) for JOB: raw samples in ms.
    A Failure or any other exception raised here is the status."""
    import torch
    device = job.get("device") or "cpu"
    seed = out["seed"]
    trials, warmup = out["trials"], out["warmup"]
    baseline = job.get("baseline") or "eager"
    dtype = precision_dtype(out["precision"])
    atol, rtol = tolerance(job, out["precision"])
    if device == "cuda" and not torch.cuda.is_available():
        raise Failure("runtime_error", "device cuda asked for but torch sees no GPU")
    if baseline == "compile" and not hasattr(torch, "compile"):
        raise Failure("runtime_error", "--baseline compile needs torch.compile "
                      "(torch >= 2.0); this is torch %s" % torch.__version__)
    watch = guard.Watch()
    ref = reference("source", lambda: runner.load_source(
        "dice_ref", job.get("ref") or "", directory))
    if hasattr(ref, "Model"):
        watch.reference(ref.Model)
    watch.graphs()
    phases.mark("reference_load")
    try:
        new = runner.load_source("dice_candidate", job.get("code") or "", directory)
    except BaseException as e:
        built_or_fail()
        raise Failure("compile_error", one_line(e))
    phases.mark("candidate_load")
    init = reference("get_init_inputs", lambda: cast(init_inputs(ref, None), dtype))
    seed_all(seed)
    ref_model = reference("Model", lambda: ref.Model(*init))
    seed_all(seed)
    new_model = new.ModelNew(*init)
    built_or_fail()
    runner.copy_weights(ref_model, new_model)
    ref_model = reference("Model", lambda: ref_model.to(device, dtype).eval())
    new_model = new_model.to(device, dtype).eval()
    ref_fn = ref_model
    if baseline == "compile":
        ref_fn = reference("torch.compile", lambda: torch.compile(ref_model))
    timed_ref = baseline != "file"
    phases.mark("construct")

    flush = _Flusher(device, job.get("flush", True) is not False)
    timer = _Timer(device)
    samples = {"ref": [], "new": [], "ref_event": [], "new_event": []}
    threads = False
    wrong = []
    io_bytes = None
    started = guard.monotonic_raw_ns()
    with torch.no_grad():
        for i in range(warmup + trials):
            # Inputs no earlier call has seen, fresh storage and values,
            # made before the flush and outside the timed window.
            ref_inputs = reference("get_inputs", lambda: cast(make_inputs(
                ref, device, seed + 1 + i), dtype))
            new_inputs = clone(ref_inputs)
            expected = None
            phases.mark("inputs")
            if timed_ref or i >= warmup:
                flush()
                wall, event, _, expected = reference(
                    "forward", lambda: timer(ref_fn, ref_inputs))
                if timed_ref and i >= warmup:
                    samples["ref"].append(wall)
                    samples["ref_event"].append(event)
            if io_bytes is None:
                io_bytes = _bytes(ref_inputs)
            flush()
            watch.candidate_running = True
            try:
                wall, event, left, got = timer(new_model, new_inputs)
            finally:
                watch.candidate_running = False
            built_or_fail()
            threads = threads or left
            if i >= warmup:
                samples["new"].append(wall)
                samples["new_event"].append(event)
                verdict = compare(expected, got, atol, rtol)
                if not verdict.ok:
                    wrong.append((i - warmup, verdict.reason))
            ref_inputs = new_inputs = expected = got = None
            phases.mark("timed_calls")
    elapsed = (guard.monotonic_raw_ns() - started) / 1e6
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
    flops = None
    if device == "cuda" and flush.bytes:
        flops = reference(
            "forward", lambda: reference_flops(ref_model, cast(make_inputs(
                ref, device, seed), dtype)))
    bound = speed_of_light(device, io_bytes, flops) if flush.bytes else None
    out["speed_of_light_ms"] = bound
    out["deception"] = findings(watch, wrong, trials, samples, elapsed, bound,
                                (timer.disagreements, timer.calls))
    phases.mark("speed_of_light")


def speed_of_light(device, io_bytes, flops):
    """The least time in ms a call can take on this device: the larger of
    IO_BYTES, the inputs the reference reads, at the GPU's peak memory
    bandwidth (the L2 was flushed, so they come from memory), and FLOPS,
    the reference's floating-point operations, at PEAK_FLOPS_PER_SM_CLOCK
    on every SM at its highest clock.  Outputs are not counted (they may
    stay in L2 when the call ends), and the FLOP peak is above any
    precision's: the bound is low on purpose, so that whatever is below it
    is impossible.  None on the CPU, whose caches can hold a whole problem
    (no bound there would be both sound and useful), without a flush, and
    where neither the bandwidth nor the clocks can be read."""
    if device != "cuda":
        return None
    times = []
    bandwidth = memory_bandwidth()
    if io_bytes and bandwidth:
        times.append(io_bytes / bandwidth * 1e3)
    peak = peak_flops()
    if flops and peak:
        times.append(flops / peak * 1e3)
    return max(times) if times else None


def reference_flops(fn, inputs):
    """The floating-point operations of one call of FN on INPUTS, by
    torch.utils.flop_counter's formulas per operator (torch >= 2.1), or
    None.  Counted by a dispatch mode of our own rather than its
    FlopCounterMode, whose module tracker imports torch._dynamo on first
    use: five seconds of every timing run on an H100 host with torch 2.11
    (BENCHMARKS.md), for the same sum."""
    try:
        import torch
        from torch.utils.flop_counter import flop_registry
        from torch.utils._python_dispatch import TorchDispatchMode
    except ImportError:
        return _flops_by_counter_mode(fn, inputs)
    try:
        device_query = torch.ops.prim.device.default
    except (AttributeError, RuntimeError):
        device_query = None

    class Counter(TorchDispatchMode):
        flops = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            packet = func._overloadpacket
            decompose = getattr(func, "decompose", None)
            # An operator without a formula may still be made of some
            # that have one (as FlopCounterMode counts it).
            if packet not in flop_registry and decompose is not None \
                    and func is not device_query:
                with self:
                    parts = decompose(*args, **kwargs)
                if parts is not NotImplemented:
                    return parts
            out = func(*args, **kwargs)
            if packet in flop_registry:
                self.flops += flop_registry[packet](*args, **kwargs, out_val=out)
            return out

    try:
        counter = Counter()
        with counter:
            fn(*inputs)
        return counter.flops or None
    except Exception:
        return None


def _flops_by_counter_mode(fn, inputs):
    """reference_flops by FlopCounterMode itself, for a torch whose
    flop_counter has the mode but not the registry of formulas; None
    before torch 2.1, which has neither."""
    try:
        from torch.utils.flop_counter import FlopCounterMode
    except ImportError:
        return None
    try:
        counter = FlopCounterMode(display=False)
        with counter:
            fn(*inputs)
        return counter.get_total_flops() or None
    except Exception:
        return None


def findings(watch, wrong, trials, samples, elapsed, bound, clocks):
    """time.deception: what the candidate did to the timing stage.  Every
    flag here is deceptive (dice-time(1), Deception)."""
    evidence = {}
    changed = guard.patched()
    measured = sum(samples["ref"]) + sum(samples["new"])
    if measured > elapsed * 1.01 + 1.0:
        changed.append("the timer's clock (%.1f ms measured in %.1f ms)"
                       % (measured, elapsed))
    # A preempted harness can make the clocks disagree on a few calls; a
    # clock slowed for the candidate's calls does it on most.
    disagreements, calls = clocks
    if disagreements * 2 > len(samples["new"]):
        changed.append("the timer's clock (slower than a second clock on "
                       "%d of %d calls)" % (disagreements, calls))
    if changed:
        evidence["timer_patched"] = "replaced while the candidate ran: " + \
            ", ".join(changed)
    if wrong:
        k, reason = wrong[0]
        evidence["stale_output"] = ("%d of %d timed calls on fresh inputs "
                                    "returned a wrong result (first: call %d: %s)"
                                    % (len(wrong), trials, k, reason or "?"))[:300]
    if watch.reference_calls:
        evidence["reference_forward"] = ("ModelNew.forward ran the reference "
                                         "Model's forward %d time(s)"
                                         % watch.reference_calls)
    if watch.graph_uses:
        evidence["cuda_graph"] = "the candidate used " + ", ".join(
            sorted(set(watch.graph_uses)))
    if bound is not None and samples["new"]:
        median = sorted(samples["new"])[len(samples["new"]) // 2]
        if median < bound:
            evidence["below_speed_of_light"] = (
                "median %.4g ms, below the %.4g ms that the reference's "
                "inputs or FLOPs take at the device's peak" % (median, bound))
    flags = sorted(evidence)
    return {"deceptive": bool(flags), "because": flags, "flags": flags,
            "evidence": evidence}


def run(job, directory, arch, number, compile_object):
    """The whole time job; returns the result object."""
    out = {"status": None, "error": None,
           "trials": number(job, "trials", 100, int),
           "warmup": number(job, "warmup", 10, int),
           "input_sets": number(job, "input_sets", 3, int),
           "seed": number(job, "seed", 42, int),
           "precision": job.get("precision") or "fp32"}
    if out["precision"] not in PRECISIONS:
        raise ValueError("job precision must be fp32, fp16 or bf16")
    if out["trials"] < 1 or out["warmup"] < 0 or out["input_sets"] < 1:
        raise ValueError("job trials, warmup or input_sets out of range")
    if job.get("baseline", "eager") not in ("eager", "compile", "file", None):
        raise ValueError("job baseline must be eager, compile or file")
    out.update(device_info(job.get("device") or "cpu"))
    phases.mark("device_info")
    try:
        time_job(job, directory, out)
    except BaseException as e:
        out["status"], out["error"] = status.of(e)
    if job.get("phases"):
        phases.mark("result")
        out["phases_ms"] = phases.result()
    error = out["error"] if out["status"] == "compile_error" else None
    return {"compile": compile_object(arch, error), "time": out}
