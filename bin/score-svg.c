/* score-svg.c: the fast_p figure, one plot per level with a line per run
   on a log-scaled speedup axis, for --svg and --html alike.  */
#include "system.h"

#include <math.h>

#include "closeout.h"
#include "msg.h"
#include "stats.h"
#include "xalloc.h"
#include "outfile.h"
#include "score.h"

/* fast_p@1, the paper's fast_p, is a step function of p: the mean over
   the problems of the share of their samples that are correct and faster
   than p, so it is drawn exactly, as a step down at each such sample's
   speedup, by 1/(n N) for a sample of a problem with n samples among N.
   A run is what one input FILE added: reading joins FILEs into one set of
   problems, so a run is taken as the difference that reading its FILE
   made to each problem's samples and speedups.  */

/* A problem as one run saw it.  */
struct run_problem
{
  long level;
  unsigned long samples;        /* 0: a task the run has no record of */
  struct speed *speeds;         /* its correct samples' valid speedups */
  size_t nspeeds;
};

struct run
{
  char *label;
  struct run_problem *problems;
  size_t nproblems;
};

static struct run *runs;
static size_t nruns;
static unsigned long *samples_before, *speeds_before;
static size_t nproblems_before;

void
run_begin (void)
{
  free (samples_before);
  free (speeds_before);
  samples_before = xcalloc (nproblems + 1, sizeof *samples_before);
  speeds_before = xcalloc (nproblems + 1, sizeof *speeds_before);
  for (size_t i = 0; i < nproblems; i++)
    {
      samples_before[i] = problems[i]->samples;
      speeds_before[i] = problems[i]->nspeeds;
    }
  nproblems_before = nproblems;
}

void
run_end (const char *label)
{
  struct run *r;

  runs = xrealloc (runs, (nruns + 1) * sizeof *runs);
  r = &runs[nruns++];
  r->label = xstrdup (label);
  r->problems = xcalloc (nproblems + 1, sizeof *r->problems);
  r->nproblems = 0;
  for (size_t i = 0; i < nproblems; i++)
    {
      const struct problem *p = problems[i];
      bool old = i < nproblems_before;
      size_t first = old ? speeds_before[i] : 0;
      struct run_problem *rp;

      /* With --tasks, every run is of the whole problem set: a task
         the run has no record of is a failure of that run.  */
      if (problem_set_given ? !p->listed
          : p->samples == (old ? samples_before[i] : 0))
        continue;
      rp = &r->problems[r->nproblems++];
      rp->level = p->level;
      rp->samples = p->samples - (old ? samples_before[i] : 0);
      rp->nspeeds = p->nspeeds - first;
      rp->speeds = xcalloc (rp->nspeeds + 1, sizeof *rp->speeds);
      memcpy (rp->speeds, p->speeds + first, rp->nspeeds * sizeof *rp->speeds);
    }
}

size_t
run_count (void)
{
  return nruns;
}

const char *
run_label (size_t i)
{
  return runs[i].label;
}

void
free_runs (void)
{
  for (size_t i = 0; i < nruns; i++)
    {
      free (runs[i].label);
      for (size_t j = 0; j < runs[i].nproblems; j++)
        free (runs[i].problems[j].speeds);
      free (runs[i].problems);
    }
  free (runs);
  free (samples_before);
  free (speeds_before);
}

/* Plot geometry, in SVG user units.  */
enum
{
  PLOT_WIDTH = 440, PLOT_HEIGHT = 300,
  PLOT_LEFT = 52, PLOT_RIGHT = 428, PLOT_TOP = 30, PLOT_BOTTOM = 254
};

/* The smallest p drawn: a tenth of the reference's speed.  */
#define SVG_MIN_P 0.1

/* Okabe and Ito's palette, told apart with colour-blindness too.  */
static const char *const svg_colours[] = {
  "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
  "#000000"
};
static const char *const svg_dashes[] = { "", "6,3", "2,2", "8,3,2,3" };

static double
svg_x (const struct settings *o, double p)
{
  double lo = log10 (SVG_MIN_P), hi = log10 (o->svg_max);

  if (p < SVG_MIN_P)
    p = SVG_MIN_P;
  if (p > o->svg_max)
    p = o->svg_max;
  return PLOT_LEFT + (log10 (p) - lo) / (hi - lo) * (PLOT_RIGHT - PLOT_LEFT);
}

static double
svg_y (double share)
{
  return PLOT_BOTTOM - share * (PLOT_BOTTOM - PLOT_TOP);
}

/* A step of the curve: at speedup VALUE, fast_p@1 falls by SHARE.  */
struct step
{
  double value, share;
};

static int
compare_steps (const void *a, const void *b)
{
  double x = ((const struct step *) a)->value;
  double y = ((const struct step *) b)->value;

  return (x > y) - (x < y);
}

/* RUN's steps for the problems of LEVEL (-1: all) in view V, sorted by
   speedup, into a new array of *N; *TOTAL is fast_p@1 for p below them
   all.  */
