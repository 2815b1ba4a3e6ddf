/* dice-time: time each correct, non-deceptive candidate against its
   reference, both in one fresh sandboxed process on the same device and
   inputs, called in turn, with the L2 cache flushed and the device
   synchronised around every call.  The run is shared with dice-check
   (lib/harness.c); what dice-time decides is in lib/harness-time.c.  */
#include "system.h"

#include "closeout.h"
#include "harness.h"
#include "progname.h"

static void
usage (void)
{
  printf ("\
Usage: %s [OPTION]... [FILE]...\n\
Time each checked candidate record (JSON lines with 'ref', 'code' and\n\
'check') read from FILEs (standard input by default) against its\n\
reference, and add 'time': medians and spread of both sides, the speedup\n\
(reference median / candidate median), flags, and where it ran.  Records\n\
not timed get time.skipped saying why.  See dice-time(1).\n\
\n", dice_program_name);
  dice_harness_print_help (DICE_HARNESS_TIME);
  dice_print_help_tail ();
}

int
main (int argc, char **argv)
{
  dice_set_program_name (argv[0]);
  atexit (dice_close_stdout);
  return dice_harness_tool (DICE_HARNESS_TIME, argc, argv, usage);
}
