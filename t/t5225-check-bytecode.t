#!/bin/sh
test_description='the bytecode cache: warmed once outside the sandbox, read-only inside it; hostile candidates cannot write bytecode that the next one runs'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

test_have_prereq JQ || skip_all 'jq is needed'
test_have_prereq HARNESS || skip_all 'needs torch and the harness'

DICE_CACHE=$PWD/cache; export DICE_CACHE
DICE_BYTECODE=$PWD/bytecode; export DICE_BYTECODE
unset PYTHONPYCACHEPREFIX
check () { dice-check -q --device cpu --memory 4G "$@"; }
good=$(record L1/0_good "$(candidate "")")

# A candidate that says what its Python was given, in check.error.
telling=$(record L1/9_tell "$(candidate "raise RuntimeError('prefix=%s dont_write=%d' % (sys.pycache_prefix, sys.flags.dont_write_bytecode))")")
told () { jq -r '.check.error' "$1" | sed -n 's/.*RuntimeError: //p'; }

# Every file of the bytecode cache with its checksum.
tree_sum () { (cd bytecode && find . -type f | LC_ALL=C sort | xargs sha256sum); }

sandbox_readonly () {
	check "$1" >probe.out &&
	test "$(jq -r .check.sandbox.filesystem probe.out)" = read-only
}

test_expect_success 'the first run warms the cache: torch and the harness bytecode, and a stamp' '
	printf "%s\n" "$telling" >tell.jsonl &&
	check tell.jsonl >out &&
	told out >actual &&
	echo "prefix=$PWD/bytecode dont_write=1" >expect &&
	test_cmp expect actual &&
	ls bytecode/dice-warm >stamps &&
	test_line_count = 1 stamps &&
	torch_pyc=$("$DICE_PYTHON" -c "import importlib.util, sys; sys.pycache_prefix = sys.argv[1]; print(importlib.util.cache_from_source(importlib.util.find_spec(\"torch\").origin))" "$PWD/bytecode") &&
	test -s "$torch_pyc" &&
	find bytecode -path "*dice_harness*" -name "runner*.pyc" >harness &&
	test_line_count = 1 harness
'

if sandbox_readonly tell.jsonl 2>/dev/null; then
	test_set_prereq READONLY
fi

