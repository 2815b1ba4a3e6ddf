/* numarg.c: numeric option values and the one way to refuse them.  */
#include "system.h"

#include <ctype.h>
#include <math.h>

#include "numarg.h"

bool
dice_parse_long (const char *arg, long lo, long hi, long *value)
{
  char *end;

  errno = 0;
  *value = strtol (arg, &end, 10);
  return !errno && end != arg && *end == '\0' && *value >= lo && *value <= hi;
}

bool
dice_parse_double (const char *arg, double lo, double hi, bool above_lo,
                   double *value)
{
  char *end;

  errno = 0;
  *value = strtod (arg, &end);
  return !errno && end != arg && *end == '\0' && isfinite (*value)
    && (above_lo ? *value > lo : *value >= lo) && *value <= hi;
}

bool
dice_parse_size (const char *arg, long long *value)
{
  char *end;
  double v;
  double unit = 1;

  errno = 0;
  v = strtod (arg, &end);
  if (errno || end == arg || !(v >= 0))
    return false;
  switch (toupper ((unsigned char) *end))
    {
    case 'K': unit = 1024.0; end++; break;
    case 'M': unit = 1024.0 * 1024; end++; break;
    case 'G': unit = 1024.0 * 1024 * 1024; end++; break;
    case 'T': unit = 1024.0 * 1024 * 1024 * 1024; end++; break;
    }
  if (*end == 'B' || *end == 'b')
    end++;
  if (*end || v * unit > 9e18)
    return false;
  *value = (long long) (v * unit);
  return true;
}

void
dice_invalid_value (char *buf, size_t len, const char *option,
                    const char *arg, const char *what)
{
  snprintf (buf, len, "invalid --%s '%s' (%s)", option, arg, what);
}

void
dice_describe_long (char *buf, size_t len, long lo, long hi)
{
  if (hi == LONG_MAX)
    snprintf (buf, len, "an integer of at least %ld", lo);
  else
    snprintf (buf, len, "an integer from %ld to %ld", lo, hi);
}

void
dice_describe_double (char *buf, size_t len, double lo, double hi,
                      bool above_lo)
{
  if (isfinite (hi))
    snprintf (buf, len, "a number from %g to %g", lo, hi);
  else if (above_lo)
    snprintf (buf, len, "a number above %g", lo);
  else
    snprintf (buf, len, "a number of at least %g", lo);
}
