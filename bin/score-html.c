/* score-html.c: dice-score --html: the summary as one self-contained page
   (inline CSS and SVG, nothing fetched): provenance, per level the robust
   and plain views side by side with their fast_p plots, and a row per
   problem with its deception flags and errors on demand.  */
#include "system.h"

#include <math.h>
#include <sys/stat.h>

#include "jsonl.h"
#include "msg.h"
#include "stats.h"
#include "strmap.h"
#include "xalloc.h"
#include "outfile.h"
#include "score.h"

/* The facts reading does not keep (where records ran, flag evidence,
   error text) come from a second pass over the FILEs; records read from
   standard input cannot be read again and go without them.  */

/* What the page says of one problem beyond the counts.  */
struct detail
{
  unsigned long flags;          /* deception flags raised, all samples */
  unsigned long errors;         /* samples with an error message */
  char *text;                   /* escaped <li> items, or NULL */
  size_t len, items;
};

/* The items kept per problem: enough to see the pattern, not a dump.  */
#define MAX_ITEMS 20

/* A provenance field: each distinct value and how many records had it.  */
struct tally
{
  const char *label, *object, *key;
  char **values;
  unsigned long *counts;
  size_t n;
};

/* Several models are several runs; several of anything else within one
   report is worth a warning.  */
static struct tally tallies[] = {
  {"Model", "sample", "model", NULL, NULL, 0},
  {"Checked on", "check", "device", NULL, NULL, 0},
  {"Timed on", "time", "device", NULL, NULL, 0},
  {"torch", "check", "torch", NULL, NULL, 0},
  {"CUDA", "check", "cuda", NULL, NULL, 0},
  {"Tolerance", "check", "tolerance", NULL, NULL, 0},
  {"Precision", "check", "precision", NULL, NULL, 0},
  {"Baseline", "time", "baseline", NULL, NULL, 0},
};

static struct dice_strmap details;
static bool from_stdin;
static unsigned long total_flags, flagged_samples;

static void
tally_add (struct tally *t, const char *value)
{
  for (size_t i = 0; i < t->n; i++)
    if (strcmp (t->values[i], value) == 0)
      {
        t->counts[i]++;
        return;
      }
  t->values = xrealloc (t->values, (t->n + 1) * sizeof *t->values);
  t->counts = xrealloc (t->counts, (t->n + 1) * sizeof *t->counts);
  t->values[t->n] = xstrdup (value);
  t->counts[t->n++] = 1;
}

static struct detail *
detail_for (const char *id)
{
  struct dice_strmap_entry *e = dice_strmap_add (&details, id);

  if (e == NULL)
    dice_die_memory ();
  if (e->value == NULL)
    e->value = xcalloc (1, sizeof (struct detail));
  return e->value;
}

/* Add "<li><b>WHAT</b> TEXT</li>" to D, both escaped.  */
static void
detail_item (struct detail *d, long long index, const char *what,
             const char *text)
{
  char *buf = NULL;
  size_t size = 0;
  FILE *fp;

  if (d->items++ >= MAX_ITEMS)
    return;
  fp = open_memstream (&buf, &size);
  if (fp == NULL)
    dice_die_memory ();
  fputs ("<li>", fp);
  if (index >= 0)
    fprintf (fp, "sample %lld: ", index);
  fputs ("<b>", fp);
  write_escaped (fp, what);
  fputs ("</b> ", fp);
  write_escaped (fp, text);
  fputs ("</li>\n", fp);
  fclose (fp);
  d->text = xrealloc (d->text, d->len + size + 1);
  memcpy (d->text + d->len, buf, size + 1);
  d->len += size;
  free (buf);
}

/* The flags of a deception object (check's or time's) that made the
   sample deceptive, with their evidence.  */
static unsigned long
note_deception (struct detail *d, long long index, json_t *deception)
{
  json_t *because = json_object_get (deception, "because");
  json_t *evidence = json_object_get (deception, "evidence");
  unsigned long raised = 0;
  size_t i;
  json_t *flag;

  json_array_foreach (because, i, flag)
    {
      const char *why = json_string_value (json_object_get
                                           (evidence,
                                            json_string_value (flag)));

      if (!json_is_string (flag))
        continue;
      detail_item (d, index, json_string_value (flag), why ? why : "");
      raised++;
    }
  return raised;
}

