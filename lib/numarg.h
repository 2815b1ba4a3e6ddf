/* numarg.h: reading numeric option values, with one wording for a value
   that is out of range in every tool:
     invalid --jobs '0' (an integer from 1 to 1024)
     invalid --timeout 'x' (a number above 0)
   lib/ only parses and words the message; bin/cli.h dies with it.  */
#ifndef DICE_NUMARG_H
#define DICE_NUMARG_H

#include "system.h"

/* ARG as a decimal integer in [LO, HI].  False when it is not one.  */
bool dice_parse_long (const char *arg, long lo, long hi, long *value);

/* ARG as a finite number in [LO, HI] (HI may be HUGE_VAL).  When
   ABOVE_LO, LO itself is refused too.  */
bool dice_parse_double (const char *arg, double lo, double hi, bool above_lo,
                        double *value);

/* "8G", "512M", "1024K", "2T" or bytes, with an optional B.  */
bool dice_parse_size (const char *arg, long long *value);

/* The one wording of a refused value, into BUF (LEN bytes):
   "invalid --OPTION 'ARG' (WHAT)".  WHAT is from the describe functions
   below or a tool's own words ("KEY=VALUE or KEY").  */
void dice_invalid_value (char *buf, size_t len, const char *option,
                         const char *arg, const char *what);

/* What an integer option takes: "an integer from LO to HI", or "an
   integer of at least LO" when HI is LONG_MAX.  */
void dice_describe_long (char *buf, size_t len, long lo, long hi);

/* What a number option takes: "a number from LO to HI", "a number above
   LO" or "a number of at least LO".  */
void dice_describe_double (char *buf, size_t len, double lo, double hi,
                           bool above_lo);

#endif
