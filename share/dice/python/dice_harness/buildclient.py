"""The candidate process's side of the builder protocol (builder.py
describes it): buildcache sends each build it cannot find in the cache
here, and loads what the builder built.
"""

import base64
import fcntl
import json
import os
import socket
import threading


class Client:
    """The candidate process's connection to its builder."""

    def __init__(self, fd):
        self._sock = socket.socket(fileno=fd)
        self._file = self._sock.makefile("rb")
        self._lock = threading.Lock()

    def build(self, kind, name, parts, files=None):
        request = {"kind": kind, "name": name, "parts": parts}
        if files is not None:
            request["files"] = [[n, base64.b64encode(data).decode("ascii")]
                                for n, data in files]
        line = (json.dumps(request) + "\n").encode("utf-8")
        with self._lock:
            try:
                self._sock.sendall(line)
                answer = self._file.readline()
            except OSError as e:
                raise RuntimeError("dice's builder cannot be reached: %s" % e)
        if not answer:
            raise RuntimeError("dice's builder stopped before answering")
        return json.loads(answer)


def connect():
    """The Client named by DICE_BUILD_FD, moved to a private close-on-exec
    descriptor and the variable removed; None without one (a person
    running the harness by hand builds in this process)."""
    name = os.environ.pop("DICE_BUILD_FD", None)
    if name is None or not name.strip().isdigit():
        return None
    original = int(name)
    try:
        private = fcntl.fcntl(original, fcntl.F_DUPFD_CLOEXEC, 200)
    except OSError:
        return None
    os.close(original)
    return Client(private)
