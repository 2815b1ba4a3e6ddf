/* harness-time.c: what dice-time decides in C: which records are timed,
   the statistics of the raw samples the harness measured, the speedup,
   the flags, and reference times read from a file.  The harness only
   measures, so every decision here can be tested with a fake harness.  */
#include "system.h"

#include <math.h>

#include "harness.h"
#include "numarg.h"
#include "datadir.h"
#include "proc.h"
#include "secrets.h"
#include "jsonl.h"
#include "stats.h"
#include "strmap.h"

#define DEFAULT_TRIALS 100
#define DEFAULT_WARMUP 10
#define DEFAULT_INPUT_SETS 3
#define DEFAULT_MAX_SPEEDUP 10.0
#define DEFAULT_MAX_SPREAD 0.1
#define MAX_RUNS 10
/* --runs: the runs of a candidate agree when its fastest run's speedup is
   at most this many times its slowest's.  Honest timings on a busy
   machine differ by tens of percent; a result cached across calls, or a
   clock patched in one process, differs by far more.  */
#define RUNS_AGREE_RATIO 2.0
/* side_stream: the median per-call time outside the event window, less
   the reference's, must exceed this share of the candidate's median and
   this many milliseconds (launch and synchronisation costs are a few
   microseconds, and the reference pays them too).  */
#define SIDE_SHARE 0.5
#define SIDE_MIN_MS 0.01
#define DIGITS 4

void
dice_harness_time_init (struct dice_harness *h)
{
  h->trials = DEFAULT_TRIALS;
  h->warmup = DEFAULT_WARMUP;
  h->input_sets = DEFAULT_INPUT_SETS;
  h->baseline = "eager";
  h->max_speedup = DEFAULT_MAX_SPEEDUP;
  h->max_spread = DEFAULT_MAX_SPREAD;
  h->runs = 1;
}

enum dice_harness_option_result
dice_harness_time_option (struct dice_harness *h, int c, const char *arg,
                          char *err, size_t errlen)
{
  switch (c)
    {
    case DICE_OPT_WARMUP:
      if (!dice_harness_option_long ("warmup", arg, 0, 1000000, &h->warmup,
                                     err, errlen))
        return DICE_HARNESS_OPTION_BAD;
      break;
    case DICE_OPT_INPUT_SETS:
      if (!dice_harness_option_long ("input-sets", arg, 1, 1000000,
                                     &h->input_sets, err, errlen))
        return DICE_HARNESS_OPTION_BAD;
      break;
    case DICE_OPT_ALL:
      h->time_all = true;
      break;
    case DICE_OPT_BASELINE:
      if (strcmp (arg, "eager") && strcmp (arg, "compile"))
        {
          dice_invalid_value (err, errlen, "baseline", arg, "eager or compile");
          return DICE_HARNESS_OPTION_BAD;
        }
      h->baseline = strcmp (arg, "eager") ? "compile" : "eager";
      break;
    case DICE_OPT_REF_TIMES:
      if (!*arg)
        {
          dice_invalid_value (err, errlen, "ref-times", arg, "a file");
          return DICE_HARNESS_OPTION_BAD;
        }
      h->ref_times_path = arg;
      break;
    case DICE_OPT_REF_DEVICE:
      if (!*arg)
        {
          dice_invalid_value (err, errlen, "ref-device", arg, "a device name");
          return DICE_HARNESS_OPTION_BAD;
        }
      h->ref_device = arg;
      break;
    case DICE_OPT_FORCE_REF_TIMES:
      h->force_ref_times = true;
      break;
    case DICE_OPT_MAX_SPEEDUP:
      if (!dice_harness_option_double ("max-speedup", arg, 0, true,
                                       &h->max_speedup, err, errlen))
        return DICE_HARNESS_OPTION_BAD;
      break;
    case DICE_OPT_RUNS:
      if (!dice_harness_option_long ("runs", arg, 1, MAX_RUNS, &h->runs,
                                     err, errlen))
        return DICE_HARNESS_OPTION_BAD;
      break;
    case DICE_OPT_MAX_SPREAD:
      if (!dice_harness_option_double ("max-spread", arg, 0, true,
                                       &h->max_spread, err, errlen))
        return DICE_HARNESS_OPTION_BAD;
      break;
    default:
      return DICE_HARNESS_OPTION_UNKNOWN;
    }
  return DICE_HARNESS_OPTION_HANDLED;
}

