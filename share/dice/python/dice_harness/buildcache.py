"""Every extension build a candidate asks for goes through here.

Candidates build with torch.utils.cpp_extension.load_inline (or load),
anywhere: at import, in ModelNew.__init__, on the first forward, often
inside a try/except that hides a failure.  Replacing the two functions in
that module before the candidate is executed catches all of them (a
`from ... import load_inline` in the candidate binds the replacement), so
that each build is recorded and goes to one content-addressed cache that
dice-compile and dice-check share:

  CACHE/<key[:2]>/<key>/   a finished build (meta.json + the .so), put in
                           place by one atomic rename, so a directory that
                           exists is complete;
  CACHE/locks/<key>.lock   flock(2)ed while building; the kernel drops the
                           lock when its holder dies, so a build killed
                           half-way never blocks a later one;
  CACHE/tmp/<key>.<pid>    a build in progress; one found by a process
                           that holds the key's lock is a dead builder's
                           leftover and is removed.

The key is a sha256 over everything that changes the built object: the
sources, function list, name, flags, include paths, with_cuda, the torch,
CUDA and Python versions, TORCH_CUDA_ARCH_LIST, CXX, and HARNESS_VERSION.
Headers named by include paths are not read (their paths are hashed, not
their contents).  A failed build is cached only when the compiler said
why with a file:line diagnostic (the code's fault, which a rebuild would
repeat), never when the failure may be the machine's (a killed compiler,
a full disk); a hit on a cached failure raises again with the same message.

Under dice-check the candidate's process only reads the cache: on a miss
it asks its builder (builder.py), which alone writes it.  Run by hand,
without a builder, the harness builds in its own process.
"""

import fcntl
import glob
import hashlib
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile
import time
import types

from . import HARNESS_VERSION, buildclient, fastbuild

LOG_LIMIT = 2048

builds = []          # one dict per distinct build asked for, in order
_loaded = {}         # key -> what the first load returned
_failed = {}         # key -> the exception its build raised
_original = {}       # the real torch functions
_cache_dir = None
_client = None       # the connection to the builder, under dice-check


def _as_list(value):
    if value is None:
        return []
    if isinstance(value, (str, bytes)):
        return [value]
    return list(value)


def _text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _versions():
    import torch
    return {
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "python": "%d.%d.%d" % sys.version_info[:3],
        "arch": os.environ.get("TORCH_CUDA_ARCH_LIST"),
        "cxx": os.environ.get("CXX"),
        "harness": HARNESS_VERSION,
        "fastbuild": fastbuild.VERSION if fastbuild.enabled() else None,
    }


