"""The result channel, kept away from the candidate.

The harness's only answer is one JSON line on the descriptor C gave it.
Candidate code runs in this same process, so before any of it runs the
descriptor is moved to a private close-on-exec number, the variable that
named it is deleted, and stdout is pointed at stderr so that whatever a
candidate prints is log, never result.  A hostile candidate can still find
the descriptor by scanning /proc/self/fd (dice(7) says so); C guards
against that by accepting exactly one well-formed object and by judging
status from the process too.
"""

import fcntl
import json
import os
import random

_fd = None


def take():
    """Hide the result descriptor; return nothing.  Without DICE_RESULT_FD
    (a person running the harness by hand) the result goes to the
    original stdout."""
    global _fd
    name = os.environ.pop("DICE_RESULT_FD", None)
    if name is not None and name.strip().isdigit():
        original = int(name)
    else:
        original = 1
    # A high number picked at random so that a guess at a well-known one
    # misses; F_DUPFD_CLOEXEC keeps it out of compilers and other children.
    # (Under a descriptor limit below that, any free number will do.)
    lowest = random.SystemRandom().randrange(300, 900)
    try:
        _fd = fcntl.fcntl(original, fcntl.F_DUPFD_CLOEXEC, lowest)
    except OSError:
        _fd = fcntl.fcntl(original, fcntl.F_DUPFD_CLOEXEC, 3)
    if original == 1:
        os.dup2(2, 1)
    else:
        os.close(original)


def give(result):
    """Write RESULT as one compact line and close the channel."""
    global _fd
    if _fd is None:
        return
    data = (json.dumps(result, separators=(",", ":"), allow_nan=False)
            + "\n").encode("utf-8")
    fd, _fd = _fd, None
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
    finally:
        os.close(fd)