void
dice_harness_time_help (void)
{
  fputs ("\
\n\
Timing:\n\
      --trials=N         timed calls of each side (default 100)\n\
      --warmup=N         untimed calls of each side first (default 10)\n\
      --input-sets=N     accepted for old scripts; changes nothing (every\n\
                           call gets inputs of its own)\n\
      --seed=N           weights use seed N, call I's inputs seed N+1+I\n\
                           (default 42, as dice-check)\n\
      --all              also time candidates that are not correct or are\n\
                           deceptive\n\
      --baseline=NAME    eager (the reference as written) or compile\n\
                           (torch.compile of it; torch >= 2.0); default eager\n\
      --ref-times=FILE   take the reference's times from FILE (KernelBench's\n\
                           baseline JSON, or dice-time output) instead of\n\
                           timing it\n\
      --ref-device=NAME  the device FILE's times were measured on (default:\n\
                           time.device of its records; a GPU for\n\
                           KernelBench's JSON)\n\
      --force-ref-times  use FILE's times even when they were measured on\n\
                           another kind of device (CPU or GPU) than this run\n\
      --max-speedup=X    flag speedups above X (default 10), and time such\n\
                           a candidate again in a fresh process before\n\
                           its speedup counts\n\
      --runs=N           time each candidate in N fresh processes (1 to\n\
                           10, default 1); the worst speedup is the\n\
                           confirmed one\n\
      --max-spread=X     flag a side whose IQR exceeds X times its median\n\
                           (default 0.1)\n\
      --precision=P      fp32, fp16 or bf16: inputs and weights cast to P\n\
                           (default: the record's prompt.precision, else\n\
                           fp32)\n\
", stdout);
}

/* Round a measured value to the digits that mean something.  */
static json_t *
measured (double v)
{
  return isfinite (v) ? json_real (dice_round_sig (v, DIGITS)) : json_null ();
}

/* The P-quantile of the N sorted VALUES, interpolated linearly between
   neighbours (numpy's default).  */
static double
quantile (const double *values, size_t n, double p)
{
  double pos = p * (double) (n - 1);
  size_t i = (size_t) pos;

  if (i + 1 >= n)
    return values[n - 1];
  return values[i] + (pos - (double) i) * (values[i + 1] - values[i]);
}

json_t *
dice_time_stats (double *values, size_t n)
{
  double sum = 0;

  if (n == 0)
    return json_pack ("{s:n, s:n, s:n, s:n, s:n, s:i}", "median", "mean",
                      "iqr", "min", "max", "n", 0);
  dice_sort_doubles (values, n);
  for (size_t i = 0; i < n; i++)
    sum += values[i];
  return json_pack ("{s:o, s:o, s:o, s:o, s:o, s:I}",
                    "median", measured (quantile (values, n, 0.5)),
                    "mean", measured (sum / (double) n),
                    "iqr", measured (quantile (values, n, 0.75)
                                     - quantile (values, n, 0.25)),
                    "min", measured (values[0]),
                    "max", measured (values[n - 1]),
                    "n", (json_int_t) n);
}

/* The numbers of array A as a new array of *N doubles; NULL when A is
   not a non-empty array of finite numbers (or memory ran out).  */
static double *
numbers (const json_t *a, size_t *n)
{
  double *v;
  size_t i;
  json_t *x;

  *n = json_array_size (a);
  if (!json_is_array (a) || *n == 0 || (v = malloc (*n * sizeof *v)) == NULL)
    return NULL;
  json_array_foreach (a, i, x)
    {
      v[i] = json_number_value (x);
      if (!json_is_number (x) || !isfinite (v[i]) || v[i] < 0)
        {
          free (v);
          return NULL;
        }
    }
  return v;
}

