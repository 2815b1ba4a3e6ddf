"""What the timing stage trusts, taken before any candidate code runs, and
the watch on what the candidate may do to it (dice-time(1), Deception).

The candidate runs in this process and can rebind any name it can import:
time.perf_counter through the module's namespace, setattr, sys.modules or
importlib; torch.cuda.synchronize, Event, current_stream.  So the timer
calls only the private references taken here, when the harness imports
this module, and after the run verify() says which public names no longer
are what they were (timer_patched).  Whatever the candidate does to the
public names cannot change a measurement; doing it at all is deceptive.

Two more watches run while the candidate's side is called: calls of the
reference Model's forward (its own work run inside ModelNew.forward) and
any use of CUDA graphs (work captured once and replayed, which the
reference, timed eagerly, cannot do).

In-process, a determined candidate could still reach this module's own
variables; the C side's re-timing in a fresh process (dice-time(1),
--max-speedup) and the cross-check of the clocks below are the second
line.
"""

import sys
import threading
import time

import torch

# The clocks and synchronisation the timer calls: bound once, here.
perf_counter_ns = time.perf_counter_ns
monotonic = time.monotonic
monotonic_raw_ns = (lambda: time.clock_gettime_ns(time.CLOCK_MONOTONIC_RAW)) \
    if hasattr(time, "CLOCK_MONOTONIC_RAW") else time.monotonic_ns
enumerate_threads = threading.enumerate
cuda_synchronize = torch.cuda.synchronize
CudaEvent = torch.cuda.Event
_event_record = torch.cuda.Event.record
_event_elapsed = torch.cuda.Event.elapsed_time

# module name -> names in it a timer or a sync could be reached through.
WATCHED = {
    "time": ("perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns",
             "time", "time_ns", "process_time", "clock_gettime",
             "clock_gettime_ns", "sleep"),
    "threading": ("enumerate", "Thread", "active_count"),
    "torch": ("no_grad", "cuda"),
    "torch.cuda": ("synchronize", "Event", "Stream", "current_stream",
                   "default_stream", "stream", "set_stream", "graph",
                   "CUDAGraph", "make_graphed_callables", "graphs"),
}
# class -> methods the timer relies on.
WATCHED_METHODS = {
    "torch.cuda.Event": (torch.cuda.Event, ("record", "elapsed_time",
                                            "synchronize", "query", "wait")),
    "torch.cuda.Stream": (torch.cuda.Stream, ("synchronize", "wait_event",
                                              "wait_stream", "query")),
}


def _snapshot():
    modules = {name: sys.modules.get(name) for name in WATCHED}
    names = {}
    for modname, attrs in WATCHED.items():
        module = modules[modname]
        for attr in attrs:
            names[modname + "." + attr] = getattr(module, attr, None)
    for cname, (cls, methods) in WATCHED_METHODS.items():
        for m in methods:
            names[cname + "." + m] = cls.__dict__.get(m)
    return modules, names


_MODULES, _NAMES = _snapshot()
# The timer's own references, as they were: a candidate that rebinds them
# in this module is caught as surely as one that rebinds time's.
_OWN = {"perf_counter_ns": perf_counter_ns, "monotonic": monotonic,
        "monotonic_raw_ns": monotonic_raw_ns,
        "enumerate_threads": enumerate_threads,
        "cuda_synchronize": cuda_synchronize, "CudaEvent": CudaEvent,
        "_event_record": _event_record, "_event_elapsed": _event_elapsed}


def patched():
    """The watched names that are not what they were when the harness
    started, whichever way they were replaced: the module object in
    sys.modules, an attribute of the module (its namespace, setattr,
    __dict__), a method of a class, or this module's own references."""
    changed = []
    for modname, original in _MODULES.items():
        if sys.modules.get(modname) is not original:
            changed.append("sys.modules[%r]" % modname)
    for qualified, original in _NAMES.items():
        modname, _, attr = qualified.rpartition(".")
        if modname in WATCHED_METHODS:
            cls = WATCHED_METHODS[modname][0]
            now = cls.__dict__.get(attr)
            # methods are compared by equality: a function is itself, a
            # builtin method descriptor may be a fresh wrapper per access
            if now is not original and now != original:
                changed.append(qualified)
            continue
        module = _MODULES[modname]
        for where in (module, sys.modules.get(modname)):
            if where is None:
                continue
            now = where.__dict__.get(attr, None) if hasattr(where, "__dict__") \
                else getattr(where, attr, None)
            if now is not original:
                changed.append(qualified)
                break
    me = sys.modules[__name__].__dict__
    for name, original in _OWN.items():
        if me.get(name) is not original:
            changed.append("dice_harness.guard." + name)
    return sorted(set(changed))


class Watch:
    """Counts what happens while the candidate's side runs: calls of the
    reference Model's forward, and CUDA graph use (at any time after the
    candidate loaded: a graph captured in __init__ is replayed later)."""

    def __init__(self):
        self.candidate_running = False
        self.reference_calls = 0
        self.graph_uses = []
        self._undo = []

    def reference(self, model_class):
        """Wrap MODEL_CLASS.forward: the reference's own calls pass, the
        candidate's are counted.  Call before the candidate loads, so that
        it never sees the unwrapped function."""
        original = model_class.__dict__.get("forward")
        if original is None:
            return
        watch = self

        def forward(*args, **kwargs):
            if watch.candidate_running:
                watch.reference_calls += 1
            return original(*args, **kwargs)
        forward.__name__ = getattr(original, "__name__", "forward")
        forward.__doc__ = getattr(original, "__doc__", None)
        model_class.forward = forward

    def graphs(self):
        """Record every construction, capture or replay of a CUDA graph,
        through the names a candidate would use."""
        cuda = torch.cuda
        watch = self
        for name in ("CUDAGraph", "graph", "make_graphed_callables"):
            original = getattr(cuda, name, None)
            if original is None:
                continue
            if isinstance(original, type):
                # __new__, not __init__: a CPU torch's stand-in class
                # refuses in __new__, and trying counts
                def new(cls, *args, _original=original, _name=name, **kwargs):
                    watch.graph_uses.append("torch.cuda." + _name)
                    if _original.__new__ is object.__new__:
                        return object.__new__(cls)   # takes no arguments
                    return _original.__new__(cls, *args, **kwargs)
                replacement = type(original.__name__, (original,), {"__new__": new})
            else:
                def replacement(*args, _original=original, _name=name, **kwargs):
                    watch.graph_uses.append("torch.cuda." + _name)
                    return _original(*args, **kwargs)
            setattr(cuda, name, replacement)
            # the public names are watched; these are the harness's own
            _NAMES["torch.cuda." + name] = replacement
            graphs = sys.modules.get("torch.cuda.graphs")
            if graphs is not None and getattr(graphs, name, None) is original:
                setattr(graphs, name, replacement)
