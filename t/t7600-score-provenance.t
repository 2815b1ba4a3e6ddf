#!/bin/sh
test_description='dice-score: what a summary covers, and levels that mix devices, torches, tolerances, precisions or baselines'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

# rec ID INDEX DEVICE UUID TORCH CUDA ATOL PRECISION BASELINE: one checked
# and timed record, "-" leaving a field out.
rec () {
	uuid= torch= cuda= atol= prec= base=
	test "$4" = - || uuid=",\"device_uuid\":\"$4\""
	test "$5" = - || torch=",\"torch\":\"$5\""
	test "$6" = - || cuda=",\"cuda\":\"$6\""
	test "$7" = - || atol=",\"atol\":$7,\"rtol\":0.01"
	test "$8" = - || prec=",\"precision\":\"$8\""
	test "$9" = - || base=",\"baseline\":\"$9\""
	printf '{"id":"%s","sample":{"index":%s},"check":{"status":"correct","correct":true,"device":"%s"%s%s%s%s%s},"time":{"speedup":2%s}}\n' \
		"$1" "$2" "$3" "$uuid" "$torch" "$cuda" "$atol" "$prec" "$base"
}

test_expect_success 'setup: one kind of everything, and one mix per kind' '
	{
		rec L1/1_A 0 "NVIDIA H100" GPU-aaa 2.4.0 12.4 0.01 fp32 eager &&
		rec L1/1_A 1 "NVIDIA H100" GPU-bbb 2.4.0 12.4 0.01 fp32 eager &&
		rec L2/1_B 0 "NVIDIA H100" GPU-aaa 2.4.0 12.4 0.01 fp32 eager
	} >same.jsonl &&
	rec L1/1_A 2 cpu - 2.4.0 - 0.01 fp32 eager >device.jsonl &&
	rec L1/1_A 2 "NVIDIA H100" GPU-aaa 2.5.1 12.4 0.01 fp32 eager >torch.jsonl &&
	rec L1/1_A 2 "NVIDIA H100" GPU-aaa 2.4.0 12.4 0.1 fp32 eager >tolerance.jsonl &&
	rec L1/1_A 2 "NVIDIA H100" GPU-aaa 2.4.0 12.4 0.01 fp16 eager >precision.jsonl &&
	rec L1/1_A 2 "NVIDIA H100" GPU-aaa 2.4.0 12.4 0.01 fp32 compile >baseline.jsonl
'

test_expect_success 'one kind of everything: the text says so, no warning' '
	dice-score same.jsonl >out 2>err &&
	test_must_be_empty err &&
	grep "^level 1: device NVIDIA H100; uuid GPU-aaa | GPU-bbb; torch 2.4.0; CUDA 12.4; tolerance atol=0.01 rtol=0.01; precision fp32; baseline eager$" out &&
	grep "^level 2: device NVIDIA H100; uuid GPU-aaa; torch 2.4.0;" out &&
	grep "^all levels: device NVIDIA H100;" out &&
	! grep warning out
'

test_expect_success 'one kind of everything: --json has the provenance of each level' '
	dice-score --json same.jsonl >out 2>err &&
	test_must_be_empty err &&
	jq -e ".levels[0].provenance == {devices:[\"NVIDIA H100\"],device_uuids:[\"GPU-aaa\",\"GPU-bbb\"],torch:[\"2.4.0\"],cuda:[\"12.4\"],tolerances:[\"atol=0.01 rtol=0.01\"],precisions:[\"fp32\"],baselines:[\"eager\"],warnings:[]}" out &&
	jq -e ".levels[2].level == \"all\" and .levels[2].provenance.devices == [\"NVIDIA H100\"]" out &&
	jq -e ".levels[0].robust[\"pass@1\"] != null" out
'

for kind in device torch tolerance precision baseline
do
	case $kind in
	device) want="devices \"NVIDIA H100\" and \"cpu\"" ;;
	torch) want="torch versions \"2.4.0\" and \"2.5.1\"" ;;
	tolerance) want="tolerances \"atol=0.01 rtol=0.01\" and \"atol=0.1 rtol=0.01\"" ;;
	precision) want="precisions \"fp32\" and \"fp16\"" ;;
	baseline) want="baselines \"eager\" and \"compile\"" ;;
	esac
	test_expect_success "a level that mixes ${kind}s: a warning on stderr and in the summary" "
		cat same.jsonl $kind.jsonl >mixed.jsonl &&
		dice-score mixed.jsonl >out 2>err &&
		echo 'dice-score: warning: level 1 mixes $want' >expect &&
		test_cmp expect err &&
		grep -F 'warning: level 1 mixes $want' out &&
		dice-score --json mixed.jsonl >out 2>err &&
		test_cmp expect err &&
		jq -e --arg w 'level 1 mixes $want' '.levels[0].provenance.warnings == [\$w]' out &&
		jq -e '.levels[1].provenance.warnings == []' out
	"
done

test_expect_success 'each kind mixed is said once, however many records mix it' '
	sed "s/\"index\":2/\"index\":4/" torch.jsonl | cat same.jsonl device.jsonl - >mixed.jsonl &&
	sed "s/\"index\":2/\"index\":3/" device.jsonl >>mixed.jsonl &&
	dice-score mixed.jsonl >/dev/null 2>err &&
	cat >expect <<-\EOF &&
	dice-score: warning: level 1 mixes devices "NVIDIA H100" and "cpu"
	dice-score: warning: level 1 mixes torch versions "2.4.0" and "2.5.1"
	EOF
	test_cmp expect err
'

test_expect_success 'different levels on different devices are not a mix' '
	{
		rec L1/1_A 0 "NVIDIA H100" - - - - - - &&
		rec L2/1_B 0 cpu - - - - - -
	} >levels.jsonl &&
	dice-score levels.jsonl >out 2>err &&
	test_must_be_empty err &&
	grep "^all levels: device NVIDIA H100 | cpu$" out
'

test_done
