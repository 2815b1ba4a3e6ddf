/* score-format.c: dice-score summaries drawn as text, Markdown, CSV,
   JSON or a LaTeX table in the DICE paper's layout.  */
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

/* Cells and tables.  A grid of cells (row 0 the header) is drawn as
   aligned text, Markdown or CSV, so every format shows the same numbers.  */

void
grid_add (struct grid *g, char *cell)
{
  if (g->ncells == g->cap)
    {
      g->cap = g->cap ? 2 * g->cap : 64;
      g->cells = xrealloc (g->cells, g->cap * sizeof *g->cells);
    }
  g->cells[g->ncells++] = cell;
}

static size_t
grid_rows (const struct grid *g)
{
  return g->ncells / g->cols;
}

static const char *
grid_cell (const struct grid *g, size_t row, size_t col)
{
  return g->cells[row * g->cols + col];
}

void
grid_free (struct grid *g)
{
  for (size_t i = 0; i < g->ncells; i++)
    free (g->cells[i]);
  free (g->cells);
  memset (g, 0, sizeof *g);
}

/* G with rows and columns swapped.  */
static struct grid
grid_transpose (struct grid *g)
{
  struct grid t = { .cols = grid_rows (g) };

  for (size_t c = 0; c < g->cols; c++)
    for (size_t r = 0; r < grid_rows (g); r++)
      grid_add (&t, xstrdup (grid_cell (g, r, c)));
  return t;
}

static bool
format_for_people (const struct settings *o)
{
  return o->format == FORMAT_TEXT || o->format == FORMAT_MARKDOWN;
}

char *
cell_count (unsigned long n)
{
  return xasprintf ("%lu", n);
}

/* A share: a percentage with one decimal for people, a fraction for
   programs; an empty or "-" cell when it is undefined.  */
static char *
cell_rate (const struct settings *o, double x)
{
  if (isnan (x))
    return xstrdup (format_for_people (o) ? "-" : "");
  if (format_for_people (o))
    return xasprintf ("%.1f%%", 100 * x);
  return xasprintf ("%.10g", x);
}

char *
cell_speedup (const struct settings *o, double x)
{
  if (isnan (x))
    return xstrdup (format_for_people (o) ? "-" : "");
  if (format_for_people (o))
    return xasprintf ("%.3f", x);
  return xasprintf ("%.10g", x);
}

char *
cell_level (long level)
{
  return level < 0 ? xstrdup ("all") : xasprintf ("%ld", level);
}

/* Column names for the metrics that depend on -k and -p.  */
static char *
pass_name (unsigned long k)
{
  return xasprintf ("pass@%lu", k);
}

static char *
fast_at_name (const struct settings *o, size_t j, unsigned long k)
{
  return xasprintf ("fast_%g@%lu", o->ps[j], k);
}

static char *
fast_best_name (const struct settings *o, size_t j)
{
  return xasprintf ("fast_%g_best_of_n", o->ps[j]);
}

/* The metrics of a view in the order every format gives them: first the
   paper's Exec and fast_p (pass@1 and fast_p@1), then pass@k and fast_p@k
   for the other k of -k, then best of n.  A name and a value each.  */
struct metric
{
  char *name;
  double value;
};

#define MAX_METRICS (2 + (MAX_LIST + 1) * (MAX_LIST + 1) + MAX_LIST)

static size_t
view_metrics (const struct settings *o, const struct view_summary *vs,
              struct metric *m)
{
  size_t n = 0;

