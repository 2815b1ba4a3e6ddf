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

void *
xcheck (void *p)
{
  if (p == NULL)
    dice_die_memory ();
  return p;
}

void
xbuf_add (struct xbuf *b, const char *s, size_t n)
{
  if (b->len + n + 1 > b->cap)
    {
      size_t cap = b->cap ? b->cap : 256;

      while (cap < b->len + n + 1)
        cap *= 2;
      b->data = xrealloc (b->data, cap);
      b->cap = cap;
    }
  memcpy (b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void
xbuf_puts (struct xbuf *b, const char *s)
{
  xbuf_add (b, s, strlen (s));
}