/* The median of WALL - EVENT per call, or NaN.  */
static double
outside_median (const json_t *wall, const json_t *event)
{
  size_t n, m;
  double *w = numbers (wall, &n), *e = numbers (event, &m);
  double d = NAN;

  if (w && e && n == m)
    {
      for (size_t i = 0; i < n; i++)
        w[i] -= e[i];
      d = dice_median (w, n);
    }
  free (w);
  free (e);
  return d;
}

/* Stats of the samples array A, with the median of EVENT added.  */
static json_t *
side_stats (const json_t *a, const json_t *event)
{
  size_t n, m;
  double *v = numbers (a, &n), *e = numbers (event, &m);
  json_t *s;

  if (v == NULL)
    return NULL;
  s = dice_time_stats (v, n);
  json_object_set_new (s, "event_median",
                       e ? measured (dice_median (e, m)) : json_null ());
  free (v);
  free (e);
  return s;
}

/* The --ref-times key of REC: "L1/19_ReLU" from its id, or from
   problem.level, problem.index and problem.name.  */
static char *
record_key (const json_t *rec)
{
  const char *id = json_string_value (json_object_get (rec, "id"));
  const json_t *p = json_object_get (rec, "problem");
  const char *name = json_string_value (json_object_get (p, "name"));
  json_t *level = json_object_get (p, "level");
  json_t *index = json_object_get (p, "index");
  char buf[512];

  if (id)
    return strdup (id);
  if (json_is_integer (level) && json_is_integer (index) && name)
    {
      snprintf (buf, sizeof buf, "L%lld/%lld_%s",
                (long long) json_integer_value (level),
                (long long) json_integer_value (index), name);
      return strdup (buf);
    }
  return NULL;
}

static int
add_ref (struct dice_strmap *m, const char *key, json_t *stats,
         char *err, size_t errlen)
{
  struct dice_strmap_entry *e = dice_strmap_add (m, key);

  if (e == NULL)
    {
      json_decref (stats);
      snprintf (err, errlen, "memory exhausted");
      return -1;
    }
  json_decref (e->value);
  e->value = stats;
  return 0;
}

/* KernelBench's baseline JSON: {"level1": {"19_ReLU.py": {"mean": ms,
   "std", "min", "max", "num_trials"}}}.  It has no median, so the mean
   stands in for it.  */
static int
load_kernelbench (struct dice_strmap *m, json_t *all, const char *path,
                  char *err, size_t errlen)
{
  const char *lkey, *fkey;
  json_t *level, *entry;

  json_object_foreach (all, lkey, level)
    {
      long n;
      char *end;

      if (strncmp (lkey, "level", 5) != 0 || !json_is_object (level))
        continue;
      n = strtol (lkey + 5, &end, 10);
      if (end == lkey + 5 || *end)
        continue;
      json_object_foreach (level, fkey, entry)
        {
          json_t *mean = json_object_get (entry, "mean");
          char key[512];
          size_t len = strlen (fkey);

          if (!json_is_number (mean) || json_number_value (mean) <= 0)
            {
              snprintf (err, errlen, "%s: %s/%s has no positive mean", path,
                        lkey, fkey);
              return -1;
            }
          if (len > 3 && strcmp (fkey + len - 3, ".py") == 0)
            len -= 3;
          snprintf (key, sizeof key, "L%ld/%.*s", n, (int) len, fkey);
          if (add_ref (m, key, json_pack
                       ("{s:O, s:O, s:n, s:O?, s:O?, s:O?}",
                        "median", mean, "mean", mean, "iqr",
                        "min", json_object_get (entry, "min"),
                        "max", json_object_get (entry, "max"),
                        "n", json_object_get (entry, "num_trials")),
                       err, errlen) != 0)
            return -1;
        }
    }
  return 0;
}

