/* dice-compile: build each candidate's extensions into the shared,
   content-addressed cache without running anything, so that CPU-only
   nodes can do the builds and GPU time goes to checking and timing.
   The run itself is shared with dice-check (lib/harness.c).  */
#include "system.h"

#include "closeout.h"
#include "harness.h"
#include "progname.h"

static void
usage (void)
{
  printf ("\
Usage: %s [OPTION]... [FILE]...\n\
Build the extensions of each candidate record (JSON lines with 'code')\n\
read from FILEs (standard input by default) into the build cache, and add\n\
'compile': whether it built, how long it took, whether the cache had it,\n\
the cache key and the compiler's first errors.  Each candidate runs in a\n\
sandbox of its own; see dice-check(1).\n\
\n", dice_program_name);
  dice_harness_print_help (DICE_HARNESS_COMPILE);
  dice_print_help_tail ();
}

int
main (int argc, char **argv)
{
  dice_set_program_name (argv[0]);
  atexit (dice_close_stdout);
  return dice_harness_tool (DICE_HARNESS_COMPILE, argc, argv, usage);
}
