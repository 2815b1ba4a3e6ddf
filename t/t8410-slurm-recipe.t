#!/bin/sh
test_description='contrib/slurm: the pipeline as SLURM array jobs on a real single-node SLURM'
. "${TEST_SRCDIR:-$(dirname "$0")}/test-lib.sh"

# A real slurmctld, slurmd and munged (Debian's slurm-wlm and munge),
# configured here on this host alone, without cgroups or accounting.
test_have_prereq TORCH || skip_all 'no torch'
for prog in munged slurmctld slurmd sbatch scancel scontrol sinfo squeue setsid; do
	command -v "$prog" >/dev/null 2>&1 ||
		skip_all "no $prog (apt-get install slurm-wlm munge)"
done
test "$(id -u)" = 0 || skip_all 'slurmd needs root'

dice_slurm="$TOP_SRCDIR/contrib/slurm/dice-slurm"
sampler="'$DICE_PYTHON' '$TOP_SRCDIR/contrib/demo/demo-sampler.py' '$DICE_DATADIR' cpu"
slurm=$TRASH_DIRECTORY/slurm
# Run inside a job of a real cluster, sbatch would take that job's
# defaults (SBATCH_PARTITION, SLURM_* of the job) for this test's.
unset $(env | sed -n 's/^\(S\(BATCH\|LURM\)_[A-Za-z0-9_]*\)=.*/\1/p')
SLURM_CONF=$slurm/slurm.conf
export SLURM_CONF
# The daemons are this test's children; they go when it ends, however.
# Each runs in a session of its own, so that a signal to the test's
# process group (^C under make check) leaves them up until the jobs still
# running are cancelled: a job's slurmstepd would outlive slurmd.
daemons= slurmctld_pid=
stop_slurm () {
	if test -n "$slurmctld_pid" && kill -0 "$slurmctld_pid" 2>/dev/null &&
		test -n "$(timeout 10 squeue -h -o %i 2>/dev/null)"; then
		timeout 10 scancel --user="$(id -un)" 2>/dev/null
		for _ in $(seq 20); do
			test -z "$(timeout 10 squeue -h -o %i 2>/dev/null)" && break
			sleep 0.5
		done
	fi
	for pid in $daemons; do kill "$pid" 2>/dev/null; done
	for pid in $daemons; do wait "$pid" 2>/dev/null; done
	daemons=
}
trap 'stop_slurm' EXIT
trap 'stop_slurm; exit 1' HUP INT PIPE TERM

# munged wants its socket's directory open to all, its key to root alone.
mkdir -p "$slurm/state" "$slurm/spool" && chmod 755 "$slurm" || exit 1
head -c 1024 /dev/urandom >"$slurm/munge.key" && chmod 600 "$slurm/munge.key" || exit 1
port=$((20000 + $$ % 20000))
node=$(hostname -s)
cat >"$SLURM_CONF" <<EOF
ClusterName=dicetest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$slurm/munge.sock
StateSaveLocation=$slurm/state
SlurmdSpoolDir=$slurm/spool
SlurmctldPidFile=$slurm/slurmctld.pid
SlurmdPidFile=$slurm/slurmd.pid
SlurmctldLogFile=$slurm/slurmctld.log
SlurmdLogFile=$slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
MinJobAge=900
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=cpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP
PartitionName=gpu Nodes=ALL MaxTime=INFINITE State=UP
EOF

setsid munged -F --key-file="$slurm/munge.key" --socket="$slurm/munge.sock" \
	--pid-file="$slurm/munged.pid" --log-file="$slurm/munged.log" \
	--seed-file="$slurm/munged.seed" >"$slurm/munged.out" 2>&1 &
daemons="$daemons $!"
for _ in $(seq 50); do test -S "$slurm/munge.sock" && break; sleep 0.1; done
test -S "$slurm/munge.sock" ||
	skip_all "munged did not start: $(tail -n 1 "$slurm/munged.out")"
setsid slurmctld -D -i >"$slurm/slurmctld.out" 2>&1 &
slurmctld_pid=$!
daemons="$daemons $!"
setsid slurmd -D >"$slurm/slurmd.out" 2>&1 &
daemons="$daemons $!"
# Up when the node is idle; given up at once when a daemon has died.
node_state () { timeout 10 sinfo -h -n "$node" -p cpu -o %t 2>/dev/null; }
alive () { for pid in $daemons; do kill -0 "$pid" 2>/dev/null || return 1; done; }
for _ in $(seq 60); do
	alive && test "$(node_state)" != idle || break
	sleep 0.5
done
alive && test "$(node_state)" = idle ||
	skip_all "SLURM did not start: $(tail -q -n 1 "$slurm/slurmctld.out" "$slurm/slurmd.out" | tr '\n' ' ')"

# wait_for JOBID: until the job has ended (4 minutes at most); prints its state.
wait_for () {
	for _ in $(seq 480); do
		state=$(scontrol -o show job "$1" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | sort -u)
		case $state in
		*PENDING*|*RUNNING*|*CONFIGURING*|*COMPLETING*|'') sleep 0.5 ;;
		*) echo "$state"; return 0 ;;
		esac
	done
	echo "timed out: $state"
}

