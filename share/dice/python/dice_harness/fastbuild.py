"""The fast path of a C++ build: a precompiled torch/extension.h.

g++ spends most of a C++ candidate's build parsing torch/extension.h
(11 s of 11; 4.9 s with the header precompiled, and the object is
byte-identical).  So the builder makes a GCC precompiled header once per
torch, compiler and flags, into the cache:

  CACHE/pch/<pchkey>/torch/extension.h      a link to the real header
  CACHE/pch/<pchkey>/torch/extension.h.gch  the precompiled header
  CACHE/pch/<pchkey>/meta.json              what it cost to make

and hands the build that directory as its first include path.
load_inline's main.cpp includes torch/extension.h first, so GCC takes the
.gch; the link is there because GCC uses a PCH only for a unit's first
include and the candidate's own #include <torch/extension.h> must still
find the header.  A PCH that GCC finds unfit (flags that differ) is
ignored and the header read instead, so the result never depends on it.

The directory is made like a build: under CACHE/locks/pch-<pchkey>.lock,
in CACHE/tmp, put in place by one rename, so a builder killed while making
it leaves nothing another would use.  Whatever this cannot do with
certainty (CUDA sources, flags that change what a header means, a torch
whose ninja file it cannot read) takes the plain path; if the fast path
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

# Bumped when what a path builds changes; part of every build's key.
VERSION = 1

# Candidate flags after which the precompiled header could mean something
# other than the header they would read: forced includes, another
# language, preprocessor-only runs, a different PCH policy.
_RULES_OUT = re.compile(r"-include\b|-imacros|-x|-E\Z|-fpch|-fno-pch|-nostdinc|-H\Z|"
                        r"-save-temps|-fpreprocessed|-traditional")


def enabled():
    return os.environ.get("DICE_FASTBUILD", "1") != "0"


def _ninja_flags(name, extra_cflags, extra_include_paths):
    """(compiler, the compile's flags) as torch would write them for a
    C++-only main.cpp, the extension's own name left out."""
    import torch.utils.cpp_extension as ext
    with tempfile.TemporaryDirectory(prefix="dice-pchflags.") as tmp:
        main = os.path.join(tmp, "main.cpp")
        open(main, "w").close()
        ninja = os.path.join(tmp, "build.ninja")
        # Its parameters differ between torch versions (extra_sycl_cflags,
        # with_sycl): name each, the ones this build does not use empty.
        write = ext._write_ninja_file_to_build_library
        given = {"path": ninja, "name": name, "sources": [main],
                 "extra_cflags": list(extra_cflags),
                 "extra_include_paths": list(extra_include_paths)}
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
        m = re.match(r"(cxx|cflags|post_cflags) = (.*)\Z", line)
        if m:
            found[m.group(1)] = m.group(2)
    if "cxx" not in found or "cflags" not in found:
        raise RuntimeError("torch's ninja file names no compiler or flags")
    flags = shlex.split(found["cflags"]) + shlex.split(found.get("post_cflags", ""))
    flags = [f for f in flags if not f.startswith("-DTORCH_EXTENSION_NAME=")]
    return found["cxx"], flags


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


def precompiled(cache_dir, name, extra_cflags, extra_include_paths):
    """The directory holding torch/extension.h(.gch) fit for this build,
    made now if it is not in the cache, and the milliseconds spent making
    it (0.0 when it was there).  Raises when it cannot be made."""
    cxx, flags = _ninja_flags(name, extra_cflags, extra_include_paths)
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
    """Whether a load_inline build can take the PCH path at all."""
    if parts.get("cuda_sources") or parts.get("with_cuda"):
        return False
    return not any(_RULES_OUT.match(f) for f in parts.get("extra_cflags", []))


def build_inline(cache_dir, parts, name, directory, build, record):
    """Run BUILD(directory, extra_include_paths) the fastest sure way;
    RECORD gets "path" ("pch" or "plain") and "pch_ms" (what making the
    shared header cost this build, 0.0 when it was already made)."""
    record["path"], record["pch_ms"] = "plain", 0.0
    includes = list(parts.get("extra_include_paths") or [])
    if enabled() and _fit(parts):
        try:
            pch, record["pch_ms"] = precompiled(cache_dir, name,
                                                parts.get("extra_cflags") or [],
                                                includes)
        except Exception:
            pch = None      # no header to share: the plain build decides
        if pch is not None:
            try:
                result = build(directory, [pch] + includes)
                record["path"] = "pch"
                return result
            except Exception:
                # The plain build's result is the one that counts, its
                # message the compiler's own.
                for entry in os.listdir(directory):
                    target = os.path.join(directory, entry)
                    if os.path.isdir(target) and not os.path.islink(target):
                        shutil.rmtree(target, ignore_errors=True)
                    else:
                        os.unlink(target)
    return build(directory, includes)
