/* strset.c: a small ordered set of strings (see strset.h).  */
#include "system.h"

#include "strset.h"

ssize_t
dice_strset_find (const struct dice_strset *s, const char *p, size_t len)
{
  for (size_t i = 0; i < s->n; i++)
    if (strlen (s->v[i]) == len && memcmp (s->v[i], p, len) == 0)
      return (ssize_t) i;
  return -1;
}

bool
dice_strset_has (const struct dice_strset *s, const char *p, size_t len)
{
  return dice_strset_find (s, p, len) >= 0;
}

int
dice_strset_add (struct dice_strset *s, const char *p, size_t len,
                 bool unique)
{
  char *copy;

  if (unique && dice_strset_has (s, p, len))
    return 0;
  if (s->n == s->cap)
    {
      size_t cap = s->cap ? 2 * s->cap : 8;
      char **bigger = realloc (s->v, cap * sizeof *bigger);

      if (bigger == NULL)
        return -1;
      s->v = bigger;
      s->cap = cap;
    }
  copy = malloc (len + 1);
  if (copy == NULL)
    return -1;
  memcpy (copy, p, len);
  copy[len] = '\0';
  s->v[s->n++] = copy;
  return 0;
}

bool
dice_str_in_list (const char *p, size_t len, const char *const *list)
{
  for (; *list; list++)
    if (strlen (*list) == len && memcmp (*list, p, len) == 0)
      return true;
  return false;
}

bool
dice_str_has_prefix (const char *p, size_t len, const char *prefix)
{
  size_t n = strlen (prefix);

  return len >= n && memcmp (p, prefix, n) == 0;
}

json_t *
dice_strset_json (const struct dice_strset *s)
{
  json_t *a = json_array ();

  for (size_t i = 0; a && i < s->n; i++)
    if (json_array_append_new (a, json_string (s->v[i])) != 0)
      {
        json_decref (a);
        return NULL;
      }
  return a;
}

void
dice_strset_free (struct dice_strset *s)
{
  for (size_t i = 0; i < s->n; i++)
    free (s->v[i]);
  free (s->v);
  s->v = NULL;
  s->n = s->cap = 0;
}
