/* hexdigits.h: reading hex digits, for the JSON and Python string
   decoders (\uXXXX, \xXX, \UXXXXXXXX).  */
#ifndef DICE_HEXDIGITS_H
#define DICE_HEXDIGITS_H

#include "system.h"

/* The value of the N hex digits at S, of which AVAIL bytes may be read, or
   -1 if they are not all there and all hex digits.  N is at most 8.  */
long dice_hex_digits (const char *s, size_t avail, size_t n);

#endif
