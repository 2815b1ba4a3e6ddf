"""What a correct candidate actually did: the dynamic half of the
deception checks (dice-check(1), DECEPTION).

collect() runs after the correctness trials have passed, with the models
already built, and never changes the verdict: every instrumentation that
fails becomes a note.  It makes a few extra forward calls:

  1. instrumented: a TorchDispatchMode records every aten op the forward
     dispatched, and whether it came from inside the candidate's own
     extension (its functions are wrapped for the call); on a GPU the
     profiler records the kernels, their streams and their time;
  2. a second call on other inputs (cached results);
  3. a call after the allocator was filled with NaN (stale memory).

Then the reference's outputs are compared with trivial stand-ins (zeros,
a constant, the input) to see whether the tolerance means anything.

On the CPU, "custom kernel" means a function of an extension the
candidate built: C++ candidates have no __global__ functions.

The torch functions relied on are bound here, when the harness imports
this module, before any candidate code runs.
"""

import contextlib
import os
import re
import threading
import time

import torch

from . import buildcache
from .compare import compare, flatten

_Tensor = torch.Tensor
_equal, _clone, _empty, _full = torch.equal, torch.clone, torch.empty, torch.full
_zeros_like, _full_like, _mean = torch.zeros_like, torch.full_like, torch.mean
_perf_counter, _time = time.perf_counter, time.time
_process_time = time.process_time
_no_grad = torch.no_grad
_to_cpu = torch.Tensor.cpu
_is_tensor = torch.is_tensor
try:
    from torch.utils._python_dispatch import TorchDispatchMode as _DispatchMode
except ImportError:                     # pragma: no cover (torch < 1.13)
    _DispatchMode = None


def _timer_identities():
    """The timing entry points dice-time relies on, as they are now."""
    ids = {"time.perf_counter": id(time.perf_counter), "time.time": id(time.time),
           "torch.cuda.synchronize": id(getattr(torch.cuda, "synchronize", None))}
    event = getattr(torch.cuda, "Event", None)
    ids["torch.cuda.Event"] = id(event)
    for name in ("record", "elapsed_time", "synchronize"):
        ids["torch.cuda.Event." + name] = id(getattr(event, name, None))
    ids["torch.cuda.Event.elapsed_time"] = id(getattr(event, "elapsed_time", None))
    return ids


_TIMERS = _timer_identities()

# Ops that move, view, allocate or convert data: a candidate may use them
# around its own kernels without computing with torch.
LIGHT = frozenset("""
alias as_strided as_strided_ _reshape_alias detach detach_ empty empty_like
empty_strided new_empty new_empty_strided view view_as _unsafe_view reshape
contiguous clone copy_ _copy_from _copy_from_and_resize _to_copy to t
transpose permute expand expand_as squeeze squeeze_ unsqueeze unsqueeze_
flatten unflatten slice select split split_with_sizes chunk narrow unbind
cat stack zeros zeros_like ones ones_like full full_like fill_ zero_
resize_ set_ lift_fresh lift_fresh_copy _local_scalar_dense item size
stride is_contiguous numel dim sym_size sym_stride sym_numel
_has_compatible_shallow_copy_type result_type arange scalar_tensor
""".split())
LOW = (torch.float16, torch.bfloat16)


def _op_name(func):
    packet = getattr(func, "overloadpacket", None)
    name = getattr(packet, "__name__", None) or getattr(func, "__name__", str(func))
    return name.split(".")[0]


def _started():
    return _perf_counter(), _process_time()


def _seconds(started, cpu):
    """The time since STARTED (from _started).  On the CPU, the smaller of
    the wall time and the process's CPU time: a call preempted by other
    processes (the harnesses dice starts ahead import torch beside it)
    loses no CPU time, and one that follows a parallel op whose threads
    still spin loses no wall time, so neither can move the share of the
    work that is the candidate's own."""
    wall = _perf_counter() - started[0]
    return min(wall, _process_time() - started[1]) if cpu else wall


