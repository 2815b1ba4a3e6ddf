/* xalloc.h: allocation that ends the program (status 2, "memory
   exhausted") instead of returning NULL, for the tools' own data.  */
#ifndef DICE_XALLOC_H
#define DICE_XALLOC_H

#include "system.h"

/* Say "memory exhausted" and exit with status 2.  */
_Noreturn void dice_die_memory (void);

void *xrealloc (void *p, size_t n);
void *xcalloc (size_t n, size_t size);
char *xstrdup (const char *s);

/* P, or "memory exhausted" and exit 2 when P is NULL: for allocators that
   return NULL, such as Jansson's constructors.  */
void *xcheck (void *p);

/* A growing string; { NULL, 0, 0 } is empty, and DATA is NUL-terminated
   once anything has been added.  The caller frees DATA.  */
struct xbuf
{
  char *data;
  size_t len, cap;
};

/* Append S[0, N) to B.  */
void xbuf_add (struct xbuf *b, const char *s, size_t n);

/* Append the string S to B.  */
void xbuf_puts (struct xbuf *b, const char *s);

#endif
