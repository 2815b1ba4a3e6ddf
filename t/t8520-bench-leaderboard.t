#!/bin/sh
test_description='contrib/bench/leaderboard-candidates.py: records from a KernelBench leaderboard tree, filtered, shuffled and named'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

test_have_prereq JQ || skip_all 'jq is needed'
"$DICE_PYTHON" -c '' 2>/dev/null || skip_all 'no Python'
script="$TOP_SRCDIR/contrib/bench/leaderboard-candidates.py"
lb () {
	"$DICE_PYTHON" "$script" "$@"
}

# A leaderboard in its published layout: two level-1 problems (the
# first with two solutions), one of level 2 and one of level 4; the
# solution "plain" calls no load_inline.
test_expect_success 'setup' '
	mkdir -p tree/docs/assets/problems tree/docs/assets/solutions &&
	cat >tree/docs/assets/data.json <<-EOF &&
	{"Level 1: 19_ReLU": [{"display_name": "model-a", "torch_speedup": 1.1, "file": "aaa"},
	                      {"display_name": "model-b", "torch_speedup": 0.9, "file": "bbb"}],
	 "Level 1: 23_Softmax": [{"display_name": "model-a", "torch_speedup": 1.0, "file": "plain"}],
	 "Level 2: 5_Conv_Add": [{"display_name": "model-c", "torch_speedup": 2.0, "file": "ccc"}],
	 "Level 4: 1_Big": [{"display_name": "model-a", "torch_speedup": 1.0, "file": "ddd"}]}
	EOF
	for p in l1_p19 l1_p23 l2_p5 l4_p1; do
		echo "class Model: pass  # $p" >tree/docs/assets/problems/$p.py || return 1
	done &&
	for f in aaa bbb ccc ddd; do
		printf "from torch.utils.cpp_extension import load_inline\nm = load_inline(name=\"%s\", cpp_sources=\"\", cuda_sources=\"\")\n" $f \
			>tree/docs/assets/solutions/$f.py || return 1
	done &&
	echo "import torch  # plain" >tree/docs/assets/solutions/plain.py
'

test_expect_success 'levels 1 to 3 by default, in the tree s order, each solution a sample of its problem' '
	lb tree >out &&
	jq -r "[.id, .sample.index, .sample.model, .source] | @tsv" out >actual &&
	printf "%s\t%s\t%s\t%s\n" L1/19_ReLU 0 model-a leaderboard:aaa.py \
		L1/19_ReLU 1 model-b leaderboard:bbb.py \
		L1/23_Softmax 0 model-a leaderboard:plain.py \
		L2/5_Conv_Add 0 model-c leaderboard:ccc.py >expect &&
	test_cmp expect actual &&
	jq -j "select(.source == \"leaderboard:ccc.py\") | .ref" out >ref &&
	echo "class Model: pass  # l2_p5" >expect &&
	test_cmp expect ref &&
	jq -j "select(.source == \"leaderboard:bbb.py\") | .code" out >code &&
	test_cmp tree/docs/assets/solutions/bbb.py code
'

test_expect_success '--levels 4 and --cuda' '
	lb --levels 4 tree | jq -r .id >actual &&
	echo L4/1_Big >expect &&
	test_cmp expect actual &&
	lb --cuda tree | jq -r .source >actual &&
	! grep plain actual &&
	test_line_count = 3 actual
'

test_expect_success '--seed: the same order for the same seed, a reordering of the same records' '
	lb --seed 14 tree >a &&
	lb --seed 14 tree >b &&
	test_cmp a b &&
	sort a >sa && lb tree | sort >sb &&
	test_cmp sa sb &&
	seed=1 &&
	while lb --seed $seed tree | cmp -s - out
	do
		seed=$((seed + 1)) &&
		test $seed -lt 20 || return 1
	done
'

test_expect_success '--files: the solutions named, in the list s order' '
	printf "# the set\nccc.py\n\naaa  # first\n" >list &&
	lb --files list tree | jq -r .source >actual &&
	printf "leaderboard:ccc.py\nleaderboard:aaa.py\n" >expect &&
	test_cmp expect actual
'

test_expect_success '--files naming what the leaderboard lacks (or --cuda left out): exit 1, named' '
	printf "aaa\nzzz\n" >list &&
	test_expect_code 1 lb --files list tree 2>err &&
	grep "zzz.py" err &&
	echo plain >list &&
	test_expect_code 1 lb --cuda --files list tree 2>err &&
	grep "plain.py" err
'

test_expect_success 'bad input: no tree, data.json not JSON, a missing solution, bad --levels' '
	test_expect_code 1 lb nowhere 2>err &&
	grep "cannot read .nowhere/docs/assets/data.json." err &&
	mkdir -p bad/docs/assets &&
	echo "{" >bad/docs/assets/data.json &&
	test_expect_code 1 lb bad 2>err &&
	grep "not JSON" err &&
	cp -r tree gone && rm gone/docs/assets/solutions/bbb.py &&
	test_expect_code 1 lb gone 2>err &&
	grep "bbb.py" err &&
	test_expect_code 2 lb --levels one tree 2>err &&
	grep "levels" err
'

test_done
