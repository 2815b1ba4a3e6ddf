/* harness.c: jobs for the Python harness, and what its results (or its
   deaths) mean.  C decides the statuses that need no cooperation from the
   harness: no_code, timeout, crashed, and oom when the process was killed
   for memory; the harness decides the rest.  */
#include "system.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "datadir.h"
#include "deception.h"
#include "fileio.h"
#include "harness.h"
#include "msg.h"
#include "numarg.h"
#include "pylex.h"
#include "pymod.h"
#include "record.h"
#include "sandbox.h"
#include "resume.h"
#include "scheduler.h"
#include "secrets.h"
#include "sha256.h"

#define DEFAULT_TIMEOUT 180.0
#define DEFAULT_TRIALS 5
#define DEFAULT_SEED 42
#define FILE_SIZE_LIMIT (16ULL << 30)
#define ERROR_MAX 1000

void
dice_harness_init (struct dice_harness *h, enum dice_harness_mode mode)
{
  memset (h, 0, sizeof *h);
  h->mode = mode;
  h->device = "auto";
  h->timeout = DEFAULT_TIMEOUT;
  h->trials = DEFAULT_TRIALS;
  h->seed = DEFAULT_SEED;
  h->tolerance = "dice";
  h->atol = h->rtol = 1e-2;
  h->memory = -1;
  h->progress = DICE_PROGRESS_AUTO;
  if (mode == DICE_HARNESS_TIME)
    dice_harness_time_init (h);
}

bool
dice_harness_option_long (const char *option, const char *arg, long lo,
                          long hi, long *value, char *err, size_t errlen)
{
  char what[128];

  if (dice_parse_long (arg, lo, hi, value))
    return true;
  dice_describe_long (what, sizeof what, lo, hi);
  dice_invalid_value (err, errlen, option, arg, what);
  return false;
}

bool
dice_harness_option_double (const char *option, const char *arg, double lo,
                            bool above_lo, double *value, char *err,
                            size_t errlen)
{
  char what[128];

  if (dice_parse_double (arg, lo, HUGE_VAL, above_lo, value))
    return true;
  dice_describe_double (what, sizeof what, lo, HUGE_VAL, above_lo);
  dice_invalid_value (err, errlen, option, arg, what);
  return false;
}

enum dice_harness_option_result
dice_harness_option (struct dice_harness *h, int c, const char *arg,
                     char *err, size_t errlen)
{
  long n;
  double d;
  long long size;

  switch (c)
    {
    case 'j':
      if (!dice_harness_option_long ("jobs", arg, 1, 4096, &n, err, errlen))
        return DICE_HARNESS_OPTION_BAD;
      h->jobs = n;
      break;
    case DICE_OPT_GPUS:         /* --gpus */
      {
        struct dice_alloc a;

        if (!*arg)
          {
            dice_invalid_value (err, errlen, "gpus", arg,
                                "GPU numbers or UUIDs separated by commas");
            return DICE_HARNESS_OPTION_BAD;
          }
        if (dice_alloc_gpus (NULL, arg, &a, err, errlen) != 0)
          return DICE_HARNESS_OPTION_BAD;
        dice_alloc_free_gpus (a.gpus, a.ngpus);
        h->gpus = (char *) arg;
      }
      break;
    case DICE_OPT_DEVICE:       /* --device */
      if (strcmp (arg, "auto") && strcmp (arg, "cpu") && strcmp (arg, "cuda"))
        {
          dice_invalid_value (err, errlen, "device", arg, "auto, cpu or cuda");
          return DICE_HARNESS_OPTION_BAD;
        }
      h->device = arg;
      break;
    case DICE_OPT_TIMEOUT:      /* --timeout */
      if (!dice_harness_option_double ("timeout", arg, 0, true, &d, err,
                                       errlen))
        return DICE_HARNESS_OPTION_BAD;
      h->timeout = d;
      break;
    case DICE_OPT_CACHE:        /* --cache */
      if (!*arg)
        {
          dice_invalid_value (err, errlen, "cache", arg, "a directory");
          return DICE_HARNESS_OPTION_BAD;
        }
      free (h->cache);
      h->cache = strdup (arg);
      break;
    case DICE_OPT_ARCH:         /* --arch */
      h->arch = arg;
      break;
    case DICE_OPT_MEMORY:       /* --memory */
      if (!dice_parse_size (arg, &size))
        {
          dice_invalid_value (err, errlen, "memory", arg,
                              "a size such as 8G, 512M or bytes");
          return DICE_HARNESS_OPTION_BAD;
        }
      h->memory = size;
      break;
    case DICE_OPT_KEEP_TEMP:    /* --keep-temp */
      h->keep_temp = true;
      break;
    case DICE_OPT_RESUME:       /* --resume */
      h->resume = arg;
      break;
    case DICE_OPT_UNORDERED:    /* --unordered */
      h->unordered = true;
      break;
    case DICE_OPT_PROGRESS:     /* --progress */
      {
        enum dice_progress_when when;

        if (!dice_progress_parse (arg, &when))
          {
            dice_invalid_value (err, errlen, "progress", arg,
                                "auto, always or never");
            return DICE_HARNESS_OPTION_BAD;
          }
        h->progress = (int) when;
      }
      break;
    case 'q':
      h->progress = DICE_PROGRESS_NEVER;
      break;
    case DICE_OPT_TRIALS:       /* --trials */
      if (!dice_harness_option_long ("trials", arg, 1, 1000000, &n, err,
                                     errlen))
        return DICE_HARNESS_OPTION_BAD;
      h->trials = n;
      break;
    case DICE_OPT_SEED:         /* --seed */
      if (!dice_harness_option_long ("seed", arg, 0, LONG_MAX, &n, err,
                                     errlen))
        return DICE_HARNESS_OPTION_BAD;
      h->seed = n;
      break;
    case DICE_OPT_TOLERANCE:    /* --tolerance */
      if (strcmp (arg, "dice") == 0)
        h->tolerance = "dice";
      else if (strcmp (arg, "kernelbench") == 0)
        h->tolerance = "kernelbench";
      else
        {
          dice_invalid_value (err, errlen, "tolerance", arg,
                              "dice or kernelbench");
          return DICE_HARNESS_OPTION_BAD;
        }
      break;
    case DICE_OPT_ATOL:         /* --atol */
      if (!dice_harness_option_double ("atol", arg, 0, false, &h->atol, err,
                                       errlen))
        return DICE_HARNESS_OPTION_BAD;
      h->atol_set = true;
      break;
    case DICE_OPT_RTOL:         /* --rtol */
      if (!dice_harness_option_double ("rtol", arg, 0, false, &h->rtol, err,
                                       errlen))
        return DICE_HARNESS_OPTION_BAD;
      h->rtol_set = true;
      break;
    case DICE_OPT_PRECISION:    /* --precision */
      if (strcmp (arg, "fp32") && strcmp (arg, "fp16") && strcmp (arg, "bf16"))
        {
          dice_invalid_value (err, errlen, "precision", arg,
                              "fp32, fp16 or bf16");
          return DICE_HARNESS_OPTION_BAD;
        }
      h->precision = arg;
      break;
    case DICE_OPT_NO_ROBUST:    /* --no-robust */
      h->no_robust = true;
      break;
    default:
      return dice_harness_time_option (h, c, arg, err, errlen);
    }
  return DICE_HARNESS_OPTION_HANDLED;
}

