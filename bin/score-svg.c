/* score-svg.c: dice-score --svg: the fast_p curve as a figure.  */
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
#include "outfile.h"
#include "score.h"

/* The fast_p curve as an SVG figure.  fast_p is a step function of p: the
   share of problems whose best correct speedup exceeds p, so it is drawn
   exactly, as steps at each problem's best speedup.  */

/* Plot geometry, in SVG user units (points at 1:1): a figure for one
   column of a two-column paper.  */
enum
{
  SVG_WIDTH = 360, SVG_HEIGHT = 240,
  PLOT_LEFT = 46, PLOT_RIGHT = 282, PLOT_TOP = 12, PLOT_BOTTOM = 200
};

/* Okabe and Ito's palette, told apart with colour-blindness too.  */
static const char *const svg_colours[] = {
  "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
  "#F0E442"
};

static double
svg_x (const struct settings *o, double p)
{
  return PLOT_LEFT + p / o->svg_max * (PLOT_RIGHT - PLOT_LEFT);
}

static double
svg_y (double share)
{
  return PLOT_BOTTOM - share * (PLOT_BOTTOM - PLOT_TOP);
}

/* The best speedup of each problem of LEVEL (-1: all) in the speed view,
   0 for a problem without one, sorted, into a new array of *N.  */
static double *
best_speedups (const struct settings *o, long level, size_t *n)
{
  double *best = xcalloc (nproblems + 1, sizeof *best);
  size_t m = 0;

  for (size_t i = 0; i < nproblems; i++)
    {
      const struct problem *p = problems[i];
      double b = 0;

      if (level >= 0 && p->level != level)
        continue;
      for (size_t s = 0; s < p->nspeeds; s++)
        if (speed_in_view (&p->speeds[s], speed_view (o))
            && p->speeds[s].value > b)
          b = p->speeds[s].value;
      best[m++] = b;
    }
  dice_sort_doubles (best, m);
  *n = m;
  return best;
}

static void
svg_curve (const struct settings *o, FILE *fp, long level,
           const char *colour, bool dashed)
{
  size_t n, above;
  double *best = best_speedups (o, level, &n);

  /* BEST[i..n) are the problems faster than p = BEST[i-1].  */
  for (above = 0; above < n && best[above] <= 0; above++)
    ;
  fprintf (fp, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s "
           "d=\"M%.2f,%.2f", colour,
           dashed ? " stroke-dasharray=\"4,2\"" : "",
           svg_x (o, 0), svg_y ((double) (n - above) / n));
  while (above < n && best[above] < o->svg_max)
    {
      double p = best[above];

      while (above < n && best[above] <= p)
        above++;
      fprintf (fp, " H%.2f V%.2f", svg_x (o, p),
               svg_y ((double) (n - above) / n));
    }
  fprintf (fp, " H%.2f\"/>\n", svg_x (o, o->svg_max));
  free (best);
}

void
write_svg (const struct settings *o, const struct summary *s, size_t n)
{
  struct dice_outfile out;
  FILE *fp;
  size_t nlevels = n - 1;
  size_t ncurves = nlevels > 1 ? n : nlevels;

  if (!dice_outfile_open (&out, o->svg_path))
    {
      dice_error_errno (errno, "cannot write '%s'", o->svg_path);
      exit (DICE_EXIT_TROUBLE);
    }
  fp = out.fp;
  fprintf (fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
           "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
           "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
           "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"10\">\n"
           "<title>fast_p against p (%s view)</title>\n"
           "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
           SVG_WIDTH, SVG_HEIGHT, SVG_WIDTH, SVG_HEIGHT,
           view_names[speed_view (o)]);
  /* Grid lines and tick labels: p in quarters of the range, fast_p in
     quarters of 100%.  */
  for (int i = 0; i <= 4; i++)
    {
      double p = o->svg_max * i / 4, y = svg_y (i / 4.0);

      fprintf (fp, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" "
               "stroke=\"#dddddd\"/>\n", svg_x (o, p), PLOT_TOP, svg_x (o, p),
               PLOT_BOTTOM);
      fprintf (fp, "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">%g"
               "</text>\n", svg_x (o, p), PLOT_BOTTOM + 13, p);
      fprintf (fp, "<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" "
               "stroke=\"#dddddd\"/>\n", PLOT_LEFT, y, PLOT_RIGHT, y);
      fprintf (fp, "<text x=\"%d\" y=\"%.2f\" text-anchor=\"end\">%d"
               "</text>\n", PLOT_LEFT - 4, y + 3.5, 25 * i);
    }
  if (o->svg_max > 1)
    fprintf (fp, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" "
             "stroke=\"#888888\" stroke-dasharray=\"2,2\"/>\n",
             svg_x (o, 1), PLOT_TOP, svg_x (o, 1), PLOT_BOTTOM);
  fprintf (fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
           "fill=\"none\" stroke=\"black\"/>\n", PLOT_LEFT, PLOT_TOP,
           PLOT_RIGHT - PLOT_LEFT, PLOT_BOTTOM - PLOT_TOP);
  fprintf (fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">speedup "
           "threshold p</text>\n", (PLOT_LEFT + PLOT_RIGHT) / 2,
           SVG_HEIGHT - 10);
  fprintf (fp, "<text transform=\"translate(14,%d) rotate(-90)\" "
           "text-anchor=\"middle\">fast<tspan dy=\"3\" font-size=\"7\">p"
           "</tspan><tspan dy=\"-3\" dx=\"3\">(%% of problems)</tspan></text>\n",
           (PLOT_TOP + PLOT_BOTTOM) / 2);
  for (size_t i = 0; i < ncurves; i++)
    {
      bool all = s[i].level < 0;
      const char *colour = all ? "black"
        : svg_colours[i % DICE_ARRAY_SIZE (svg_colours)];
      int y = PLOT_TOP + 8 + 14 * (int) i;

      svg_curve (o, fp, s[i].level, colour, all);
      fprintf (fp, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
               "stroke=\"%s\" stroke-width=\"1.5\"%s/>\n", PLOT_RIGHT + 8, y,
               PLOT_RIGHT + 26, y, colour,
               all ? " stroke-dasharray=\"4,2\"" : "");
      if (all)
        fprintf (fp, "<text x=\"%d\" y=\"%d\">All</text>\n",
                 PLOT_RIGHT + 30, y + 3);
      else
        fprintf (fp, "<text x=\"%d\" y=\"%d\">Level %ld</text>\n",
                 PLOT_RIGHT + 30, y + 3, s[i].level);
    }
  fputs ("</svg>\n", fp);
  if (!dice_outfile_commit (&out))
    {
      dice_error_errno (errno, "write error on '%s'", o->svg_path);
      exit (DICE_EXIT_TROUBLE);
    }
}