run_recipe () {
	"$dice_slurm" OUT=run PROBLEMS="L1:1 L1:2" SAMPLES=2 SHARDS=2 CHECK_TASKS=3 \
		DEVICE=cpu CACHE="$TRASH_DIRECTORY/cache" TIME_FLAGS="--trials 5" \
		SAMPLER="--exec \"$sampler\"" CPU_PARTITION=cpu GPU_PARTITION=gpu \
		GPU_SBATCH_FLAGS= >jobs &&
	test "$(cut -d" " -f1 jobs | tr "\n" " ")" = "sample compile check score " &&
	test "$(wait_for "$(sed -n "s/^score //p" jobs)")" = COMPLETED
}

test_expect_success 'the chain of array jobs runs to the score' '
	run_recipe || { cat run/logs/* jobs; false; } &&
	test -s run/score.txt &&
	grep "^samples  *4 " run/score.txt
'

test_expect_success 'every record arrives once: each id with samples 0 and 1' '
	"$DICE_PYTHON" -c "
import json
seen = [(r[\"id\"], r[\"sample\"][\"index\"], \"check\" in r, \"time\" in r)
        for r in map(json.loads, open(\"run/records.jsonl\"))]
for s in sorted(seen): print(*s)
" >actual &&
	cat >expect <<-\EOT &&
	L1/1_ReLU 0 True True
	L1/1_ReLU 1 True True
	L1/2_Sum_Over_Last_Dim 0 True True
	L1/2_Sum_Over_Last_Dim 1 True True
	EOT
	test_cmp expect actual
'

test_expect_success 'the array tasks did disjoint shards; the score job ran after them' '
	ls run >files &&
	grep -x "samples.[12]-of-2.jsonl" files >samples && test_line_count = 2 samples &&
	grep -x "checked.[123]-of-3.jsonl" files >checked && test_line_count = 3 checked &&
	! grep "\.part$" files &&
	check=$(sed -n "s/^check //p" jobs) score=$(sed -n "s/^score //p" jobs) &&
	scontrol -o show job "$check" >check.jobs &&
	test_line_count = 3 check.jobs &&
	scontrol -o show job "$score" >score.job &&
	grep "Dependency=(null)" score.job &&
	ends=$(sed -n "s/.* EndTime=\([^ ]*\).*/\1/p" check.jobs | sort | tail -n 1) &&
	start=$(sed -n "s/.* StartTime=\([^ ]*\).*/\1/p" score.job) &&
	test -n "$ends" && test -n "$start" &&
	test "$(printf "%s\n" "$ends" "$start" | sort | tail -n 1)" = "$start"
'

test_expect_success 'submitting again skips every finished shard' '
	cp run/records.jsonl before &&
	run_recipe &&
	grep -l "is done already" run/logs/dice-sample-$(sed -n "s/^sample //p" jobs)_* >done &&
	test_line_count = 2 done &&
	test_cmp before run/records.jsonl
'

test_expect_success 'a failing array task stops the chain: the score job is removed' '
	"$dice_slurm" OUT=broken PROBLEMS=L1:1 DEVICE=cpu SAMPLER="--exec false" \
		GPU_SBATCH_FLAGS= >jobs &&
	test "$(wait_for "$(sed -n "s/^sample //p" jobs)")" = FAILED &&
	test "$(wait_for "$(sed -n "s/^score //p" jobs)")" = CANCELLED &&
	! test -e broken/records.jsonl &&
	test_line_count = 1 broken/samples.1-of-1.jsonl.part
'

test_expect_success 'submitted again, the failed sample counts as done' '
	"$dice_slurm" OUT=broken PROBLEMS=L1:1 DEVICE=cpu SAMPLER="--exec false" \
		GPU_SBATCH_FLAGS= >jobs &&
	test "$(wait_for "$(sed -n "s/^score //p" jobs)")" = COMPLETED &&
	"$DICE_PYTHON" -c "
import json
for r in map(json.loads, open(\"broken/records.jsonl\")):
    print(r[\"id\"], r[\"sample\"][\"error\"], r[\"check\"][\"status\"])
" >actual &&
	echo "L1/1_ReLU the command failed (exit status 1) no_code" >expect &&
	test_cmp expect actual
'

test_expect_success 'bad settings' '
	test_expect_code 2 "$dice_slurm" OUT=x 2>err && grep "SAMPLER is not set" err &&
	test_expect_code 2 "$dice_slurm" OUT=x SAMPLER=y SHARDS=0 2>err &&
	grep "invalid SHARDS .0." err &&
	test_expect_code 2 "$dice_slurm" OUT=x SAMPLER=y COLOUR=red 2>err &&
	grep "unknown setting .COLOUR." err &&
	test_expect_code 2 "$dice_slurm" OUT=x SAMPLER=y DEVICE=tpu 2>err &&
	test_expect_code 2 "$dice_slurm" stray 2>err && grep "not NAME=VALUE" err &&
	"$dice_slurm" --help | grep "^Usage: dice-slurm"
'

stop_slurm
test_done
