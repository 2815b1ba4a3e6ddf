/* score-summary.c: dice-score summaries: Exec, pass@k, fast_p and the
   rest per level and view, from the problems read.  */
#include "system.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>

#include "jsonl.h"
#include "jsonpick.h"
#include "msg.h"
#include "options.h"
#include "record.h"
#include "stats.h"
#include "strmap.h"
#include "xalloc.h"
#include "score.h"

const char *const view_names[NVIEWS] = { "robust", "plain" };


bool
speed_in_view (const struct speed *s, enum view v)
{
  return v == VIEW_PLAIN || s->robust;
}

unsigned long
correct_in_view (const struct problem *p, enum view v)
{
  return v == VIEW_PLAIN ? p->correct : p->correct - p->deceptive;
}

/* How many of P's samples are correct in view V and faster than THRESHOLD
   times the reference.  */
static unsigned long
fast_samples (const struct problem *p, enum view v, double threshold)
{
  unsigned long n = 0;

  for (size_t i = 0; i < p->nspeeds; i++)
    n += speed_in_view (&p->speeds[i], v) && p->speeds[i].value > threshold;
  return n;
}

static double
ratio (unsigned long num, unsigned long den)
{
  return den ? (double) num / (double) den : NAN;
}

/* The sums over the problems of a level that its shares are made of.  */
struct view_sums
{
  double pass1, fast1[MAX_LIST];
  double pass[MAX_LIST], fast_at[MAX_LIST][MAX_LIST];
  unsigned long fast_any[MAX_LIST];
  struct dice_geomean geo;
};

/* Add problem P (with samples) to view V's sums S and summary VS.  */
static void
add_problem (const struct settings *o, const struct problem *p, enum view v,
             struct view_sums *s, struct view_summary *vs)
{
  unsigned long c = correct_in_view (p, v);

  vs->correct += c;
  vs->untimed += v == VIEW_PLAIN ? p->untimed
    : p->untimed - p->untimed_deceptive;
  vs->solved += c > 0;
  s->pass1 += (double) c / (double) p->samples;
  for (size_t k = 0; k < o->nks; k++)
    if (o->ks[k] <= p->samples)
      s->pass[k] += dice_pass_at_k (p->samples, c, o->ks[k]);
  for (size_t j = 0; j < o->nps; j++)
    {
      unsigned long f = fast_samples (p, v, o->ps[j]);

      s->fast1[j] += (double) f / (double) p->samples;
      s->fast_any[j] += f > 0;
      for (size_t k = 0; k < o->nks; k++)
        if (o->ks[k] <= p->samples)
          s->fast_at[j][k] += dice_pass_at_k (p->samples, f, o->ks[k]);
    }
  for (size_t i = 0; i < p->nspeeds; i++)
    if (speed_in_view (&p->speeds[i], v))
      vs->timed += dice_geomean_add (&s->geo, p->speeds[i].value);
}

/* View V's shares in VS, from its sums S over the N problems of a level
   (N > 0; those without a record among them add nothing: they fail).  */
static void
view_shares (const struct settings *o, const struct view_sums *s,
             unsigned long n, const bool *k_too_big,
             struct view_summary *vs)
{
  vs->pass1 = s->pass1 / (double) n;
  vs->best_of_n = ratio (vs->solved, n);
  for (size_t k = 0; k < o->nks; k++)
    vs->pass[k] = k_too_big[k] ? NAN : s->pass[k] / (double) n;
  for (size_t j = 0; j < o->nps; j++)
    {
      vs->fast1[j] = s->fast1[j] / (double) n;
      vs->fast_best_of_n[j] = ratio (s->fast_any[j], n);
      for (size_t k = 0; k < o->nks; k++)
        vs->fast_at[j][k] = k_too_big[k] ? NAN : s->fast_at[j][k] / (double) n;
    }
  vs->geomean = dice_geomean_value (&s->geo);
  /* Untimed candidates would only make the speed figures lower than they
     are: not available, rather than wrong.  */
  if (vs->untimed)
    {
      for (size_t j = 0; j < o->nps; j++)
        {
          vs->fast1[j] = vs->fast_best_of_n[j] = NAN;
          for (size_t k = 0; k < o->nks; k++)
            vs->fast_at[j][k] = NAN;
        }
      vs->geomean = NAN;
    }
}

/* Summarise the problems of LEVEL (-1: all).  */
static void
summarise (const struct settings *o, long level, struct summary *s)
{
  struct view_sums sums[NVIEWS];
  bool k_too_big[MAX_LIST] = { 0 };

  memset (sums, 0, sizeof sums);
  memset (s, 0, sizeof *s);
  s->level = level;
  for (size_t i = 0; i < nproblems; i++)
    {
      const struct problem *p = problems[i];

      if (level >= 0 && p->level != level)
        continue;
      s->problems++;
      /* A task of --tasks without a record has failed, whatever k.  */
      if (p->samples == 0)
        {
          s->missing++;
          continue;
        }
      s->samples += p->samples;
      s->compiled += p->compiled;
      s->checked += p->samples - p->status[ST_UNCHECKED];
      s->correct += p->correct;
      s->deceptive += p->deceptive;
      s->bad_speedups += p->bad_speedups;
      for (size_t k = 0; k < o->nks; k++)
        k_too_big[k] |= o->ks[k] > p->samples;
      for (int v = 0; v < NVIEWS; v++)
        add_problem (o, p, v, &sums[v], &s->view[v]);
    }
  s->compile_rate = ratio (s->compiled, s->samples);
  s->deception_rate = ratio (s->deceptive, s->correct);
  for (int v = 0; v < NVIEWS; v++)
    view_shares (o, &sums[v], s->problems, k_too_big, &s->view[v]);
}