  m[n++] = (struct metric) { pass_name (1), vs->pass1 };
  for (size_t j = 0; j < o->nps; j++)
    m[n++] = (struct metric) { fast_at_name (o, j, 1), vs->fast1[j] };
  for (size_t k = 0; k < o->nks; k++)
    {
      if (o->ks[k] == 1)
        continue;
      m[n++] = (struct metric) { pass_name (o->ks[k]), vs->pass[k] };
      for (size_t j = 0; j < o->nps; j++)
        m[n++] = (struct metric) { fast_at_name (o, j, o->ks[k]),
                                   vs->fast_at[j][k] };
    }
  m[n++] = (struct metric) { xstrdup ("best_of_n"), vs->best_of_n };
  for (size_t j = 0; j < o->nps; j++)
    m[n++] = (struct metric) { fast_best_name (o, j), vs->fast_best_of_n[j] };
  return n;
}

static void
free_metrics (struct metric *m, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free (m[i].name);
}

static void
draw_text (const struct grid *g)
{
  size_t *width = xcalloc (g->cols, sizeof *width);

  for (size_t i = 0; i < g->ncells; i++)
    {
      size_t len = strlen (g->cells[i]);

      if (len > width[i % g->cols])
        width[i % g->cols] = len;
    }
  for (size_t r = 0; r < grid_rows (g); r++)
    {
      for (size_t c = 0; c < g->cols; c++)
        if (c == 0)
          printf ("%-*s", (int) width[c], grid_cell (g, r, c));
        else
          printf ("  %*s", (int) width[c], grid_cell (g, r, c));
      putchar ('\n');
    }
  free (width);
}

static void
markdown_cell (const char *s)
{
  for (; *s; s++)
    {
      if (*s == '|' || *s == '\\')
        putchar ('\\');
      putchar (*s);
    }
}

/* The first column is left-aligned, the numbers right-aligned.  */
static void
draw_markdown (const struct grid *g)
{
  for (size_t r = 0; r < grid_rows (g); r++)
    {
      for (size_t c = 0; c < g->cols; c++)
        {
          fputs ("| ", stdout);
          markdown_cell (grid_cell (g, r, c));
          putchar (' ');
        }
      fputs ("|\n", stdout);
      if (r == 0)
        {
          for (size_t c = 0; c < g->cols; c++)
            fputs (c == 0 ? "|:---" : "|---:", stdout);
          fputs ("|\n", stdout);
        }
    }
}

/* RFC 4180: quote a field holding a comma, a quote or a line break.  */
static void
csv_cell (const char *s)
{
  if (strpbrk (s, ",\"\r\n") == NULL)
    {
      fputs (s, stdout);
      return;
    }
  putchar ('"');
  for (; *s; s++)
    {
      if (*s == '"')
        putchar ('"');
      putchar (*s);
    }
  putchar ('"');
}

static void
draw_csv (const struct grid *g)
{
  for (size_t r = 0; r < grid_rows (g); r++)
    {
      for (size_t c = 0; c < g->cols; c++)
        {
          if (c)
            putchar (',');
          csv_cell (grid_cell (g, r, c));
        }
      putchar ('\n');
    }
}

void
draw (const struct settings *o, const struct grid *g)
{
  switch (o->format)
    {
    case FORMAT_MARKDOWN:
      draw_markdown (g);
      break;
    case FORMAT_CSV:
      draw_csv (g);
      break;
    default:
      draw_text (g);
      break;
    }
}

