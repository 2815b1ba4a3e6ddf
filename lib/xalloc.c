/* xalloc.c: allocation that ends the program when memory runs out.  */
#include "system.h"

#include "msg.h"
#include "xalloc.h"

void
dice_die_memory (void)
{
  dice_error ("memory exhausted");
  exit (DICE_EXIT_TROUBLE);
}

void *
xrealloc (void *p, size_t n)
{
  p = realloc (p, n);
  if (p == NULL && n)
    dice_die_memory ();
  return p;
}

void *
xcalloc (size_t n, size_t size)
{
  void *p = calloc (n, size);

  if (p == NULL && n && size)
    dice_die_memory ();
  return p;
}

char *
xstrdup (const char *s)
{
  char *copy = strdup (s);

  if (copy == NULL)
    dice_die_memory ();
  return copy;
}
