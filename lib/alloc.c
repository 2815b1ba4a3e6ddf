/* alloc.c: the job's allocation (GPUs, CPUs, memory), read from the
   environment, the affinity mask and the cgroup, as alloc.h says.  */
#include "system.h"

#include <ctype.h>
#include <dirent.h>
#include <sched.h>
#include <unistd.h>

#include "alloc.h"

extern char **environ;

static const char *
env_get (const struct dice_alloc_roots *roots, const char *name)
{
  char *const *env = roots && roots->env ? roots->env : environ;
  size_t len = strlen (name);

  for (; env && *env; env++)
    if (strncmp (*env, name, len) == 0 && (*env)[len] == '=')
      return *env + len + 1;
  return NULL;
}

static const char *
root_of (const char *given, const char *real)
{
  return given ? given : real;
}

/* Whether ENTRY (LEN bytes) names a GPU as CUDA_VISIBLE_DEVICES does: an
   index, a GPU UUID, or a MIG instance (MIG-<uuid>, or the older
   MIG-GPU-<uuid>/<gi>/<ci>).  */
static bool
gpu_entry_valid (const char *entry, size_t len)
{
  size_t i, start;

  if (len == 0)
    return false;
  for (i = 0; i < len && isdigit ((unsigned char) entry[i]); i++)
    ;
  if (i == len)
    return true;
  if (len > 4 && strncmp (entry, "GPU-", 4) == 0)
    start = 4;
  else if (len > 4 && strncmp (entry, "MIG-", 4) == 0)
    start = 4;
  else
    return false;
  for (i = start; i < len; i++)
    {
      unsigned char c = (unsigned char) entry[i];

      if (!isxdigit (c) && c != '-'
          && !(entry[0] == 'M' && (c == '/' || c == 'G' || c == 'P'
                                   || c == 'U')))
        return false;
    }
  return true;
}

void
dice_alloc_free_gpus (char **gpus, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free (gpus[i]);
  free (gpus);
}

int
dice_alloc_parse_gpus (const char *list, char ***gpus, size_t *n)
{
  size_t count = 0, k = 0;
  char **out;

  *gpus = NULL;
  *n = 0;
  if (*list == '\0')
    return 0;
  for (const char *p = list; p; p = strchr (p, ','))
    p += *p == ',', count++;
  if ((out = calloc (count, sizeof *out)) == NULL)
    return -1;
  for (const char *p = list; k < count; k++)
    {
      size_t len = strcspn (p, ",");

      if (!gpu_entry_valid (p, len))
        {
          dice_alloc_free_gpus (out, k);
          errno = EINVAL;
          return -1;
        }
      if ((out[k] = strndup (p, len)) == NULL)
        {
          dice_alloc_free_gpus (out, k);
          return -1;
        }
      p += len + 1;
    }
  *gpus = out;
  *n = count;
  return 0;
}

/* The node's GPUs, as indices 0..n-1.  */
static int
node_gpus (const struct dice_alloc_roots *roots, struct dice_alloc *a)
{
  char path[PATH_MAX], buf[4096];
  size_t n = 0;
  DIR *d;

  snprintf (path, sizeof path, "%s/driver/nvidia/gpus",
            root_of (roots ? roots->proc : NULL, "/proc"));
  if ((d = opendir (path)) != NULL)
    {
      struct dirent *de;

      while ((de = readdir (d)) != NULL)
        if (de->d_name[0] != '.')
          n++;
      closedir (d);
    }
  if (n == 0 && !(roots && roots->no_nvidia_smi))
    {
      FILE *p = popen ("nvidia-smi -L 2>/dev/null", "r");

      if (p)
        {
          while (fgets (buf, sizeof buf, p))
            if (strncmp (buf, "GPU ", 4) == 0)
              n++;
          pclose (p);
        }
    }
  a->gpu_source = "node";
  if (n == 0)
    return 0;
  if ((a->gpus = calloc (n, sizeof *a->gpus)) == NULL)
    return -1;
  for (; a->ngpus < n; a->ngpus++)
    {
      snprintf (buf, sizeof buf, "%zu", a->ngpus);
      if ((a->gpus[a->ngpus] = strdup (buf)) == NULL)
        return -1;
    }
  return 0;
}

int
dice_alloc_gpus (const struct dice_alloc_roots *roots, const char *given,
                 struct dice_alloc *a, char *err, size_t errlen)
{
  static const char *const vars[] = {
    "CUDA_VISIBLE_DEVICES", "SLURM_STEP_GPUS", "SLURM_JOB_GPUS",
    "GPU_DEVICE_ORDINAL"
  };
  const char *value = given, *source = "--gpus";

