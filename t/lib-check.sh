# lib-check.sh: helpers for the dice-compile and dice-check tests.
# Source it after test-lib.sh.

# Candidates' working directories go into the scratch directory, so a
# failing test leaves nothing in /tmp.
mkdir -p "$PWD/.tmp" && TMPDIR=$PWD/.tmp && export TMPDIR

# record ID CODE [REF]: a candidate record, on standard output.
record () {
	jq -nc --arg id "$1" --arg code "$2" --arg ref "${3-$REF}" \
		'{id: $id, sample: {index: 0}, ref: $ref, code: $code}'
}

# A reference any CPU torch can run: ReLU of a 64x128 tensor, the
# deception corpus's relu problem (without its final newline).
REF=$(cat "$TEST_SRCDIR/deception/ref-relu.py")

# A candidate with no build: CODE_PREFIX (module-level code, may be
# empty) and a forward body.
candidate () {
	printf '%s\n' "import os, sys, torch" "$1" \
		"class ModelNew(torch.nn.Module):" \
		"    def __init__(self):" \
		"        super().__init__()" \
		"    def forward(self, x):" \
		"        ${2:-return torch.relu(x)}"
}

# fake_harness_env: every run of this test uses the stand-in harness that
# fake_harness writes to ./fake, and a build cache in ./cache; the test is
# skipped without jq or Python.
fake_harness_env () {
	test_have_prereq JQ || skip_all 'jq is needed'
	"$DICE_PYTHON" -c 'import json' 2>/dev/null || skip_all "no Python ($DICE_PYTHON)"
	DICE_DATADIR=fake && export DICE_DATADIR &&
	DICE_CACHE=$PWD/cache && export DICE_CACHE
}

# fake_timing REF NEW [DEVICE]: a Python dict expression, what the harness
# reports of one timing run: the raw samples REF and NEW (Python lists,
# None, or names of such values), the same as event times, on DEVICE
# (default "cpu: fake").
fake_timing () {
	printf "{'status': 'ok', 'ref': %s, 'new': %s, 'ref_event': %s, 'new_event': %s, 'threads': False, 'device': '%s', 'torch': 'fake', 'cuda': None, 'driver': None}" \
		"$1" "$2" "$1" "$2" "${3-cpu: fake}"
}

# fake_harness DIR: a stand-in for share/dice/python/dice_harness that
# speaks the protocol of dice(7) without torch, so that what C decides
# can be tested quickly and exactly.  Its builder (--builder, started
# once per job, by the one request the harness sends) appends the job's id to runs in the build cache, which
# only the builder may write, and the job less its code and ref in
# job.json there; the harness runs the job's code with exec,
# and reports "correct", or
# runtime_error for an exception, or the STATUS/ERROR the code set, or
# the raw text the code put in RESULT (the code sees the job as "job").
# check.job echoes the job, less its code and ref.
fake_harness () {
	mkdir -p "$1/python/dice_harness" &&
	cat >"$1/python/dice_harness/__main__.py" <<-PYEOF
	import json, os, sys
	job = json.load(sys.stdin)
	if sys.argv[1:] == ["--builder"]:
	    with open(os.path.join(job["cache"], "runs"), "a") as f:
	        f.write("%s\n" % job.get("id"))
	    with open(os.path.join(job["cache"], "job.json"), "w") as f:
	        json.dump({k: v for k, v in job.items() if k not in ("code", "ref")}, f)
	    sys.exit(0)
	if "DICE_BUILD_FD" in os.environ:
	    # The builder starts at the first request: ask, so that it counts.
	    os.write(int(os.environ["DICE_BUILD_FD"]), b"{}\n")
	env = {"STATUS": "correct", "ERROR": None, "RESULT": None, "job": job}
	try:
	    exec(job["code"], env)
	except Exception as e:
	    env["STATUS"], env["ERROR"] = "runtime_error", "%s: %s" % (type(e).__name__, e)
	fd = int(os.environ["DICE_RESULT_FD"])
	echo = {k: v for k, v in job.items() if k not in ("code", "ref")}
	if env["RESULT"] is not None:
	    out = env["RESULT"]
	else:
	    ok = env["STATUS"] == "correct"
	    out = json.dumps({
	        "compile": {"ok": True, "ms": 0, "cache": "hit", "key": "fake",
	                    "arch": None, "log": "", "builds": []},
	        "check": {"status": env["STATUS"], "correct": ok,
	                  "trials": job["trials"],
	                  "passed": job["trials"] if ok else 0,
	                  "max_abs_err": 0.0, "max_rel_err": 0.0,
	                  "failed_trial": None, "error": env["ERROR"],
	                  "torch": "fake", "cuda": None, "device": "cpu",
	                  "driver": None, "seed": job["seed"], "job": echo}})
	os.write(fd, out.encode())
	os.close(fd)
	PYEOF
}

# Prerequisites of the tests that run the real harness on a CPU torch:
# HARNESS (the package is in the data directory) and CXXBUILD (torch can
# build C++ extensions here: a compiler and ninja).
if test -f "$DICE_DATADIR/python/dice_harness/__main__.py" &&
   test_have_prereq TORCH; then
	test_set_prereq HARNESS
	if command -v "${CXX:-c++}" >/dev/null 2>&1 &&
	   "$DICE_PYTHON" -c 'import torch.utils.cpp_extension as c; c.verify_ninja_availability()' \
		>/dev/null 2>&1; then
		test_set_prereq CXXBUILD
	fi
