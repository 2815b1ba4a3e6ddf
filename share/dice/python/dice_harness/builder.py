"""The builder: the one process that writes the build cache.

A candidate's process can run anything, so if it could write the cache it
could plant a build under another candidate's key, and that candidate
would load it.  So C runs two sandboxes per candidate: the candidate's, in
which the cache is read-only, and this one's (python -m dice_harness
--builder), in which it is writable and no candidate code ever runs.  The
two talk over a socket, DICE_BUILD_FD: one JSON request a line,

  {"kind": "inline"|"load", "name": NAME, "parts": {...},
   "files": [[BASENAME, BASE64], ...]}          (files: "load" only)

one JSON reply a line, {"ok", "key", "cache", "message"}.  The builder
never believes what it is told about the build: it computes the key from
the request itself, builds into the cache under its lock, and never loads
what it built (a shared library's initialisers are the candidate's code).
The compiler is the one thing that reads candidate text here, so flags
that make it run, load or write something (-fplugin, -B, -Wl,..., @file,
-o...) are refused, and so is any character a shell would act on (ninja
runs the compile commands through one); ALLOWED below is the whole list.
"""

import base64
import hashlib
import json
import os
import re
import select
import socket
import sys
import threading

from .fastbuild import blank_flag

# Each flag must match one of these, whole.  A flag that takes its value
# as the next element (-Xcompiler -O3) is checked as two: the value must
# itself be allowed.
_HOST_FLAG = (r"-O[0-3sgz]?|-g[0-3]?|-w|-W(?:no-)?[a-z][a-z0-9+-]*(?:=[a-z0-9]+)?"
              r"|-std=[a-z0-9+]+|-f(?!plugin|dump|profile|auto-profile|lto|"
              r"debug-prefix|file-prefix|macro-prefix|record|callgraph)"
              r"[A-Za-z][A-Za-z0-9-]*(?:=[A-Za-z0-9_.,+-]+)?"
              r"|-m[a-z][a-z0-9-]*(?:=[A-Za-z0-9_.-]+)?|-pthread|-fopenmp"
              r"|-D[A-Za-z_][A-Za-z0-9_]*(?:=[A-Za-z0-9_.:+-]*)?|-U[A-Za-z_][A-Za-z0-9_]*"
              r"|-pedantic|-shared|-rdynamic")
_CUDA_FLAG = (r"--?use_fast_math|--?use-fast-math|-lineinfo|--generate-line-info"
              r"|-G|--?expt-relaxed-constexpr|--?expt-extended-lambda"
              r"|--?extended-lambda|--restrict|-res-usage|--resource-usage"
              r"|--?std=[a-z0-9+]+"
              r"|-(?:arch|code|-gpu-architecture|-gpu-code)=(?:sm|compute|lto)_[0-9]+[af]?"
              r"(?:,(?:sm|compute|lto)_[0-9]+[af]?)*"
              r"|-arch|-code|-gencode|--generate-code"
              r"|(?:-gencode=|--generate-code=)?arch=compute_[0-9]+[af]?,"
              r"code=\[?(?:sm|compute|lto)_[0-9]+[af]?(?:,(?:sm|compute|lto)_[0-9]+[af]?)*\]?"
              r"|(?:sm|compute)_[0-9]+[af]?"
              r"|--?maxrregcount=[0-9]+|-maxrregcount|[0-9]+"
              r"|--?(?:ftz|prec-div|prec-sqrt|fmad)=(?:true|false)"
              r"|-rdc=(?:true|false)|--relocatable-device-code=(?:true|false)"
              r"|--default-stream(?:=(?:per-thread|legacy|null))?|per-thread|legacy"
              r"|-t[0-9]+|--threads(?:=[0-9]+)?"
              r"|-Xptxas|--ptxas-options|-Xcompiler|--compiler-options|-Xcudafe"
              r"|(?:-Xptxas=|--ptxas-options=)?(?:-v|--verbose|-O[0-3]|-dlcm=c[agv]"
              r"|-dscm=(?:cg|cs|wt|wb)|--?warn-on-spills|--?warn-on-local-memory-usage"
              r"|--?allow-expensive-optimizations(?:=(?:true|false))?)"
              r"(?:,(?:-v|-O[0-3]|-dlcm=c[agv]|--?warn-on-spills))*"
              r"|(?:-Xcudafe=)?--diag[_-]suppress(?:=[0-9a-z_,]+)?|[0-9a-z_]+(?:,[0-9a-z_]+)*")
_PATH = r"/?[A-Za-z0-9_.+][A-Za-z0-9_.+/-]*"
_INCLUDE_FLAG = r"-I" + _PATH + r"|-isystem" + _PATH + r"|-I|-isystem|-include|" + _PATH
_LD_FLAG = (r"-l[A-Za-z0-9_.+-]+|-L" + _PATH + r"|" + _PATH + r"\.(?:so(?:\.[0-9]+)*|a)"
            r"|-Wl,-?-rpath," + _PATH + r"|-Wl,--(?:no-)?as-needed|-pthread|-fopenmp")

