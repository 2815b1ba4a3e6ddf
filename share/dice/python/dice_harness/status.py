"""The verdict vocabulary: which status a failure gets, in check and time
alike (dice(7), HARNESS PROTOCOL).

  compile_error   an extension did not build, or the candidate's Python
                  cannot be compiled or imports what does not exist;
  oom             memory ran out (the reference's too: the candidate
                  would not fit either);
  runtime_error   anything else that raised, the candidate's or the
                  reference's (then the message says "reference ...").
"""

from . import buildcache
from .redact import clean, one_line


class Failure(Exception):
    """A verdict reached early: STATUS with a one-line MESSAGE."""

    def __init__(self, status, message):
        Exception.__init__(self, message)
        self.status = status


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


def of(exc):
    """(status, error) for EXC, which ended a check or time job: a
    Failure says its own; otherwise a failed build explains everything
    after it, and the rest is oom or runtime_error."""
    if isinstance(exc, Failure):
        return exc.status, clean(str(exc))
    summary = buildcache.summary()
    if not summary["ok"]:
        return "compile_error", summary["error"]
    return ("oom" if is_oom(exc) else "runtime_error"), one_line(exc)


def reference(what, call):
    """Run CALL for the reference; its failures are the problem's, and
    say so (an out-of-memory stays oom: the candidate would not fit
    either)."""
    try:
        return call()
    except BaseException as e:
        raise Failure("oom" if is_oom(e) else "runtime_error",
                      "reference %s: %s" % (what, one_line(e)))


def built_or_fail():
    summary = buildcache.summary()
    if not summary["ok"]:
        raise Failure("compile_error", summary["error"])