/* The summary as a grid: a row per level and view.  */
static struct grid
summary_grid (const struct settings *o, const struct summary *s, size_t n)
{
  struct grid g = { 0 };
  struct metric m[MAX_METRICS];
  size_t nm = view_metrics (o, &s[0].view[0], m);
  static const char *const lead[] = {
    "level", "view", "problems", "samples", "no_record", "compile_rate",
    "deception_rate"
  };
  static const char *const tail[] = {
    "geomean_speedup", "timed", "bad_speedups"
  };

  if (o->label)
    grid_add (&g, xstrdup ("label"));
  for (size_t i = 0; i < DICE_ARRAY_SIZE (lead); i++)
    grid_add (&g, xstrdup (lead[i]));
  for (size_t i = 0; i < nm; i++)
    grid_add (&g, xstrdup (m[i].name));
  free_metrics (m, nm);
  for (size_t i = 0; i < DICE_ARRAY_SIZE (tail); i++)
    grid_add (&g, xstrdup (tail[i]));
  g.cols = g.ncells;

  for (size_t i = 0; i < n; i++)
    for (int v = 0; v < NVIEWS; v++)
      {
        const struct view_summary *vs = &s[i].view[v];

        if (!o->views[v])
          continue;
        if (o->label)
          grid_add (&g, xstrdup (o->label));
        grid_add (&g, cell_level (s[i].level));
        grid_add (&g, xstrdup (view_names[v]));
        grid_add (&g, cell_count (s[i].problems));
        grid_add (&g, cell_count (s[i].samples));
        grid_add (&g, cell_count (s[i].missing));
        grid_add (&g, cell_rate (o, s[i].compile_rate));
        grid_add (&g, cell_rate (o, s[i].deception_rate));
        nm = view_metrics (o, vs, m);
        for (size_t j = 0; j < nm; j++)
          grid_add (&g, cell_rate (o, m[j].value));
        free_metrics (m, nm);
        grid_add (&g, cell_speedup (o, vs->geomean));
        grid_add (&g, cell_count (vs->timed));
        grid_add (&g, cell_count (s[i].bad_speedups));
      }
  return g;
}

/* JSON's numbers cannot say NaN: an undefined value is null.  */
json_t *
json_number_or_null (double x)
{
  return isfinite (x) ? json_real (x) : json_null ();
}

void
set_new (json_t *obj, const char *key, json_t *value)
{
  if (value == NULL || json_object_set_new (obj, key, value) != 0)
    {
      dice_error ("memory exhausted");
      exit (DICE_EXIT_TROUBLE);
    }
}

static json_t *
view_json (const struct settings *o, const struct view_summary *vs)
{
  json_t *j = json_object ();
  struct metric m[MAX_METRICS];
  size_t nm = view_metrics (o, vs, m);

  set_new (j, "correct", json_integer (vs->correct));
  set_new (j, "solved", json_integer (vs->solved));
  for (size_t i = 0; i < nm; i++)
    set_new (j, m[i].name, json_number_or_null (m[i].value));
  free_metrics (m, nm);
  set_new (j, "geomean_speedup", json_number_or_null (vs->geomean));
  set_new (j, "timed", json_integer (vs->timed));
  set_new (j, "untimed", json_integer (vs->untimed));
  return j;
}

void
write_json_line (const json_t *j)
{
  if (dice_jsonl_write (stdout, j) != 0)
    write_failed ();
}

void
write_summary_json (const struct settings *o, const struct summary *s,
                    size_t n)
{
  json_t *top = json_object (), *levels = json_array (), *ks = json_array (),
    *ps = json_array ();

  if (o->label)
    set_new (top, "label", json_string (o->label));
  set_new (top, "records", json_integer (record_count));
  for (size_t k = 0; k < o->nks; k++)
    json_array_append_new (ks, json_integer (o->ks[k]));
  for (size_t j = 0; j < o->nps; j++)
    json_array_append_new (ps, json_real (o->ps[j]));
  set_new (top, "pass_at", ks);
  set_new (top, "fast_p", ps);
  set_new (top, "problems_from", json_string (o->tasks_path ? "tasks"
                                                : "records"));
  if (o->tasks_path)
    set_new (top, "tasks", json_string (o->tasks_path));
  for (size_t i = 0; i < n; i++)
    {
      json_t *l = json_object ();

      set_new (l, "level", s[i].level < 0 ? json_string ("all")
               : json_integer (s[i].level));
      set_new (l, "problems", json_integer (s[i].problems));
      set_new (l, "samples", json_integer (s[i].samples));
      set_new (l, "no_record", json_integer (s[i].missing));
      set_new (l, "compiled", json_integer (s[i].compiled));
      set_new (l, "compile_rate", json_number_or_null (s[i].compile_rate));
      set_new (l, "checked", json_integer (s[i].checked));
      set_new (l, "correct", json_integer (s[i].correct));
      set_new (l, "deceptive", json_integer (s[i].deceptive));
      set_new (l, "deception_rate", json_number_or_null (s[i].deception_rate));
      set_new (l, "bad_speedups", json_integer (s[i].bad_speedups));
      for (int v = 0; v < NVIEWS; v++)
        if (o->views[v])
          set_new (l, view_names[v], view_json (o, &s[i].view[v]));
      set_new (l, "provenance", provenance_json (s[i].level));
      json_array_append_new (levels, l);
    }
  set_new (top, "levels", levels);
  write_json_line (top);
  json_decref (top);
}

