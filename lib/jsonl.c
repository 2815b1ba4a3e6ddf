/* jsonl.c: JSON lines, one object per line, read and written with Jansson.
   Lines are read with getline and parsed with json_loadb: after a parse
   error json_loadf leaves the file position undefined, so the next line
   could not be found.  */
#include "system.h"

#include <ctype.h>
#include <math.h>

#include "closeout.h"
#include "jsonl.h"
#include "msg.h"
#include "options.h"

int
dice_jsonl_open (struct dice_jsonl_reader *r, const char *path)
{
  memset (r, 0, sizeof *r);
  if (strcmp (path, "-") == 0)
    {
      r->fp = stdin;
      r->name = "-";
      return 0;
    }
  r->fp = fopen (path, "r");
  if (r->fp == NULL)
    return -1;
  r->name = path;
  r->owns_fp = true;
  return 0;
}

static bool
is_blank (const char *s, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!isspace ((unsigned char) s[i]))
      return false;
  return true;
}

static const char *
type_name (const json_t *j)
{
  switch (json_typeof (j))
    {
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    default: return "an object";
    }
}

int
dice_jsonl_read_line (struct dice_jsonl_reader *r, char **line, size_t *len)
{
  for (;;)
    {
      ssize_t n;

      errno = 0;
      n = getline (&r->buf, &r->cap, r->fp);
      if (n < 0)
        return ferror (r->fp) ? -2 : 0;
      r->line++;
      if (is_blank (r->buf, n))
        continue;
      *line = r->buf;
      *len = n;
      return 1;
    }
}

int
dice_jsonl_parse (const char *line, size_t len, json_t **rec,
                  char *err, size_t errlen)
{
  json_error_t jerr;
  json_t *j = json_loadb (line, len, JSON_REJECT_DUPLICATES, &jerr);

  if (j == NULL)
    {
      snprintf (err, errlen, "invalid JSON: %s (column %d)",
                jerr.text, jerr.column);
      return -1;
    }
  if (!json_is_object (j))
    {
      snprintf (err, errlen, "expected a JSON object, found %s",
                type_name (j));
      json_decref (j);
      return -1;
    }
  *rec = j;
  return 1;
}

int
dice_jsonl_next (struct dice_jsonl_reader *r, json_t **rec,
                 char *err, size_t errlen)
{
  char *line;
  size_t len;
  int got = dice_jsonl_read_line (r, &line, &len);

  if (got != 1)
    return got;
  return dice_jsonl_parse (line, len, rec, err, errlen);
}

void
dice_input_problem (int *status)
{
  if (dice_opts.strict)
    exit (DICE_EXIT_TROUBLE);
  if (*status < DICE_EXIT_INPUT)
    *status = DICE_EXIT_INPUT;
}

void
dice_input_open (struct dice_jsonl_reader *r, const char *path)
{
  if (dice_jsonl_open (r, path) != 0)
    {
      dice_error_errno (errno, "cannot open '%s'", path);
      exit (DICE_EXIT_TROUBLE);
    }
}

json_t *
dice_input_next (struct dice_jsonl_reader *r, int *status)
{
  json_t *rec;
  char err[256];
  int got;

  while ((got = dice_jsonl_next (r, &rec, err, sizeof err)) == -1)
    {
      dice_error_at (r->name, r->line, "%s", err);
      dice_input_problem (status);
    }
  if (got == -2)
    {
      dice_error_errno (errno, "read error on '%s'", r->name);
      exit (DICE_EXIT_TROUBLE);
    }
  return got == 1 ? rec : NULL;
}

bool
dice_input_line (struct dice_jsonl_reader *r, char **line, size_t *len)
{
  int got = dice_jsonl_read_line (r, line, len);

  if (got == -2)
    {
      dice_error_errno (errno, "read error on '%s'", r->name);
      exit (DICE_EXIT_TROUBLE);
    }
  return got != 0;
}

void
dice_jsonl_close (struct dice_jsonl_reader *r)
{
  if (r->owns_fp && r->fp)
    fclose (r->fp);
  free (r->buf);
  memset (r, 0, sizeof *r);
}

int
dice_shortest_digits (double v)
{
  char buf[40];

  if (!isfinite (v))
    return 1;
  for (int p = 1; p < 17; p++)
    {
      snprintf (buf, sizeof buf, "%.*g", p, v);
      if (strtod (buf, NULL) == v)
        return p;
    }
  return 17;
}

static int
max_real_digits (const json_t *j, int best)
{
  const char *key;
  json_t *value;
  size_t i;

  switch (json_typeof (j))
    {
    case JSON_REAL:
      {
        int p = dice_shortest_digits (json_real_value (j));
        return p > best ? p : best;
      }
    case JSON_OBJECT:
      json_object_foreach ((json_t *) j, key, value)
        best = max_real_digits (value, best);
      return best;
    case JSON_ARRAY:
      json_array_foreach (j, i, value)
        best = max_real_digits (value, best);
      return best;
    default:
      return best;
    }
}

int
dice_jsonl_write (FILE *fp, const json_t *rec)
{
  /* Jansson takes one precision for the whole document: the largest any
     real in it needs is exact for all of them.  */
  int digits = max_real_digits (rec, 1);

  if (json_dumpf (rec, fp, JSON_COMPACT | JSON_REAL_PRECISION (digits)) != 0
      || putc ('\n', fp) == EOF || ferror (fp))
    {
      /* The caller says "write error"; the exit handler must not again.  */
      if (fp == stdout)
        dice_stdout_failure_reported ();
      return -1;
    }
  return 0;
}

double
dice_round_sig (double v, int digits)
{
  char buf[40];

  if (!isfinite (v) || v == 0)
    return v;
  snprintf (buf, sizeof buf, "%.*g", digits, v);
  return strtod (buf, NULL);
}