static struct step *
run_steps (const struct run *run, long level, enum view v, size_t *n,
           double *total)
{
  size_t nsteps = 0, nproblems_in = 0, m = 0;
  struct step *steps;

  for (size_t i = 0; i < run->nproblems; i++)
    if (level < 0 || run->problems[i].level == level)
      {
        nproblems_in++;
        nsteps += run->problems[i].nspeeds;
      }
  steps = xcalloc (nsteps + 1, sizeof *steps);
  *total = 0;
  for (size_t i = 0; i < run->nproblems; i++)
    {
      const struct run_problem *rp = &run->problems[i];

      if (level >= 0 && rp->level != level)
        continue;
      for (size_t s = 0; s < rp->nspeeds; s++)
        if (speed_in_view (&rp->speeds[s], v))
          {
            steps[m].value = rp->speeds[s].value;
            steps[m].share = 1.0 / ((double) rp->samples
                                    * (double) nproblems_in);
            *total += steps[m++].share;
          }
    }
  qsort (steps, m, sizeof *steps, compare_steps);
  *n = nproblems_in ? m : 0;
  return steps;
}

static void
svg_curve (const struct settings *o, FILE *fp, const struct run *run,
           long level, enum view v, size_t colour)
{
  size_t n, below = 0;
  double share;
  struct step *steps = run_steps (run, level, v, &n, &share);
  const char *dash = svg_dashes[colour / DICE_ARRAY_SIZE (svg_colours)
                                % DICE_ARRAY_SIZE (svg_dashes)];

  /* STEPS[below..n) are the samples faster than p; SHARE is theirs.  */
  while (below < n && steps[below].value <= SVG_MIN_P)
    share -= steps[below++].share;
  fprintf (fp, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s%s%s "
           "d=\"M%.2f,%.2f",
           svg_colours[colour % DICE_ARRAY_SIZE (svg_colours)],
           *dash ? " stroke-dasharray=\"" : "", dash, *dash ? "\"" : "",
           svg_x (o, SVG_MIN_P), svg_y (fmax (share, 0)));
  while (below < n && steps[below].value < o->svg_max)
    {
      double p = steps[below].value;

      while (below < n && steps[below].value <= p)
        share -= steps[below++].share;
      fprintf (fp, " H%.2f V%.2f", svg_x (o, p), svg_y (fmax (share, 0)));
    }
  fprintf (fp, " H%.2f\"/>\n", svg_x (o, o->svg_max));
  free (steps);
}

/* Write TEXT with &, <, >, " and ' as entities, fit for HTML and XML text
   and attribute values alike.  */
void
write_escaped (FILE *fp, const char *text)
{
  for (const char *c = text; *c; c++)
    switch (*c)
      {
      case '&': fputs ("&amp;", fp); break;
      case '<': fputs ("&lt;", fp); break;
      case '>': fputs ("&gt;", fp); break;
      case '"': fputs ("&quot;", fp); break;
      case '\'': fputs ("&#39;", fp); break;
      default: putc (*c, fp);
      }
}

/* The speedup ticks: 1, 2 and 5 times each power of ten in range.  */
static void
svg_axes (const struct settings *o, FILE *fp)
{
  for (double decade = SVG_MIN_P; decade <= o->svg_max; decade *= 10)
    for (int m = 0; m < 3; m++)
      {
        static const double mantissa[] = { 1, 2, 5 };
        double p = decade * mantissa[m], x = svg_x (o, p);

        if (p > o->svg_max * (1 + 1e-9))
          break;
        fprintf (fp, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" "
                 "stroke=\"%s\"/>\n", x, PLOT_TOP, x, PLOT_BOTTOM,
                 fabs (p - 1) < 1e-9 ? "#777777" : "#e4e4e4");
        fprintf (fp, "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">%g"
                 "</text>\n", x, PLOT_BOTTOM + 15, p);
      }
  for (int i = 0; i <= 4; i++)
    {
      double y = svg_y (i / 4.0);

      fprintf (fp, "<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" "
               "stroke=\"#e4e4e4\"/>\n", PLOT_LEFT, y, PLOT_RIGHT, y);
      fprintf (fp, "<text x=\"%d\" y=\"%.2f\" text-anchor=\"end\">%d%%"
               "</text>\n", PLOT_LEFT - 5, y + 4, 25 * i);
    }
  fprintf (fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
           "fill=\"none\" stroke=\"#333333\"/>\n", PLOT_LEFT, PLOT_TOP,
           PLOT_RIGHT - PLOT_LEFT, PLOT_BOTTOM - PLOT_TOP);
  fprintf (fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">speedup "
           "threshold p (log scale; 1 = the reference)</text>\n",
           (PLOT_LEFT + PLOT_RIGHT) / 2, PLOT_HEIGHT - 12);
  fprintf (fp, "<text transform=\"translate(14,%d) rotate(-90)\" "
           "text-anchor=\"middle\">fast_p@1: samples faster than p</text>\n",
           (PLOT_TOP + PLOT_BOTTOM) / 2);
}

/* The legend, a line per run, in the bottom left corner, where the falling
   curves leave room (few problems are slower than a tenth of the
   reference).  */