void
dice_harness_print_help (enum dice_harness_mode mode)
{
  fputs ("\
Running:\n\
  -j, --jobs=N           run N candidates at once (default: one per GPU,\n\
                           or 1 without GPUs)\n\
      --gpus=LIST        the GPUs to use, as CUDA_VISIBLE_DEVICES entries\n\
                           (0,1,3 or GPU-/MIG- UUIDs); default: the job's\n\
                           (CUDA_VISIBLE_DEVICES, SLURM), else the node's\n\
      --device=DEV       auto, cpu or cuda (default auto: cuda when a GPU\n\
                           is found)\n\
      --timeout=SECS     wall-clock limit per candidate, build and run\n\
                           together (default 180)\n\
      --cache=DIR        the build cache (default $DICE_CACHE, else\n\
                           $XDG_CACHE_HOME/dice, else ~/.cache/dice)\n\
      --arch=ARCH        the CUDA architecture to build for (8.0, 9.0a);\n\
                           default: the GPU's own\n\
      --memory=SIZE      address-space limit per candidate with --device\n\
                           cpu (512M, 8G; 0: none); default half the job's memory\n\
      --keep-temp        keep each candidate's working directory\n\
", stdout);
  if (mode == DICE_HARNESS_CHECK)
    fputs ("\
\n\
Checking:\n\
      --trials=N         compare on N sets of inputs (default 5)\n\
      --seed=N           weights use seed N, trial T's inputs seed N+1+T\n\
                           (default 42)\n\
      --tolerance=NAME   dice (atol = rtol = 1e-2) or kernelbench (1e-4,\n\
                           1e-2 for float16/bfloat16 outputs); default dice\n\
      --atol=X           absolute tolerance (overrides the preset)\n\
      --rtol=X           relative tolerance (overrides the preset)\n\
      --no-robust        report deception flags but decide nothing:\n\
                           check.deception.deceptive is null\n\
      --precision=P      fp32, fp16 or bf16: inputs and weights cast to P,\n\
                           P's tolerance (default: the record's\n\
                           prompt.precision, else fp32)\n\
", stdout);
  if (mode == DICE_HARNESS_TIME)
    dice_harness_time_help ();
  fputs ("\
\n\
Input and output:\n\
      --unordered        write each record when it is done, not in input\n\
                           order\n\
      --resume=FILE      go on from an interrupted run: records whose\n\
                           (id, sample.index) FILE holds, made from the\n\
                           same input, are skipped, the new ones appended\n\
                           to FILE, not standard output; FILE must have\n\
                           been made with the same settings\n\
      --progress[=WHEN]  show progress on standard error: auto (a status\n\
                           line when it is a terminal; the default),\n\
                           always (plain lines in a log), never\n\
  -q, --quiet            show no progress (--progress=never)\n\
      --shard=I/N        do only shard I of N (1 <= I <= N): a stable split\n\
                           by id and sample.index, whatever the input order\n", stdout);
  dice_print_common_help (true);
  fputs ("\n\
Environment: DICE_PYTHON (the interpreter with torch), DICE_DATADIR (the\n\
harness), DICE_CACHE (the build cache), DICE_SANDBOX=none (no namespaces);\n\
CUDA_VISIBLE_DEVICES and MAX_JOBS are set per worker.\n", stdout);
}

/* mkdir -p.  */
static int
make_dirs (const char *path)
{
  char *copy = strdup (path);
  int status = 0;

  if (copy == NULL)
    return -1;
  for (char *p = copy + 1; status == 0; p++)
    if (*p == '/' || *p == '\0')
      {
        char was = *p;

        *p = '\0';
        if (mkdir (copy, 0777) != 0 && errno != EEXIST)
          status = -1;
        *p = was;
        if (was == '\0')
          break;
      }
  free (copy);
  return status;
}

static char *
default_cache (void)
{
  const char *env = getenv ("DICE_CACHE");
  const char *xdg = getenv ("XDG_CACHE_HOME");
  const char *home = getenv ("HOME");
  char *dir;

  if (env && *env)
    return strdup (env);
  if (xdg && *xdg == '/')
    return dice_path_join (xdg, "dice");
  if (home && *home)
    {
      size_t len = strlen (home) + sizeof "/.cache/dice";

      if ((dir = malloc (len)) != NULL)
        snprintf (dir, len, "%s/.cache/dice", home);
      return dir;
    }
  return NULL;
}

/* Whether PROGRAM can be run: a path, or a name found in PATH.  */
static bool
runnable (const char *program)
{
  const char *path = getenv ("PATH");
  char full[PATH_MAX];

  if (strchr (program, '/'))
    return access (program, X_OK) == 0;
  for (const char *dir = path; dir && *dir;)
    {
      size_t len = strcspn (dir, ":");

      snprintf (full, sizeof full, "%.*s/%s", (int) len,
                len ? dir : ".", program);
      if (access (full, X_OK) == 0)
        return true;
      dir += len + (dir[len] == ':');
    }
  return false;
}