static void
note_record (json_t *rec)
{
  const char *id = json_string_value (json_object_get (rec, "id"));
  json_t *check = json_object_get (rec, "check");
  json_t *index = json_object_get (json_object_get (rec, "sample"),
                                   "index");
  long long n = json_is_integer (index) ? json_integer_value (index) : -1;
  struct detail *d;
  unsigned long raised;
  const char *status, *error;

  for (size_t t = 0; t < DICE_ARRAY_SIZE (tallies); t++)
    {
      const char *v = json_string_value
        (json_object_get (json_object_get (rec, tallies[t].object),
                          tallies[t].key));

      if (v)
        tally_add (&tallies[t], v);
    }
  if (id == NULL)
    return;
  d = detail_for (id);
  raised = note_deception (d, n, json_object_get (check, "deception"))
    + note_deception (d, n, json_object_get (json_object_get (rec, "time"),
                                             "deception"));
  d->flags += raised;
  total_flags += raised;
  flagged_samples += raised > 0;
  status = json_string_value (json_object_get (check, "status"));
  error = json_string_value (json_object_get (check, "error"));
  if (status && error && strcmp (status, "correct") != 0)
    {
      detail_item (d, n, status, error);
      d->errors++;
    }
}

/* The second pass, over the FILEs main read (none: standard input).  A
   FILE that is not a regular file (a pipe, "<(...)") was used up by the
   first.  */
void
html_read_details (char *const *paths, size_t npaths)
{
  if (npaths == 0)
    from_stdin = true;
  for (size_t i = 0; i < npaths; i++)
    {
      struct dice_jsonl_reader in;
      struct stat st;
      json_t *rec;
      char err[64];
      int got;

      if (strcmp (paths[i], "-") == 0 || stat (paths[i], &st) != 0
          || !S_ISREG (st.st_mode) || dice_jsonl_open (&in, paths[i]))
        {
          from_stdin = true;
          continue;
        }
      while ((got = dice_jsonl_next (&in, &rec, err, sizeof err)) != 0)
        if (got == 1)
          {
            note_record (rec);
            json_decref (rec);
          }
        else if (got == -2)
          break;
      dice_jsonl_close (&in);
    }
}

static const char page_style[] = "\
body{font-family:Helvetica,Arial,sans-serif;color:#222;margin:24px auto;\
max-width:1180px;padding:0 16px;line-height:1.4}\n\
h1{font-size:26px;margin-bottom:4px}h2{font-size:20px;margin-top:32px;\
border-bottom:2px solid #0072B2;padding-bottom:4px}\n\
table{border-collapse:collapse;margin:8px 0}\n\
th,td{border:1px solid #ccc;padding:4px 8px;text-align:right;\
vertical-align:top}\n\
th{background:#eef3f8}td.id,th.id{text-align:left}\n\
tr:nth-child(even) td{background:#fafafa}\n\
.views{display:flex;flex-wrap:wrap;gap:16px}\n\
.view{flex:1 1 460px}\n\
.view h3{margin:4px 0;font-size:16px}\n\
.bad{color:#b00020;font-weight:bold}.note{color:#666;font-size:13px}\n\
.cards{display:flex;gap:12px;flex-wrap:wrap}\n\
.card{border:1px solid #ccc;border-radius:6px;padding:8px 14px;\
background:#f6f8fa}.card b{display:block;font-size:22px}\n\
details{text-align:left;max-width:520px}\n\
details ul{margin:4px 0;padding-left:18px;font-size:12px;\
font-family:monospace}\n\
details li{white-space:pre-wrap;overflow-wrap:anywhere;margin:2px 0}\n";

static void
write_number (FILE *fp, double x, const char *suffix)
{
  if (isnan (x))
    fputs ("<td>&ndash;</td>", fp);
  else
    fprintf (fp, "<td>%.3g%s</td>", x, suffix);
}

static void
write_provenance (FILE *fp)
{
  fputs ("<h2>Provenance</h2>\n", fp);
  if (from_stdin)
    fputs ("<p class=\"note\">Records read from standard input (or a "
           "pipe) cannot be read a second time: give them as FILEs for "
           "provenance, flag evidence and errors.</p>\n", fp);
  fputs ("<table>\n", fp);
  for (size_t t = 0; t < DICE_ARRAY_SIZE (tallies); t++)
    {
      struct tally *ta = &tallies[t];

      bool mixed = ta->n > 1 && t > 0;

      fprintf (fp, "<tr><th class=\"id\">%s</th><td class=\"id\">",
               ta->label);
      if (ta->n == 0)
        fputs ("not recorded", fp);
      for (size_t i = 0; i < ta->n; i++)
        {
          fputs (i ? "; " : "", fp);
          write_escaped (fp, ta->values[i]);
          fprintf (fp, " (%lu)", ta->counts[i]);
        }
      if (mixed)
        fputs (" <span class=\"bad\">mixed</span>", fp);
      fputs ("</td></tr>\n", fp);
    }
  fputs ("</table>\n", fp);
}

