"""The fast path of a C++ build: a precompiled torch/extension.h.

g++ spends most of a C++ candidate's build parsing torch/extension.h
(11 s of 11; 4.9 s with the header precompiled, and the object is
byte-identical).  So the builder makes a GCC precompiled header once per
torch, compiler and flags, into the cache:

  CACHE/pch/<pchkey>/torch/extension.h      a link to the real header
  CACHE/pch/<pchkey>/torch/extension.h.gch  the precompiled header
  CACHE/pch/<pchkey>/meta.json              what it cost to make

and hands the build that directory as its first include path.

A CUDA candidate's cuda.cu costs far more: nvcc's front end, device
compiler and host compiler each read torch's headers (52 s of a 57 s
build).  When cudasplit can cut the source with certainty, the kernels
and launch stubs go to a .cu that includes CUDA's headers only (about a
second), and the host functions join main.cpp, which the precompiled
header serves; load_inline is called with those two sources and
no_implicit_headers, so torch writes and runs the same ninja build it
always does.
load_inline's main.cpp includes torch/extension.h first, so GCC takes the
.gch; the link is there because GCC uses a PCH only for a unit's first
include and the candidate's own #include <torch/extension.h> must still
find the header.  A PCH that GCC finds unfit (flags that differ) is
ignored and the header read instead, so the result never depends on it.

The directory is made like a build: under CACHE/locks/pch-<pchkey>.lock,
in CACHE/tmp, put in place by one rename, so a builder killed while making
it leaves nothing another would use.  Whatever this cannot do with
certainty (flags that change what a header means or that would reach the
host code differently, a source cudasplit declines, a torch whose ninja
file it cannot read or whose load_inline has no no_implicit_headers)
takes the plain path, and the build's record says why; if the fast path
fails, the plain build is run and its result is the one reported.
"""

import fcntl
import hashlib
import inspect
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time

from . import cudasplit

# Bumped when what a path builds changes; part of every build's key.
VERSION = 2

# Candidate flags after which the precompiled header could mean something
# other than the header they would read: forced includes, another
# language, preprocessor-only runs, a different PCH policy.
_RULES_OUT = re.compile(r"-include\b|-imacros|-x|-E\Z|-fpch|-fno-pch|-nostdinc|-H\Z|"
                        r"-save-temps|-fpreprocessed|-traditional")


def enabled():
    return os.environ.get("DICE_FASTBUILD", "1") != "0"


def _ninja_flags(name, extra_cflags, extra_include_paths, with_cuda=False,
                 extra_cuda_cflags=()):
    """(compiler, main.cpp's flags, cuda.cu's flags) as torch would write
    them, the extension's own name left out; the last is empty without
    WITH_CUDA."""
    import torch.utils.cpp_extension as ext
    with tempfile.TemporaryDirectory(prefix="dice-pchflags.") as tmp:
        sources = [os.path.join(tmp, "main.cpp")]
        if with_cuda:
            sources.append(os.path.join(tmp, "cuda.cu"))
        for source in sources:
            open(source, "w").close()
        ninja = os.path.join(tmp, "build.ninja")
        # Its parameters differ between torch versions (extra_sycl_cflags,
        # with_sycl): name each, the ones this build does not use empty.
        write = ext._write_ninja_file_to_build_library
        given = {"path": ninja, "name": name, "sources": sources,
                 "extra_cflags": list(extra_cflags),
                 "extra_cuda_cflags": list(extra_cuda_cflags),
                 "extra_include_paths": list(extra_include_paths),
                 "with_cuda": bool(with_cuda)}
        arguments = {}
        for parameter in inspect.signature(write).parameters:
            if parameter in given:
                arguments[parameter] = given[parameter]
            elif parameter.startswith("extra_"):
                arguments[parameter] = []
            elif parameter.startswith(("with_", "is_")):
                arguments[parameter] = False
            else:
                raise RuntimeError("torch's ninja writer takes %s" % parameter)
        write(**arguments)
        with open(ninja) as f:
            text = f.read()
    found = {}
    for line in text.splitlines():
        m = re.match(r"(cxx|cflags|post_cflags|cuda_cflags|cuda_post_cflags) = (.*)\Z", line)
        if m:
            found[m.group(1)] = m.group(2)
    if "cxx" not in found or "cflags" not in found:
        raise RuntimeError("torch's ninja file names no compiler or flags")

    def flags(*names):
        out = []
        for n in names:
            out += shlex.split(found.get(n, ""))
        return [f for f in out if not f.startswith("-DTORCH_EXTENSION_NAME=")]
    cuda = flags("cuda_cflags", "cuda_post_cflags") if with_cuda else []
    if with_cuda and not cuda:
        raise RuntimeError("torch's ninja file has no CUDA flags")
    return found["cxx"], flags("cflags", "post_cflags"), cuda