int
dice_harness_finish (struct dice_harness *h, char ***slots, size_t *nslots,
                     char *err, size_t errlen)
{
  struct dice_alloc alloc = { 0 };
  char *real;
  size_t ngpus, nworkers;
  char **list;

  *slots = NULL;
  *nslots = 0;
  if (!runnable (dice_python ()))
    {
      snprintf (err, errlen, "cannot find the Python interpreter '%s' "
                "(set DICE_PYTHON)", dice_python ());
      return -1;
    }
  if (h->cache == NULL && (h->cache = default_cache ()) == NULL)
    {
      snprintf (err, errlen, "no build cache: set DICE_CACHE or HOME, "
                "or use --cache");
      return -1;
    }
  if (make_dirs (h->cache) != 0 || (real = realpath (h->cache, NULL)) == NULL)
    {
      snprintf (err, errlen, "cannot make the build cache '%s': %s",
                h->cache, strerror (errno));
      return -1;
    }
  free (h->cache);
  h->cache = real;
  if ((h->datadir = realpath (dice_datadir (), NULL)) == NULL)
    {
      snprintf (err, errlen, "cannot use the data directory '%s': %s",
                dice_datadir (), strerror (errno));
      return -1;
    }

  if (strcmp (h->device, "cpu") != 0
      && dice_alloc_gpus (NULL, h->gpus, &alloc, err, errlen) != 0)
    return -1;
  ngpus = alloc.ngpus;
  if (strcmp (h->device, "auto") == 0)
    h->device = ngpus ? "cuda" : "cpu";
  if (strcmp (h->device, "cpu") == 0)
    ngpus = 0;
  nworkers = h->jobs ? (size_t) h->jobs : ngpus ? ngpus : 1;
  list = calloc (nworkers, sizeof *list);
  if (list == NULL)
    {
      dice_alloc_free_gpus (alloc.gpus, alloc.ngpus);
      snprintf (err, errlen, "memory exhausted");
      return -1;
    }
  for (size_t i = 0; i < nworkers && ngpus; i++)
    list[i] = strdup (alloc.gpus[i % ngpus]);
  dice_alloc_free_gpus (alloc.gpus, alloc.ngpus);
  *slots = list;
  *nslots = nworkers;

  dice_alloc_resources (NULL, &alloc);
  if (h->memory < 0)
    h->memory = (long long) (alloc.memory / 2);
  if (h->build_jobs == 0 && getenv ("MAX_JOBS") == NULL)
    h->build_jobs = alloc.cpus > (long) nworkers
      ? alloc.cpus / (long) nworkers : 1;
  /* For hosts where namespaces upset a driver, and to test the
     fallback.  */
  h->isolate = !(getenv ("DICE_SANDBOX")
                 && strcmp (getenv ("DICE_SANDBOX"), "none") == 0);
  if (h->atol_set || h->rtol_set)
    h->tolerance = "custom";
  else if (strcmp (h->tolerance, "kernelbench") == 0)
    h->atol = h->rtol = 1e-4;
  if (h->mode == DICE_HARNESS_TIME
      && dice_harness_time_finish (h, err, errlen) != 0)
    {
      dice_harness_free_slots (*slots, *nslots);
      *slots = NULL;
      *nslots = 0;
      return -1;
    }
  if (h->mode == DICE_HARNESS_CHECK
      && (h->decoys = dice_deception_decoys ()) == NULL)
    {
      dice_harness_free_slots (*slots, *nslots);
      *slots = NULL;
      *nslots = 0;
      snprintf (err, errlen, "memory exhausted");
      return -1;
    }
  return 0;
}

void
dice_harness_free_slots (char **slots, size_t nslots)
{
  for (size_t i = 0; i < nslots; i++)
    free (slots[i]);
  free (slots);
}

/* Redact secrets in every string of VALUE, in place.  */
static void
redact_tree (json_t *value)
{
  if (json_is_string (value))
    {
      char *clean = dice_sandbox_redact (json_string_value (value));

      if (clean)
        json_string_set (value, clean);
      free (clean);
    }
  else if (json_is_object (value))
    {
      const char *key;
      json_t *v;

      json_object_foreach (value, key, v)
        redact_tree (v);
    }
  else if (json_is_array (value))
    {
      size_t i;
      json_t *v;

      json_array_foreach (value, i, v)
        redact_tree (v);
    }
}

/* Make S one line of at most ERROR_MAX bytes, in place: control
   characters become spaces, runs of spaces one.  */
static void
one_line (char *s)
{
  char *w = s;

  for (const char *r = s; *r && w - s < ERROR_MAX; r++)
    {
      char c = iscntrl ((unsigned char) *r) ? ' ' : *r;

      if (c == ' ' && (w == s || w[-1] == ' '))
        continue;
      *w++ = c;
    }
  while (w > s && w[-1] == ' ')
    w--;
  *w = '\0';
}

/* The last non-blank line of LOG, at most 200 bytes, into BUF.  */
static void
last_line (const char *log, char *buf, size_t size)
{
  const char *end = log + strlen (log);
  const char *start;
  size_t len;

  while (end > log && isspace ((unsigned char) end[-1]))
    end--;
  start = end;
  while (start > log && start[-1] != '\n')
    start--;
  len = (size_t) (end - start);
  if (len > 200)
    start = end - 200, len = 200;
  snprintf (buf, size, "%.*s", (int) len, start);
  one_line (buf);
}

static const char *
signal_name (int sig)
{
  const char *name = strsignal (sig);

  return name ? name : "unknown signal";
}