  a->gpus = NULL;
  a->ngpus = 0;
  for (size_t i = 0; value == NULL && i < sizeof vars / sizeof *vars; i++)
    if ((value = env_get (roots, vars[i])) != NULL)
      source = vars[i];
  if (value == NULL)
    {
      if (node_gpus (roots, a) == 0)
        return 0;
      dice_alloc_free_gpus (a->gpus, a->ngpus);
      a->gpus = NULL, a->ngpus = 0;
      snprintf (err, errlen, "memory exhausted");
      return -1;
    }
  a->gpu_source = source;
  /* How CUDA and SLURM say "no GPU": the job owns none, so none is used.  */
  if (given == NULL && (strcmp (value, "-1") == 0
                        || strcmp (value, "NoDevFiles") == 0))
    value = "";
  if (dice_alloc_parse_gpus (value, &a->gpus, &a->ngpus) == 0)
    return 0;
  if (errno == EINVAL && given)
    snprintf (err, errlen, "invalid --gpus '%s' (GPU indices, GPU-UUIDs "
              "or MIG-UUIDs, separated by commas)", value);
  else if (errno == EINVAL)
    snprintf (err, errlen, "invalid %s '%s' in the environment (GPU "
              "indices, GPU-UUIDs or MIG-UUIDs, separated by commas)",
              source, value);
  else
    snprintf (err, errlen, "memory exhausted");
  return -1;
}

long
dice_alloc_cpu_list_count (const char *list)
{
  long count = 0;
  const char *p = list;

  while (isspace ((unsigned char) *p))
    p++;
  if (*p == '\0')
    return -1;
  while (*p && *p != '\n')
    {
      char *end;
      unsigned long lo, hi;

      if (!isdigit ((unsigned char) *p))
        return -1;
      lo = hi = strtoul (p, &end, 10);
      if (*end == '-')
        {
          if (!isdigit ((unsigned char) end[1]))
            return -1;
          hi = strtoul (end + 1, &end, 10);
        }
      if (hi < lo || hi - lo > 1UL << 20)
        return -1;
      count += (long) (hi - lo + 1);
      if (*end == ',')
        end++;
      else if (*end && *end != '\n')
        return -1;
      p = end;
    }
  return count;
}

/* The first line of the file DIR/NAME in BUF, or false.  */
static bool
read_line (const char *dir, const char *name, char *buf, size_t size)
{
  char path[PATH_MAX];
  FILE *f;
  bool got;

  snprintf (path, sizeof path, "%s/%s", dir, name);
  if ((f = fopen (path, "r")) == NULL)
    return false;
  got = fgets (buf, (int) size, f) != NULL;
  fclose (f);
  return got;
}

/* The value of KEY in DIR's memory.stat, or 0.  */
static unsigned long long
stat_value (const char *dir, const char *key)
{
  char path[PATH_MAX], line[256];
  unsigned long long value = 0;
  size_t len = strlen (key);
  FILE *f;

  if (snprintf (path, sizeof path, "%s/memory.stat", dir) >= (int) sizeof path
      || (f = fopen (path, "r")) == NULL)
    return 0;
  while (fgets (line, sizeof line, f))
    if (strncmp (line, key, len) == 0 && line[len] == ' '
        && sscanf (line + len + 1, "%llu", &value) == 1)
      break;
  fclose (f);
  return value;
}

/* What one cgroup directory limits: CPUs (rounded up; none read where
   CPUS is NULL) and memory bytes, each lowered in *CPUS and *MEMORY where
   it is the tighter; and, where
   AVAILABLE is not NULL, the bytes its memory limit leaves beside its
   usage, lowered in *AVAILABLE.  */
static void
cgroup_limits (const char *dir, bool v2, bool cpu, bool mem, double *cpus,
               unsigned long long *memory, unsigned long long *available)
{
  char buf[256];
  double quota, period;
  unsigned long long bytes, used, cache, left;

  cpu = cpu && cpus;
  if (cpu && v2 && read_line (dir, "cpu.max", buf, sizeof buf)
      && sscanf (buf, "%lf %lf", &quota, &period) == 2 && quota > 0
      && period > 0 && quota / period < *cpus)
    *cpus = quota / period;
  if (cpu && !v2 && read_line (dir, "cpu.cfs_quota_us", buf, sizeof buf)
      && sscanf (buf, "%lf", &quota) == 1 && quota > 0
      && read_line (dir, "cpu.cfs_period_us", buf, sizeof buf)
      && sscanf (buf, "%lf", &period) == 1 && period > 0
      && quota / period < *cpus)
    *cpus = quota / period;
  if (!mem || !read_line (dir, v2 ? "memory.max" : "memory.limit_in_bytes",
                          buf, sizeof buf)
      || sscanf (buf, "%llu", &bytes) != 1 || bytes == 0)
    return;
  if (bytes < *memory)
    *memory = bytes;
  if (available == NULL)
    return;
  /* Usage that cannot be read is none: the limit still caps it.  Page
     cache the kernel can drop at once is no use (kubelet's working set,
     for the same reason).  */
  if (!read_line (dir, v2 ? "memory.current" : "memory.usage_in_bytes",
                  buf, sizeof buf)
      || sscanf (buf, "%llu", &used) != 1)
    used = 0;
  cache = stat_value (dir, v2 ? "inactive_file" : "total_inactive_file");
  used = cache < used ? used - cache : 0;
  left = used < bytes ? bytes - used : 0;
  if (left < *available)
    *available = left;
}