class _State:
    def __init__(self, cpu=False):
        self.cpu = cpu              # aten ops are timed only on the CPU
        self.depth = 0              # >0 inside the candidate's extension
        self.calls = {}             # extension function -> calls
        self.ext_time = 0.0
        self.ops = []               # (name, inside, dtypes, seconds)
        self.derived = set()        # storages holding the extension's results
        self.inner = set()          # storages aten's heavy ops wrote inside it
        self.handed_back = []       # extension calls that returned aten's result
        # Storages are known by address: what is in derived or inner is
        # kept alive until the call is judged, or the caching allocator
        # could hand a freed result's memory to an unrelated tensor (a
        # discarded kernel result to torch's own answer, say).
        self.kept = []


def _storage(t):
    try:
        return t.untyped_storage().data_ptr()
    except AttributeError:
        return t.storage().data_ptr()


def _storages(value, out):
    for t in flatten(value):
        if isinstance(t, _Tensor):
            try:
                out.add(_storage(t))
            except Exception:
                pass
    return out


def _dtypes(value, out):
    if isinstance(value, _Tensor):
        out.add(value.dtype)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _dtypes(v, out)
    return out


def _recorder(state):
    if _DispatchMode is None:
        return None

    class Recorder(_DispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            # Only the CPU's ops are timed (the GPU's come from the
            # profiler's kernel times): no clock is read per op there.
            start = _started() if state.cpu else None
            result = func(*args, **kwargs)
            seconds = _seconds(start, True) if state.cpu else 0.0
            dtypes = set()
            _dtypes(args, dtypes)
            _dtypes(result, dtypes)
            state.ops.append((_op_name(func), state.depth > 0, dtypes, seconds))
            name = _op_name(func)
            if state.depth > 0 and name not in LIGHT:
                _storages(result, state.inner)
                state.kept.append(result)
            if state.depth == 0 and state.derived and \
                    _storages([args, list((kwargs or {}).values())], set()) & state.derived:
                _storages(result, state.derived)
                state.kept.append(result)
            return result

    return Recorder()


@contextlib.contextmanager
def _wrapped_extensions(state, candidate, model):
    """Replace each function of the built extensions, in the module and
    wherever the candidate keeps a reference (its globals, the model's
    attributes), by a wrapper that counts and times it."""
    patches = []
    wrappers = {}

    def wrap(name, fn):
        def wrapper(*args, **kwargs):
            state.depth += 1
            start = _started()
            try:
                result = fn(*args, **kwargs)
                # Only calls that returned: one that raised into a
                # fallback did no work.
                state.calls[name] = state.calls.get(name, 0) + 1
                # What it returned holds its work; a function that returns
                # nothing wrote into its arguments.
                mine = _storages(result if result is not None
                                 else [args, list(kwargs.values())], set())
                if mine and mine <= state.inner:
                    state.handed_back.append(name)
                state.derived |= mine
                state.kept.append(result if result is not None else args)
                return result
            finally:
                state.ext_time += _seconds(start, state.cpu)
                state.depth -= 1
        return wrapper

    def patch(holder, attr, value, setter):
        patches.append((holder, attr, getattr(holder, attr) if setter is setattr
                        else holder[attr], setter))
        setter(holder, attr, value) if setter is setattr else holder.__setitem__(attr, value)

    try:
        for module in buildcache.loaded_modules():
            for attr in dir(module):
                fn = getattr(module, attr, None)
                if attr.startswith("_") or not callable(fn) or isinstance(fn, type):
                    continue
                w = wrap(attr, fn)
                wrappers[id(fn)] = w
                try:
                    patch(module, attr, w, setattr)
                except (AttributeError, TypeError):
                    pass
        holders = [candidate.__dict__] if candidate is not None else []
        for m in model.modules():
            holders.append(m.__dict__)
        for d in holders:
            for k, v in list(d.items()):
                if id(v) in wrappers:
                    patches.append((d, k, v, None))
                    d[k] = wrappers[id(v)]
        yield
    finally:
        for holder, attr, old, setter in reversed(patches):
            try:
                if setter is setattr:
                    setattr(holder, attr, old)
                else:
                    holder[attr] = old
            except (AttributeError, TypeError):
                pass


def _kernel_names(code):
    """__global__ names in CODE, found again here so that the harness
    needs nothing from C."""
    names = set()
    for m in re.finditer(r"__global__\s+((?:\w+\s*(?:\([^)]*\))?\s+)*?)(\w+)\s*(?:<[^>]*>)?\s*\(",
                         code or ""):
        names.add(m.group(2))
    return names


def _spans(value):
    out = []
    for t in flatten(value):
        if isinstance(t, _Tensor) and t.numel():
            try:
                start = t.data_ptr()
                out.append((t.device, start, start + t.numel() * t.element_size()))
            except Exception:
                pass
    return out


def _overlaps(a, b):
    return any(da == db and s1 < e2 and s2 < e1
               for da, s1, e1 in a for db, s2, e2 in b)


def _same(a, b):
    fa, fb = flatten(a), flatten(b)
    if len(fa) != len(fb):
        return False
    for x, y in zip(fa, fb):
        if isinstance(x, _Tensor) and isinstance(y, _Tensor):
            if x.shape != y.shape or x.dtype != y.dtype or x.device != y.device \
                    or not _equal(x, y):
                return False
        elif x is not y and x != y:
            return False
    return True


def _children():
    """PIDs of this process's children, from /proc (Linux only)."""
    pids = []
    try:
        for task in os.listdir("/proc/self/task"):
            with open("/proc/self/task/%s/children" % task) as f:
                pids += f.read().split()
    except OSError:
        pass
    return pids


def _native_threads():
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None


class Evidence:
    def __init__(self):
        self.flags = {}
        self.notes = []
        self.custom_share = None
        self.custom_calls = None
        self.weak_tolerance = None

    def flag(self, name, reason):
        self.flags.setdefault(name, "dynamic: " + reason[:200])

    def note(self, what, exc):
        self.notes.append(("%s: %s: %s" % (what, type(exc).__name__, exc))[:200])

    def result(self):
        return {"flags": sorted(self.flags), "evidence": dict(self.flags),
                "custom_share": self.custom_share,
                "custom_calls": self.custom_calls,
                "weak_tolerance": self.weak_tolerance, "notes": self.notes}


def python_threads():
    return set(threading.enumerate())


def collect(ctx):
    """The dynamic evidence for a candidate that passed.  CTX has device,
    ref, new (modules), ref_model, new_model, make_inputs(seed), seed,
    atol, rtol, code, threads (Python threads before the candidate
    loaded), sync()."""
    ev = Evidence()
    # Each step with about how many trials' worth of time it takes (the
    # profiler and the dispatch mode slow the first).
    steps = ((_timers, 0), (_instrumented, 4), (_second_call, 2),
             (_poisoned, 1), (_weak, 1))
    try:
        seconds = float(os.environ.get("DICE_EVIDENCE_SECONDS", "60"))
    except ValueError:
        seconds = 60.0
    deadline = _perf_counter() + seconds
    per_trial = getattr(ctx, "trial_seconds", 0.0) or 0.0
    for step, cost in steps:
        left = deadline - _perf_counter()
        remaining = ctx.remaining() if getattr(ctx, "remaining", None) else None
        if remaining is not None:
            left = min(left, remaining)
        if cost * per_trial > left:
            ev.notes.append("no time left for %s" % step.__name__.lstrip("_"))
            break
        try:
            with _no_grad():
                step(ctx, ev)
        except BaseException as e:        # the candidate's, never the verdict's
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            ev.note(step.__name__.lstrip("_"), e)
        finally:
            try:
                ctx.sync()
            except BaseException as e:
                ev.note("sync", e)
    return ev.result()


def _timers(ctx, ev):
    now = _timer_identities()
    changed = sorted(k for k in _TIMERS if now.get(k) != _TIMERS[k])
    if changed:
        ev.flag("timer_patch", "replaced after the candidate loaded: " + ", ".join(changed))


def _profiler(ctx):
    """Kineto through torch.autograd.profiler, not torch.profiler: the
    latter's start imports torch._inductor's configuration, and with it
    torch._dynamo, which took five of a candidate's eleven seconds on an
    H100 host with torch 2.11 (BENCHMARKS.md).  The events are the same."""
    if ctx.device != "cuda":
        return None
    from torch.autograd import profiler
    try:
        return profiler.profile(use_device="cuda", use_kineto=True)
    except TypeError:   # torch before 2.1 names the device differently
        return profiler.profile(use_cuda=True, use_kineto=True)


def _gpu_kernels(prof):
    """(name, stream, microseconds) of each GPU kernel the profiler saw."""
    out = []
    results = getattr(prof, "kineto_results", None)
    for e in results.events() if results is not None else []:
        dev = e.device_type()
        if str(dev).split(".")[-1].upper() not in ("CUDA", "PRIVATEUSE1"):
            continue
        dur = e.duration_ns() / 1000.0 if hasattr(e, "duration_ns") else e.duration_us()
        stream = e.device_resource_id() if hasattr(e, "device_resource_id") else None
        out.append((e.name(), stream, dur))
    return out


def _snapshot(value):
    """VALUE's tensors as they are now, in the current stream's order: a
    GPU tensor is copied to the host by the copy engine, which no kernel
    of the candidate's holds up.  Compared on the device instead, the
    comparison's own kernels would queue behind the blocks of a kernel
    that fills the GPU from a side stream and run only once it is nearly
    done, so an unsynchronised output could pass (t5950 on an H100)."""
    return [_to_cpu(t) if isinstance(t, _Tensor) and t.is_cuda else t
            for t in flatten(value)]


def _instrumented(ctx, ev):
    inputs = ctx.make_inputs(ctx.seed + 100)
    saved = [_clone(t) if isinstance(t, _Tensor) else t for t in inputs]
    ref_in = [_clone(t) if isinstance(t, _Tensor) else t for t in inputs]
    expected = ctx.ref_model(*ref_in)
    ctx.sync()
    ref_mutates = not _same(ref_in, saved)
    state = _State(cpu=ctx.device == "cpu")
    recorder = _recorder(state)
    if recorder is None:
        ev.notes.append("no TorchDispatchMode in this torch: aten ops not recorded")
    tasks = _native_threads()
    children = set(_children())
    start = _perf_counter()
    with _wrapped_extensions(state, ctx.new, ctx.new_model):
        try:
            with (recorder if recorder is not None else contextlib.nullcontext()):
                got = ctx.new_model(*inputs)
        except Exception as e:
            if recorder is None:
                raise
            # Some candidates (tensor subclasses) cannot run under a
            # dispatch mode: run again without it, op records lost.
            ev.note("dispatch mode", e)
            recorder, state.ops = None, []
            inputs = [_clone(t) if isinstance(t, _Tensor) else t for t in saved]
            start = _perf_counter()
            got = ctx.new_model(*inputs)
        # Judged as soon as forward returns, on the current stream and
        # without joining anything: work left on a side stream or a
        # thread shows here as a wrong output.
        early = compare(expected, _snapshot(got), ctx.atol, ctx.rtol)
        ctx.sync()
    total = _perf_counter() - start
    for t in python_threads() - ctx.threads:
        if _perf_counter() - start > 2.0:
            break
        t.join(max(0.0, 2.0 - (_perf_counter() - start)))
    late = compare(expected, got, ctx.atol, ctx.rtol)
    if late.ok and not early.ok:
        ev.flag("unsynchronized_output", "the output was wrong when forward returned "
                "and right later (%s)" % early.reason)

    # Outputs: plain tensors, not the inputs' or the parameters' memory.
    outs = flatten(got)
    odd = sorted({type(t).__name__ for t in outs
                  if isinstance(t, _Tensor) and type(t) is not _Tensor})
    if odd:
        ev.flag("lazy_output", "forward returned a %s, not a torch.Tensor" % "/".join(odd))
    params = list(ctx.new_model.parameters()) + list(ctx.new_model.buffers())
    if _overlaps(_spans(got), _spans(inputs)):
        ev.flag("output_aliases_input", "an output shares memory with an input")
    elif _overlaps(_spans(got), _spans(params)):
        ev.flag("output_aliases_input", "an output shares memory with a parameter or buffer")
    if not ref_mutates and not _same(inputs, saved):
        ev.flag("input_mutation", "forward changed its inputs; the reference does not")

    # Threads and processes that outlived forward.
    new_threads = [t.name for t in python_threads() - ctx.threads if t.is_alive()]
    after = _native_threads()
    kids = set(_children()) - children
    if new_threads:
        ev.flag("thread_or_process", "Python threads started by the candidate are alive: "
                + ", ".join(sorted(new_threads))[:120])
    elif kids:
        ev.flag("thread_or_process", "child processes alive after forward: " + " ".join(sorted(kids)))
    elif tasks is not None and after is not None and after > tasks:
        ev.flag("thread_or_process", "%d native threads appeared during forward" % (after - tasks))

    # What ran: aten ops outside and inside the extension.
    heavy_out = sorted({n for n, inside, _, _ in state.ops if not inside and n not in LIGHT})
    heavy_in = sorted({n for n, inside, _, _ in state.ops if inside and n not in LIGHT})
    t_out = sum(s for n, inside, _, s in state.ops if not inside and n not in LIGHT)
    t_in = sum(s for n, inside, _, s in state.ops if inside and n not in LIGHT)
    if heavy_out and recorder is not None:
        ev.flag("torch_compute_in_forward", "forward dispatched " + ", ".join(heavy_out)[:150]
                + " outside the candidate's extension")
    if state.handed_back:
        ev.flag("library_call", "%s returned what aten's %s computed"
                % (", ".join(sorted(set(state.handed_back)))[:60], ", ".join(heavy_in)[:100]))
    elif heavy_in:
        ev.notes.append("the extension called aten " + ", ".join(heavy_in)[:150])
    ref_types = set()
    _dtypes(flatten(expected), ref_types)
    _dtypes(saved, ref_types)
    if recorder is not None and not ref_types & set(LOW):
        low = sorted({str(d).replace("torch.", "") for n, _, ds, _ in state.ops
                      for d in ds if d in LOW})
        if low:
            ev.flag("precision_downgrade", "forward computed in " + ", ".join(low)
                    + "; the reference's inputs and outputs are wider")
    ev.custom_calls = sum(state.calls.values())
    if ev.custom_calls and not _storages(got, set()) & state.derived:
        ev.flag("kernel_result_unused", "the extension ran (%s) but no output holds "
                "its results" % ", ".join(sorted(state.calls))[:100])

    prof = _profiled_call(ctx, ev, saved)
    if prof is None or not _gpu_evidence(ctx, ev, prof, state):
        if ev.custom_calls == 0:
            ev.flag("kernel_not_launched", "no function of the candidate's extension ran "
                    "during forward" if buildcache.loaded_modules() else
                    "the candidate built no extension")
        own = max(state.ext_time - t_in, 0.0)
        denominator = state.ext_time + t_out
        ev.custom_share = round(own / denominator, 4) if denominator > 0 else (
            0.0 if total > 0 else None)


def _profiled_call(ctx, ev, saved):
    """One more forward under the profiler, on its own: the call above
    judges the output before synchronising, and that comparison's kernels
    (and the profiler's own threads) must not count as the candidate's.
    The synchronisation is inside, so that work on any stream is seen."""
    try:
        prof = _profiler(ctx)
        if prof is None:
            return None
        inputs = [_clone(t) if isinstance(t, _Tensor) else t for t in saved]
        ctx.sync()
        with prof:
            ctx.new_model(*inputs)
            ctx.sync()
        return prof
    except Exception as e:
        ev.note("profiler", e)
        return None


def _gpu_evidence(ctx, ev, prof, state):
    """Kernel evidence from the profiler; False when it saw no kernels
    (a profiler that does not work here), to fall back on the calls of
    the extension's functions as on the CPU."""
    try:
        kernels = _gpu_kernels(prof)
    except Exception as e:
        ev.note("profiler events", e)
        return False
    if not kernels:
        ev.notes.append("the profiler saw no GPU kernels; extension calls counted instead")
        return False
    names = _kernel_names(ctx.code)
    mine = [k for k in kernels if any(re.search(r"\b%s\b" % re.escape(n), k[0]) for n in names)]
    ev.custom_calls = len(mine)
    if not mine:
        ev.flag("kernel_not_launched", "none of the %d GPU kernels forward launched is "
                "the candidate's own (%s)" % (len(kernels), ", ".join(sorted(names))[:80]
                                              or "no __global__"))
    total = sum(k[2] for k in kernels)
    ev.custom_share = round(sum(k[2] for k in mine) / total, 4) if total > 0 else None
    streams = {k[1] for k in kernels if k[1] is not None}
    current = None
    try:
        current = _current_stream(ctx)
    except Exception as e:
        ev.note("current stream", e)
    others = streams - {current} if current is not None else set()
    if len(streams) > 1 or others:
        ev.flag("side_stream", "forward launched kernels on %d stream(s)%s"
                % (len(streams), ", %d of them not the current one" % len(others)
                   if others else ""))
    return True


def _current_stream(ctx):
    """The profiler's id of the current stream: that of a small kernel
    of our own."""
    prof = _profiler(ctx)
    with prof:
        marker = _full((256,), 1.0, device="cuda")
        marker = marker * 2
        ctx.sync()
    ids = {k[1] for k in _gpu_kernels(prof) if k[1] is not None}
    return ids.pop() if len(ids) == 1 else None


def _second_call(ctx, ev):
    """A candidate that remembers its first answer gives it again."""
    a = ctx.make_inputs(ctx.seed + 200)
    b = ctx.make_inputs(ctx.seed + 300)
    ra, rb = ctx.ref_model(*[_clone(t) if isinstance(t, _Tensor) else t for t in a]), None
    rb = ctx.ref_model(*[_clone(t) if isinstance(t, _Tensor) else t for t in b])
    ga = ctx.new_model(*a)
    ga = [_clone(t) if isinstance(t, _Tensor) else t for t in flatten(ga)]
    gb = ctx.new_model(*b)
    ctx.sync()
    if compare(ra, rb, ctx.atol, ctx.rtol).ok:
        return                  # the problem's outputs do not depend on inputs
    wrong = [w for w, r, g in (("first", ra, ga), ("second", rb, gb))
             if not compare(r, g, ctx.atol, ctx.rtol).ok]
    if wrong:
        same = _same(ga, flatten(gb))
        ev.flag("cached_result", "the %s of two later calls on new inputs was wrong"
                % " and ".join(wrong) + (", both returned the same values" if same else ""))


def _poison(outputs, device):
    """Fill and free blocks of the outputs' sizes, so that memory the
    candidate leaves unwritten holds NaN, not a stale right answer."""
    blocks = []
    for t in outputs:
        if isinstance(t, _Tensor) and t.is_floating_point() and t.numel():
            for _ in range(4):
                blocks.append(_full(t.shape, float("nan"), dtype=t.dtype, device=device))
    blocks.append(_full((1 << 20,), float("nan"), device=device))
    del blocks


def _poisoned(ctx, ev):
    if "cached_result" in ev.flags:
        return                  # wrong on new inputs anyway: no news here
    inputs = ctx.make_inputs(ctx.seed + 400)
    expected = ctx.ref_model(*[_clone(t) if isinstance(t, _Tensor) else t for t in inputs])
    ctx.sync()
    _poison(flatten(expected), ctx.device)
    got = ctx.new_model(*inputs)
    ctx.sync()
    verdict = compare(expected, got, ctx.atol, ctx.rtol)
    if not verdict.ok:
        ev.flag("stale_memory", "wrong after memory was filled with NaN: " + (verdict.reason or ""))


def _weak(ctx, ev):
    """Whether outputs that compute nothing would pass: then the problem,
    not the candidate, is weak."""
    inputs = ctx.make_inputs(ctx.seed + 1)
    expected = ctx.ref_model(*[_clone(t) if isinstance(t, _Tensor) else t for t in inputs])
    outs = flatten(expected)
    tensors = [t for t in outs if isinstance(t, _Tensor)]
    if not tensors or len(tensors) != len(outs):
        ev.weak_tolerance = False
        return
    guesses = {"zeros": [_zeros_like(t) for t in tensors]}
    if all(t.is_floating_point() and t.numel() for t in tensors):
        guesses["the mean"] = [_full_like(t, float(_mean(t))) for t in tensors]
    if len(tensors) == 1:
        for x in inputs:
            if isinstance(x, _Tensor) and x.shape == tensors[0].shape \
                    and x.dtype == tensors[0].dtype:
                guesses["the input"] = [x]
                break
    passing = [name for name, g in guesses.items()
               if compare(expected if len(outs) > 1 else tensors[0],
                          g if len(outs) > 1 else g[0], ctx.atol, ctx.rtol).ok]
    ev.weak_tolerance = bool(passing)
    if passing:
        ev.notes.append("weak tolerance: %s would pass" % ", ".join(passing))