/* Why a run that gave no result ended, into WHY; the status it means.  */
static const char *
explain_end (const struct dice_harness *h, const struct dice_sandbox *sb,
             char *why, size_t size)
{
  char tail[256], said[300] = "";

  last_line (sb->log ? sb->log : "", tail, sizeof tail);
  if (*tail)
    snprintf (said, sizeof said, "; last output: %s", tail);
  switch (sb->end)
    {
    case DICE_SANDBOX_TIMEOUT:
      snprintf (why, size, "timed out after %g s (build and run)%s",
                h->timeout, said);
      return "timeout";
    case DICE_SANDBOX_SIGNALED:
      if (sb->status == SIGKILL && sb->oom_kill)
        {
          snprintf (why, size, "killed by the kernel's out-of-memory "
                    "killer%s", said);
          return "oom";
        }
      snprintf (why, size, "killed by signal %d (%s)%s", sb->status,
                signal_name (sb->status), said);
      return "crashed";
    case DICE_SANDBOX_EXITED:
      snprintf (why, size, "the harness exited with status %d without a "
                "result%s", sb->status, said);
      return "crashed";
    case DICE_SANDBOX_GUARD_LOST:
      snprintf (why, size, "the sandbox's guard process was killed or "
                "stopped (by the candidate?)%s", said);
      return "crashed";
    case DICE_SANDBOX_NOT_STARTED:
    default:
      snprintf (why, size, "could not start the harness: %s", sb->error);
      return "crashed";
    }
}

static json_t *
sandbox_object (const struct dice_harness *h, const struct dice_sandbox *sb,
                bool started)
{
  return json_pack ("{s:s?, s:o, s:s?, s:s?, s:o, s:o}",
                    "network", !started ? NULL
                    : sb->net_isolated ? "isolated" : "shared",
                    "pid_namespace", started ? json_boolean (sb->pid_namespace)
                    : json_null (),
                    "filesystem", !started ? NULL
                    : sb->fs_readonly ? "read-only" : "shared",
                    "proc", !started ? NULL
                    : sb->proc_private ? "private" : "shared",
                    "memory", sb->memory ? json_integer ((json_int_t) sb->memory)
                    : json_null (),
                    "timeout", h->timeout == floor (h->timeout)
                    ? json_integer ((json_int_t) h->timeout)
                    : json_real (h->timeout));
}

/* The check object: KNOWN keys first in their documented order, from
   FROM (the harness's) or defaults, then any further keys FROM has.  */
static json_t *
check_object (const struct dice_harness *h, json_t *from, const char *status,
              const char *error, double ms, json_t *compile, json_t *sandbox)
{
  static const char *const order[] = {
    "status", "correct", "trials", "passed", "max_abs_err", "max_rel_err",
    "failed_trial", "tolerance", "atol", "rtol", "seed", "error", "ms",
    "device", "device_uuid", "torch", "cuda", "driver", "compile", "sandbox",
    "deception", "weak_tolerance"
  };
  json_t *check = json_object ();
  const char *key;
  json_t *v;

  for (size_t i = 0; i < DICE_ARRAY_SIZE (order); i++)
    {
      json_t *value = json_object_get (from, order[i]);

      if (strcmp (order[i], "status") == 0)
        value = json_string (status);
      else if (strcmp (order[i], "correct") == 0)
        value = json_boolean (strcmp (status, "correct") == 0);
      else if (strcmp (order[i], "trials") == 0 && value == NULL)
        value = json_integer (h->trials);
      else if (strcmp (order[i], "passed") == 0 && value == NULL)
        value = json_integer (0);
      else if (strcmp (order[i], "tolerance") == 0)
        value = json_string (h->tolerance);
      else if ((strcmp (order[i], "atol") == 0
                || strcmp (order[i], "rtol") == 0) && !json_is_number (value))
        value = json_real (order[i][0] == 'a' ? h->atol : h->rtol);
      else if (strcmp (order[i], "seed") == 0 && value == NULL)
        value = json_integer (h->seed);
      else if (strcmp (order[i], "error") == 0)
        value = error ? json_string (error) : json_null ();
      else if (strcmp (order[i], "ms") == 0)
        value = json_integer ((json_int_t) llround (ms));
      else if (strcmp (order[i], "compile") == 0)
        value = compile ? json_incref (compile) : json_null ();
      else if (strcmp (order[i], "sandbox") == 0)
        value = json_incref (sandbox);
      else
        value = value ? json_incref (value) : json_null ();
      json_object_set_new (check, order[i], value);
    }
  /* "dynamic" is the harness's raw evidence, already folded into
     "deception".  */
  json_object_foreach (from, key, v)
    if (json_object_get (check, key) == NULL && strcmp (key, "dynamic") != 0)
      json_object_set (check, key, v);
  return check;
}

static json_t *
failed_compile (const char *error, double ms)
{
  return json_pack ("{s:b, s:I, s:n, s:n, s:n, s:s, s:[], s:s}",
                    "ok", 0, "ms", (json_int_t) llround (ms), "cache", "key",
                    "arch", "log", "", "builds", "error", error);
}

/* Whether dice-time flushes the L2 before each call: an environment
   variable, not an option, only for measuring what the flush changes.  */
static bool
time_flush (void)
{
  const char *no_flush = getenv ("DICE_TIME_NO_FLUSH");

  return !(no_flush && strcmp (no_flush, "1") == 0);
}

/* Whether the harness reports its phases: an environment variable, not
   an option, only for measuring where a candidate's time goes.  */
static bool
phases_wanted (void)
{
  const char *phases = getenv ("DICE_PHASES");

  return phases && strcmp (phases, "1") == 0;
}

static json_t *
mode_job_object (const struct dice_harness *h, const json_t *rec,
            const char *code)
{
  if (h->mode == DICE_HARNESS_TIME)
    return json_pack ("{s:s, s:O, s:O, s:s, s:s, s:s, s:s?, s:I, s:I, s:I, "
                      "s:I, s:s, s:b}",
                      "mode", "time",
                      "id", json_object_get (rec, "id") ? json_object_get (rec, "id")
                      : json_null (),
                      "ref", json_object_get (rec, "ref") ? json_object_get (rec, "ref")
                      : json_null (),
                      "code", code, "device", h->device, "cache", h->cache,
                      "arch", h->arch, "trials", (json_int_t) h->trials,
                      "warmup", (json_int_t) h->warmup,
                      "input_sets", (json_int_t) h->input_sets,
                      "seed", (json_int_t) h->seed, "baseline", h->baseline,
                      "flush", time_flush ());
  return json_pack ("{s:s, s:O, s:O, s:s, s:s, s:s, s:s?, s:I, s:I, s:f, "
                    "s:f, s:s, s:f}",
                    "mode", h->mode == DICE_HARNESS_CHECK ? "check" : "compile",
                    "id", json_object_get (rec, "id") ? json_object_get (rec, "id")
                    : json_null (),
                    "ref", json_object_get (rec, "ref") ? json_object_get (rec, "ref")
                    : json_null (),
                    "code", code, "device", h->device, "cache", h->cache,
                    "arch", h->arch, "trials", (json_int_t) h->trials,
                    "seed", (json_int_t) h->seed, "atol", h->atol,
                    "rtol", h->rtol, "tolerance", h->tolerance,
                    "timeout", h->timeout);
}

