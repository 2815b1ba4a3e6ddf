#!/bin/sh
test_description='dice-check on a CPU torch: only the builder writes the build cache'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

test_have_prereq JQ || skip_all 'jq is needed'
test_have_prereq HARNESS || skip_all 'needs torch and the harness'

DICE_CACHE=$PWD/cache; export DICE_CACHE
check () { dice-check -q --device cpu --memory 4G "$@"; }

# allowed FIELD FLAG...: "FLAG yes" or "FLAG no" per flag.
allowed () {
	PYTHONPATH=$DICE_DATADIR/python "$DICE_PYTHON" -c '
import sys
from dice_harness import builder
field = sys.argv[1]
for flag in sys.argv[2:]:
    try:
        builder.check_parts("inline", "ext", {field: [flag]})
        print(flag, "yes")
    except builder.Refused:
        print(flag, "no")' "$@"
}

test_expect_success 'compiler flags: the usual ones pass' '
	allowed extra_cuda_cflags -O3 --use_fast_math -use_fast_math -std=c++17 \
		-arch=sm_90a -gencode arch=compute_90,code=sm_90 \
		--expt-relaxed-constexpr -lineinfo -Xptxas -v -Xptxas=-O3,-v \
		-maxrregcount=64 -DNDEBUG -DBLOCK=256 -Xcompiler -fopenmp \
		-I/usr/local/cuda/include --ftz=true -w >actual &&
	allowed extra_cflags -O2 -march=native -fopenmp -fPIC -shared -Wno-unused-variable \
		-include dice.h >>actual &&
	allowed extra_ldflags -lcublas -L/usr/local/cuda/lib64 -lcudnn \
		-Wl,-rpath,/usr/local/cuda/lib64 >>actual &&
	! grep " no$" actual
'

test_expect_success 'compiler flags that run, load or write something are refused' '
	allowed extra_cuda_cflags -fplugin=./p.so -ccbin=/tmp/cc --compiler-bindir \
		-Xcompiler=-B/tmp -o/tmp/x --run -odir --options-file @flags \
		-MF -keep -Xlinker "-O3 -fplugin=x" "-DX=1;touch x" "-DX=\$(id)" >actual &&
	allowed extra_cflags -B/tmp -specs=x -wrapper -fdump-tree-all \
		-fprofile-generate -Wp,-MF,/tmp/x -save-temps >>actual &&
	allowed extra_ldflags -Wl,-plugin,/tmp/x.so -fuse-ld=/tmp/ld \
		-Wl,--version-script=/tmp/v >>actual &&
	! grep " yes$" actual
'

# KernelBench's prompt passes extra_cflags=[""] and extra_ldflags=[""]:
# most candidates written from it do the same.
test_expect_success 'empty flags and flags of spaces reach no compiler and pass; other white space does not' '
	allowed extra_cflags "" " " "   " >actual &&
	allowed extra_cuda_cflags "" " " >>actual &&
	allowed extra_ldflags "" "  " >>actual &&
	! grep " no$" actual &&
	test "$(wc -l <actual)" = 7 &&
	nl="
" &&
	tab="$(printf "\t")" &&
	allowed extra_cflags "$nl" " $nl-fplugin=x" "$tab" " -O3" "-O3 -fplugin=x" >actual &&
	allowed extra_ldflags "$nl" >>actual &&
	! grep " yes$" actual
'

test_expect_success 'a refused flag or name fails the build, saying why; nothing is built' '
	record L1/1_flag "$(printf "%s\n" "import torch" \
		"from torch.utils.cpp_extension import load_inline" \
		"ext = load_inline(name=\"dice_t5210_flag\", cpp_sources=\"int f() { return 1; }\", functions=[\"f\"], extra_cflags=[\"-fplugin=./evil.so\"])" \
		"class ModelNew(torch.nn.Module):" \
		"    def forward(self, x):" \
		"        return torch.relu(x)")" >flag.jsonl &&
	record L1/2_name "$(printf "%s\n" "import torch" \
		"from torch.utils.cpp_extension import load_inline" \
		"ext = load_inline(name=\"../../x\", cpp_sources=\"int f() { return 1; }\", functions=[\"f\"])" \
		"class ModelNew(torch.nn.Module):" \
		"    def forward(self, x):" \
		"        return torch.relu(x)")" >>flag.jsonl &&
	check flag.jsonl >out &&
	jq -r "[.check.status, .check.compile.builds[0].ok] | @tsv" out >actual &&
	printf "compile_error\tfalse\ncompile_error\tfalse\n" >expect &&
	test_cmp expect actual &&
	jq -r .check.compile.log out >logs &&
	grep "refuses extra_cflags flag .-fplugin=./evil.so." logs &&
	grep "is not an identifier" logs &&
	! ls -d cache/[0-9a-f][0-9a-f] 2>/dev/null
'