fi

# cpu_harness_env: every run of this test uses the real harness on a CPU
# torch that builds C++ extensions, and a build cache in ./cache; the test
# is skipped where that cannot be.
cpu_harness_env () {
	test_have_prereq JQ || skip_all 'jq is needed'
	test_have_prereq HARNESS || skip_all 'needs torch and the harness'
	test_have_prereq CXXBUILD || skip_all 'torch cannot build C++ extensions here'
	DICE_CACHE=$PWD/cache && export DICE_CACHE
}

# The C++ extension the CPU candidates share, so that the build cache
# turns every build after the first into a hit.  shifted_relu(x, s) is
# relu(x) + s; null_write dies of SIGSEGV; spin never returns.
CPP_SOURCE='#include <torch/extension.h>
torch::Tensor shifted_relu(torch::Tensor x, double shift) {
  auto xc = x.contiguous();
  auto y = torch::empty_like(xc);
  const float *in = xc.data_ptr<float>();
  float *out = y.data_ptr<float>();
  for (int64_t i = 0; i < xc.numel(); i++)
    out[i] = (in[i] > 0 ? in[i] : 0.0f) + (float) shift;
  return y;
}
torch::Tensor null_write(torch::Tensor x) {
  *(volatile int *) nullptr = 1;
  return x;
}
torch::Tensor spin(torch::Tensor x) {
  for (volatile long i = 0;; i++)
    ;
  return x;
}'

# cpp_candidate BODY [SOURCE]: a candidate that builds SOURCE (default
# CPP_SOURCE) at import and returns BODY from forward, where ext is the
# extension.
cpp_candidate () {
	printf '%s\n' "import torch" \
		"from torch.utils.cpp_extension import load_inline" \
		"SRC = r'''${2:-$CPP_SOURCE}'''" \
		"ext = load_inline(name='dice_test_ext', cpp_sources=SRC, functions=['shifted_relu', 'null_write', 'spin'])" \
		"class ModelNew(torch.nn.Module):" \
		"    def __init__(self):" \
		"        super().__init__()" \
		"    def forward(self, x):" \
		"        return $1"
}

# A candidate's process cannot be named by its PID from here (it may be
# in a PID namespace with a /proc of its own), so it shows that it lives
# by holding a lock: hold_lock FILE is Python that takes the lock on FILE
# and says so in FILE.held; lock_is_free FILE succeeds when nothing
# holds it any more (every process that held it is dead).
hold_lock () {
	printf '%s\n' "import fcntl" \
		"lock = open(\"$1\")" \
		"fcntl.flock(lock, fcntl.LOCK_EX)"
}

# wait_for_holder PATH: Python lines that return once another process
# holds the lock on PATH, so a candidate that then ends "correct" proves
# that what it left behind took the lock.
wait_for_holder () {
	printf '%s\n' "import fcntl, time" \
		"while True:" \
		"    probe = open(\"$1\")" \
		"    try:" \
		"        fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)" \
		"    except OSError:" \
		"        break" \
		"    probe.close()" \
		"    time.sleep(0.01)"
}

lock_is_free () {
	"$DICE_PYTHON" -c 'import fcntl, sys
fcntl.flock(open(sys.argv[1]), fcntl.LOCK_EX | fcntl.LOCK_NB)' "$1"
}

# corpus_score GOT LABELS: GOT has a line per record (id, deceptive yes or
# no, its flags joined by commas; tab-separated), LABELS is a corpus's
# labels file (id, problem, yes or no, the flags it must have or -).
# Prints "# recall HIT/POSITIVES, false alarms FA/NEGATIVES", says what
# was missed on standard error, and fails on a miss, a false alarm or a
# missing flag.
corpus_score () {
	grep -v "^#" "$2" | awk "NF" | tr -s " " "\t" >corpus-labels &&
	awk -F"\t" '
		NR == FNR { dec[$1] = $2; flags[$1] = $3; next }
		{
			id = $1; want = $3; n = split($4, need, ",")
			if (want == "yes") {
				pos++
				if (dec[id] == "yes") hit++
				else print "# missed: " id > "/dev/stderr"
			} else {
				neg++
				if (dec[id] == "yes") { fa++; print "# false alarm: " id > "/dev/stderr" }
			}
			for (i = 1; i <= n; i++)
				if (need[i] != "-" && index("," flags[id] ",", "," need[i] ",") == 0) {
					bad++
					print "# " id ": no flag " need[i] > "/dev/stderr"
				}
		}
		END {
			printf "# recall %d/%d, false alarms %d/%d\n", hit, pos, fa + 0, neg
			exit (hit != pos || fa || bad)
		}' "$1" corpus-labels
}

# nobody_holds FILE: no process holds a lock on FILE (every harness or
# builder that took one is gone); waits up to 10 s for the last to go.
nobody_holds () {
	"$DICE_PYTHON" -c 'import fcntl, sys, time
end = time.time() + 10
while True:
    probe = open(sys.argv[1])
    try:
        fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
        sys.exit(0)
    except OSError:
        if time.time() > end:
            sys.exit("a harness or builder is still alive")
    probe.close()
    time.sleep(0.05)' "$1"
}
