/* hexdigits.c: reading hex digits, for the string decoders.  */
#include "system.h"

#include "hexdigits.h"

static int
hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

long
dice_hex_digits (const char *s, size_t avail, size_t n)
{
  long v = 0;

  if (avail < n)
    return -1;
  for (size_t i = 0; i < n; i++)
    {
      int d = hex_value (s[i]);

      if (d < 0)
        return -1;
      v = v * 16 + d;
    }
  return v;
}