ALLOWED = {
    "extra_cflags": re.compile("(?:%s|%s)\\Z" % (_HOST_FLAG, _INCLUDE_FLAG)),
    "extra_cuda_cflags": re.compile("(?:%s|%s|%s|-Xcompiler=(?:%s)(?:,(?:%s))*)\\Z"
                                    % (_HOST_FLAG, _CUDA_FLAG, _INCLUDE_FLAG,
                                       _HOST_FLAG, _HOST_FLAG)),
    "extra_ldflags": re.compile("(?:%s)\\Z" % _LD_FLAG),
    "extra_include_paths": re.compile("%s\\Z" % _PATH),
}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}\Z")
_BASENAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,127}\Z")
# Keyword arguments of newer torch versions that change nothing but
# what the builder does anyway, passed on when they are booleans.
_MORE = ("use_pch", "no_implicit_headers", "with_sycl")


class Refused(ValueError):
    """A request the builder will not build."""


def refused_flag(field, flag):
    return Refused("dice's builder refuses %s flag %r: only the flags "
                   "listed in dice-check(1), BUILDS, are passed to the "
                   "compiler" % (field, flag))


def check_parts(kind, name, parts):
    """Raise Refused unless PARTS (the normalised arguments of a
    load_inline or load call) hold only what the builder can build
    safely."""
    if kind not in ("inline", "load"):
        raise Refused("unknown build kind %r" % (kind,))
    if not isinstance(name, str) or not _NAME.match(name):
        raise Refused("the extension name %r is not an identifier" % (name,))
    if not isinstance(parts, dict):
        raise Refused("the build's arguments are not an object")
    for field, pattern in ALLOWED.items():
        values = parts.get(field, [])
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise Refused("%s is not a list of strings" % field)
        for flag in values:
            if not pattern.match(flag) and not blank_flag(flag):
                raise refused_flag(field, flag)
    for key, value in parts.get("more", []):
        if key not in _MORE or value not in ("True", "False", "None"):
            raise Refused("dice's builder does not pass the argument %s=%s"
                          % (key, value))


def _build_files(files, directory):
    """Write the files of a load() request into DIRECTORY; return their
    paths and the key's view of them."""
    if not isinstance(files, list):
        raise Refused("files is not a list")
    paths, described = [], []
    for item in files:
        if not (isinstance(item, list) and len(item) == 2
                and all(isinstance(x, str) for x in item)):
            raise Refused("a file is not [name, base64]")
        basename, encoded = item
        if not _BASENAME.match(basename):
            raise Refused("the file name %r is not a plain name" % basename)
        data = base64.b64decode(encoded, validate=True)
        path = os.path.join(directory, basename)
        with open(path, "wb") as f:
            f.write(data)
        paths.append(path)
        described.append([basename, hashlib.sha256(data).hexdigest()])
    return paths, described


def _handle(request):
    from . import buildcache
    if not isinstance(request, dict):
        raise Refused("a request is not an object")
    kind, name = request.get("kind"), request.get("name")
    parts = request.get("parts")
    check_parts(kind, name, parts)
    parts = dict(parts)
    sources_dir = paths = None
    if kind == "load":
        sources_dir = buildcache.scratch_dir()
        paths, parts["sources"] = _build_files(request.get("files", []), sources_dir)
    key = buildcache.build_key(kind, name, **parts)
    try:
        built = {}
        cache, message = buildcache.build_only(kind, name, key, parts, paths,
                                               built)
    finally:
        if sources_dir:
            import shutil
            shutil.rmtree(sources_dir, ignore_errors=True)
    return {"ok": message is None, "key": key, "cache": cache,
            "message": message, "path": built.get("path"),
            "pch_ms": built.get("pch_ms"), "plain_because": built.get("plain_because")}


def _watch(sock):
    """End this process when the candidate has gone (or C shut its end):
    a build nobody waits for is not finished, and the lock it held goes
    with the process."""
    poller = select.poll()
    poller.register(sock.fileno(), getattr(select, "POLLRDHUP", 0x2000))
    while True:
        for _fd, _events in poller.poll():
            os._exit(0)


def preload():
    """Import torch's cpp_extension and the modules a build uses, before
    the job is read, by a builder started ahead of its first request.
    Nothing of the job's is needed for it, and nothing is built."""
    import torch.utils.cpp_extension  # noqa: F401
    from . import buildcache, device, fastbuild  # noqa: F401


def serve(job):
    """Answer build requests on DICE_BUILD_FD until the candidate is
    done.  Returns the exit status."""
    name = os.environ.pop("DICE_BUILD_FD", None)
    if name is None or not name.strip().isdigit():
        print("dice_harness: --builder needs DICE_BUILD_FD", file=sys.stderr)
        return 2
    sock = socket.socket(fileno=int(name))
    requests = sock.makefile("rb")
    threading.Thread(target=_watch, args=(sock,), daemon=True).start()
    ready = False
    for line in requests:
        try:
            if not ready:
                from . import buildcache, device    # only when asked
                device.set_arch(job)
                buildcache.install_builder(job.get("cache") or
                                           os.path.join(os.getcwd(), ".dice-cache"))
                ready = True
            reply = _handle(json.loads(line))
        except Exception as e:
            # The request's fault (Refused, bad JSON, wrong types) or the
            # builder's; either way the candidate's build fails, saying why.
            reply = {"ok": False, "key": None, "cache": None,
                     "message": "%s: %s" % (type(e).__name__, e)
                     if not isinstance(e, Refused) else str(e)}
        try:
            sock.sendall((json.dumps(reply) + "\n").encode("utf-8"))
        except OSError:
            break       # the candidate is gone: nobody to answer
    return 0