static void
write_view_table (const struct settings *o, FILE *fp,
                  const struct view_summary *v)
{
  fputs ("<table><tr><th class=\"id\">metric</th><th>value</th></tr>\n",
         fp);
  fputs ("<tr><td class=\"id\">Exec: pass@1</td>", fp);
  write_number (fp, 100 * v->pass1, "%");
  fputs ("</tr>\n", fp);
  for (size_t p = 0; p < o->nps; p++)
    {
      fprintf (fp, "<tr><td class=\"id\">fast_%g: fast_%g@1</td>", o->ps[p],
               o->ps[p]);
      write_number (fp, 100 * v->fast1[p], "%");
      fputs ("</tr>\n", fp);
    }
  for (size_t k = 0; k < o->nks; k++)
    if (o->ks[k] != 1)
      {
        fprintf (fp, "<tr><td class=\"id\">pass@%lu</td>", o->ks[k]);
        write_number (fp, 100 * v->pass[k], "%");
        fputs ("</tr>\n", fp);
      }
  fprintf (fp, "<tr><td class=\"id\">best of n (problems solved)</td>"
           "<td>%lu</td></tr>\n", v->solved);
  fputs ("<tr><td class=\"id\">best of n</td>", fp);
  write_number (fp, 100 * v->best_of_n, "%");
  fputs ("</tr>\n", fp);
  for (size_t p = 0; p < o->nps; p++)
    {
      fprintf (fp, "<tr><td class=\"id\">fast_%g best of n</td>", o->ps[p]);
      write_number (fp, 100 * v->fast_best_of_n[p], "%");
      fputs ("</tr>\n", fp);
    }
  fputs ("<tr><td class=\"id\">geometric-mean speedup</td>", fp);
  write_number (fp, v->geomean, "&times;");
  fprintf (fp, "</tr>\n<tr><td class=\"id\">correct samples (timed)</td>"
           "<td>%lu (%lu)</td></tr>\n</table>\n", v->correct, v->timed);
}

static void
write_level (const struct settings *o, FILE *fp, const struct summary *s)
{
  if (s->level < 0)
    fputs ("<h2>All levels</h2>\n", fp);
  else
    fprintf (fp, "<h2>Level %ld</h2>\n", s->level);
  fprintf (fp, "<div class=\"cards\">"
           "<div class=\"card\"><b>%lu</b>problems</div>"
           "<div class=\"card\"><b>%lu</b>samples</div>"
           "<div class=\"card\"><b>%lu</b>compile errors</div>"
           "<div class=\"card\"><b>%lu</b>correct</div>"
           "<div class=\"card\"><b>%lu</b>deceptive</div></div>\n",
           s->problems, s->samples, s->samples - s->compiled, s->correct,
           s->deceptive);
  fputs ("<div class=\"views\">\n", fp);
  for (int v = 0; v < NVIEWS; v++)
    {
      fprintf (fp, "<div class=\"view\"><h3>%s view%s</h3>\n",
               v == VIEW_ROBUST ? "Robust" : "Plain",
               v == VIEW_ROBUST ? " (deceptive samples are not correct)"
               : " (every correct sample counts)");
      svg_plot (o, fp, s->level, (enum view) v, false, 0, 0);
      write_view_table (o, fp, &s->view[v]);
      fputs ("</div>\n", fp);
    }
  fputs ("</div>\n", fp);
}

