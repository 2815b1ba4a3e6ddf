/* strset.h: a small ordered set of strings, for the names a scan
   collects (kernels, exports, aliases): a handful each, kept in the
   order found, so a linear search is the cheap one.  */
#ifndef DICE_STRSET_H
#define DICE_STRSET_H

#include <jansson.h>

#include "system.h"

struct dice_strset
{
  char **v;                     /* copies the set owns */
  size_t n, cap;
};

/* The index of the LEN bytes at P in S, or -1.  */
ssize_t dice_strset_find (const struct dice_strset *s, const char *p,
                          size_t len);
bool dice_strset_has (const struct dice_strset *s, const char *p,
                      size_t len);

/* Append a copy of P (LEN bytes) to S; when UNIQUE, only if absent.
   Returns 0, or -1 when memory ran out (S unchanged).  */
int dice_strset_add (struct dice_strset *s, const char *p, size_t len,
                     bool unique);

/* Whether the LEN bytes at P are one of the NULL-terminated LIST.  */
bool dice_str_in_list (const char *p, size_t len, const char *const *list);

/* Whether the LEN bytes at P begin with PREFIX.  */
bool dice_str_has_prefix (const char *p, size_t len, const char *prefix);

/* S as a new JSON array of strings, or NULL when memory ran out.  */
json_t *dice_strset_json (const struct dice_strset *s);

/* Free the strings and the array; S is empty after.  */
void dice_strset_free (struct dice_strset *s);

#endif
