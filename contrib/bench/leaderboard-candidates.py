#!/usr/bin/env python3
"""leaderboard-candidates.py: candidate records from KernelBench's
leaderboard, the model-written solutions published with it, for dice's
benchmarks.

Usage: contrib/bench/leaderboard-candidates.py [--levels 1,2,3]
           [--cuda] [--seed S] [--files LIST] LEADERBOARD_DIR > RECORDS

LEADERBOARD_DIR: a work tree of anneouyang/KernelBenchLeaderboard (its
docs/assets/data.json, problems/ and solutions/).  One record per
published solution of the levels asked for (default 1,2,3: level 4's
problems download models): id ("L1/27_SELU_"), sample (index, the
solution's place among its problem's, and model, the leaderboard's name
for the model that wrote it), source ("leaderboard:" and the solution's
file name), ref (the problem's file) and code (the solution's).

--cuda keeps the solutions whose code calls load_inline with
cuda_sources (by its text; select-buildable.py then tells which build).
--seed shuffles them (Python's random.Random(S).shuffle, over the
records in data.json's order).  --files keeps only the solutions LIST
names (one file name per line, with or without .py; # starts a comment),
in LIST's order: the way a benchmark's set is written down, so that a
later run takes the same candidates without drawing them again.  A name
LIST gives that the leaderboard lacks is an error.
"""

import argparse
import json
import os
import random
import re
import signal
import sys

LEVEL_KEY = re.compile(r"^Level (\d+): ((\d+)_.*)$")


def fail(message):
    sys.exit("leaderboard-candidates.py: %s" % message)


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        fail("cannot read '%s': %s" % (path, e.strerror))


def records(top, levels):
    assets = os.path.join(top, "docs", "assets")
    try:
        data = json.loads(read(os.path.join(assets, "data.json")))
    except ValueError as e:
        fail("%s: not JSON (%s)" % (os.path.join(assets, "data.json"), e))
    if not isinstance(data, dict):
        fail("%s: not an object of problems" % os.path.join(assets, "data.json"))
    for key, solutions in data.items():
        match = LEVEL_KEY.match(key)
        if not match:
            fail("data.json: a problem named '%s', not 'Level N: I_Name'" % key)
        level, name, index = int(match.group(1)), match.group(2), match.group(3)
        if level not in levels:
            continue
        ref = read(os.path.join(assets, "problems", "l%d_p%s.py" % (level, index)))
        for place, solution in enumerate(solutions):
            yield {
                "id": "L%d/%s" % (level, name),
                "sample": {"index": place, "model": solution.get("display_name")},
                "source": "leaderboard:%s.py" % solution["file"],
                "ref": ref,
                "code": read(os.path.join(assets, "solutions",
                                          solution["file"] + ".py")),
            }


def calls_cuda_load_inline(code):
    return "load_inline" in code and "cuda_sources" in code


def listed(path):
    names = []
    for line in read(path).splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.append(line if line.endswith(".py") else line + ".py")
    return names


def main():
    # Quiet on a closed pipe (| head), as a filter should be.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    parser = argparse.ArgumentParser(
        description="candidate records from KernelBench's leaderboard")
    parser.add_argument("--levels", default="1,2,3",
                        help="levels to take, comma-separated (default 1,2,3)")
    parser.add_argument("--cuda", action="store_true",
                        help="only solutions that call load_inline with cuda_sources")
    parser.add_argument("--seed", type=int, help="shuffle with this seed")
    parser.add_argument("--files", help="only the solutions this file names, in its order")
    parser.add_argument("leaderboard")
    args = parser.parse_args()
    try:
        levels = {int(level) for level in args.levels.split(",")}
    except ValueError:
        parser.error("--levels: not a list of numbers: '%s'" % args.levels)
    recs = list(records(args.leaderboard, levels))
    if args.cuda:
        recs = [r for r in recs if calls_cuda_load_inline(r["code"])]
    if args.seed is not None:
        random.Random(args.seed).shuffle(recs)
    if args.files:
        by_file = {r["source"].split(":", 1)[1]: r for r in recs}
        missing = [name for name in listed(args.files) if name not in by_file]
        if missing:
            fail("%s: not among the leaderboard's solutions of levels %s%s: %s"
                 % (args.files, args.levels, " that call load_inline with CUDA"
                    if args.cuda else "", ", ".join(missing)))
        recs = [by_file[name] for name in listed(args.files)]
    try:
        for r in recs:
            sys.stdout.write(json.dumps(r) + "\n")
        sys.stdout.flush()
    except OSError as e:
        fail("write error: %s" % e.strerror)


if __name__ == "__main__":
    main()