static void
write_problem_row (FILE *fp, const struct problem *p, enum view v)
{
  double *values = xcalloc (p->nspeeds + 1, sizeof *values);
  size_t n = 0;
  struct detail *d = dice_strmap_get (&details, p->id);
  double median;

  for (size_t i = 0; i < p->nspeeds; i++)
    if (speed_in_view (&p->speeds[i], v))
      values[n++] = p->speeds[i].value;
  fputs ("<tr><td class=\"id\">", fp);
  write_escaped (fp, p->id);
  fputs ("</td>", fp);
  fprintf (fp, "<td>%lu</td><td>%lu</td><td>%lu</td><td%s>%lu</td>",
           p->samples, p->status[ST_CORRECT], p->status[ST_INCORRECT],
           p->status[ST_COMPILE_ERROR] ? " class=\"bad\"" : "",
           p->status[ST_COMPILE_ERROR]);
  fprintf (fp, "<td>%lu</td>", p->samples - p->status[ST_CORRECT]
           - p->status[ST_INCORRECT] - p->status[ST_COMPILE_ERROR]);
  median = dice_median (values, n);     /* sorts VALUES */
  write_number (fp, n ? values[n - 1] : NAN, "&times;");
  write_number (fp, median, "&times;");
  fprintf (fp, "<td%s>%lu</td><td class=\"id\">",
           p->deceptive ? " class=\"bad\"" : "", p->deceptive);
  if (d && d->text)
    {
      fputs ("<details><summary>", fp);
      if (d->flags)
        fprintf (fp, "%lu flag%s", d->flags, d->flags == 1 ? "" : "s");
      if (d->errors)
        fprintf (fp, "%s%lu error%s", d->flags ? ", " : "", d->errors,
                 d->errors == 1 ? "" : "s");
      fputs ("</summary><ul>\n", fp);
      fputs (d->text, fp);
      if (d->items > MAX_ITEMS)
        fprintf (fp, "<li>... and %zu more</li>\n", d->items - MAX_ITEMS);
      fputs ("</ul></details>", fp);
    }
  fputs ("</td></tr>\n", fp);
  free (values);
}

/* Problems in the order of their ids' numbers: L1/2_X before L1/10_Y.  */
static int
compare_ids (const void *a, const void *b)
{
  return strverscmp ((*(struct problem *const *) a)->id,
                     (*(struct problem *const *) b)->id);
}

static void
write_problems (const struct settings *o, FILE *fp, long level)
{
  struct problem **sorted = xcalloc (nproblems + 1, sizeof *sorted);
  size_t n = 0;

  for (size_t i = 0; i < nproblems; i++)
    if (problems[i]->level == level)
      sorted[n++] = problems[i];
  qsort (sorted, n, sizeof *sorted, compare_ids);
  fputs ("<table class=\"problems\">\n<tr><th class=\"id\">problem</th>"
         "<th>samples</th><th>correct</th><th>incorrect</th>"
         "<th>compile error</th><th>other failure</th>"
         "<th>best speedup</th><th>median speedup</th><th>deceptive</th>"
         "<th class=\"id\">flags and errors</th></tr>\n", fp);
  for (size_t i = 0; i < n; i++)
    write_problem_row (fp, sorted[i], speed_view (o));
  fputs ("</table>\n", fp);
  free (sorted);
}

static void
write_page (const struct settings *o, FILE *fp, const struct summary *s,
            size_t n)
{
  const struct summary *all = &s[n - 1];

  fputs ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "\n<title>dice-score report</title>\n<style>\n", fp);
  fputs (page_style, fp);
  fputs ("</style></head>\n<body>\n<h1>dice-score report</h1>\n"
         "<p class=\"note\">Runs: ", fp);
  for (size_t i = 0; i < run_count (); i++)
    {
      fputs (i ? ", " : "", fp);
      write_escaped (fp, run_label (i));
    }
  fprintf (fp, ". %lu records, %lu problems, %lu samples; %lu compile "
           "errors, %lu deception flags on %lu samples.</p>\n",
           record_count, all->problems, all->samples,
           all->samples - all->compiled, total_flags, flagged_samples);
  write_provenance (fp);
  for (size_t i = 0; i < n; i++)
    if (n > 2 || i == 0)
      write_level (o, fp, &s[i]);
  for (size_t i = 0; i + 1 < n; i++)
    {
      fprintf (fp, "<h2>Level %ld problems</h2>\n", s[i].level);
      fprintf (fp, "<p class=\"note\">Speedups in the %s view.</p>\n",
               view_names[speed_view (o)]);
      write_problems (o, fp, s[i].level);
    }
  fputs ("</body></html>\n", fp);
}

void
write_html (const struct settings *o, const struct summary *s, size_t n)
{
  struct dice_outfile out;

  output_open (&out, o->html_path);
  write_page (o, out.fp, s, n);
  output_commit (&out);
}

void
free_html (void)
{
  for (size_t i = 0; i < details.cap; i++)
    if (details.slots && details.slots[i].key)
      {
        struct detail *d = details.slots[i].value;

        free (d->text);
        free (d);
      }
  dice_strmap_free (&details);
  for (size_t t = 0; t < DICE_ARRAY_SIZE (tallies); t++)
    {
      for (size_t i = 0; i < tallies[t].n; i++)
        free (tallies[t].values[i]);
      free (tallies[t].values);
      free (tallies[t].counts);
    }
}
