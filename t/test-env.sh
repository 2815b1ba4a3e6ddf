# test-env.sh: the environment every test runs in.  Sourced by make check
# (AM_TESTS_ENVIRONMENT) and by t/run-tests.sh, which runs tests from a
# build tree without make (on a GPU machine that has no compilers, say).
# Expects top_srcdir and top_builddir (absolute); DICE_TOOLS and
# DICE_PYTHON may be set already.
LC_ALL=C; export LC_ALL
PATH="$top_builddir/bin:$PATH"; export PATH
DICE_DATADIR="$top_srcdir/share/dice"; export DICE_DATADIR
DICE_PROMPTDIR="$top_srcdir/share/prompts"; export DICE_PROMPTDIR
DICE_PYTHON="${DICE_PYTHON:-python3}"; export DICE_PYTHON
TEST_SRCDIR="$top_srcdir/t"; export TEST_SRCDIR
TEST_BUILDDIR="$top_builddir/t"; export TEST_BUILDDIR
TOP_SRCDIR="$top_srcdir"; export TOP_SRCDIR
if test -z "${DICE_TOOLS:-}"; then
	DICE_TOOLS=$(cd "$top_builddir" && ls bin/dice-* 2>/dev/null | grep -v '\.o$' | tr '\n' ' ')
fi
export DICE_TOOLS
# The GPU locks of dice-check and dice-time (lib/gpulock.h) in the build
# tree, not /tmp: the tests' fake GPUs are no one else's business, and
# their real ones are this suite's.
DICE_LOCKDIR="$top_builddir/t/gpu-locks"; export DICE_LOCKDIR
unset DICE_GPU_LOCK
# One bytecode cache (dice(7), Bytecode cache) for the whole suite, in the
# build tree: warmed by the first test that runs a harness, not in HOME.
DICE_BYTECODE="$top_builddir/t/bytecode"; export DICE_BYTECODE
# Tests must never see real credentials or a user's problem set.
unset DICE_KERNELBENCH DICE_API_KEY OPENAI_API_KEY DICE_API_BASE DICE_CACHE
