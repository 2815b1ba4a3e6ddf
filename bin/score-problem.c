/* score-problem.c: dice-score --per-problem: a row per problem.  */
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

/* Per-problem reports.  */

/* The number after "L1/" in an id, or -1.  */
static long
problem_number (const char *id)
{
  const char *slash = strchr (id, '/');

  if (slash == NULL || !isdigit ((unsigned char) slash[1]))
    return -1;
  return strtol (slash + 1, NULL, 10);
}

static int
compare_problems (const void *a, const void *b)
{
  const struct problem *x = *(struct problem *const *) a;
  const struct problem *y = *(struct problem *const *) b;
  long nx, ny;

  if (x->level != y->level)
    return x->level < y->level ? -1 : 1;
  nx = problem_number (x->id);
  ny = problem_number (y->id);
  if (nx != ny)
    return nx < ny ? -1 : 1;
  return strcmp (x->id, y->id);
}

/* The view best and median speedups are taken in.  */
enum view
speed_view (const struct settings *o)
{
  return o->views[VIEW_ROBUST] ? VIEW_ROBUST : VIEW_PLAIN;
}

/* The best and the median speedup of P's correct samples in the speed
   view; NaN when none was timed.  */
static void
problem_speedups (const struct settings *o, const struct problem *p,
                  double *best, double *median)
{
  double *values = xcalloc (p->nspeeds + 1, sizeof *values);
  size_t n = 0;

  for (size_t i = 0; i < p->nspeeds; i++)
    if (speed_in_view (&p->speeds[i], speed_view (o)))
      values[n++] = p->speeds[i].value;
  *median = dice_median (values, n);
  *best = n ? values[n - 1] : NAN;
  free (values);
}

void
write_per_problem (const struct settings *o)
{
  static const char *const head[] = {
    "id", "level", "samples", "compiled", "correct", "deceptive"
  };
  struct grid g = { 0 };

  qsort (problems, nproblems, sizeof *problems, compare_problems);
  if (o->format == FORMAT_JSON)
    {
      for (size_t i = 0; i < nproblems; i++)
        {
          const struct problem *p = problems[i];
          json_t *j = json_object (), *st = json_object ();
          double best, median;

          problem_speedups (o, p, &best, &median);
          if (o->label)
            set_new (j, "label", json_string (o->label));
          set_new (j, "id", json_string (p->id));
          set_new (j, "level", json_integer (p->level));
          set_new (j, "samples", json_integer (p->samples));
          set_new (j, "compiled", json_integer (p->compiled));
          set_new (j, "correct", json_integer (p->correct));
          set_new (j, "deceptive", json_integer (p->deceptive));
          for (int s = 0; s < NSTATUS; s++)
            set_new (st, status_names[s], json_integer (p->status[s]));
          set_new (j, "status", st);
          set_new (j, "bad_speedups", json_integer (p->bad_speedups));
          set_new (j, "best_speedup", json_number_or_null (best));
          set_new (j, "median_speedup", json_number_or_null (median));
          write_json_line (j);
          json_decref (j);
        }
      return;
    }
  if (o->label)
    grid_add (&g, xstrdup ("label"));
  for (size_t i = 0; i < DICE_ARRAY_SIZE (head); i++)
    grid_add (&g, xstrdup (head[i]));
  for (int s = ST_INCORRECT; s < NSTATUS; s++)
    grid_add (&g, xstrdup (status_names[s]));
  grid_add (&g, xstrdup ("bad_speedups"));
  grid_add (&g, xstrdup ("best_speedup"));
  grid_add (&g, xstrdup ("median_speedup"));
  g.cols = g.ncells;
  for (size_t i = 0; i < nproblems; i++)
    {
      const struct problem *p = problems[i];
      double best, median;

      problem_speedups (o, p, &best, &median);
      if (o->label)
        grid_add (&g, xstrdup (o->label));
      grid_add (&g, xstrdup (p->id));
      grid_add (&g, cell_level (p->level));
      grid_add (&g, cell_count (p->samples));
      grid_add (&g, cell_count (p->compiled));
      grid_add (&g, cell_count (p->correct));
      grid_add (&g, cell_count (p->deceptive));
      for (int s = ST_INCORRECT; s < NSTATUS; s++)
        grid_add (&g, cell_count (p->status[s]));
      grid_add (&g, cell_count (p->bad_speedups));
      grid_add (&g, cell_speedup (o, best));
      grid_add (&g, cell_speedup (o, median));
    }
  draw (o, &g);
  grid_free (&g);
}