def build_key(kind, name, **parts):
    """The cache key of one build: KIND is "inline" or "load"; PARTS are
    its arguments, already normalised to JSON-able values."""
    description = {"kind": kind, "name": name, "parts": parts,
                   "versions": _versions()}
    blob = json.dumps(description, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _paths(key):
    return (os.path.join(_cache_dir, key[:2], key),
            os.path.join(_cache_dir, "locks", key + ".lock"),
            os.path.join(_cache_dir, "tmp"))


# A compiler diagnostic: "main.cpp:17:17: error: ..." (gcc, clang, nvcc
# "cuda.cu(12): error: ...", and the linker's "undefined reference").
_DIAGNOSTIC = re.compile(r"^\S+?(:\d+(:\d+)?:|\(\d+\):) (fatal )?error\b"
                         r"|undefined reference|cannot find -l", re.I)


def _first_errors(text, build_dir):
    """The compiler's first complaints, with file:line, about LOG_LIMIT
    bytes: each error line and the source excerpt after it; lacking any,
    the lines that mention an error, else the tail."""
    if build_dir:
        text = text.replace(build_dir + os.sep, "").replace(build_dir, ".")
    lines = text.splitlines()
    picked = []
    for i, line in enumerate(lines):
        if _DIAGNOSTIC.search(line):
            picked.append(line)
            j = i + 1
            while j < len(lines) and j <= i + 2 and re.match(r"^\s+(\d+\s*\|)?", lines[j]) \
                    and lines[j].strip() and not _DIAGNOSTIC.search(lines[j]):
                picked.append(lines[j])
                j += 1
    if not picked:
        # ninja's own "[1/2] c++ ... -o main.o" command lines are noise
        picked = [l for l in lines if re.search(r"error", l, re.I)
                  and not re.match(r"^(Error building extension.*?: )?\[\d+/\d+\]", l)]
    if not picked:
        picked = lines[-20:]
    out = ""
    for line in picked:
        if len(out) + len(line) + 1 > LOG_LIMIT:
            break
        out += line + "\n"
    return out.rstrip("\n") or text[:LOG_LIMIT]


def _deterministic(log):
    """A failure the code caused (a diagnostic with file:line) and another
    build would repeat; not a killed compiler or a full disk."""
    return any(_DIAGNOSTIC.search(line) for line in log.splitlines()) and \
        not re.search(r"No space left|Killed|internal compiler error|"
                      r"cannot allocate|out of memory", log, re.I)


class CachedBuildError(RuntimeError):
    """A build that failed before, raised again from the cache."""


def _built_path(directory):
    """How the build in DIRECTORY was made ("pch", "plain"), or None."""
    try:
        with open(os.path.join(directory, "meta.json")) as f:
            return json.load(f).get("path")
    except (OSError, ValueError):
        return None


def _load_built(directory):
    """Load a finished build from DIRECTORY as the original would have."""
    with open(os.path.join(directory, "meta.json")) as f:
        meta = json.load(f)
    if not meta.get("ok", True):
        raise CachedBuildError(meta["message"])
    path = os.path.join(directory, meta["file"])
    if meta["standalone"]:
        return path
    if not meta["python_module"]:
        import torch
        torch.ops.load_library(path)
        return None
    spec = importlib.util.spec_from_file_location(meta["module"], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _finish(tmp, final, name, python_module, standalone, path=None):
    """Describe the build in TMP and move it to FINAL atomically."""
    import torch.utils.cpp_extension as ext
    suffix = "" if standalone else ext.LIB_EXT
    built = [os.path.basename(p) for p in glob.glob(os.path.join(tmp, name + "*"))
             if os.path.isfile(p) and (p.endswith(suffix) if suffix else os.access(p, os.X_OK))]
    built.sort(key=len, reverse=True)   # name_v1.so rather than name.so
    if not built:
        return
    module = built[0][:-len(suffix)] if suffix else built[0]
    for obj in glob.glob(os.path.join(tmp, "*.o")):
        os.unlink(obj)
    meta = {"ok": True, "file": built[0], "module": module,
            "python_module": python_module, "standalone": standalone,
            "path": path}
    with open(os.path.join(tmp, "meta.json"), "w") as f:
        json.dump(meta, f)
    os.makedirs(os.path.dirname(final), exist_ok=True)
    try:
        os.rename(tmp, final)
    except OSError:
        # Someone else's identical build won (a cache shared without the
        # lock, say); theirs is as good as ours.
        shutil.rmtree(tmp, ignore_errors=True)


def _build(name, key, miss):
    """Return what the original function returns for build KEY, from the
    cache when it is there; MISS(record) builds it and returns the same."""
    # A candidate that builds on every forward call asks again and again;
    # it gets the first answer, and the record lists the build once.
    if key in _loaded:
        return _loaded[key]
    if key in _failed:
        raise _failed[key]
    record = {"name": str(name), "key": key, "ok": False, "ms": 0.0,
              "cache": None, "log": ""}
    builds.append(record)
    start = time.monotonic()
    final = _paths(key)[0]
    try:
        if os.path.isdir(final):
            record["cache"] = "hit"
            record["path"] = _built_path(final)
            result = _load_built(final)
        else:
            result = miss(record)
    except BaseException as e:
        record["ms"] = round((time.monotonic() - start) * 1000.0, 3)
        if not record["log"]:
            record["log"] = _first_errors(_text(e), "")
        if isinstance(e, Exception):
            _failed[key] = e
        raise
    record["ms"] = round((time.monotonic() - start) * 1000.0, 3)
    record["ok"] = True
    _loaded[key] = result
    return result


def _here(name, key, call, python_module, standalone, inline_parts=None):
    """The miss of a harness without a builder: build in this process,
    under the key's lock.  With INLINE_PARTS, CALL(directory,
    include_paths, **fast) is a load_inline that may take a fast path."""
    def miss(record):
        if inline_parts is not None:
            build = call

            def call_fast(directory):
                return fastbuild.build_inline(_cache_dir, inline_parts, name,
                                              directory, build, record)
        else:
            call_fast = call
        final, lock_path, tmp_root = _paths(key)
        os.makedirs(os.path.dirname(lock_path), exist_ok=True)
        with open(lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if os.path.isdir(final):
                record["cache"] = "hit"
                record["path"] = _built_path(final)
                return _load_built(final)
            record["cache"] = "miss"
            return _build_locked(key, final, tmp_root, name, call_fast,
                                 python_module, standalone, record)
    return miss


class BuildError(RuntimeError):
    """A build the builder did, failed."""


def _remote(kind, name, parts, files=None):
    """The miss under dice-check: the builder builds, this process loads."""
    def miss(record):
        reply = _client.build(kind, str(name), parts, files)
        record["cache"] = reply.get("cache") or "miss"
        record["path"] = reply.get("path")
        record["pch_ms"] = reply.get("pch_ms") or 0.0
        if reply.get("plain_because"):
            record["plain_because"] = reply["plain_because"]
        if not reply.get("ok"):
            message = reply.get("message") or "the build failed"
            record["log"] = _first_errors(message, "")
            raise BuildError(message)
        return _load_built(_paths(reply["key"])[0])
    return miss


def _remember_failure(final, tmp, message):
    """Cache a failed build as a directory whose meta.json says so, so a
    later dice-check of the same candidate fails at once."""
    try:
        os.makedirs(tmp)
        with open(os.path.join(tmp, "meta.json"), "w") as f:
            json.dump({"ok": False, "message": message}, f)
        os.makedirs(os.path.dirname(final), exist_ok=True)
        os.rename(tmp, final)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)


def _build_locked(key, final, tmp_root, name, call, python_module,
                  standalone, record):
    os.makedirs(tmp_root, exist_ok=True)
    for stale in glob.glob(os.path.join(tmp_root, key + ".*")):
        shutil.rmtree(stale, ignore_errors=True)
    tmp = os.path.join(tmp_root, "%s.%d" % (key, os.getpid()))
    os.makedirs(tmp)
    try:
        result = call(tmp)
    except BaseException as e:
        message = _text(e).replace(tmp + os.sep, "").replace(tmp, ".")
        if "message" in record:     # the builder's, to send back whole
            record["message"] = message
        record["log"] = _first_errors(message, "")
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(e, Exception) and _deterministic(record["log"]):
            _remember_failure(final, tmp, message)
        raise
    _finish(tmp, final, name, python_module, standalone,
            record.get("path") or "plain")
    return result


def _flags(value):
    return [_text(s) for s in _as_list(value)]


def _more(more):
    return sorted([k, repr(v)] for k, v in more.items())


def _common_parts(extra_cflags, extra_cuda_cflags, extra_ldflags,
                  extra_include_paths, with_cuda, is_python_module, more):
    """The arguments load_inline and load share, as the key and the
    builder see them."""
    return {"extra_cflags": _flags(extra_cflags),
            "extra_cuda_cflags": _flags(extra_cuda_cflags),
            "extra_ldflags": _flags(extra_ldflags),
            "extra_include_paths": _flags(extra_include_paths),
            "with_cuda": with_cuda if with_cuda is None else bool(with_cuda),
            "is_python_module": bool(is_python_module),
            "more": _more(more)}


def _fresh(value):
    """A copy of a list argument of load_inline, which inserts its include
    and its bindings into the lists it is given: a plain build retried
    after the fast path failed must see the candidate's sources, not the
    first try's."""
    return list(value) if isinstance(value, (list, tuple)) else value


def _inline_parts(cpp_sources, cuda_sources, functions, extra_cflags,
                  extra_cuda_cflags, extra_ldflags, extra_include_paths,
                  with_cuda, is_python_module, with_pytorch_error_handling,
                  more):
    """load_inline's arguments as the key and the builder see them."""
    if isinstance(functions, dict):
        fn = {str(k): str(v) for k, v in functions.items()}
    else:
        fn = [_text(f) for f in _as_list(functions)]
    return dict(_common_parts(extra_cflags, extra_cuda_cflags, extra_ldflags,
                              extra_include_paths, with_cuda,
                              is_python_module, more),
                cpp_sources=_flags(cpp_sources),
                cuda_sources=_flags(cuda_sources), functions=fn,
                with_pytorch_error_handling=bool(with_pytorch_error_handling))


def _load_inline(name, cpp_sources, cuda_sources=None, functions=None,
                 extra_cflags=None, extra_cuda_cflags=None, extra_ldflags=None,
                 extra_include_paths=None, build_directory=None, verbose=False,
                 with_cuda=None, is_python_module=True,
                 with_pytorch_error_handling=True, keep_intermediates=True,
                 **more):
    parts = _inline_parts(cpp_sources, cuda_sources, functions, extra_cflags,
                          extra_cuda_cflags, extra_ldflags,
                          extra_include_paths, with_cuda, is_python_module,
                          with_pytorch_error_handling, more)
    key = build_key("inline", str(name), **parts)
    if _client is not None:
        return _build(name, key, _remote("inline", name, parts))

    def build(directory, include_paths, **fast):
        arguments = dict(more, cpp_sources=_fresh(cpp_sources),
                         cuda_sources=_fresh(cuda_sources))
        arguments.update(fast)
        return _original["load_inline"](
            name, functions=_fresh(functions),
            extra_cflags=extra_cflags, extra_cuda_cflags=extra_cuda_cflags,
            extra_ldflags=extra_ldflags, extra_include_paths=include_paths,
            build_directory=directory, verbose=verbose, with_cuda=with_cuda,
            is_python_module=is_python_module,
            with_pytorch_error_handling=with_pytorch_error_handling,
            keep_intermediates=keep_intermediates, **arguments)
    return _build(name, key, _here(name, key, build, bool(is_python_module),
                                   False, parts))


def _read_source(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None     # the original will report it


def _load_parts(described, extra_cflags, extra_cuda_cflags, extra_ldflags,
                extra_include_paths, with_cuda, is_python_module,
                is_standalone, more):
    """load's arguments as the key and the builder see them; DESCRIBED
    is [basename, sha256 of the contents] for each source."""
    return dict(_common_parts(extra_cflags, extra_cuda_cflags, extra_ldflags,
                              extra_include_paths, with_cuda,
                              is_python_module, more),
                sources=described, is_standalone=bool(is_standalone))


def _load(name, sources, extra_cflags=None, extra_cuda_cflags=None,
          extra_ldflags=None, extra_include_paths=None, build_directory=None,
          verbose=False, with_cuda=None, is_python_module=True,
          is_standalone=False, keep_intermediates=True, **more):
    files = [os.path.abspath(_text(s)) for s in _as_list(sources)]
    contents = [_read_source(p) for p in files]
    described = [[os.path.basename(p),
                  None if data is None else hashlib.sha256(data).hexdigest()]
                 for p, data in zip(files, contents)]
    parts = _load_parts(described, extra_cflags, extra_cuda_cflags,
                        extra_ldflags, extra_include_paths, with_cuda,
                        is_python_module, is_standalone, more)
    key = build_key("load", str(name), **parts)
    python_module = bool(is_python_module) and not is_standalone
    if _client is not None:
        missing = [p for p, data in zip(files, contents) if data is None]
        if missing:
            raise FileNotFoundError("cannot read the source %s" % missing[0])
        body = dict(parts)
        del body["sources"]     # the builder describes what it is sent
        return _build(name, key, _remote(
            "load", name, body,
            [(os.path.basename(p), data) for p, data in zip(files, contents)]))

    def call(directory):
        return _original["load"](
            name, files, extra_cflags=extra_cflags,
            extra_cuda_cflags=extra_cuda_cflags, extra_ldflags=extra_ldflags,
            extra_include_paths=extra_include_paths, build_directory=directory,
            verbose=verbose, with_cuda=with_cuda,
            is_python_module=is_python_module, is_standalone=is_standalone,
            keep_intermediates=keep_intermediates, **more)
    return _build(name, key, _here(name, key, call, python_module,
                                   bool(is_standalone)))


_EXTENSION = "torch.utils.cpp_extension"


class _LazyExtension(types.ModuleType):
    """torch.utils.cpp_extension until something other than load_inline or
    load is asked of it.  Importing the real module (setuptools, hipify)
    was a quarter of a warm candidate on the CPU (BENCHMARKS.md), and a
    candidate whose builds the builder does, or finds in the cache, needs
    none of it."""

    def __getattr__(self, attribute):
        # Every `from ... import` asks for __path__ first; a module that
        # is not a package has none, and asking must not import it.
        if attribute == "__path__":
            raise AttributeError(attribute)
        return getattr(_real_extension(), attribute)


def _real_extension():
    """The real module, imported now if it was not, with load_inline and
    load replaced by ours."""
    module = sys.modules.get(_EXTENSION)
    if module is None or isinstance(module, _LazyExtension):
        lazy = sys.modules.pop(_EXTENSION, None)
        try:
            module = importlib.import_module(_EXTENSION)
        except BaseException:
            if lazy is not None:
                sys.modules[_EXTENSION] = lazy
            raise
    if module.load_inline is not _load_inline:
        _original["load_inline"] = module.load_inline
        _original["load"] = module.load
        _load_inline.__wrapped__ = _original["load_inline"]
        _load.__wrapped__ = _original["load"]
        module.load_inline = _load_inline
        module.load = _load
    return module


def install(cache_dir):
    """Route every later load_inline / load through CACHE_DIR: read here,
    written by the builder when DICE_BUILD_FD names one, else here."""
    global _cache_dir, _client
    _cache_dir = os.path.abspath(cache_dir)
    _client = buildclient.connect()
    if _client is None:
        os.makedirs(_cache_dir, exist_ok=True)
    if _client is None or _EXTENSION in sys.modules:
        # This process builds (it needs torch's own load_inline), or
        # the module is there already: replace the two in it.
        _real_extension()
        return
    import torch.utils
    lazy = _LazyExtension(_EXTENSION)
    lazy.load_inline = _load_inline
    lazy.load = _load
    sys.modules[_EXTENSION] = lazy
    torch.utils.cpp_extension = lazy


# --- in the builder (builder.py), where no candidate code runs ----------

def install_builder(cache_dir):
    """Build into CACHE_DIR without ever loading what was built: the
    library's initialisers are candidate code."""
    global _cache_dir
    import torch
    import torch.utils.cpp_extension as ext
    if not hasattr(ext, "_import_module_from_library"):
        raise RuntimeError("this torch's cpp_extension cannot build without "
                           "loading; dice's builder refuses to build")
    ext._import_module_from_library = lambda *args, **kwargs: None
    torch.ops.load_library = lambda *args, **kwargs: None
    _cache_dir = os.path.abspath(cache_dir)
    os.makedirs(_cache_dir, exist_ok=True)
    _original["load_inline"] = ext.load_inline
    _original["load"] = ext.load


def scratch_dir():
    return tempfile.mkdtemp(prefix="sources.", dir=os.getcwd())


def _arguments(parts):
    more = {k: {"True": True, "False": False, "None": None}[v]
            for k, v in parts["more"]}
    return dict(extra_cflags=parts["extra_cflags"],
                extra_cuda_cflags=parts["extra_cuda_cflags"],
                extra_ldflags=parts["extra_ldflags"],
                extra_include_paths=parts["extra_include_paths"],
                with_cuda=parts["with_cuda"],
                is_python_module=parts["is_python_module"], **more)


def build_only(kind, name, key, parts, paths, record):
    """Make the cache hold build KEY of PARTS (PATHS: load's sources).
    Returns (cache, message): "hit" or "miss", and None or why the build
    failed; RECORD gets the path that built it and what the shared
    header cost ("path", "pch_ms")."""
    final, lock_path, tmp_root = _paths(key)
    record.update(log="", message=None, path=None, pch_ms=0.0)
    if kind == "inline":
        python_module, standalone = parts["is_python_module"], False

        def build(directory, include_paths, **fast):
            arguments = dict(_arguments(parts), extra_include_paths=include_paths,
                             cpp_sources=_fresh(parts["cpp_sources"]),
                             cuda_sources=_fresh(parts["cuda_sources"]))
            arguments.update(fast)
            return _original["load_inline"](
                name, functions=_fresh(parts["functions"]), build_directory=directory,
                with_pytorch_error_handling=parts["with_pytorch_error_handling"],
                **arguments)

        def call(directory):
            return fastbuild.build_inline(_cache_dir, parts, name, directory,
                                          build, record)
    else:
        standalone = parts["is_standalone"]
        python_module = parts["is_python_module"] and not standalone

        def call(directory):
            return _original["load"](name, paths, build_directory=directory,
                                     is_standalone=standalone,
                                     **_arguments(parts))
    os.makedirs(os.path.dirname(lock_path), exist_ok=True)
    with open(lock_path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        cache = "hit" if os.path.isdir(final) else "miss"
        if cache == "miss":
            try:
                _build_locked(key, final, tmp_root, name, call,
                              python_module, standalone, record)
            except Exception as e:
                return cache, record.get("message") or _text(e)
        if not os.path.isdir(final):
            return cache, "the build left no library named %s" % name
        with open(os.path.join(final, "meta.json")) as f:
            meta = json.load(f)
        record["path"] = meta.get("path")
        return cache, None if meta.get("ok", True) else meta["message"]


def loaded_modules():
    """The extension modules loaded so far, each once (a build asked for
    twice is loaded once; load() of a standalone gives a path, not a
    module)."""
    seen = []
    for value in _loaded.values():
        if value is not None and not isinstance(value, (str, bytes, int)) \
                and all(value is not s for s in seen):
            seen.append(value)
    return seen


def summary():
    """The `compile` object's build fields, from the builds so far."""
    ms = round(sum(b["ms"] for b in builds), 3)
    if not builds:
        cache = None
    elif all(b["cache"] == "hit" for b in builds):
        cache = "hit"
    else:
        cache = "miss"
    failed = [b for b in builds if not b["ok"]]
    if failed:
        first = failed[0]["log"].strip().splitlines()
        error = "build of %s failed%s" % (failed[0]["name"],
                                          ": " + first[0] if first else "")
    else:
        error = None
    return {
        "ok": not failed,
        "ms": ms,
        "cache": cache,
        "key": builds[0]["key"] if builds else None,
        "log": failed[0]["log"] if failed else "",
        "error": error,
    }