/* What the summary's headline figures are and where N came from, for
   people: lines that start with PREFIX ("% " in LaTeX, which names the
   figures as the paper does).  */
static void
write_notes (const struct settings *o, const struct summary *s, size_t n,
             const char *prefix)
{
  if (o->format == FORMAT_LATEX)
    printf ("%sExec and fast_p are pass@1 and fast_p@1: the mean over the N "
            "problems of a\n%slevel of the share of their samples that are "
            "correct (and faster than p)\n", prefix, prefix);
  else
    printf ("%spass@1 and fast_p@1 (Exec and fast_p in the DICE paper): the "
            "mean over the N\n%sproblems of a level of the share of their "
            "samples that are correct (and faster\n%sthan p); best_of_n and "
            "fast_p_best_of_n: the share of the problems with such a\n"
            "%ssample\n", prefix, prefix, prefix, prefix);
  if (o->tasks_path)
    {
      printf ("%sN: the tasks of '", prefix);
      /* A line break in the name would end a LaTeX comment.  */
      for (const char *c = o->tasks_path; *c; c++)
        putchar (*c == '\n' || *c == '\r' ? '?' : *c);
      printf ("' (%lu in all, %lu with no record, counted as failures)\n",
              s[n - 1].problems, s[n - 1].missing);
    }
  else
    printf ("%sN: the problems that have records (--tasks gives the "
            "problem set)\n", prefix);
}

/* LaTeX: the layout of the DICE paper's tables, a row per model with
   Exec and fast_p for each level, in percent.  */

static void
latex_text (const char *s)
{
  for (; *s; s++)
    switch (*s)
      {
      case '\\':
        fputs ("\\textbackslash{}", stdout);
        break;
      case '~':
        fputs ("\\textasciitilde{}", stdout);
        break;
      case '^':
        fputs ("\\textasciicircum{}", stdout);
        break;
      case '_': case '&': case '%': case '#': case '$': case '{': case '}':
        putchar ('\\');
        /* Fall through.  */
      default:
        putchar (*s);
      }
}

static void
latex_rate (double x)
{
  if (isnan (x))
    fputs (" & --", stdout);
  else
    printf (" & %.1f", 100 * x);
}