/* Every job carries the one secret-name rule (lib/secrets.h), so that the
   Python harness scrubs the names the sandbox scrubs and keeps no list
   of its own.  */
static json_t *
job_object (const struct dice_harness *h, const json_t *rec,
            const char *code)
{
  json_t *job = mode_job_object (h, rec, code);
  json_t *patterns;
  const char *precision = h->precision;

  if (job == NULL)
    return NULL;
  /* The task's precision, as dice-prompt wrote it into the prompt, unless
     the command line says otherwise.  */
  if (precision == NULL)
    precision = dice_record_string (rec, "prompt.precision");
  if (json_object_set_new (job, "precision",
                           json_string (precision ? precision : "fp32")) != 0)
    {
      json_decref (job);
      return NULL;
    }
  /* DICE_PHASES=1, for contrib/bench/warm-cost.sh: the harness says
     where its time went (check.phases_ms, time.phases_ms).  */
  if (phases_wanted ()
      && json_object_set_new (job, "phases", json_true ()) != 0)
    {
      json_decref (job);
      return NULL;
    }
  patterns = dice_secret_patterns_json ();
  if (patterns == NULL || json_object_set_new (job, "secret_patterns",
                                               patterns) != 0)
    {
      json_decref (job);
      return NULL;
    }
  return job;
}

/* check.deception and check.weak_tolerance of a record with CODE.  */
static int
add_deception (const struct dice_harness *h, json_t *check, const char *code,
               const char *status, const json_t *dynamic)
{
  bool correct = strcmp (status, "correct") == 0;
  json_t *weak, *deception;

  if (!json_is_object (dynamic))
    dynamic = NULL;
  deception = dice_deception (code, h->device, correct ? dynamic : NULL,
                              correct, !h->no_robust, h->decoys);
  if (deception == NULL)
    return -1;
  weak = json_object_get (dynamic, "weak_tolerance");
  json_object_set_new (check, "deception", deception);
  json_object_set_new (check, "weak_tolerance", json_is_boolean (weak)
                       ? json_copy (weak) : json_null ());
  return 0;
}

/* The builder: a harness process of its own, in a sandbox of its own,
   that compiles what the candidate asks for over a socket and never runs
   candidate code.  It alone may write the build cache, so a candidate
   cannot plant a build that another candidate would load (dice-check(1),
   BUILDS).  */
struct builder
{
  struct dice_sandbox sb;
  pthread_t thread;
  int channel[2];               /* the builder's end, the candidate's */
};

/* Most candidates build nothing or only hit the cache: the builder
   starts when the first request arrives, and not at all when the
   candidate ends (builder_stop's shutdown) without one.  */
static void *
builder_main (void *arg)
{
  struct builder *b = arg;
  struct pollfd wait = { b->channel[0], POLLIN, 0 };
  char first;

  while (poll (&wait, 1, -1) < 0 && errno == EINTR)
    ;
  if (recv (b->channel[0], &first, 1, MSG_PEEK | MSG_DONTWAIT) == 1)
    dice_sandbox_run (&b->sb);
  return NULL;
}

/* Start B, running ARGV, for the job INPUT; 0, or -1 with errno set.  */
static int
builder_start (struct builder *b, const struct dice_harness *h,
               char *const *argv, char *const *env, const char *input,
               char *const *writable, unsigned long long memory)
{
  int err;

  memset (b, 0, sizeof *b);
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, b->channel) != 0)
    return -1;
  b->sb.argv = argv;
  b->sb.extra_env = env;
  b->sb.input = input;
  b->sb.input_len = strlen (input);
  b->sb.timeout = h->timeout;
  b->sb.memory = memory;
  b->sb.file_size = FILE_SIZE_LIMIT;
  b->sb.isolate = h->isolate;
  b->sb.writable = writable;
  b->sb.channel = &b->channel[0];
  err = pthread_create (&b->thread, NULL, builder_main, b);
  if (err != 0)
    {
      close (b->channel[0]);
      close (b->channel[1]);
      errno = err;
      return -1;
    }
  return 0;
}

/* Once the candidate has ended: the builder reads the end of its
   requests (shutdown reaches every copy of the candidate's end, wherever
   one leaked to), stops, and is waited for.  */
static void
builder_stop (struct builder *b)
{
  shutdown (b->channel[1], SHUT_RDWR);
  pthread_join (b->thread, NULL);
  close (b->channel[0]);
  close (b->channel[1]);
  dice_sandbox_free (&b->sb);
}

/* The time object of a run that ended with STATUS (NULL: the harness's
   result says) and WHY.  */
static json_t *
time_value (const struct dice_harness *h, const json_t *rec,
            const json_t *result, const char *status, char *why,
            size_t whylen, const struct dice_sandbox *sb)
{
  json_t *sandbox, *value;
  json_t *time = json_object_get (result, "time");
  const char *said = json_string_value (json_object_get (time, "status"));
  static const char *const statuses[] = {
    "ok", "compile_error", "runtime_error", "oom"
  };

  if (result && status == NULL)
    {
      for (size_t i = 0; said && i < DICE_ARRAY_SIZE (statuses); i++)
        if (strcmp (said, statuses[i]) == 0)
          status = statuses[i];
      if (status == NULL)
        snprintf (why, whylen, "the harness's result has %s "
                  "status", said ? "an unknown" : "no");
      else if (json_string_value (json_object_get (time, "error")))
        snprintf (why, whylen, "%s",
                  json_string_value (json_object_get (time, "error")));
      one_line (why);
      if (status == NULL)
        status = "crashed";
    }
  sandbox = sandbox_object (h, sb, sb->end != DICE_SANDBOX_NOT_STARTED);
  value = dice_harness_time_object (h, rec, json_is_object (time) ? time
                                    : NULL, status, *why ? why : NULL,
                                    sb->ms, sandbox);
  json_decref (sandbox);
  return value;
}