/* dice-time output: records with time.ref.median.  */
static int
load_records (struct dice_strmap *m, const char *path, char **device,
              char *err, size_t errlen)
{
  struct dice_jsonl_reader r;
  json_t *rec;
  char why[256];
  int got;

  if (dice_jsonl_open (&r, path) != 0)
    {
      snprintf (err, errlen, "%s: %s", path, strerror (errno));
      return -1;
    }
  while ((got = dice_jsonl_next (&r, &rec, why, sizeof why)) != 0)
    {
      json_t *ref;
      char *key;

      if (got < 0)
        {
          snprintf (err, errlen, "%s:%lu: %s", path, r.line,
                    got == -2 ? strerror (errno) : why);
          dice_jsonl_close (&r);
          return -1;
        }
      ref = json_object_get (json_object_get (rec, "time"), "ref");
      key = record_key (rec);
      if (*device == NULL && json_is_string (json_object_get
                                             (json_object_get (rec, "time"),
                                              "device")))
        *device = strdup (json_string_value (json_object_get
                                             (json_object_get (rec, "time"),
                                              "device")));
      if (key && json_is_number (json_object_get (ref, "median"))
          && json_number_value (json_object_get (ref, "median")) > 0
          && add_ref (m, key, json_deep_copy (ref), err, errlen) != 0)
        {
          free (key);
          json_decref (rec);
          dice_jsonl_close (&r);
          return -1;
        }
      free (key);
      json_decref (rec);
    }
  dice_jsonl_close (&r);
  return 0;
}

/* Whether the device DEVICE (a name as time.device spells it) is a CPU. */
static bool
cpu_device (const char *device)
{
  return strncasecmp (device, "cpu", 3) == 0;
}

/* Reference times taken on a CPU make every GPU kernel look fast, and a
   GPU's make every CPU candidate look slow: the speedups would measure
   the devices, not the candidates.  Refuse reference times measured on
   REF_DEVICE (NULL: not said) when it is of another kind than the device
   of this run, unless --force-ref-times.  */
static int
check_ref_device (const struct dice_harness *h, const char *ref_device,
                  char *err, size_t errlen)
{
  bool here_cpu = strcmp (h->device, "cpu") == 0;

  if (h->force_ref_times || ref_device == NULL
      || cpu_device (ref_device) == here_cpu)
    return 0;
  snprintf (err, errlen, "the reference times in '%s' were measured on %s, "
            "but this run times on %s: use --force-ref-times to use them "
            "anyway, or --ref-device to say where they were measured",
            h->ref_times_path, ref_device, here_cpu ? "the CPU" : "a GPU");
  return -1;
}

/* Asks the interpreter whether its torch can compile: prints why not and
   exits 1 when it cannot.  torch.compile came in torch 2.0; where it is,
   dynamo may still refuse this Python (torch 2.0 on Python 3.12).  */
static const char compile_probe[] = "\
import sys\n\
try:\n\
    import torch\n\
except Exception as e:\n\
    print('cannot import torch: %s' % e); sys.exit(1)\n\
if not hasattr(torch, 'compile'):\n\
    print('torch %s has no torch.compile (it came in torch 2.0)'\n\
          % torch.__version__); sys.exit(1)\n\
try:\n\
    from torch._dynamo.eval_frame import check_if_dynamo_supported\n\
except Exception:\n\
    check_if_dynamo_supported = lambda: None\n\
try:\n\
    check_if_dynamo_supported()\n\
except Exception as e:\n\
    print('torch %s cannot compile here: %s' % (torch.__version__, e))\n\
    sys.exit(1)\n";

/* --baseline compile on a torch that cannot compile would make every
   candidate's timing fail: one error before any candidate runs.  */