def _compiler(cxx):
    """The compiler's real path and its full version text."""
    path = shutil.which(cxx)
    if path is None:
        raise RuntimeError("no compiler %s" % cxx)
    path = os.path.realpath(path)
    version = subprocess.run([path, "--version"], capture_output=True,
                             text=True, check=True).stdout
    return path, version


def _real_header():
    import torch.utils.cpp_extension as ext
    for directory in ext.include_paths(False):
        header = os.path.join(directory, "torch", "extension.h")
        if os.path.isfile(header):
            return header
    raise RuntimeError("torch/extension.h is not on torch's include path")


def pch_key(cxx_path, cxx_version, flags, header):
    import torch
    blob = json.dumps({"torch": torch.__version__, "header": header,
                       "cxx": cxx_path, "cxx_version": cxx_version,
                       "flags": flags, "fastbuild": VERSION}, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def precompiled(cache_dir, name, extra_cflags, extra_include_paths, with_cuda=False):
    """The directory holding torch/extension.h(.gch) fit for this build,
    made now if it is not in the cache, and the milliseconds spent making
    it (0.0 when it was there).  Raises when it cannot be made."""
    cxx, flags, _ = _ninja_flags(name, extra_cflags, extra_include_paths, with_cuda)
    cxx_path, cxx_version = _compiler(cxx)
    header = _real_header()
    key = pch_key(cxx_path, cxx_version, flags, header)
    final = os.path.join(cache_dir, "pch", key)
    if os.path.isdir(final):
        return final, 0.0
    locks, tmp_root = os.path.join(cache_dir, "locks"), os.path.join(cache_dir, "tmp")
    os.makedirs(locks, exist_ok=True)
    os.makedirs(tmp_root, exist_ok=True)
    with open(os.path.join(locks, "pch-%s.lock" % key), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.isdir(final):
            return final, 0.0
        # A dead maker's leftovers: nobody else holds the lock.
        for stale in os.listdir(tmp_root):
            if stale.startswith("pch-%s." % key):
                shutil.rmtree(os.path.join(tmp_root, stale), ignore_errors=True)
        tmp = os.path.join(tmp_root, "pch-%s.%d" % (key, os.getpid()))
        os.makedirs(os.path.join(tmp, "torch"))
        try:
            start = time.monotonic()
            os.symlink(header, os.path.join(tmp, "torch", "extension.h"))
            done = subprocess.run(
                [cxx_path] + flags + ["-x", "c++-header", header, "-o",
                                      os.path.join(tmp, "torch", "extension.h.gch")],
                capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError("making the precompiled header failed: %s"
                                   % done.stderr[-2000:])
            ms = round((time.monotonic() - start) * 1000.0, 3)
            with open(os.path.join(tmp, "meta.json"), "w") as f:
                json.dump({"ms": ms, "cxx": cxx_path, "flags": flags,
                           "torch_header": header}, f)
            os.makedirs(os.path.dirname(final), exist_ok=True)
            os.rename(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return final, ms


def _fit(parts):
    """Whether a C++-only load_inline build can take the PCH path."""
    if parts.get("cuda_sources") or parts.get("with_cuda"):
        return False
    return not any(_RULES_OUT.match(f) for f in _given(parts, "extra_cflags"))


# What the split may leave to nvcc alone: flags that change only device
# code, or -D, which the host part is given as #define; and what the C++
# flags may hold now that they reach the host code too: nothing that
# changes its arithmetic or its meaning.
_DEVICE_ONLY = re.compile(
    r"(-O[0-3]|--?use_fast_math|--?use-fast-math|-lineinfo|--generate-line-info|-G|-g"
    r"|--?expt-relaxed-constexpr|--?expt-extended-lambda|--?extended-lambda|--restrict"
    r"|-res-usage|--resource-usage|-w|-W[a-z][a-z0-9+=-]*"
    r"|-(?:arch|code|-gpu-architecture|-gpu-code)=\S+|-arch|-code|-gencode|--generate-code"
    r"|(?:-gencode=|--generate-code=)?arch=\S+|(?:sm|compute)_[0-9]+[af]?"
    r"|--?maxrregcount=[0-9]+|-maxrregcount|[0-9]+"
    r"|--?(?:ftz|prec-div|prec-sqrt|fmad)=(?:true|false)"
    r"|-Xptxas|--ptxas-options|(?:-Xptxas|--ptxas-options)=\S+"
    r"|-D[A-Za-z_][A-Za-z0-9_]*(?:=\S*)?)\Z")
_HOST_SAFE = re.compile(r"(-O[0-3s]?|-g[0-3]?|-w|-W[a-z][a-z0-9+=-]*|-std=\S+)\Z")


def _defines(flags):
    """NAME -> value (None for a bare -DNAME) of the -D flags in FLAGS."""
    out = {}
    for f in flags:
        if f.startswith("-D") and len(f) > 2:
            name, eq, value = f[2:].partition("=")
            out[name] = value if eq else None
    return out


def blank_flag(flag):
    """Whether FLAG reaches no compiler: torch joins the flags with spaces
    into the ninja file and the shell splits them again, so an empty one
    (KernelBench's prompt shows extra_cflags=[""]) or one of spaces alone
    is nothing.  Other white space is not: a newline would end the
    ninja file's line."""
    return not flag.strip(" ")


def _given(parts, key):
    """The flags PARTS[KEY] that reach a compiler."""
    return [f for f in parts.get(key) or [] if not blank_flag(f)]


def _split_refusal(parts):
    """Why PARTS cannot take the split path, or None."""
    if not hasattr(_split_refusal, "supported"):
        import torch.utils.cpp_extension as ext
        # in a candidate's process load_inline is buildcache's wrapper,
        # which names the original as __wrapped__
        _split_refusal.supported = "no_implicit_headers" in \
            inspect.signature(inspect.unwrap(ext.load_inline)).parameters
    if not _split_refusal.supported:
        return "this torch's load_inline has no no_implicit_headers"
    more = dict(parts.get("more") or [])
    if more.get("no_implicit_headers") not in (None, "False") or \
            more.get("use_pch") not in (None, "False"):
        return "the candidate sets no_implicit_headers or use_pch"
    cuda_flags = _given(parts, "extra_cuda_cflags")
    after_x = False
    for f in cuda_flags:
        # -Xptxas VALUE: the value goes to ptxas
        if after_x:
            after_x = False
            continue
        if f in ("-Xptxas", "--ptxas-options"):
            after_x = True
            continue
        if f.startswith("-std="):
            return "a C++ standard for nvcc alone (%s)" % f
        if not _DEVICE_ONLY.match(f) or f.startswith(("-D__CUDACC", "-D__NVCC")):
            return "an nvcc flag that reaches the host code (%s)" % f
    std = [f for f in _given(parts, "extra_cflags") if f.startswith("-std=")]
    for f in _given(parts, "extra_cflags"):
        if not _HOST_SAFE.match(f):
            return "a C++ flag that would reach the kernels' host code (%s)" % f
    if std:
        return "a C++ standard chosen for main.cpp alone (%s)" % std[0]
    cpp = "\n".join(parts.get("cpp_sources") or [])
    if re.search(r"#\s*include\s*[<\"](cuda|cuda_runtime|cuda_fp16|cuda_bf16|"
                 r"vector_types|builtin_types)", cpp):
        return "cpp_sources include CUDA headers the host part's macros would follow"
    return None


def _host_defines(name, parts, includes):
    """#define lines for main.cpp that give the host part the macros nvcc
    gave it in cuda.cu (torch's -D__CUDA_NO_HALF_OPERATORS__ and the
    like, the candidate's own -D for nvcc) and main.cpp does not have."""
    _, cflags, cuda_flags = _ninja_flags(name, parts.get("extra_cflags") or [], includes,
                                         True, parts.get("extra_cuda_cflags") or [])
    host, device = _defines(cflags), _defines(cuda_flags)
    lines = []
    for macro, value in device.items():
        if macro in host:
            if host[macro] != value:
                raise RuntimeError("-D%s differs between main.cpp and cuda.cu" % macro)
            continue
        lines.append("#define %s%s" % (macro, "" if value is None else " " + value))
    return "".join(line + "\n" for line in lines)


def undeclared_binding(parts):
    """A function load_inline is to bind that cpp_sources do not declare,
    or None.  The split puts the host code into main.cpp, where the
    bindings would see it: a build that fails today for want of that
    declaration must go on failing."""
    functions = parts.get("functions") or []
    names = list(functions) if isinstance(functions, (list, dict)) else [functions]
    cpp = "\n".join(parts.get("cpp_sources") or [])
    for function in names:
        if not re.search(r"\b%s\s*\(" % re.escape(str(function)), cpp):
            return str(function)
    return None


def _split_sources(name, parts, includes):
    """(overrides for load_inline, None) for the split build of PARTS, or
    (None, why not)."""
    why = _split_refusal(parts)
    if why is not None:
        return None, why
    unbound = undeclared_binding(parts)
    if unbound is not None:
        return None, "cpp_sources do not declare the bound function %s" % unbound
    found, why = cudasplit.try_split("\n".join(parts["cuda_sources"]))
    if found is None:
        return None, why
    host = _host_defines(name, parts, includes) + found.host
    # no_implicit_headers drops main.cpp's first include too: put it back,
    # first, where the precompiled header serves it.
    return {"cpp_sources": ["#include <torch/extension.h>"] +
            list(parts.get("cpp_sources") or []) + [host],
            "cuda_sources": [found.device], "no_implicit_headers": True}, None


def _check_stubs_linked(directory, name):
    """Raise unless every launch stub the host part calls is defined in
    the library: a shared library links with undefined symbols, and the
    builder never loads what it built, so a template argument the device
    part did not instantiate would first show as a failed import."""
    import glob
    import torch.utils.cpp_extension as ext
    libraries = [p for p in glob.glob(os.path.join(directory, name + "*" + ext.LIB_EXT))]
    if not libraries:
        raise RuntimeError("the split build left no library")
    for library in libraries:
        done = subprocess.run(["nm", "-D", "--undefined-only", library],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError("nm cannot read %s" % library)
        if cudasplit.STUB_PREFIX in done.stdout:
            raise RuntimeError("a launch stub is not instantiated")


def _clear(directory):
    for entry in os.listdir(directory):
        target = os.path.join(directory, entry)
        if os.path.isdir(target) and not os.path.islink(target):
            shutil.rmtree(target, ignore_errors=True)
        else:
            os.unlink(target)


def build_inline(cache_dir, parts, name, directory, build, record):
    """Run BUILD(directory, extra_include_paths, **overrides) the fastest
    sure way; RECORD gets "path" ("pch", "split" or "plain"), "pch_ms"
    (what making the shared header cost this build, 0.0 when it was
    already made) and, for a plain build that could have been faster,
    "plain_because"."""
    record["path"], record["pch_ms"] = "plain", 0.0
    includes = list(parts.get("extra_include_paths") or [])
    if not enabled():
        return build(directory, includes)
    cuda = bool(parts.get("cuda_sources"))
    overrides, why = {}, None
    try:
        if cuda:
            overrides, why = _split_sources(name, parts, includes)
        elif not _fit(parts):
            why = "flags that change what the header means"
    except Exception as e:
        overrides, why = None, "the split failed: %s" % e
    if why is not None:
        record["plain_because"] = why
        return build(directory, includes)
    try:
        pch, record["pch_ms"] = precompiled(cache_dir, name, _given(parts, "extra_cflags"),
                                            includes, cuda)
        pch_includes = [pch] + includes
    except Exception as e:
        if not cuda:
            record["plain_because"] = "no precompiled header: %s" % str(e)[:200]
            return build(directory, includes)
        pch_includes = includes     # the split pays off without it too
    try:
        result = build(directory, pch_includes, **overrides)
        if cuda:
            _check_stubs_linked(directory, name)
        record["path"] = "split" if cuda else "pch"
        return result
    except Exception:
        # The plain build's result is the one that counts, its message
        # the compiler's own.
        record["plain_because"] = "the %s build failed" % ("split" if cuda else "pch")
        _clear(directory)
    return build(directory, includes)