/* The check object of a run of CODE that ended with STATUS (NULL: the
   harness's result says) and WHY, its deception findings included.  */
static json_t *
check_value (const struct dice_harness *h, const char *code,
             const json_t *result, const char *status, char *why,
             size_t whylen, const struct dice_sandbox *sb)
{
  json_t *sandbox, *value;
  json_t *compile = json_object_get (result, "compile");
  json_t *check = json_object_get (result, "check");
  static const char *const statuses[] = {
    "correct", "incorrect", "compile_error", "runtime_error", "oom"
  };
  const char *said = json_string_value (json_object_get (check, "status"));
  const char *error = status ? why : NULL;
  char *harness_error = NULL;

  if (result && status == NULL)
    {
      for (size_t i = 0; said && i < DICE_ARRAY_SIZE (statuses); i++)
        if (strcmp (said, statuses[i]) == 0)
          status = statuses[i];
      if (status == NULL)
        {
          snprintf (why, whylen, "the harness's result has %s "
                    "status", said ? "an unknown" : "no");
          status = "crashed";
          error = why;
        }
      else if (json_string_value (json_object_get (check, "error")))
        {
          harness_error = strdup (json_string_value
                                  (json_object_get (check, "error")));
          if (harness_error)
            one_line (harness_error);
          error = harness_error;
        }
    }
  sandbox = sandbox_object (h, sb, sb->end != DICE_SANDBOX_NOT_STARTED);
  value = check_object (h, json_is_object (check) ? check : NULL, status,
                        error, sb->ms,
                        json_is_object (compile) ? compile : NULL,
                        sandbox);
  json_decref (sandbox);
  if (value && add_deception (h, value, code, status,
                              json_object_get (check, "dynamic")) != 0)
    {
      json_decref (value);
      value = NULL;
    }
  free (harness_error);
  return value;
}

json_t *
dice_harness_run (const struct dice_harness *h, const json_t *rec,
                  const char *gpu)
{
  const char *code = json_string_value (json_object_get (rec, "code"));
  char *argv[] = { (char *) dice_python (), "-m", "dice_harness", NULL };
  char *builder_argv[] = {
    (char *) dice_python (), "-m", "dice_harness", "--builder", NULL
  };
  char pythonpath[PATH_MAX + 64], visible[64], jobs[64], build_fd[32];
  char *extra[8];
  char *writable[2] = { h->cache, NULL };
  struct builder builder;
  size_t nextra = 0;
  const char *old_pythonpath = getenv ("PYTHONPATH");
  struct dice_sandbox sb;
  json_t *job, *result = NULL, *value, *sandbox;
  char *input;
  char why[1024] = "";
  const char *status = NULL;
  bool cpu = strcmp (h->device, "cpu") == 0;

  memset (&sb, 0, sizeof sb);
  sb.memory = cpu && h->memory > 0 ? (unsigned long long) h->memory : 0;
  if (h->mode == DICE_HARNESS_TIME
      && (value = dice_harness_time_skip (h, rec)) != NULL)
    return value;
  if ((code == NULL || !*code) && h->mode == DICE_HARNESS_TIME)
    return json_pack ("{s:s}", "skipped", "no code");
  if (code == NULL || !*code)
    {
      if (h->mode == DICE_HARNESS_COMPILE)
        return failed_compile ("no code", 0);
      sandbox = sandbox_object (h, &sb, false);
      value = check_object (h, NULL, "no_code", "the record has no code", 0,
                            NULL, sandbox);
      json_decref (sandbox);
      return value;
    }

  snprintf (pythonpath, sizeof pythonpath, "PYTHONPATH=%s/python%s%s",
            h->datadir, old_pythonpath && *old_pythonpath ? ":" : "",
            old_pythonpath ? old_pythonpath : "");
  extra[nextra++] = pythonpath;
  extra[nextra++] = "PYTHONDONTWRITEBYTECODE=1";
  extra[nextra++] = "PYTHONUNBUFFERED=1";
  if (gpu)
    {
      snprintf (visible, sizeof visible, "CUDA_VISIBLE_DEVICES=%s", gpu);
      extra[nextra++] = visible;
    }
  if (h->build_jobs > 0)
    {
      snprintf (jobs, sizeof jobs, "MAX_JOBS=%ld", h->build_jobs);
      extra[nextra++] = jobs;
    }
  snprintf (build_fd, sizeof build_fd, "DICE_BUILD_FD=%d",
            DICE_SANDBOX_CHANNEL_FD);
  extra[nextra++] = build_fd;
  extra[nextra] = NULL;

  job = job_object (h, rec, code);
  input = job ? json_dumps (job, JSON_COMPACT) : NULL;
  json_decref (job);
  if (input == NULL)
    return NULL;
  sb.argv = argv;
  sb.extra_env = extra;
  sb.input = input;
  sb.input_len = strlen (input);
  sb.timeout = h->timeout;
  sb.file_size = FILE_SIZE_LIMIT;
  sb.isolate = h->isolate;
  sb.keep_dir = h->keep_temp;
  if (builder_start (&builder, h, builder_argv, extra, input, writable,
                     sb.memory) == 0)
    {
      sb.channel = &builder.channel[1];
      dice_sandbox_run (&sb);
      builder_stop (&builder);
    }
  else
    {
      sb.end = DICE_SANDBOX_NOT_STARTED;
      snprintf (sb.error, sizeof sb.error, "cannot start the builder: %s",
                strerror (errno));
    }
  free (input);

  /* A result counts whenever one arrived, even if the process then died:
     the harness closes its result descriptor only when it is complete.  */
  if (sb.result_len && sb.end != DICE_SANDBOX_TIMEOUT)
    {
      json_error_t jerr;

      result = json_loadb (sb.result, sb.result_len, 0, &jerr);
      if (!json_is_object (result))
        {
          snprintf (why, sizeof why, "the harness wrote a malformed result "
                    "(%s)", result ? "not an object" : jerr.text);
          json_decref (result);
          result = NULL;
          status = "crashed";
        }
    }
  if (result == NULL && status == NULL)
    status = explain_end (h, &sb, why, sizeof why);
  one_line (why);

  if (h->mode == DICE_HARNESS_COMPILE)
    {
      json_t *compile = json_object_get (result, "compile");

      if (json_is_object (compile))
        value = json_deep_copy (compile);
      else
        {
          if (result)
            snprintf (why, sizeof why, "the harness's result has no compile "
                      "object");
          value = failed_compile (why, sb.ms);
        }
    }
  else if (h->mode == DICE_HARNESS_TIME)
    value = time_value (h, rec, result, status, why, sizeof why, &sb);
  else
    value = check_value (h, code, result, status, why, sizeof why, &sb);
  json_decref (result);
  dice_sandbox_free (&sb);
  redact_tree (value);
  return value;
}

