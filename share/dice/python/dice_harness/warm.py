"""python -m dice_harness.warm: fill dice's bytecode cache.

Run by the C tools before their first harness, outside any sandbox, with
PYTHONPYCACHEPREFIX set to the cache (dice(7), HARNESS PROTOCOL, Bytecode
cache).  No candidate code runs here: it imports what every harness and
builder imports before its job (torch, torch.utils.cpp_extension, torch's
dispatch-mode machinery, this package), so that Python writes their
bytecode once.  The harnesses then read it under the same prefix, where
the sandbox leaves it read-only, and never write any themselves.

Where torch has no bytecode files of its own (images built with
PYTHONDONTWRITEBYTECODE=1, or pip --no-compile) every harness would
otherwise compile torch's sources again: seconds of CPU per process.

A stamp named after the interpreter, torch's files and this package's
says the work is done, so that later runs cost one Python start.
Exit status 0 when the cache is warm, 1 when something failed (the C side
goes on without it: nothing depends on the cache but speed), 2 without a
prefix.
"""

import hashlib
import importlib.util
import json
import os
import sys


def _stat(path):
    try:
        st = os.stat(path)
    except OSError:
        return [path, None, None]
    return [path, st.st_mtime_ns, st.st_size]


def stamp_name():
    """What a warm cache was warmed for: the interpreter, torch's
    package (where it is, its __init__ and version files) and this
    package's sources.  Bytecode of a changed source is rewritten by
    Python itself (it checks each source's time and size), but a stamp
    that outlived such a change would leave the new one unwritten."""
    parts = [sys.version, os.path.realpath(sys.executable), sys.pycache_prefix]
    spec = importlib.util.find_spec("torch")
    if spec is not None and spec.origin:
        torch_dir = os.path.dirname(spec.origin)
        parts += [_stat(spec.origin), _stat(os.path.join(torch_dir, "version.py"))]
    here = os.path.dirname(os.path.abspath(__file__))
    parts += [_stat(os.path.join(here, name))
              for name in sorted(os.listdir(here)) if name.endswith(".py")]
    digest = hashlib.sha256(json.dumps(parts).encode()).hexdigest()
    return digest[:32]


def warm():
    """Import what harnesses and builders import before their job, and
    the harness's own modules."""
    import torch
    from . import __main__ as harness
    harness._first_dispatch_mode(torch)
    from . import builder
    builder.preload()
    from . import (buildcache, buildclient, compare, cudasplit, device,  # noqa: F401
                   evidence, guard, redact, resultfd, runner, status, timing)
    # What evidence and timing import at their first use; the FLOP
    # formulas' module is missing from older torch, which counts no FLOPs.
    for name in ("torch.autograd.profiler", "torch.utils.flop_counter"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass


def main():
    prefix = sys.pycache_prefix
    if not prefix:
        print("dice_harness.warm: PYTHONPYCACHEPREFIX is not set", file=sys.stderr)
        return 2
    stamps = os.path.join(prefix, "dice-warm")
    stamp = os.path.join(stamps, stamp_name())
    if os.path.exists(stamp):
        return 0
    # The cache is dice's own: a PYTHONDONTWRITEBYTECODE meant to keep
    # bytecode out of an image's packages does not concern it.
    sys.dont_write_bytecode = False
    try:
        warm()
        os.makedirs(stamps, exist_ok=True)
        # Written whole or not at all, as Python writes its bytecode:
        # several tools may warm the same cache at once.
        tmp = "%s.%d" % (stamp, os.getpid())
        with open(tmp, "w") as f:
            f.write(json.dumps({"python": sys.version,
                                "torch": sys.modules["torch"].__version__}) + "\n")
        os.replace(tmp, stamp)
    except Exception as e:
        print("dice_harness.warm: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
