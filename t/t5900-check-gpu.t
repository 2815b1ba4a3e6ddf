#!/bin/sh
test_description='dice-check on a GPU: bundled solutions, a poisoned context, the cache'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

test_have_prereq JQ || skip_all 'jq is needed'
test_have_prereq HARNESS || skip_all 'needs torch and the harness'
test_have_prereq GPU || skip_all 'needs a GPU'
examples=$DICE_DATADIR/examples/cuda
test -d "$examples" || skip_all "no bundled CUDA examples in $examples"

DICE_CACHE=$PWD/cache; export DICE_CACHE

test_expect_success 'the bundled CUDA solutions are correct' '
	dice-prompt all >prompts.jsonl &&
	"$DICE_PYTHON" -c "
import json, os, sys
for line in open(\"prompts.jsonl\"):
    rec = json.loads(line)
    level, stem = rec[\"id\"][1:].split(\"/\")
    path = os.path.join(sys.argv[1], \"level\" + level, stem + \".py\")
    if os.path.exists(path):
        rec[\"code\"] = open(path).read()
        print(json.dumps(rec))
" "$examples" >solutions.jsonl &&
	test -s solutions.jsonl &&
	dice-check -q --device cuda -j 4 solutions.jsonl >out &&
	jq -r "select(.check.status != \"correct\") | [.id, .check.status, .check.error] | @tsv" out >bad &&
	test_must_be_empty bad &&
	jq -r ".check | [.device != null, (.device_uuid | test(\"^(GPU|MIG)-\")), .cuda != null, .driver != null] | @tsv" out | sort -u >actual &&
	printf "true\ttrue\ttrue\ttrue\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'the second run of the same candidates builds nothing' '
	dice-check -q --device cuda -j 4 solutions.jsonl >again &&
	jq -r ".check.compile.cache" again | sort -u >actual &&
	echo hit >expect &&
	test_cmp expect actual
'

test_expect_success 'an illegal address does not affect the next candidate' '
	head -n 1 solutions.jsonl >first.jsonl &&
	jq -r .id first.jsonl >id &&
	record "$(cat id)" "import torch
from torch.utils.cpp_extension import load_inline
SRC = r\"\"\"
__global__ void poke(float *p) { p[threadIdx.x] = 1.0f; }
torch::Tensor bad(torch::Tensor x) {
  poke<<<1, 32>>>((float *) 0x10);
  cudaDeviceSynchronize();
  return x;
}
\"\"\"
ext = load_inline(name=\"dice_poke\", cpp_sources=\"torch::Tensor bad(torch::Tensor x);\",
                  cuda_sources=\"#include <torch/extension.h>\\n\" + SRC, functions=[\"bad\"])
class ModelNew(torch.nn.Module):
    def __init__(self, *args):
        super().__init__()
    def forward(self, *xs):
        return ext.bad(xs[0])" "$(jq -r .ref first.jsonl)" >poke.jsonl &&
	cat poke.jsonl first.jsonl >pair.jsonl &&
	dice-check -q --device cuda -j 1 pair.jsonl >out &&
	jq -r .check.status out >actual &&
	head -n 1 actual | grep -v "^correct$" &&
	sed -n 2p actual >second &&
	echo correct >expect &&
	test_cmp expect second
'

test_done