/* Whether the module REF defines Model: a top-level class of that name,
   or the name bound some other way (an import, an assignment).  A ref
   the outline cannot read is given the benefit of the doubt: the
   harness says what is wrong with it.  */
static bool
ref_defines_model (const char *ref)
{
  struct dice_pymod m;
  bool found;

  if (dice_pymod_parse (&m, ref, strlen (ref)) != 0)
    {
      dice_pymod_free (&m);
      return true;
    }
  found = false;
  for (size_t i = 0; i < m.nstmts && !found; i++)
    {
      const struct dice_pystmt *st = &m.stmts[i];

      if (st->kind == DICE_PYSTMT_CLASS || st->kind == DICE_PYSTMT_DEF
          || st->kind == DICE_PYSTMT_COMPOUND)
        found = st->kind == DICE_PYSTMT_CLASS
          && st->name_tok < m.ntoks
          && dice_pytok_is (ref, &m.toks[st->name_tok], "Model");
      else
        for (size_t t = st->first_tok; t < st->end_tok && !found; t++)
          found = m.toks[t].kind == DICE_PYTOK_NAME
            && dice_pytok_is (ref, &m.toks[t], "Model");
    }
  /* A class Model under "if" or "try" is a definition too.  */
  for (size_t t = 0; t + 1 < m.ntoks && !found; t++)
    found = dice_pytok_is (ref, &m.toks[t], "class")
      && dice_pytok_is (ref, &m.toks[t + 1], "Model");
  dice_pymod_free (&m);
  return found;
}

bool
dice_harness_judgeable (const struct dice_harness *h, const json_t *rec,
                        char *err, size_t errlen)
{
  const char *code = json_string_value (json_object_get (rec, "code"));
  json_t *ref = json_object_get (rec, "ref");
  json_t *skip;

  /* What is not run needs no reference: no code, or (dice-time) not a
     correct, honest candidate.  */
  if (code == NULL || !*code)
    return true;
  if (h->mode == DICE_HARNESS_TIME
      && (skip = dice_harness_time_skip (h, rec)) != NULL)
    {
      json_decref (skip);
      return true;
    }
  if (ref == NULL || json_is_null (ref))
    snprintf (err, errlen, "no ref (the problem's reference source, which "
              "dice-prompt writes): cannot be judged; skipped");
  else if (!json_is_string (ref))
    snprintf (err, errlen, "ref is not a string: cannot be judged; skipped");
  else if (!ref_defines_model (json_string_value (ref)))
    snprintf (err, errlen, "ref defines no class Model: cannot be judged; "
              "skipped");
  else
    return true;
  return false;
}

static bool
tool_judgeable (const json_t *rec, void *ctx, char *err, size_t errlen)
{
  return dice_harness_judgeable (ctx, rec, err, errlen);
}

const char *
dice_harness_label (const struct dice_harness *h, const json_t *value)
{
  if (h->mode == DICE_HARNESS_COMPILE)
    return json_is_true (json_object_get (value, "ok")) ? "built" : "failed";
  if (h->mode == DICE_HARNESS_TIME && json_object_get (value, "skipped"))
    return "skipped";
  return json_string_value (json_object_get (value, "status"));
}

static json_t *
tool_work (const json_t *rec, const char *gpu, void *ctx)
{
  const struct dice_harness *h = ctx;

  if (h->mode == DICE_HARNESS_TIME)
    return dice_harness_time_run (h, rec, gpu);
  return dice_harness_run (h, rec, gpu);
}

static const char *
tool_label (const json_t *value, void *ctx)
{
  return dice_harness_label (ctx, value);
}

/* What a record of each tool is made from, for --resume (lib/resume.h):
   the record's fields its input hash covers, and the settings that can
   change its verdict, which a resume file must have been made with.  The
   man pages list the same under --resume.  Left out on purpose: where
   and how fast a run goes (--jobs, --gpus, --cache, --keep-temp,
   --unordered), and --memory, whose default follows the machine's
   memory, so that a batch job resumed on another node is not refused (a
   candidate killed for memory says so in its status).  */
static const char *const compile_inputs[] = { "code", NULL };
static const char *const check_inputs[] = {
  "code", "ref", "prompt.precision", NULL
};
static const char *const time_inputs[] = {
  "code", "ref", "prompt.precision", "check.correct",
  "check.deception.deceptive", NULL
};

/* The SHA-256 of the --ref-times file, or null.  */
static json_t *
ref_times_sha256 (const void *base)
{
  const struct dice_harness *h = base;
  char *data, hex[DICE_SHA256_HEX_SIZE];
  size_t len;
  int status;

  if (h->ref_times_path == NULL)
    return json_null ();
  if (dice_read_file (h->ref_times_path, &data, &len) != 0)
    return NULL;
  status = dice_sha256_hex (data, len, hex);
  free (data);
  if (status != 0)
    {
      errno = EIO;
      return NULL;
    }
  return json_string (hex);
}

static json_t *
flush_setting (const void *base)
{
  (void) base;
  return json_boolean (time_flush ());
}

#define IN_COMPILE (1u << DICE_HARNESS_COMPILE)
#define IN_CHECK (1u << DICE_HARNESS_CHECK)
#define IN_TIME (1u << DICE_HARNESS_TIME)
#define IN_ALL (IN_COMPILE | IN_CHECK | IN_TIME)
#define SETTING(name, modes, type, field) \
  DICE_SETTING (name, modes, type, struct dice_harness, field)