static int
compare_longs (const void *a, const void *b)
{
  long x = *(const long *) a, y = *(const long *) b;

  return (x > y) - (x < y);
}

/* The distinct levels of the problems, sorted, into a new array.  */
static long *
distinct_levels (size_t *n)
{
  long *levels = xcalloc (nproblems + 1, sizeof *levels);
  size_t m = 0;

  for (size_t i = 0; i < nproblems; i++)
    levels[i] = problems[i]->level;
  qsort (levels, nproblems, sizeof *levels, compare_longs);
  for (size_t i = 0; i < nproblems; i++)
    if (m == 0 || levels[m - 1] != levels[i])
      levels[m++] = levels[i];
  *n = m;
  return levels;
}

/* Summaries for each level and then all: a new array of *N.  */
struct summary *
all_summaries (const struct settings *o, size_t *n)
{
  size_t nlevels;
  long *levels = distinct_levels (&nlevels);
  struct summary *s = xcalloc (nlevels + 1, sizeof *s);

  for (size_t i = 0; i < nlevels; i++)
    summarise (o, levels[i], &s[i]);
  summarise (o, -1, &s[nlevels]);
  free (levels);
  *n = nlevels + 1;
  return s;
}

/* What mixing kind K is called in a message; NULL for a kind whose
   values may differ without harm (the GPUs of one model).  */
static const char *
mixing_name (enum provenance_kind k)
{
  static const char *const names[NPROVENANCE] = {
    [PROV_DEVICE] = "devices", [PROV_TORCH] = "torch versions",
    [PROV_CUDA] = "CUDA versions", [PROV_TOLERANCE] = "tolerances",
    [PROV_PRECISION] = "precisions", [PROV_BASELINE] = "baselines"
  };
  return names[k];
}

/* "level 1 mixes devices "A" and "B"" when P's level mixes values of
   kind K, else NULL; a new string.  */
char *
mixing_message (const struct provenance *p, enum provenance_kind k)
{
  char *msg, *longer;

  if (p == NULL || p->level < 0 || !mixing_name (k) || p->n[k] < 2)
    return NULL;
  msg = xasprintf ("level %ld mixes %s \"%s\"", p->level, mixing_name (k),
                   p->values[k][0]);
  for (size_t i = 1; i < p->n[k]; i++)
    {
      bool last = i + 1 == p->n[k] && !p->more[k];

      longer = xasprintf ("%s%s\"%s\"", msg, last ? " and " : ", ",
                          p->values[k][i]);
      free (msg);
      msg = longer;
    }
  if (p->more[k])
    {
      longer = xasprintf ("%s and more", msg);
      free (msg);
      msg = longer;
    }
  return msg;
}

/* Samples judged on different devices, torches, tolerances, precisions
   or baselines do not measure the same thing: a level that mixes them is
   said once per kind.  */
void
warn_about_mixing (void)
{
  for (long level = 0; level <= LONG_MAX; level++)
    {
      const struct provenance *p = NULL;
      long next = LONG_MAX;
      bool any = false;

      /* Levels in order, whatever order the records came in.  */
      for (size_t i = 0; i < nprovenances; i++)
        if (provenances[i].level >= level && provenances[i].level <= next)
          {
            next = provenances[i].level;
            p = &provenances[i];
            any = true;
          }
      if (!any)
        break;
      for (int k = 0; k < NPROVENANCE; k++)
        {
          char *msg = mixing_message (p, k);

          if (msg)
            dice_error ("warning: %s", msg);
          free (msg);
        }
      if (next == LONG_MAX)
        break;
      level = next;
    }
}

void
warn_about_bad_input (const struct settings *o, const struct summary *all)
{
  warn_about_mixing ();
  for (int v = 0; v < NVIEWS; v++)
    if (o->views[v] && all->view[v].untimed)
      dice_error ("%lu sample%s correct in the %s view %s not "
                  "timed: its speed figures are not available "
                  "(dice-time --all times every candidate)",
                  all->view[v].untimed, all->view[v].untimed == 1 ? "" : "s",
                  view_names[v], all->view[v].untimed == 1 ? "was" : "were");
  if (repeated_samples)
    dice_error ("%lu record%s repeated the id and sample.index of an earlier "
                "one; only the first of each was scored", repeated_samples,
                repeated_samples == 1 ? "" : "s");
  if (all->bad_speedups)
    dice_error ("%lu sample%s had a speedup that is not a positive finite "
                "number (null, NaN or infinite); never counted as fast",
                all->bad_speedups, all->bad_speedups == 1 ? "" : "s");
  for (size_t k = 0; k < o->nks; k++)
    if (isnan (all->view[VIEW_ROBUST].pass[k]))
      {
        dice_error ("pass@%lu needs at least %lu samples of each problem; "
                    "left out for levels with fewer", o->ks[k],
                    o->ks[k]);
      }
}

