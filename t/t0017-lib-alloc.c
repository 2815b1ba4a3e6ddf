/* t0017-lib-alloc: the allocation of lib/alloc: GPUs from --gpus, an
   inherited CUDA_VISIBLE_DEVICES (indices, GPU and MIG UUIDs) and SLURM's
   variables, else the node's; CPUs from the affinity mask and the cgroup
   v1 and v2 CPU quota; memory from the cgroup limit, else the node's RAM;
   the memory free, from MemAvailable and each limit less its usage.
   The roots are fixture trees made here.  */
#include "system.h"

#include <sys/stat.h>

#include "alloc.h"
#include "tap.h"

static char root[1024];

/* Write TEXT to ROOT/REL, making the directories on the way.  */
static void
put (const char *rel, const char *text)
{
  char path[PATH_MAX];
  FILE *f;

  snprintf (path, sizeof path, "%s/%s", root, rel);
  for (char *p = path + strlen (root) + 1; (p = strchr (p, '/')); p++)
    {
      *p = '\0';
      mkdir (path, 0700);
      *p = '/';
    }
  if ((f = fopen (path, "w")) == NULL || fputs (text, f) < 0 || fclose (f))
    {
      perror (path);
      exit (1);
    }
}

static char *
joined (const struct dice_alloc *a)
{
  static char buf[1024];
  size_t len = 0;

  buf[0] = '\0';
  for (size_t i = 0; i < a->ngpus; i++)
    len += (size_t) snprintf (buf + len, sizeof buf - len, "%s%s",
                              i ? "," : "", a->gpus[i]);
  return buf;
}

/* The GPUs that ENV (and GIVEN) allocate, joined, or "error: ...".  */
static const char *
gpus (const char *given, char *const *env, const char **source)
{
  static char err[512];
  struct dice_alloc_roots r = { 0 };
  struct dice_alloc a;
  char proc[PATH_MAX];
  const char *out;

  snprintf (proc, sizeof proc, "%s/proc", root);
  r.proc = proc;
  r.env = env;
  r.no_nvidia_smi = true;
  if (dice_alloc_gpus (&r, given, &a, err + 7, sizeof err - 7) != 0)
    {
      memcpy (err, "error: ", 7);
      return err;
    }
  out = joined (&a);
  if (source)
    *source = a.gpu_source;
  dice_alloc_free_gpus (a.gpus, a.ngpus);
  return out;
}