/* Whether the comma-separated LIST of controllers holds NAME.  */
static bool
has_controller (const char *list, size_t len, const char *name)
{
  size_t nlen = strlen (name);

  for (const char *p = list; p < list + len;)
    {
      size_t l = strcspn (p, ",:");

      if (l == nlen && strncmp (p, name, nlen) == 0)
        return true;
      p += l + 1;
    }
  return false;
}

/* Every cgroup of the process, and their ancestors (a SLURM job's limit
   sits on the job's cgroup, above the step's and task's): the tightest
   CPU quota (none where CPUS is NULL) and memory limit, and what the
   limits leave free (cgroup_limits).  */
static void
cgroup_walk (const struct dice_alloc_roots *roots, double *cpus,
             unsigned long long *memory, unsigned long long *available)
{
  const char *cgroot = root_of (roots ? roots->cgroup : NULL,
                                "/sys/fs/cgroup");
  char path[PATH_MAX], line[PATH_MAX];
  FILE *f;

  snprintf (path, sizeof path, "%s/self/cgroup",
            root_of (roots ? roots->proc : NULL, "/proc"));
  if ((f = fopen (path, "r")) == NULL)
    return;
  while (fgets (line, sizeof line, f))
    {
      char *ctl = strchr (line, ':'), *cg, *slash;
      size_t ctl_len;
      bool v2, cpu, mem;

      if (ctl == NULL || (cg = strchr (++ctl, ':')) == NULL)
        continue;
      ctl_len = (size_t) (cg - ctl);
      cg[strcspn (cg, "\n")] = '\0';
      v2 = ctl_len == 0;
      cpu = v2 || has_controller (ctl, ctl_len, "cpu");
      mem = v2 || has_controller (ctl, ctl_len, "memory");
      if (!cpu && !mem)
        continue;
      if (v2)
        snprintf (path, sizeof path, "%s%s", cgroot, cg + 1);
      else
        snprintf (path, sizeof path, "%s/%.*s%s", cgroot, (int) ctl_len, ctl,
                  cg + 1);
      for (;;)
        {
          cgroup_limits (path, v2, cpu, mem, cpus, memory, available);
          slash = strrchr (path, '/');
          if (slash == NULL || (size_t) (slash - path) < strlen (cgroot)
              || strcmp (path, cgroot) == 0)
            break;
          *slash = '\0';
          if (!v2 && strlen (path) < strlen (cgroot) + 1 + ctl_len)
            break;
        }
    }
  fclose (f);
}

/* The node's memory in bytes (meminfo's MemTotal), and into *AVAILABLE
   what it could give without swapping (MemAvailable); 0 when unknown.  */
static unsigned long long
node_memory (const struct dice_alloc_roots *roots,
             unsigned long long *available)
{
  char path[PATH_MAX], line[256];
  unsigned long long kb, total = 0;
  FILE *f;

  *available = 0;
  snprintf (path, sizeof path, "%s/meminfo",
            root_of (roots ? roots->proc : NULL, "/proc"));
  if ((f = fopen (path, "r")) == NULL)
    return 0;
  while (fgets (line, sizeof line, f))
    if (sscanf (line, "MemTotal: %llu kB", &kb) == 1)
      total = kb * 1024;
    else if (sscanf (line, "MemAvailable: %llu kB", &kb) == 1)
      *available = kb * 1024;
  fclose (f);
  return total;
}

void
dice_alloc_resources (const struct dice_alloc_roots *roots,
                      struct dice_alloc *a)
{
  long affinity = -1;
  double cpus;
  unsigned long long node, memory, node_available;

  if (roots && roots->affinity)
    affinity = dice_alloc_cpu_list_count (roots->affinity);
  else
    {
      cpu_set_t set;

      if (sched_getaffinity (0, sizeof set, &set) == 0)
        affinity = CPU_COUNT (&set);
    }
  if (affinity < 1)
    affinity = sysconf (_SC_NPROCESSORS_ONLN);
  if (affinity < 1)
    affinity = 1;
  cpus = (double) affinity;
  node = node_memory (roots, &node_available);
  memory = node ? node : ULLONG_MAX;
  cgroup_walk (roots, &cpus, &memory, NULL);
  a->cpu_source = cpus < (double) affinity ? "cgroup" : "affinity";
  a->cpus = (long) cpus;
  if ((double) a->cpus < cpus)
    a->cpus++;
  if (a->cpus < 1)
    a->cpus = 1;
  a->memory_source = memory < node || !node ? "cgroup" : "node";
  a->memory = memory == ULLONG_MAX ? 0 : memory;
}

int
dice_alloc_memory_free (const struct dice_alloc_roots *roots,
                        unsigned long long *available,
                        unsigned long long *total)
{
  unsigned long long node = node_memory (roots, available);

  if (node == 0 || *available == 0)
    return -1;
  *total = node;
  cgroup_walk (roots, NULL, total, available);
  return 0;
}
