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

#endif
