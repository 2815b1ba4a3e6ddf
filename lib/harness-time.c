/* harness-time.c: the time mode (dice-time): which records are timed,
   the job's timing settings, and what C decides from the raw samples the
   harness measured: the statistics, the speedup, the flags, and the
   verdict of repeated runs.  The harness only measures, so every
   decision here can be tested with a fake harness.  */
#include "system.h"

#include <math.h>

#include "harness-end.h"
#include "jsonl.h"
#include "reftimes.h"
#include "stats.h"

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

/* A record is timed when it has code, and check found it correct and
   not deceptive (or --all), and --ref-times has its reference.  */
static json_t *
time_not_run (const struct dice_harness *h, const json_t *rec)
{
  const json_t *check = json_object_get (rec, "check");
  const char *code = json_string_value (json_object_get (rec, "code"));
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
  if (why == NULL && h->ref_times
      && dice_reftimes_get (h->ref_times, rec) == NULL)
    why = "no reference time";
  if (why == NULL && (code == NULL || !*code))
    why = "no code";
  return why ? json_pack ("{s:s}", "skipped", why) : NULL;
}

static json_t *
copy_or_null (const json_t *from, const char *key)
{
  json_t *v = json_object_get (from, key);

  return v ? json_incref (v) : json_null ();
}

/* The record's "time" object from the harness's raw samples FROM (NULL
   when no result came), or from STATUS and ERROR when C decided.  */
static json_t *
time_object (const struct dice_harness *h, const json_t *rec,
             const json_t *from, const char *status, const char *error,
             double ms, json_t *sandbox)
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
          const json_t *e = dice_reftimes_get (h->ref_times, rec);

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
  json_object_set_new (t, "ref_ms", ok ? json_incref (json_object_get
                                                      (ref, "median"))
                       : json_null ());
  json_object_set_new (t, "new_ms", ok ? json_incref (json_object_get
                                                      (new, "median"))
                       : json_null ());
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

/* The time object of a run of REC that ended as END says.  */
static json_t *
time_result (const struct dice_harness *h, const json_t *rec,
             struct dice_harness_end *end)
{
  static const char *const statuses[] = {
    "ok", "compile_error", "runtime_error", "oom", NULL
  };
  json_t *time = json_object_get (end->result, "time");
  const char *status = dice_harness_status (end, time, statuses);
  const char *said = json_string_value (json_object_get (time, "error"));

  if (!*end->why && said)
    {
      snprintf (end->why, end->whylen, "%s", said);
      dice_harness_one_line (end->why);
    }
  return time_object (h, rec, json_is_object (time) ? time : NULL, status,
                      *end->why ? end->why : NULL, end->sb->ms,
                      end->sandbox);
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

/* Whether T is a run that measured a speedup.  */
static bool
run_ok (const json_t *t)
{
  const char *status = json_string_value (json_object_get (t, "status"));

  return status && strcmp (status, "ok") == 0
    && json_is_number (json_object_get (t, "speedup"));
}

/* Add to FIRST (the first run's time object) the verdict of the runs
   RUNS (summaries, the first one's included) of the PLANNED: the worst
   speedup as the confirmed one when every run succeeded, null
   otherwise; whether they agree; why not; and, when VERIFY (the first
   run's speedup was above --max-speedup), whether the repeats bore it
   out.  */
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

/* Whether FIRST's speedup is above --max-speedup: implausible until
   repeated.  */
static bool
needs_verifying (const struct dice_harness *h, const json_t *first)
{
  return json_number_value (json_object_get (first, "speedup"))
    > h->max_speedup;
}

/* An implausible speedup counts only once a fresh process, with fresh
   inputs, has measured it again: the repeats of --runs, or one more.  */
static long
time_runs (const struct dice_harness *h, const json_t *first)
{
  return h->runs == 1 && needs_verifying (h, first) ? 2 : h->runs;
}

static int
time_settle (const struct dice_harness *h, json_t *first,
             const json_t *again, long planned)
{
  json_t *runs = json_array (), *run;
  size_t i;

  if (runs == NULL || json_array_append_new (runs, run_summary (first)) != 0)
    {
      json_decref (runs);
      return -1;
    }
  json_array_foreach (again, i, run)
    if (json_array_append_new (runs, run_summary (run)) != 0)
      {
        json_decref (runs);
        return -1;
      }
  settle_runs (first, runs, planned, needs_verifying (h, first));
  return 0;
}

static json_t *
time_job_fields (const struct dice_harness *h)
{
  return json_pack ("{s:I, s:I, s:I, s:s, s:b}",
                    "warmup", (json_int_t) h->warmup,
                    "input_sets", (json_int_t) h->input_sets,
                    "seed", (json_int_t) h->seed, "baseline", h->baseline,
                    "flush", h->flush);
}

static const char *
time_label (const json_t *value)
{
  if (json_object_get (value, "skipped"))
    return "skipped";
  return json_string_value (json_object_get (value, "status"));
}

const struct dice_harness_mode dice_harness_time = {
  .name = "time", .not_run = time_not_run, .job_fields = time_job_fields,
  .result = time_result, .label = time_label, .measured = run_ok,
  .runs = time_runs, .settle = time_settle,
  .gpu_hold = DICE_GPU_HOLD_EXCLUSIVE
};