static int
check_compile_baseline (char *err, size_t errlen)
{
  char *argv[] = { (char *) dice_python (), "-c", (char *) compile_probe,
                   NULL };
  char **env = dice_proc_env (dice_secret_name, NULL);
  struct dice_proc_result r;
  int status = 0;

  if (env == NULL)
    {
      snprintf (err, errlen, "memory exhausted");
      return -1;
    }
  if (dice_proc_run (argv, env, "", 0, 300, &r) != 0)
    {
      snprintf (err, errlen, "--baseline compile: cannot run '%s': %s",
                dice_python (), strerror (errno));
      dice_proc_env_free (env);
      return -1;
    }
  dice_proc_env_free (env);
  if (r.timed_out || !WIFEXITED (r.status) || WEXITSTATUS (r.status) != 0)
    {
      char *why = r.out && *r.out ? r.out
        : r.err && *r.err ? r.err : "the interpreter failed";

      size_t n;

      dice_one_line (why, 300);
      n = strlen (why);
      while (n > 0 && why[n - 1] == ' ')
        why[--n] = '\0';
      snprintf (err, errlen, "--baseline compile needs torch.compile: %s",
                r.timed_out ? "asking torch timed out" : why);
      status = -1;
    }
  dice_proc_result_free (&r);
  return status;
}

int
dice_harness_time_finish (struct dice_harness *h, char *err, size_t errlen)
{
  struct dice_strmap *m;
  json_t *all;
  json_error_t jerr;
  char *ref_device = NULL;
  int status;

  if (h->ref_times_path == NULL)
    return strcmp (h->baseline, "compile") == 0
      ? check_compile_baseline (err, errlen) : 0;
  if ((m = calloc (1, sizeof *m)) == NULL)
    {
      snprintf (err, errlen, "memory exhausted");
      return -1;
    }
  h->ref_times = m;
  h->baseline = "file";
  /* One JSON document with level keys is KernelBench's; anything else is
     read as JSON lines.  */
  all = json_load_file (h->ref_times_path, 0, &jerr);
  if (json_is_object (all) && json_object_get (all, "id") == NULL
      && json_object_get (all, "time") == NULL)
    {
      status = load_kernelbench (m, all, h->ref_times_path, err, errlen);
      /* KernelBench measured its baselines on GPUs (its timing
         directories are named for them) and its JSON does not say
         which.  */
      ref_device = strdup ("a GPU (KernelBench's baseline JSON does not "
                           "say which)");
    }
  else
    status = load_records (m, h->ref_times_path, &ref_device, err, errlen);
  json_decref (all);
  if (status == 0 && m->count == 0)
    {
      snprintf (err, errlen, "%s: no reference times found",
                h->ref_times_path);
      status = -1;
    }
  if (status == 0)
    status = check_ref_device (h, h->ref_device ? h->ref_device : ref_device,
                               err, errlen);
  free (ref_device);
  return status;
}

static const json_t *
ref_entry (const struct dice_harness *h, const json_t *rec)
{
  char *key = record_key (rec);
  const json_t *e = key ? dice_strmap_get (h->ref_times, key) : NULL;

  free (key);
  return e;
}

json_t *
dice_harness_time_skip (const struct dice_harness *h, const json_t *rec)
{
  const json_t *check = json_object_get (rec, "check");
  const char *why = NULL;

  if (!h->time_all)
    {
      if (!json_is_object (check))
        why = "no check";
      else if (!json_is_true (json_object_get (check, "correct")))
        why = "not correct";
      else if (json_is_true (json_object_get (json_object_get (check,
                                                               "deception"),
                                              "deceptive")))
        why = "deceptive";
    }
  if (why == NULL && h->ref_times && ref_entry (h, rec) == NULL)
    why = "no reference time";
  return why ? json_pack ("{s:s}", "skipped", why) : NULL;
}

static json_t *
copy_or_null (const json_t *from, const char *key)
{
  json_t *v = json_object_get (from, key);

  return v ? json_incref (v) : json_null ();
}