static void
test_gpus (void)
{
  char *none[] = { "PATH=/bin", NULL };
  char *idx[] = { "CUDA_VISIBLE_DEVICES=2,3", "SLURM_JOB_GPUS=0", NULL };
  char *uuid[] = { "CUDA_VISIBLE_DEVICES=GPU-5d8e7c2a-1f0b-4c3d-9e8f-"
    "0123456789ab,GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", NULL };
  char *mig[] = { "CUDA_VISIBLE_DEVICES=MIG-8e7f0c3a-2b1d-5e4f-a6b7-"
    "c8d9e0f1a2b3", NULL };
  char *migold[] = { "CUDA_VISIBLE_DEVICES=MIG-GPU-5d8e7c2a-1f0b-4c3d-"
    "9e8f-0123456789ab/1/0", NULL };
  char *step[] = { "SLURM_JOB_GPUS=4,5,6", "SLURM_STEP_GPUS=5", NULL };
  char *job[] = { "SLURM_JOB_GPUS=4,5,6", NULL };
  char *ordinal[] = { "GPU_DEVICE_ORDINAL=1", NULL };
  char *empty[] = { "CUDA_VISIBLE_DEVICES=", NULL };
  char *minus[] = { "CUDA_VISIBLE_DEVICES=-1", NULL };
  char *nodev[] = { "CUDA_VISIBLE_DEVICES=NoDevFiles", NULL };
  char *bad[] = { "CUDA_VISIBLE_DEVICES=0,,1", NULL };
  char *badslurm[] = { "SLURM_JOB_GPUS=gpu:2", NULL };
  const char *source;

  is_str (gpus (NULL, none, &source), "", "no GPU on a node without one");
  is_str (source, "node", "the node is the source");
  put ("proc/driver/nvidia/gpus/0000:01:00.0/information", "x\n");
  put ("proc/driver/nvidia/gpus/0000:02:00.0/information", "x\n");
  put ("proc/driver/nvidia/gpus/0000:03:00.0/information", "x\n");
  is_str (gpus (NULL, none, &source), "0,1,2", "the node's three GPUs");
  is_str (gpus (NULL, idx, &source), "2,3",
          "an inherited CUDA_VISIBLE_DEVICES wins over the node and SLURM");
  is_str (source, "CUDA_VISIBLE_DEVICES", "and is named");
  is_str (gpus (NULL, uuid, NULL), "GPU-5d8e7c2a-1f0b-4c3d-9e8f-0123456789ab,"
          "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", "GPU UUIDs, as given");
  is_str (gpus (NULL, mig, NULL),
          "MIG-8e7f0c3a-2b1d-5e4f-a6b7-c8d9e0f1a2b3", "a MIG UUID");
  is_str (gpus (NULL, migold, NULL),
          "MIG-GPU-5d8e7c2a-1f0b-4c3d-9e8f-0123456789ab/1/0",
          "a MIG instance in the older form");
  is_str (gpus (NULL, step, &source), "5", "SLURM_STEP_GPUS before the job's");
  is_str (source, "SLURM_STEP_GPUS", "and named");
  is_str (gpus (NULL, job, NULL), "4,5,6", "SLURM_JOB_GPUS");
  is_str (gpus (NULL, ordinal, &source), "1", "GPU_DEVICE_ORDINAL");
  is_str (gpus (NULL, empty, NULL), "", "an empty CUDA_VISIBLE_DEVICES: none");
  is_str (gpus (NULL, minus, NULL), "", "-1: none");
  is_str (gpus (NULL, nodev, NULL), "", "SLURM's NoDevFiles: none");
  is_str (gpus ("1,MIG-abcd-01", idx, &source), "1,MIG-abcd-01",
          "--gpus wins over the environment");
  is_str (source, "--gpus", "and is named");
  is_str (gpus (NULL, bad, NULL), "error: invalid CUDA_VISIBLE_DEVICES "
          "'0,,1' in the environment (GPU indices, GPU-UUIDs or MIG-UUIDs, "
          "separated by commas)", "a bad inherited value names its variable");
  ok (strstr (gpus (NULL, badslurm, NULL), "invalid SLURM_JOB_GPUS 'gpu:2'")
      != NULL, "as does a bad SLURM value");
  is_str (gpus ("x", none, NULL), "error: invalid --gpus 'x' (GPU indices, "
          "GPU-UUIDs or MIG-UUIDs, separated by commas)", "--gpus=x");
  ok (strncmp (gpus (",0", none, NULL), "error:", 6) == 0
      && strncmp (gpus ("0,", none, NULL), "error:", 6) == 0
      && strncmp (gpus ("GPU-", none, NULL), "error:", 6) == 0
      && strncmp (gpus ("GPU-xyz", none, NULL), "error:", 6) == 0
      && strncmp (gpus ("-1", none, NULL), "error:", 6) == 0
      && strncmp (gpus ("0 1", none, NULL), "error:", 6) == 0,
      "empty entries, bare or non-hex UUIDs and -1 are refused in --gpus");
}

/* The roots of the fixture tree ROOT/NAME; valid until the next call.  */
static struct dice_alloc_roots
tree (const char *name)
{
  static char proc[PATH_MAX], cg[PATH_MAX];
  struct dice_alloc_roots r = { 0 };

  snprintf (proc, sizeof proc, "%s/%s/proc", root, name);
  snprintf (cg, sizeof cg, "%s/%s/cgroup", root, name);
  r.proc = proc;
  r.cgroup = cg;
  return r;
}

/* The CPUs and memory of the tree at ROOT/NAME with AFFINITY.  */
static struct dice_alloc
resources (const char *name, const char *affinity)
{
  struct dice_alloc_roots r = tree (name);
  struct dice_alloc a;

  r.affinity = affinity;
  dice_alloc_resources (&r, &a);
  return a;
}

