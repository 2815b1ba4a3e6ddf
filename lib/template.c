/* template.c: prompt templates, plain text with {{variable}} slots.  */
#include "system.h"

#include <ctype.h>

#include "fileio.h"
#include "template.h"

/* Keep in step with the VARIABLES section of dice-prompt(1).  */
static const char *const known_variables[] = {
  "ref", "id", "name", "level", "index", "precision", "precision_note",
  "prefix", "suffix", "names", "open",
};

bool
dice_template_known_variable (const char *name)
{
  for (size_t i = 0; i < DICE_ARRAY_SIZE (known_variables); i++)
    if (strcmp (known_variables[i], name) == 0)
      return true;
  return false;
}

#include <stdarg.h>

static int fail (struct dice_template *t, unsigned long line,
                 const char *fmt, ...) DICE_PRINTF (3, 4);

static int
fail (struct dice_template *t, unsigned long line, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (t->error, sizeof t->error, fmt, ap);
  va_end (ap);
  t->error_line = line;
  return -1;
}

static int
add_part (struct dice_template *t, bool is_variable, const char *start,
          size_t len)
{
  struct dice_template_part *parts;

  parts = realloc (t->parts, (t->nparts + 1) * sizeof *parts);
  if (parts == NULL)
    return -1;
  t->parts = parts;
  t->parts[t->nparts].is_variable = is_variable;
  t->parts[t->nparts].start = start;
  t->parts[t->nparts].len = len;
  t->nparts++;
  return 0;
}

static unsigned long
line_of (const char *text, const char *at)
{
  unsigned long line = 1;

  for (const char *p = text; p < at; p++)
    line += *p == '\n';
  return line;
}

static int
parse (struct dice_template *t)
{
  const char *p = t->text;

  while (*p)
    {
      const char *open = strstr (p, "{{");
      const char *name, *name_end, *close;
      char variable[64];

      if (open == NULL)
        return add_part (t, false, p, strlen (p));
      if (open > p && add_part (t, false, p, open - p) != 0)
        return -1;
      close = strstr (open + 2, "}}");
      if (close == NULL)
        return fail (t, line_of (t->text, open), "unterminated '%s'", "{{");
      name = open + 2;
      while (name < close && isblank ((unsigned char) *name))
        name++;
      name_end = close;
      while (name_end > name && isblank ((unsigned char) name_end[-1]))
        name_end--;
      if (name_end == name || (size_t) (name_end - name) >= sizeof variable)
        return fail (t, line_of (t->text, open), "%s",
                     "empty or overlong template variable");
      memcpy (variable, name, name_end - name);
      variable[name_end - name] = '\0';
      if (!dice_template_known_variable (variable))
        return fail (t, line_of (t->text, open),
                     "unknown template variable '%s'", variable);
      if (strcmp (variable, "prefix") == 0 || strcmp (variable, "suffix") == 0
          || strcmp (variable, "names") == 0)
        t->infill = true;
      if (add_part (t, true, name, name_end - name) != 0)
        return -1;
      p = close + 2;
    }
  return 0;
}

int
dice_template_load (struct dice_template *t, const char *spec,
                    const char *promptdir)
{
  size_t len;
  const char *base;

  memset (t, 0, sizeof *t);
  if (strchr (spec, '/'))
    t->path = strdup (spec);
  else
    {
      char *file = malloc (strlen (spec) + sizeof ".tmpl");

      if (file)
        {
          sprintf (file, "%s.tmpl", spec);
          t->path = dice_path_join (promptdir, file);
          free (file);
        }
    }
  if (t->path == NULL)
    return fail (t, 0, "%s", "out of memory");
  base = strrchr (t->path, '/');
  base = base ? base + 1 : t->path;
  t->name = strdup (base);
  if (t->name == NULL)
    return fail (t, 0, "%s", "out of memory");
  len = strlen (t->name);
  if (len > 5 && strcmp (t->name + len - 5, ".tmpl") == 0)
    t->name[len - 5] = '\0';
  if (dice_read_file (t->path, &t->text, &len) != 0)
    {
      if (errno == ENOENT && !strchr (spec, '/'))
        return fail (t, 0, "no template named '%s'", spec);
      return fail (t, 0, "%s", strerror (errno));
    }
  if (strlen (t->text) != len)
    return fail (t, 0, "%s", "template contains a NUL byte");
  if (parse (t) != 0)
    {
      if (t->error[0] == '\0')
        fail (t, 0, "%s", "out of memory");
      return -1;
    }
  return 0;
}

void
dice_template_free (struct dice_template *t)
{
  free (t->name);
  free (t->path);
  free (t->text);
  free (t->parts);
  t->name = t->path = t->text = NULL;
  t->parts = NULL;
  t->nparts = 0;
}

char *
dice_template_render (const struct dice_template *t,
                      dice_template_lookup *lookup, void *ctx,
                      const char **missing)
{
  char *out = NULL;
  size_t outlen = 0;
  FILE *fp = open_memstream (&out, &outlen);

  *missing = NULL;
  if (fp == NULL)
    return NULL;
  for (size_t i = 0; i < t->nparts; i++)
    {
      const struct dice_template_part *part = &t->parts[i];
      char variable[64];
      const char *value;

      if (!part->is_variable)
        {
          fwrite (part->start, 1, part->len, fp);
          continue;
        }
      memcpy (variable, part->start, part->len);
      variable[part->len] = '\0';
      if (strcmp (variable, "open") == 0)
        value = "{{";
      else
        value = lookup (variable, ctx);
      if (value == NULL)
        {
          /* The caller reports it by name: point into the known list,
             which outlives this call.  */
          for (size_t k = 0; k < DICE_ARRAY_SIZE (known_variables); k++)
            if (strcmp (known_variables[k], variable) == 0)
              *missing = known_variables[k];
          fclose (fp);
          free (out);
          return NULL;
        }
      fputs (value, fp);
    }
  if (fclose (fp) != 0)
    {
      free (out);
      return NULL;
    }
  return out;
}