json_t *
dice_harness_time_object (const struct dice_harness *h, const json_t *rec,
                          const json_t *from, const char *status,
                          const char *error, double ms, json_t *sandbox)
{
  json_t *t = json_object ();
  json_t *ref = NULL, *new = NULL, *flags = json_array ();
  double speedup = NAN;
  bool ok = status && strcmp (status, "ok") == 0;

  if (ok)
    {
      new = side_stats (json_object_get (from, "new"),
                        json_object_get (from, "new_event"));
      if (h->ref_times)
        {
          const json_t *e = ref_entry (h, rec);

          ref = e ? json_deep_copy (e) : NULL;
        }
      else
        ref = side_stats (json_object_get (from, "ref"),
                          json_object_get (from, "ref_event"));
      if (new == NULL || ref == NULL)
        {
          ok = false;
          status = "crashed";
          error = "the harness's result has no usable samples";
        }
    }
  if (ok)
    {
      double rm = json_number_value (json_object_get (ref, "median"));
      double nm = json_number_value (json_object_get (new, "median"));
      double rs = json_number_value (json_object_get (ref, "iqr"));
      double ns = json_number_value (json_object_get (new, "iqr"));
      double dn = outside_median (json_object_get (from, "new"),
                                  json_object_get (from, "new_event"));
      double dr = h->ref_times ? 0
        : outside_median (json_object_get (from, "ref"),
                          json_object_get (from, "ref_event"));

      speedup = nm > 0 ? rm / nm : NAN;
      if (isfinite (speedup) && speedup > h->max_speedup)
        json_array_append_new (flags, json_string ("excessive_speedup"));
      if ((nm > 0 && ns / nm > h->max_spread)
          || (rm > 0 && json_is_number (json_object_get (ref, "iqr"))
              && rs / rm > h->max_spread))
        json_array_append_new (flags, json_string ("unstable"));
      if (isfinite (dn) && isfinite (dr) && dn - dr > SIDE_SHARE * nm
          && dn - dr > SIDE_MIN_MS)
        json_array_append_new (flags, json_string ("side_stream"));
      if (json_is_true (json_object_get (from, "threads")))
        json_array_append_new (flags, json_string ("threads"));
    }
  json_object_set_new (t, "status", json_string (status));
  json_object_set_new (t, "ref_ms", ok ? json_incref (json_object_get (ref, "median")) : json_null ());
  json_object_set_new (t, "new_ms", ok ? json_incref (json_object_get (new, "median")) : json_null ());
  json_object_set_new (t, "speedup", ok ? measured (speedup) : json_null ());
  json_object_set_new (t, "ref", ok ? json_incref (ref) : json_null ());
  json_object_set_new (t, "new", ok ? json_incref (new) : json_null ());
  json_object_set_new (t, "flags", flags);
  json_object_set_new (t, "baseline", json_string (h->baseline));
  json_object_set_new (t, "trials", json_integer (h->trials));
  json_object_set_new (t, "warmup", json_integer (h->warmup));
  json_object_set_new (t, "input_sets", json_integer (h->input_sets));
  json_object_set_new (t, "seed", json_integer ((json_int_t) h->seed));
  json_object_set_new (t, "precision", copy_or_null (from, "precision"));
  json_object_set_new (t, "deception", copy_or_null (from, "deception"));
  json_object_set_new (t, "speed_of_light_ms",
                       copy_or_null (from, "speed_of_light_ms"));
  json_object_set_new (t, "device", copy_or_null (from, "device"));
  json_object_set_new (t, "device_uuid", copy_or_null (from, "device_uuid"));
  json_object_set_new (t, "clocks", copy_or_null (from, "clocks"));
  json_object_set_new (t, "temperature", copy_or_null (from, "temperature"));
  json_object_set_new (t, "flush_bytes", copy_or_null (from, "flush_bytes"));
  json_object_set_new (t, "torch", copy_or_null (from, "torch"));
  json_object_set_new (t, "cuda", copy_or_null (from, "cuda"));
  json_object_set_new (t, "driver", copy_or_null (from, "driver"));
  json_object_set_new (t, "error", error ? json_string (error) : json_null ());
  json_object_set_new (t, "ms", json_integer ((json_int_t) llround (ms)));
  json_object_set_new (t, "sandbox", json_incref (sandbox));
  if (json_object_get (from, "phases_ms"))      /* DICE_PHASES=1 */
    json_object_set_new (t, "phases_ms", copy_or_null (from, "phases_ms"));
  json_decref (ref);
  json_decref (new);
  return t;
}