static void
test_resources (void)
{
  struct dice_alloc a;

  is_int (dice_alloc_cpu_list_count ("0-3,8,10-11\n"), 7, "a CPU list");
  is_int (dice_alloc_cpu_list_count ("5"), 1, "one CPU");
  ok (dice_alloc_cpu_list_count ("") < 0
      && dice_alloc_cpu_list_count ("3-1") < 0
      && dice_alloc_cpu_list_count ("0-") < 0
      && dice_alloc_cpu_list_count ("a") < 0
      && dice_alloc_cpu_list_count ("0,,1") < 0, "bad CPU lists");

  put ("bare/proc/meminfo", "MemTotal:       16384 kB\nMemFree: 1 kB\n");
  a = resources ("bare", "0-7");
  is_int (a.cpus, 8, "no cgroup: the affinity mask");
  is_str (a.cpu_source, "affinity", "named");
  is_int ((long long) a.memory, 16384LL * 1024, "no cgroup: the node's RAM");
  is_str (a.memory_source, "node", "named");

  put ("v2/proc/meminfo", "MemTotal: 16384 kB\n");
  put ("v2/proc/self/cgroup", "0::/system.slice/job_7/step_0/task_0\n");
  put ("v2/cgroup/system.slice/job_7/cpu.max", "250000 100000\n");
  put ("v2/cgroup/system.slice/job_7/memory.max", "4194304\n");
  put ("v2/cgroup/system.slice/job_7/step_0/task_0/cpu.max", "max 100000\n");
  put ("v2/cgroup/system.slice/job_7/step_0/task_0/memory.max", "max\n");
  a = resources ("v2", "0-7");
  is_int (a.cpus, 3, "cgroup v2: 2.5 CPUs of quota on the job's cgroup: 3");
  is_str (a.cpu_source, "cgroup", "named");
  is_int ((long long) a.memory, 4194304, "cgroup v2 memory.max of the job");
  is_str (a.memory_source, "cgroup", "named");
  a = resources ("v2", "0");
  is_int (a.cpus, 1, "an affinity tighter than the quota wins");
  is_str (a.cpu_source, "affinity", "named");

  put ("v1/proc/meminfo", "MemTotal: 16384 kB\n");
  put ("v1/proc/self/cgroup", "12:memory:/slurm/uid_1/job_9\n"
       "4:cpu,cpuacct:/slurm/uid_1/job_9\n3:pids:/x\n0::/\n");
  put ("v1/cgroup/cpu,cpuacct/slurm/uid_1/job_9/cpu.cfs_quota_us", "-1\n");
  put ("v1/cgroup/cpu,cpuacct/slurm/uid_1/job_9/cpu.cfs_period_us",
       "100000\n");
  put ("v1/cgroup/cpu,cpuacct/slurm/cpu.cfs_quota_us", "400000\n");
  put ("v1/cgroup/cpu,cpuacct/slurm/cpu.cfs_period_us", "100000\n");
  put ("v1/cgroup/memory/slurm/uid_1/job_9/memory.limit_in_bytes",
       "2097152\n");
  put ("v1/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  a = resources ("v1", "0-15");
  is_int (a.cpus, 4, "cgroup v1: the quota of an ancestor");
  is_int ((long long) a.memory, 2097152, "cgroup v1 memory.limit_in_bytes");

  put ("huge/proc/meminfo", "MemTotal: 16384 kB\n");
  put ("huge/proc/self/cgroup", "7:memory:/\n");
  put ("huge/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  a = resources ("huge", "0-1");
  is_int ((long long) a.memory, 16384LL * 1024,
          "an unlimited v1 cgroup: the node's RAM");
  is_str (a.memory_source, "node", "named");

  put ("junk/proc/meminfo", "MemTotal: 16384 kB\n");
  put ("junk/proc/self/cgroup", "garbage\n0::/a\n");
  put ("junk/cgroup/a/cpu.max", "lots of\n");
  put ("junk/cgroup/a/memory.max", "-5\n");
  a = resources ("junk", "0-1");
  ok (a.cpus == 2 && a.memory == 16384ULL * 1024,
      "unreadable cgroup values are no limit");

  a = resources ("nothing", NULL);
  ok (a.cpus >= 1, "the real affinity mask: at least one CPU");
}

/* The memory free in the tree at ROOT/NAME: its bytes, its total in
   *TOTAL, or -1 when it cannot be read.  */
static long long
memory_free (const char *name, unsigned long long *total)
{
  struct dice_alloc_roots r = tree (name);
  unsigned long long available;

  *total = 0;
  if (dice_alloc_memory_free (&r, &available, total) != 0)
    return -1;
  return (long long) available;
}

static void
test_memory_free (void)
{
  unsigned long long total;

  put ("free-node/proc/meminfo",
       "MemTotal: 16384 kB\nMemFree: 1024 kB\nMemAvailable: 8192 kB\n");
  is_int (memory_free ("free-node", &total), 8192LL * 1024,
          "no cgroup: the node's MemAvailable, not MemFree");
  is_int ((long long) total, 16384LL * 1024, "out of its MemTotal");

  /* The job's limit is the tightest; its usage counts all its steps.  */
  put ("free-v2/proc/meminfo", "MemTotal: 16384 kB\nMemAvailable: 8192 kB\n");
  put ("free-v2/proc/self/cgroup", "0::/system.slice/job_7/step_0\n");
  put ("free-v2/cgroup/system.slice/job_7/memory.max", "4194304\n");
  put ("free-v2/cgroup/system.slice/job_7/memory.current", "3145728\n");
  put ("free-v2/cgroup/system.slice/job_7/step_0/memory.max", "max\n");
  put ("free-v2/cgroup/system.slice/job_7/step_0/memory.current", "1024\n");
  is_int (memory_free ("free-v2", &total), 1048576,
          "cgroup v2: the job's memory.max less its memory.current");
  is_int ((long long) total, 4194304, "out of the job's limit");

  /* A step's own limit can leave less than the job's.  */
  put ("free-v2/cgroup/system.slice/job_7/step_0/memory.max", "2097152\n");
  put ("free-v2/cgroup/system.slice/job_7/step_0/memory.current",
       "1835008\n");
  is_int (memory_free ("free-v2", &total), 262144,
          "the level that leaves the least");
  is_int ((long long) total, 2097152, "out of the tightest limit");

  /* Page cache the kernel can drop is not in use.  */
  put ("free-v2/cgroup/system.slice/job_7/step_0/memory.stat",
       "anon 1000\nfile 1048576\nactive_file 524288\n"
       "inactive_file 524288\nslab 12\n");
  is_int (memory_free ("free-v2", &total), 786432,
          "cgroup v2: memory.current less memory.stat's inactive_file");

  put ("free-full/proc/meminfo", "MemTotal: 16384 kB\nMemAvailable: 8192 kB\n");
  put ("free-full/proc/self/cgroup", "0::/job\n");
  put ("free-full/cgroup/job/memory.max", "1048576\n");
  put ("free-full/cgroup/job/memory.current", "2097152\n");
  is_int (memory_free ("free-full", &total), 0,
          "usage over the limit: nothing free");

  put ("free-v1/proc/meminfo", "MemTotal: 16384 kB\nMemAvailable: 12288 kB\n");
  put ("free-v1/proc/self/cgroup", "12:memory:/slurm/uid_1/job_9\n0::/\n");
  put ("free-v1/cgroup/memory/slurm/uid_1/job_9/memory.limit_in_bytes",
       "2097152\n");
  put ("free-v1/cgroup/memory/slurm/uid_1/job_9/memory.usage_in_bytes",
       "524288\n");
  put ("free-v1/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  put ("free-v1/cgroup/memory/memory.usage_in_bytes", "999999999\n");
  put ("free-v1/cgroup/memory/slurm/uid_1/job_9/memory.stat",
       "cache 400000\ninactive_file 1\ntotal_inactive_file 262144\n");
  is_int (memory_free ("free-v1", &total), 1835008,
          "cgroup v1: limit_in_bytes less usage_in_bytes less "
          "total_inactive_file; an unlimited root is no limit");
  is_int ((long long) total, 2097152, "out of the job's limit");

  put ("free-nousage/proc/meminfo",
       "MemTotal: 16384 kB\nMemAvailable: 8192 kB\n");
  put ("free-nousage/proc/self/cgroup", "0::/job\n");
  put ("free-nousage/cgroup/job/memory.max", "4194304\n");
  is_int (memory_free ("free-nousage", &total), 4194304,
          "a limit whose usage cannot be read: the limit");
  is_int ((long long) total, 4194304, "out of the limit");

  put ("free-old/proc/meminfo", "MemTotal: 16384 kB\nMemFree: 1024 kB\n");
  is_int (memory_free ("free-old", &total), -1,
          "no MemAvailable: unknown");
  is_int (memory_free ("free-none", &total), -1, "no meminfo: unknown");
}

int
main (void)
{
  const char *tmp = getenv ("TMPDIR");

  snprintf (root, sizeof root, "%s/t0017.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (mkdtemp (root) == NULL)
    {
      perror (root);
      return 1;
    }
  test_gpus ();
  test_resources ();
  test_memory_free ();
  {
    char cmd[PATH_MAX + 16];

    snprintf (cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system (cmd) != 0)
      return 1;
  }
  return done_testing ();
}
