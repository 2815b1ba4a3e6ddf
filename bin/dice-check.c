/* dice-check: judge each candidate against its reference: build it
   (through the shared cache), run both on the same weights and inputs
   for several trials and compare, each candidate in its own sandbox.
   The run itself is shared with dice-compile (lib/harness.c).  */
#include "system.h"

#include "closeout.h"
#include "harness.h"
#include "progname.h"

static void
usage (void)
{
  printf ("\
Usage: %s [OPTION]... [FILE]...\n\
Check each candidate record (JSON lines with 'ref' and 'code') read from\n\
FILEs (standard input by default) against its reference, and add 'check':\n\
the status (correct, incorrect, compile_error, runtime_error, timeout, oom,\n\
crashed or no_code), the errors measured, the build and where it ran.\n\
Each candidate runs in a sandbox of its own; see dice-check(1).\n\
\n", dice_program_name);
  dice_harness_print_help (DICE_HARNESS_CHECK);
  dice_print_help_tail ();
}

int
main (int argc, char **argv)
{
  dice_set_program_name (argv[0]);
  atexit (dice_close_stdout);
  return dice_harness_tool (DICE_HARNESS_CHECK, argc, argv, usage);
}
