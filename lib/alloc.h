/* alloc.h: the job's allocation, the world dice may use: which GPUs (an
   inherited CUDA_VISIBLE_DEVICES, SLURM's variables, else the node's), how
   many CPUs (the affinity mask and the cgroup's CPU quota) and how much
   memory (the cgroup's limit, else the node's RAM).  A tool under SLURM
   or in a container thus never runs on what its job does not own.  */
#ifndef DICE_ALLOC_H
#define DICE_ALLOC_H

#include "system.h"

/* Where the allocation is read from.  Every field may be NULL for the
   real one, so tests can point each at fixture files.  */
struct dice_alloc_roots
{
  const char *proc;             /* "/proc" */
  const char *cgroup;           /* "/sys/fs/cgroup" */
  char *const *env;             /* "NAME=VALUE" strings; environ */
  const char *affinity;         /* a CPU list ("0-3,8"); sched_getaffinity */
  bool no_nvidia_smi;           /* do not ask nvidia-smi -L */
};

struct dice_alloc
{
  char **gpus;                  /* CUDA_VISIBLE_DEVICES entries, as given */
  size_t ngpus;
  const char *gpu_source;       /* "--gpus", "CUDA_VISIBLE_DEVICES", ... */
  long cpus;                    /* at least 1 */
  const char *cpu_source;       /* "affinity" or "cgroup" */
  unsigned long long memory;    /* bytes; 0 when unknown */
  const char *memory_source;    /* "cgroup" or "node" */
};

/* Split LIST, a comma-separated list of GPUs (indices, GPU-UUIDs or
   MIG-UUIDs), into *GPUS (the caller frees it with dice_alloc_free_gpus)
   and *N.  Returns 0, or -1 with errno EINVAL for a bad entry (the list is
   then not returned) or ENOMEM.  An empty list is zero GPUs.  */
int dice_alloc_parse_gpus (const char *list, char ***gpus, size_t *n);
void dice_alloc_free_gpus (char **gpus, size_t n);

/* The GPUs: GIVEN (--gpus) when not NULL, else CUDA_VISIBLE_DEVICES, else
   SLURM_STEP_GPUS, SLURM_JOB_GPUS, GPU_DEVICE_ORDINAL, else every GPU of
   the node.  Returns 0, or -1 with a message in ERR (a bad value names the
   variable it came from).  */
int dice_alloc_gpus (const struct dice_alloc_roots *roots, const char *given,
                     struct dice_alloc *a, char *err, size_t errlen);

/* The CPUs and memory of the allocation; never fails (what cannot be read
   is not a limit).  */
void dice_alloc_resources (const struct dice_alloc_roots *roots,
                           struct dice_alloc *a);

/* The allocation's memory not in use now, in bytes, into *AVAILABLE, and
   its memory as dice_alloc_resources finds it into *TOTAL: the node's
   MemAvailable, lowered at every cgroup level with a memory limit to what
   that limit leaves beside the level's usage (a SLURM job's whole use
   counts against its limit, the node's other jobs do not).  Returns 0, or
   -1 when the node's figures cannot be read.  */
int dice_alloc_memory_free (const struct dice_alloc_roots *roots,
                            unsigned long long *available,
                            unsigned long long *total);

/* The number of CPUs in a Linux CPU list such as "0-3,8,10-11", or -1 when
   it is not one.  */
long dice_alloc_cpu_list_count (const char *list);

#endif