/* What time.runs keeps of one run's time object T.  */
static json_t *
run_summary (const json_t *t)
{
  return json_pack ("{s:O?, s:O?, s:O?, s:O?, s:O?}",
                    "status", json_object_get (t, "status"),
                    "speedup", json_object_get (t, "speedup"),
                    "ref_ms", json_object_get (t, "ref_ms"),
                    "new_ms", json_object_get (t, "new_ms"),
                    "error", json_object_get (t, "error"));
}

static bool
run_ok (const json_t *t)
{
  const char *status = json_string_value (json_object_get (t, "status"));

  return status && strcmp (status, "ok") == 0
    && json_is_number (json_object_get (t, "speedup"));
}

/* Add to FIRST (the first run's time object) the verdict of the runs
   RUNS (summaries, the first one's included) of the PLANNED: the worst speedup as the
   confirmed one when every run succeeded, null otherwise; whether they
   agree; why not; and, when VERIFY (the first run's speedup was above
   --max-speedup), whether the repeats bore it out.  */
static void
settle_runs (json_t *first, json_t *runs, long planned, bool verify)
{
  size_t i, n = json_array_size (runs);
  double lo = INFINITY, hi = 0;
  char why[512] = "";
  json_t *run;

  json_array_foreach (runs, i, run)
    {
      double x = json_number_value (json_object_get (run, "speedup"));

      if (!run_ok (run))
        {
          const char *error = json_string_value (json_object_get (run,
                                                                  "error"));

          snprintf (why, sizeof why, "run %zu of %ld: %s%s%s", i + 1,
                    planned,
                    json_string_value (json_object_get (run, "status")),
                    error ? ": " : "", error ? error : "");
          break;
        }
      lo = x < lo ? x : lo;
      hi = x > hi ? x : hi;
    }
  if (!*why && !(hi <= RUNS_AGREE_RATIO * lo))
    snprintf (why, sizeof why, "the runs disagree: speedups from %g to %g",
              lo, hi);
  json_object_set_new (first, "runs", runs);
  json_object_set_new (first, "confirmed_speedup",
                       i == n ? measured (lo) : json_null ());
  json_object_set_new (first, "confirmed", json_boolean (!*why));
  json_object_set_new (first, "confirm_error",
                       *why ? json_string (why) : json_null ());
  if (verify)
    {
      json_object_set_new (first, "verified", json_boolean (!*why));
      if (*why)
        json_array_append_new (json_object_get (first, "flags"),
                               json_string ("unverified_speedup"));
    }
}

json_t *
dice_harness_time_run (const struct dice_harness *h, const json_t *rec,
                       const char *gpu)
{
  json_t *first = dice_harness_run (h, rec, gpu), *runs;
  long n = h->runs;
  bool verify;

  if (first == NULL || !run_ok (first))
    return first;
  /* An implausible speedup counts only once a fresh process, with fresh
     inputs, has measured it again: the repeats of --runs, or one more.  */
  verify = json_number_value (json_object_get (first, "speedup"))
    > h->max_speedup;
  if (n == 1 && !verify)
    return first;
  if (n == 1)
    n = 2;
  if ((runs = json_array ()) == NULL
      || json_array_append_new (runs, run_summary (first)) != 0)
    goto nomem;
  for (long i = 1; i < n; i++)
    {
      json_t *again = dice_harness_run (h, rec, gpu);
      bool ok = again && run_ok (again);

      /* A run that failed ends the repeats: the speedup is unconfirmed
         whatever the others would say.  */
      if (again == NULL
          || json_array_append_new (runs, run_summary (again)) != 0)
        {
          json_decref (again);
          json_decref (runs);
          goto nomem;
        }
      json_decref (again);
      if (!ok)
        break;
    }
  settle_runs (first, runs, n, verify);
  return first;

nomem:
  json_decref (first);
  return NULL;
}
