#!/bin/sh
test_description='dice-check and dice-compile: the GPUs of the allocation, from --gpus, CUDA_VISIBLE_DEVICES or SLURM'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"
. "$TEST_SRCDIR/lib-check.sh"

fake_harness_env
unset CUDA_VISIBLE_DEVICES SLURM_STEP_GPUS SLURM_JOB_GPUS GPU_DEVICE_ORDINAL

# Each candidate reports the CUDA_VISIBLE_DEVICES its worker was given.
test_expect_success 'setup' '
	fake_harness fake &&
	for i in 1 2 3 4; do
		record L1/$i "import os, time
time.sleep(0.3)
STATUS = \"runtime_error\"
ERROR = os.environ.get(\"CUDA_VISIBLE_DEVICES\", \"none\")" || return 1
	done >in.jsonl
'

test_expect_success 'an inherited CUDA_VISIBLE_DEVICES of UUIDs: one worker per entry, as given' '
	CUDA_VISIBLE_DEVICES=GPU-5d8e7c2a-1f0b,MIG-8e7f0c3a-2b1d \
		dice-check -q in.jsonl >out &&
	jq -r .check.error out | sort -u >got &&
	printf "%s\n" GPU-5d8e7c2a-1f0b MIG-8e7f0c3a-2b1d | sort >expect &&
	test_cmp expect got
'

test_expect_success 'SLURM_JOB_GPUS when CUDA_VISIBLE_DEVICES is unset' '
	SLURM_JOB_GPUS=6 dice-check -q in.jsonl >out &&
	jq -r .check.error out | sort -u >got &&
	echo 6 >expect &&
	test_cmp expect got
'

test_expect_success '--gpus takes MIG UUIDs and wins over the environment' '
	CUDA_VISIBLE_DEVICES=0 dice-check -q --gpus=MIG-abcd-0001 in.jsonl >out &&
	jq -r .check.error out | sort -u >got &&
	echo MIG-abcd-0001 >expect &&
	test_cmp expect got
'

test_expect_success 'CUDA_VISIBLE_DEVICES=-1: no GPU, the CPU' '
	CUDA_VISIBLE_DEVICES=-1 dice-check -q in.jsonl >out &&
	jq -r .check.device out | sort -u >got &&
	echo cpu >expect &&
	test_cmp expect got
'

for tool in dice-check dice-compile; do
	test_expect_success "$tool: a bad inherited value is named, exit 2" "
		CUDA_VISIBLE_DEVICES=0,,1 test_expect_code 2 $tool -q in.jsonl >out 2>err &&
		test_must_be_empty out &&
		grep \"^$tool: invalid CUDA_VISIBLE_DEVICES '0,,1' in the environment\" err &&
		SLURM_STEP_GPUS=gpu:1 test_expect_code 2 $tool -q in.jsonl 2>err &&
		grep \"invalid SLURM_STEP_GPUS 'gpu:1'\" err
	"

	test_expect_success "$tool: --device cpu does not read the GPUs" "
		CUDA_VISIBLE_DEVICES=0,,1 $tool -q --device cpu in.jsonl >out &&
		test_line_count = 4 out
	"
done

test_done