test_expect_success 'a second run does not warm again' '
	stamp=$(ls bytecode/dice-warm/*) &&
	touch -d "2001-01-01" "$stamp" &&
	tree_sum >before &&
	check tell.jsonl >out &&
	test "$(date -r "$stamp" +%Y)" = 2001 &&
	tree_sum >after &&
	test_cmp before after
'

test_expect_success READONLY 'hostile candidates cannot write the cache, and the next candidate is untouched' '
	tree_sum >before &&
	{
		record L1/1_overwrite "$(candidate "import importlib.util
try:
    with open(importlib.util.cache_from_source(torch.__file__), \"wb\") as f:
        f.write(b\"poison\")
except OSError:
    pass")" &&
		record L1/2_plant "$(candidate "import importlib.util, py_compile, tempfile
bad = os.path.join(tempfile.gettempdir(), \"colorsys.py\")
with open(bad, \"w\") as f:
    f.write(\"raise SystemExit(3)\\n\")
target = importlib.util.cache_from_source(importlib.util.find_spec(\"colorsys\").origin)
try:
    os.makedirs(os.path.dirname(target), exist_ok=True)
    py_compile.compile(bad, cfile=target, doraise=True)
except (OSError, py_compile.PyCompileError):
    pass")" &&
		record L1/3_unlink "$(candidate "for root, dirs, files in os.walk(sys.pycache_prefix or \"/nonexistent\"):
    for name in files:
        try:
            os.replace(os.path.join(root, name), os.path.join(root, name + \".gone\"))
        except OSError:
            pass
        try:
            os.unlink(os.path.join(root, name))
        except OSError:
            pass")" &&
		record L1/4_rewrite "$(candidate "import subprocess
env = dict(os.environ)
env.pop(\"PYTHONDONTWRITEBYTECODE\", None)
subprocess.run([sys.executable, \"-c\", \"import sys; sys.dont_write_bytecode = False; import colorsys, wave, sched\"], env=env)
import shutil
try:
    shutil.rmtree(os.path.join(sys.pycache_prefix, \"dice-warm\"))
except OSError:
    pass")" &&
		record L1/5_honest "$(candidate "import colorsys
assert colorsys.rgb_to_hsv(1.0, 0.0, 0.0) == (0.0, 1.0, 1.0)")"
	} >hostile.jsonl &&
	check hostile.jsonl >out &&
	test_line_count = 5 out &&
	jq -r "select(.id == \"L1/5_honest\") | .check.status" out >actual &&
	echo correct >expect &&
	test_cmp expect actual &&
	tree_sum >after &&
	test_cmp before after &&
	check tell.jsonl >again &&
	told again >actual &&
	echo "prefix=$PWD/bytecode dont_write=1" >expect &&
	test_cmp expect actual
'

test_expect_success 'honest candidates that import what was not warmed and compile code of their own stay correct' '
	{
		record L1/6_imports "$(candidate "import xml.dom.minidom, wave, importlib
doc = xml.dom.minidom.parseString(\"<a/>\")
assert doc.documentElement.tagName == \"a\"")" &&
		record L1/7_compile "$(candidate "space = {}
exec(compile(\"def f(x):\\n    return torch.relu(x)\\n\", \"generated\", \"exec\"), {\"torch\": torch}, space)
relu = space[\"f\"]" "return relu(x)")" &&
		printf "%s\n" "$good"
	} >honest.jsonl &&
	check honest.jsonl >out &&
	jq -r .check.status out | sort -u >actual &&
	echo correct >expect &&
	test_cmp expect actual
'

test_expect_success 'a change to the harness sources warms again, into a stamp of its own' '
	mkdir -p data &&
	cp -R "$DICE_DATADIR/python" data/ &&
	for d in "$DICE_DATADIR"/*; do
		test "${d##*/}" = python || ln -s "$d" "data/${d##*/}" || return 1
	done &&
	echo "# changed" >>data/python/dice_harness/compare.py &&
	DICE_DATADIR=$PWD/data check tell.jsonl >out &&
	ls bytecode/dice-warm >stamps &&
	test_line_count = 2 stamps &&
	find bytecode -path "*/data/python/dice_harness/*" -name "compare*.pyc" >changed &&
	test_line_count = 1 changed
'

test_expect_success 'without DICE_BYTECODE: $XDG_CACHE_HOME/dice-bytecode, else ~/.cache/dice-bytecode' '
	(
		unset DICE_BYTECODE &&
		XDG_CACHE_HOME=$PWD/xdg check tell.jsonl >out &&
		told out >actual &&
		echo "prefix=$PWD/xdg/dice-bytecode dont_write=1" >expect &&
		test_cmp expect actual &&
		unset XDG_CACHE_HOME &&
		HOME=$PWD/home check tell.jsonl >out &&
		told out >actual &&
		echo "prefix=$PWD/home/.cache/dice-bytecode dont_write=1" >expect &&
		test_cmp expect actual
	)
'

test_expect_success 'DICE_BYTECODE empty: no bytecode cache' '
	DICE_BYTECODE= check tell.jsonl >out &&
	told out >actual &&
	echo "prefix=None dont_write=1" >expect &&
	test_cmp expect actual
'

test_expect_success 'DICE_SANDBOX=none: no bytecode cache, which a candidate could write there' '
	DICE_SANDBOX=none check tell.jsonl >out &&
	told out >actual &&
	echo "prefix=None dont_write=1" >expect &&
	test_cmp expect actual
'

test_expect_success 'a bytecode cache inside the build cache is refused with a warning, and the run goes on' '
	DICE_BYTECODE=$PWD/cache/bytecode check tell.jsonl >out 2>err &&
	grep "^dice-check: warning: the bytecode cache .*/cache/bytecode. is in a directory that candidates may write" err &&
	told out >actual &&
	echo "prefix=None dont_write=1" >expect &&
	test_cmp expect actual &&
	DICE_BYTECODE=/dev/shm/dice-bytecode-test check tell.jsonl >out 2>err &&
	grep "^dice-check: warning: the bytecode cache ./dev/shm/dice-bytecode-test. is in a directory" err &&
	rm -rf /dev/shm/dice-bytecode-test
'

test_expect_success 'a bytecode cache that cannot be made: a warning, and the candidates are judged' '
	: >afile &&
	printf "%s\n" "$good" >good.jsonl &&
	DICE_BYTECODE=$PWD/afile/bytecode check good.jsonl >out 2>err &&
	grep "^dice-check: warning: cannot use the bytecode cache .*afile/bytecode. (Not a directory); going on without it$" err &&
	jq -r .check.status out >actual &&
	echo correct >expect &&
	test_cmp expect actual
'

test_done
