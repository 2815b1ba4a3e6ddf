#!/usr/bin/env python3
"""harness-tests.py: drive dice_harness from the t4900 shell tests.

It plays the C side's part of the protocol in dice(7), HARNESS PROTOCOL,
so that the harness can be tested on its own:

  harness-tests.py job MODE REF CODE [NAME=JSON...]   print a job object
  harness-tests.py run JOB [--log FILE] [--pidfile FILE] [--env NAME=VALUE]
                                    run the harness as C does; print the
                                    result; exit with the harness's status
  harness-tests.py get RESULT PATH  print a field (a.b.0.c); strings raw,
                                    anything else as JSON
  harness-tests.py key VARIANT      print the cache key of a fixed
                                    load_inline call, changed by VARIANT
  harness-tests.py unlocked FILE    exit 0 when no process holds FILE's flock
  harness-tests.py candidate BODY   print a candidate: KERNEL (the text of
                                    harness-kernel.cpp) defined, then BODY

REF and CODE are file names ("-" for none).  NAME=JSON sets a job field
(a value that is not JSON is taken as a string).  The cache is
$HARNESS_TEST_CACHE, else ./cache.
"""

import fcntl
import json
import os
import subprocess
import sys
import tempfile
import threading

PYTHON = os.environ.get("DICE_PYTHON") or "python3"
DATADIR = os.environ.get("DICE_DATADIR") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "share", "dice")

# What the C side keeps of the environment; everything else is scrubbed.
KEEP = ("PATH", "LANG", "LC_ALL", "CC", "CXX", "CUDA_HOME", "CUDA_VISIBLE_DEVICES",
        "TORCH_CUDA_ARCH_LIST")


def read(name):
    if name == "-":
        return None
    with open(name, encoding="utf-8") as f:
        return f.read()


def cmd_job(mode, ref, code, *fields):
    job = {"mode": mode, "id": "t/harness", "ref": read(ref), "code": read(code),
           "device": "cpu",
           "cache": os.path.abspath(os.environ.get("HARNESS_TEST_CACHE") or "cache"),
           "arch": None, "trials": 3, "seed": 42, "atol": 1e-2, "rtol": 1e-2,
           "tolerance": "dice",
           # C sends lib/secrets.c's list; these patterns are the tests' own.
           "secret_patterns": {"words": ["API_KEY", "TOKEN"],
                               "prefixes": ["DICE_TEST_SECRET_"]}}
    for field in fields:
        name, _, value = field.partition("=")
        try:
            job[name] = json.loads(value)
        except ValueError:
            job[name] = value
    print(json.dumps(job))
    return 0


def cmd_run(jobfile, *options):
    log, pidfile, extra = None, None, {}
    options = list(options)
    while options:
        opt = options.pop(0)
        if opt == "--log":
            log = options.pop(0)
        elif opt == "--pidfile":
            pidfile = options.pop(0)
        elif opt == "--env":
            name, _, value = options.pop(0).partition("=")
            extra[name] = value
        else:
            print("harness-tests.py: unknown option %s" % opt, file=sys.stderr)
            return 2
    with open(jobfile, "rb") as f:
        job = f.read()
    work = tempfile.mkdtemp(prefix="dice-harness-")
    env = {k: os.environ[k] for k in KEEP if k in os.environ}
    env.update(HOME=work, TMPDIR=work, PYTHONPATH=os.path.join(DATADIR, "python"))
    env.update(extra)
    r, w = os.pipe()
    env["DICE_RESULT_FD"] = str(w)
    out = open(log, "wb") if log else subprocess.DEVNULL
    proc = subprocess.Popen([PYTHON, "-m", "dice_harness"], cwd=work, env=env,
                            stdin=subprocess.PIPE, stdout=out, stderr=out,
                            pass_fds=(w,), start_new_session=True)
    os.close(w)
    if pidfile:
        with open(pidfile, "w") as f:
            f.write("%d\n" % proc.pid)
    chunks = []

    def drain():
        for chunk in iter(lambda: os.read(r, 1 << 16), b""):
            chunks.append(chunk)
    reader = threading.Thread(target=drain)
    reader.start()
    try:
        proc.stdin.write(job)
        proc.stdin.close()
    except BrokenPipeError:
        pass
    status = proc.wait()
    reader.join()
    os.close(r)
    subprocess.run(["rm", "-rf", work])
    sys.stdout.buffer.write(b"".join(chunks))
    return status if status >= 0 else 128 - status


def cmd_get(resultfile, path):
    with open(resultfile, encoding="utf-8") as f:
        value = json.loads(f.readline())
    for part in path.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    print(value if isinstance(value, str) else json.dumps(value))
    return 0


def cmd_key(variant):
    sys.path.insert(0, os.path.join(DATADIR, "python"))
    from dice_harness import buildcache
    args = {"cpp_sources": ["int f() { return 1; }"], "cuda_sources": [],
            "functions": ["f"], "extra_cflags": ["-O2"], "extra_cuda_cflags": [],
            "extra_ldflags": [], "extra_include_paths": [], "with_cuda": None}
    name = "ext"
    if variant == "source":
        args["cpp_sources"] = ["int f() { return 2; }"]
    elif variant == "flags":
        args["extra_cflags"] = ["-O3"]
    elif variant == "functions":
        args["functions"] = ["f", "g"]
    elif variant == "name":
        name = "ext2"
    elif variant == "include":
        args["extra_include_paths"] = ["/usr/include/x"]
    elif variant == "arch":
        os.environ["TORCH_CUDA_ARCH_LIST"] = "9.0"
    elif variant != "same":
        print("harness-tests.py: unknown variant %s" % variant, file=sys.stderr)
        return 2
    print(buildcache.build_key("inline", name, **args))
    return 0


def cmd_unlocked(path):
    with open(path, "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 1
    return 0


def cmd_candidate(body):
    here = os.path.dirname(os.path.abspath(__file__))
    kernel = read(os.path.join(here, "harness-kernel.cpp"))
    sys.stdout.write("KERNEL = %r\n\n" % kernel)
    sys.stdout.write(read(body))
    return 0


COMMANDS = {"job": cmd_job, "run": cmd_run, "get": cmd_get, "key": cmd_key,
            "unlocked": cmd_unlocked,
            "candidate": cmd_candidate}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(COMMANDS[sys.argv[1]](*sys.argv[2:]))