# The victim's library, when loaded, writes a mark into the cache if the
# process loading it is the builder: the builder must never load it.
VICTIM_SOURCE="$CPP_SOURCE
#include <cstdio>
#include <cstring>
static int mark = [] {
  char cmd[4096] = {0};
  FILE *f = fopen(\"/proc/self/cmdline\", \"rb\");
  if (f) { size_t n = fread(cmd, 1, sizeof cmd - 1, f); fclose(f);
    for (size_t i = 0; i < n; i++) if (!cmd[i]) cmd[i] = ' '; }
  if (strstr(cmd, \"--builder\")) {
    FILE *m = fopen(\"$PWD/cache/loaded-by-builder\", \"w\");
    if (m) fclose(m);
  }
  return 0;
}();"

test_expect_success CXXBUILD 'a candidate cannot plant a build that another would load' '
	record L1/3_plant "$(printf "%s\n" "import os, torch" \
		"from dice_harness import buildcache" \
		"SRC = r'\'\'\''$VICTIM_SOURCE'\'\'\''" \
		"parts = buildcache._inline_parts(SRC, None, [\"shifted_relu\", \"null_write\", \"spin\"], None, None, None, None, None, True, True, {})" \
		"key = buildcache.build_key(\"inline\", \"dice_test_ext\", **parts)" \
		"d = os.path.join(buildcache._cache_dir, key[:2], key)" \
		"try:" \
		"    os.makedirs(d)" \
		"    open(os.path.join(d, \"meta.json\"), \"w\").write(\"{\\\"ok\\\": false, \\\"message\\\": \\\"planted\\\"}\")" \
		"    planted = \"yes\"" \
		"except OSError:" \
		"    planted = \"refused\"" \
		"raise RuntimeError(\"planted=%s key=%s\" % (planted, key))")" >plant.jsonl &&
	record L1/4_victim "$(cpp_candidate "ext.shifted_relu(x, 0.0)" "$VICTIM_SOURCE")" >>plant.jsonl &&
	check plant.jsonl >out &&
	sed -n 1p out >planter &&
	sed -n 2p out >victim &&
	if test "$(jq -r .check.sandbox.filesystem planter)" != read-only; then
		test_diag "no mount namespace here: candidates can write the cache"
	else
		jq -r .check.error planter >actual &&
		echo "RuntimeError: planted=refused key=$(jq -r .check.compile.key victim)" >expect &&
		test_cmp expect actual &&
		jq -r "[.check.status, .check.compile.cache] | @tsv" victim >actual &&
		printf "correct\tmiss\n" >expect &&
		test_cmp expect actual
	fi &&
	! test -e cache/loaded-by-builder
'

test_expect_success CXXBUILD 'load() of files: the builder builds what it was sent' '
	record L1/5_load "$(printf "%s\n" "import torch" \
		"from torch.utils.cpp_extension import load" \
		"open(\"relu_ext.cpp\", \"w\").write(r'\'\'\''$CPP_SOURCE" \
		"PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"shifted_relu\", &shifted_relu); }'\'\'\'')" \
		"ext = load(name=\"dice_t5210_load\", sources=[\"relu_ext.cpp\"])" \
		"class ModelNew(torch.nn.Module):" \
		"    def forward(self, x):" \
		"        return ext.shifted_relu(x, 0.0)")" >load.jsonl &&
	check load.jsonl >out &&
	jq -r "[.check.status, .check.compile.cache] | @tsv" out >actual &&
	printf "correct\tmiss\n" >expect &&
	test_cmp expect actual &&
	key=$(jq -r .check.compile.key out) &&
	test -f cache/$(echo $key | cut -c1-2)/$key/meta.json &&
	check load.jsonl >out &&
	jq -r "[.check.status, .check.compile.cache] | @tsv" out >actual &&
	printf "correct\thit\n" >expect &&
	test_cmp expect actual
'

test_expect_success CXXBUILD 'a candidate gone mid-build: the builder stops too, leaving no entry' '
	record L1/6_gone "$(printf "%s\n" "import glob, os, threading, time, torch" \
		"from torch.utils.cpp_extension import load_inline" \
		"from dice_harness import buildcache" \
		"SRC = \"int f() { return 6; }\"" \
		"threading.Thread(target=load_inline, args=(\"dice_t5210_gone\", SRC), kwargs={\"functions\": [\"f\"]}, daemon=True).start()" \
		"end = time.time() + 120" \
		"while not glob.glob(os.path.join(buildcache._cache_dir, \"tmp\", \"*\")) and time.time() < end:" \
		"    time.sleep(0.05)" \
		"os._exit(3)")" >gone.jsonl &&
	check gone.jsonl >out &&
	jq -r .check.error out >actual &&
	grep "exited with status 3" actual &&
	ls cache/tmp >leftover &&
	test_line_count = 1 leftover &&
	key=$(sed "s/\..*//" leftover) &&
	! test -e cache/$(echo $key | cut -c1-2)/$key &&
	"$DICE_PYTHON" -c "import fcntl, sys
fcntl.flock(open(sys.argv[1], \"a\"), fcntl.LOCK_EX | fcntl.LOCK_NB)" cache/locks/$key.lock
'

test_done
