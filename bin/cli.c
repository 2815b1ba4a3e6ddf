/* cli.c: dying, the shared options, and numeric option values, for the
   dice programs.  */
#include "system.h"

#include <stdarg.h>

#include "cli.h"
#include "msg.h"
#include "numarg.h"
#include "options.h"
#include "progname.h"

static _Noreturn void
vdie (int status, bool usage, const char *fmt, va_list ap)
{
  fflush (stdout);
  fprintf (stderr, "%s: ", dice_program_name);
  vfprintf (stderr, fmt, ap);
  fputc ('\n', stderr);
  if (usage)
    dice_try_help ();
  exit (status);
}

void
dice_die (int status, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  vdie (status, false, fmt, ap);
}

void
dice_die_usage (const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  vdie (DICE_EXIT_TROUBLE, true, fmt, ap);
}

void
dice_cli_common_option (int c, void (*usage) (void))
{
  switch (dice_common_option (c, usage))
    {
    case DICE_OPTION_HANDLED:
      return;
    case DICE_OPTION_EXIT_OK:
      exit (DICE_EXIT_OK);
    case DICE_OPTION_UNKNOWN:
      dice_try_help ();
      exit (DICE_EXIT_TROUBLE);
    }
  abort ();
}

long
dice_option_long (const char *option, const char *arg, long lo, long hi)
{
  char what[96], msg[256];
  long value;

  if (dice_parse_long (arg, lo, hi, &value))
    return value;
  dice_describe_long (what, sizeof what, lo, hi);
  dice_invalid_value (msg, sizeof msg, option, arg, what);
  dice_die_usage ("%s", msg);
}

double
dice_option_double (const char *option, const char *arg, double lo,
                    double hi, bool above_lo)
{
  char what[96], msg[256];
  double value;

  if (dice_parse_double (arg, lo, hi, above_lo, &value))
    return value;
  dice_describe_double (what, sizeof what, lo, hi, above_lo);
  dice_invalid_value (msg, sizeof msg, option, arg, what);
  dice_die_usage ("%s", msg);
}

long long
dice_option_size (const char *option, const char *arg)
{
  char msg[256];
  long long value;

  if (dice_parse_size (arg, &value))
    return value;
  dice_invalid_value (msg, sizeof msg, option, arg,
                      "a size such as 8G, 512M or bytes");
  dice_die_usage ("%s", msg);
}
