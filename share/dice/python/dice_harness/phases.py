"""Where a harness process's time goes: named phases in milliseconds, for
contrib/bench/warm-cost.sh (the job's "phases", set by DICE_PHASES=1).

Imported first by __main__, so that "start" (the interpreter's own start,
from the kernel's record of when the process began) and every later
phase add up to the process's life up to the result.  Recording costs a
clock read per phase; the result carries the figures only when the job
asks.
"""

import os
import time

_last = time.monotonic()
spent = {}


def _since_process_start():
    """Seconds from the process's start (exec) to now, or None: the
    kernel counts in clock ticks (10 ms) since boot."""
    try:
        with open("/proc/self/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = int(fields[19])
        return time.clock_gettime(time.CLOCK_BOOTTIME) - \
            ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


_start = _since_process_start()
if _start is not None:
    spent["start"] = max(0.0, _start * 1e3)


def mark(name):
    """Add the time since the last mark to phase NAME (phases named twice,
    such as one per trial, add up)."""
    global _last
    now = time.monotonic()
    spent[name] = spent.get(name, 0.0) + (now - _last) * 1e3
    _last = now


def result():
    """The phases so far, rounded to 0.1 ms, in the order first seen."""
    return {k: round(v, 1) for k, v in spent.items()}