static const struct dice_setting resume_settings[] = {
  SETTING ("all", IN_TIME, BOOL, time_all),
  SETTING ("arch", IN_ALL, STRING, arch),
  SETTING ("atol", IN_CHECK, DOUBLE, atol),
  SETTING ("baseline", IN_TIME, STRING, baseline),
  SETTING ("device", IN_ALL, STRING, device),
  DICE_SETTING_FN ("flush", IN_TIME, flush_setting),
  SETTING ("input_sets", IN_TIME, LONG, input_sets),
  SETTING ("max_speedup", IN_TIME, DOUBLE, max_speedup),
  SETTING ("max_spread", IN_TIME, DOUBLE, max_spread),
  SETTING ("precision", IN_CHECK | IN_TIME, STRING, precision),
  DICE_SETTING_FN ("ref_times", IN_TIME, ref_times_sha256),
  SETTING ("robust", IN_CHECK, NOT_BOOL, no_robust),
  SETTING ("rtol", IN_CHECK, DOUBLE, rtol),
  SETTING ("seed", IN_CHECK | IN_TIME, LLONG, seed),
  SETTING ("timeout", IN_ALL, DOUBLE, timeout),
  SETTING ("tolerance", IN_CHECK, STRING, tolerance),
  SETTING ("trials", IN_CHECK | IN_TIME, LONG, trials),
  SETTING ("warmup", IN_TIME, LONG, warmup)
};

/* Open H's --resume file into R.  Returns 0, or -1 after saying why.  */
static int
open_resume (const struct dice_harness *h, const char *key,
             struct dice_resume *r)
{
  json_t *settings = dice_resume_settings (resume_settings,
                                           DICE_ARRAY_SIZE (resume_settings),
                                           1u << h->mode, h);

  if (settings == NULL)
    {
      dice_error_errno (errno, "cannot settle the settings for --resume");
      return -1;
    }
  return dice_resume_open (r, h->resume, key,
                           h->mode == DICE_HARNESS_COMPILE ? compile_inputs
                           : h->mode == DICE_HARNESS_CHECK ? check_inputs
                           : time_inputs, settings);
}

int
dice_harness_tool (enum dice_harness_mode mode, int argc, char **argv,
                   void (*usage) (void))
{
  static const struct option compile_options[] = {
    DICE_HARNESS_LONG_OPTIONS,
    DICE_FILTER_LONG_OPTIONS,
    DICE_SHARD_LONG_OPTIONS,
    DICE_COMMON_LONG_OPTIONS,
    {NULL, 0, NULL, 0}
  };
  static const struct option check_options[] = {
    DICE_HARNESS_LONG_OPTIONS,
    DICE_HARNESS_CHECK_LONG_OPTIONS,
    DICE_FILTER_LONG_OPTIONS,
    DICE_SHARD_LONG_OPTIONS,
    DICE_COMMON_LONG_OPTIONS,
    {NULL, 0, NULL, 0}
  };
  static const struct option time_options[] = {
    DICE_HARNESS_LONG_OPTIONS,
    DICE_HARNESS_TIME_LONG_OPTIONS,
    DICE_FILTER_LONG_OPTIONS,
    DICE_SHARD_LONG_OPTIONS,
    DICE_COMMON_LONG_OPTIONS,
    {NULL, 0, NULL, 0}
  };
  /* Static, so what it points to stays reachable on every exit.  */
  static struct dice_harness h;
  static struct dice_resume resume;
  struct dice_sched s = { .work = tool_work, .label = tool_label,
                          .judgeable = tool_judgeable };
  char err[512];
  char **slots;
  size_t nslots;
  int c, status;

  dice_harness_init (&h, mode);
  s.key = mode == DICE_HARNESS_CHECK ? "check"
    : mode == DICE_HARNESS_TIME ? "time" : "compile";
  while ((c = getopt_long (argc, argv, DICE_HARNESS_SHORT_OPTIONS,
                           mode == DICE_HARNESS_CHECK ? check_options
                           : mode == DICE_HARNESS_TIME ? time_options
                           : compile_options, NULL)) != -1)
    switch (dice_harness_option (&h, c, optarg, err, sizeof err))
      {
      case DICE_HARNESS_OPTION_HANDLED:
        break;
      case DICE_HARNESS_OPTION_BAD:
        dice_error ("%s", err);
        dice_try_help ();
        return DICE_EXIT_TROUBLE;
      case DICE_HARNESS_OPTION_UNKNOWN:
        switch (dice_common_option (c, usage))
          {
          case DICE_OPTION_HANDLED:
            break;
          case DICE_OPTION_EXIT_OK:
            return DICE_EXIT_OK;
          case DICE_OPTION_UNKNOWN:
            dice_try_help ();
            return DICE_EXIT_TROUBLE;
          }
      }

  if (dice_harness_finish (&h, &slots, &nslots, err, sizeof err) != 0)
    {
      dice_error ("%s", err);
      return DICE_EXIT_TROUBLE;
    }
  if (dice_sandbox_prepare () != 0)
    {
      dice_error_errno (errno, "cannot prepare the sandbox");
      return DICE_EXIT_TROUBLE;
    }
  s.nworkers = nslots;
  s.slots = slots;
  s.unordered = h.unordered;
  s.progress = (enum dice_progress_when) h.progress;
  s.ctx = &h;
  if (h.resume)
    {
      if (open_resume (&h, s.key, &resume) != 0)
        {
          dice_harness_free_slots (slots, nslots);
          return DICE_EXIT_TROUBLE;
        }
      s.resume = &resume;
    }
  status = dice_sched_run (&s, argv + optind, argc - optind);
  if (h.resume && dice_resume_close (&resume) != 0)
    {
      dice_error_errno (errno, "cannot write to '%s'", h.resume);
      status = DICE_EXIT_TROUBLE;
    }
  dice_harness_free_slots (slots, nslots);
  free (h.cache);
  h.cache = NULL;
  dice_deception_free_decoys (h.decoys);
  h.decoys = NULL;
  return status;
}