void
write_latex (const struct settings *o, const struct summary *s, size_t n)
{
  size_t nlevels = n - 1;       /* the per-level columns; not "all" */
  size_t per_level = 1 + o->nps;
  const char *label = o->label ? o->label : first_model ? first_model
    : "model";

  if (!o->rows_only)
    {
      fputs ("% dice-score --latex; needs \\usepackage{booktabs}\n", stdout);
      write_notes (o, s, n, "% ");
      fputs ("\\begin{tabular}{l", stdout);
      for (size_t c = 0; c < nlevels * per_level; c++)
        putchar ('c');
      fputs ("}\n\\toprule\n", stdout);
      for (size_t i = 0; i < nlevels; i++)
        printf (" & \\multicolumn{%zu}{c}{Level %ld}", per_level, s[i].level);
      fputs (" \\\\\n", stdout);
      for (size_t i = 0; i < nlevels; i++)
        printf ("%s\\cmidrule(lr){%zu-%zu}", i ? " " : "",
                2 + i * per_level, 1 + (i + 1) * per_level);
      fputs ("\nModel", stdout);
      for (size_t i = 0; i < nlevels; i++)
        {
          fputs (" & Exec", stdout);
          for (size_t j = 0; j < o->nps; j++)
            printf (" & fast$_{%g}$", o->ps[j]);
        }
      fputs (" \\\\\n\\midrule\n", stdout);
    }
  for (int v = 0; v < NVIEWS; v++)
    {
      if (!o->views[v])
        continue;
      latex_text (label);
      if (v == VIEW_PLAIN && o->views[VIEW_ROBUST])
        fputs (" (plain)", stdout);
      for (size_t i = 0; i < nlevels; i++)
        {
          latex_rate (s[i].view[v].pass1);
          for (size_t j = 0; j < o->nps; j++)
            latex_rate (s[i].view[v].fast1[j]);
        }
      fputs (" \\\\\n", stdout);
    }
  if (!o->rows_only)
    fputs ("\\bottomrule\n\\end{tabular}\n", stdout);
}


/* What the samples of LEVEL were judged with: an array per kind of the
   distinct values (empty where no record says), and the kinds mixed.  */
json_t *
provenance_json (long level)
{
  const struct provenance *p = provenance_of (level);
  json_t *j = json_object (), *mixed = json_array ();

  for (int k = 0; k < NPROVENANCE; k++)
    {
      json_t *values = json_array ();
      char *msg = mixing_message (p, k);

      for (size_t i = 0; p && i < p->n[k]; i++)
        json_array_append_new (values, json_string (p->values[k][i]));
      set_new (j, provenance_names[k], values);
      if (msg)
        json_array_append_new (mixed, json_string (msg));
      free (msg);
    }
  set_new (j, "warnings", mixed);
  return j;
}

/* Under the table, a line per level saying what it covers, and the
   warnings about mixing that went to standard error.  */
void
write_provenance_text (const struct summary *s, size_t n)
{
  static const char *const labels[NPROVENANCE] = {
    "device", "uuid", "torch", "CUDA", "tolerance", "precision", "baseline"
  };

  for (size_t i = 0; i < n; i++)
    {
      const struct provenance *p = provenance_of (s[i].level);

      if (s[i].level < 0)
        fputs ("all levels:", stdout);
      else
        printf ("level %ld:", s[i].level);
      for (int k = 0, said = 0; k < NPROVENANCE; k++)
        {
          size_t nv = p ? p->n[k] : 0;

          if (nv == 0)
            continue;
          printf ("%s %s ", said++ ? ";" : "", labels[k]);
          for (size_t v = 0; v < nv; v++)
            printf ("%s%s", v ? " | " : "", p->values[k][v]);
          if (p->more[k])
            fputs (" | ...", stdout);
        }
      if (!p)
        fputs (" nothing recorded of device, torch, tolerance, precision "
               "or baseline", stdout);
      putchar ('\n');
      for (int k = 0; k < NPROVENANCE; k++)
        {
          char *msg = mixing_message (p, k);

          if (msg)
            printf ("warning: %s\n", msg);
          free (msg);
        }
    }
  if (fflush (stdout) != 0 || ferror (stdout))
    write_failed ();
}

/* The summary as a table: for people the levels and views are columns
   (metrics as rows); Markdown and CSV have a row per level and view.  */
void
write_summary_table (const struct settings *o, const struct summary *s,
                     size_t n)
{
  struct grid g = summary_grid (o, s, n);

  if (o->format == FORMAT_TEXT)
    {
      struct grid t = grid_transpose (&g);

      draw (o, &t);
      grid_free (&t);
      putchar ('\n');
      write_notes (o, s, n, "");
      write_provenance_text (s, n);
    }
  else
    draw (o, &g);
  grid_free (&g);
}