static void
svg_legend (FILE *fp)
{
  int width = 150, height = 8 + 16 * (int) nruns;
  int left = PLOT_LEFT + 6, top = PLOT_BOTTOM - height - 6;

  fprintf (fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
           "fill=\"white\" fill-opacity=\"0.9\" stroke=\"#bbbbbb\"/>\n",
           left, top, width, height);
  for (size_t i = 0; i < nruns; i++)
    {
      const char *dash = svg_dashes[i / DICE_ARRAY_SIZE (svg_colours)
                                    % DICE_ARRAY_SIZE (svg_dashes)];
      int y = top + 12 + 16 * (int) i;
      size_t len = strlen (runs[i].label);
      char *shown = xstrdup (runs[i].label);

      /* A long file name would run out of the box: keep its end.  */
      if (len > 22)
        {
          free (shown);
          shown = xasprintf ("...%s", runs[i].label + len - 19);
        }
      fprintf (fp, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
               "stroke=\"%s\" stroke-width=\"2\"%s%s%s/>\n", left + 6, y,
               left + 28, y, svg_colours[i % DICE_ARRAY_SIZE (svg_colours)],
               *dash ? " stroke-dasharray=\"" : "", dash, *dash ? "\"" : "");
      fprintf (fp, "<text x=\"%d\" y=\"%d\">", left + 33, y + 4);
      write_escaped (fp, shown);
      fputs ("</text>\n", fp);
      free (shown);
    }
}

/* One plot of fast_p for LEVEL (-1: all levels) in view V, every run a
   line, as an <svg> element of its own placed at X, Y (HTML places it
   itself: no position).  */
void
svg_plot (const struct settings *o, FILE *fp, long level, enum view v,
          bool place, int x, int y)
{
  fprintf (fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" ");
  if (place)
    fprintf (fp, "x=\"%d\" y=\"%d\" ", x, y);
  fprintf (fp, "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
           "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\" "
           "role=\"img\">\n", PLOT_WIDTH, PLOT_HEIGHT, PLOT_WIDTH,
           PLOT_HEIGHT);
  if (level < 0)
    fprintf (fp, "<title>fast_p, all levels, %s view</title>\n",
             view_names[v]);
  else
    fprintf (fp, "<title>fast_p, level %ld, %s view</title>\n", level,
             view_names[v]);
  fprintf (fp, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
  if (level < 0)
    fprintf (fp, "<text x=\"%d\" y=\"19\" text-anchor=\"middle\" "
             "font-size=\"15\" font-weight=\"bold\">All levels, %s view"
             "</text>\n", (PLOT_LEFT + PLOT_RIGHT) / 2, view_names[v]);
  else
    fprintf (fp, "<text x=\"%d\" y=\"19\" text-anchor=\"middle\" "
             "font-size=\"15\" font-weight=\"bold\">Level %ld, %s view"
             "</text>\n", (PLOT_LEFT + PLOT_RIGHT) / 2, level,
             view_names[v]);
  svg_axes (o, fp);
  for (size_t i = 0; i < nruns; i++)
    svg_curve (o, fp, &runs[i], level, v, i);
  svg_legend (fp);
  fputs ("</svg>\n", fp);
}

/* Open PATH ("-": standard output) for a whole-or-nothing write, or end
   the program.  */
void
output_open (struct dice_outfile *out, const char *path)
{
  if (!dice_outfile_open (out, path))
    {
      dice_error_errno (errno, "cannot write '%s'", path);
      exit (DICE_EXIT_TROUBLE);
    }
}

/* Finish OUT: the file is renamed into place, or the program ends with
   one error line (none for a reader of standard output that has gone).  */
void
output_commit (struct dice_outfile *out)
{
  if (dice_outfile_commit (out))
    return;
  if (strcmp (out->path, "-") == 0)
    dice_stdout_failed (errno);
  dice_error_errno (errno, "write error on '%s'", out->path);
  exit (DICE_EXIT_TROUBLE);
}

/* The figure: a plot per level (and one over all levels when there are
   several) side by side, in the speed view.  */
void
write_svg (const struct settings *o, const struct summary *s, size_t n)
{
  struct dice_outfile out;
  FILE *fp;
  size_t nplots = n > 2 ? n : 1;
  enum view v = speed_view (o);

  output_open (&out, o->svg_path);
  fp = out.fp;
  fprintf (fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
           "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
           "width=\"%zu\" height=\"%d\" viewBox=\"0 0 %zu %d\">\n"
           "<title>fast_p against the speedup p (%s view)</title>\n"
           "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
           nplots * PLOT_WIDTH, PLOT_HEIGHT, nplots * PLOT_WIDTH,
           PLOT_HEIGHT, view_names[v]);
  for (size_t i = 0; i < nplots; i++)
    svg_plot (o, fp, n > 2 ? s[i].level : s[0].level, v, true,
              (int) i * PLOT_WIDTH, 0);
  fputs ("</svg>\n", fp);
  output_commit (&out);
}
