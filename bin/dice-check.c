/* dice-check: judge each candidate against its reference: build it
   (through the shared cache), run both on the same weights and inputs
   for several trials and compare, each candidate in its own sandbox.
   The program is shared with dice-compile and dice-time
   (bin/harness-tool.c); what a check is, is lib/harness-check.c.  */
#include "system.h"

#include <math.h>

#include "cli.h"
#include "deception.h"
#include "harness-tool.h"
#include "numarg.h"

enum
{
  OPT_TOLERANCE = HARNESS_OPT_TOOL,
  OPT_ATOL,
  OPT_RTOL,
  OPT_NO_ROBUST
};

static const struct option long_options[] = {
  HARNESS_LONG_OPTIONS,
  {"trials", required_argument, NULL, HARNESS_OPT_TRIALS},
  {"seed", required_argument, NULL, HARNESS_OPT_SEED},
  {"tolerance", required_argument, NULL, OPT_TOLERANCE},
  {"atol", required_argument, NULL, OPT_ATOL},
  {"rtol", required_argument, NULL, OPT_RTOL},
  {"no-robust", no_argument, NULL, OPT_NO_ROBUST},
  {"precision", required_argument, NULL, HARNESS_OPT_PRECISION},
  DICE_FILTER_LONG_OPTIONS,
  DICE_SHARD_LONG_OPTIONS,
  DICE_COMMON_LONG_OPTIONS,
  {NULL, 0, NULL, 0}
};

static bool
option (struct dice_harness *h, int c, const char *arg)
{
  char msg[512];

  switch (c)
    {
    case OPT_TOLERANCE:         /* --tolerance */
      if (strcmp (arg, "dice") && strcmp (arg, "kernelbench"))
        {
          dice_invalid_value (msg, sizeof msg, "tolerance", arg,
                              "dice or kernelbench");
          dice_die_usage ("%s", msg);
        }
      h->tolerance = strcmp (arg, "dice") ? "kernelbench" : "dice";
      break;
    case OPT_ATOL:              /* --atol */
      h->atol = dice_option_double ("atol", arg, 0, HUGE_VAL, false);
      h->atol_set = true;
      break;
    case OPT_RTOL:              /* --rtol */
      h->rtol = dice_option_double ("rtol", arg, 0, HUGE_VAL, false);
      h->rtol_set = true;
      break;
    case OPT_NO_ROBUST:         /* --no-robust */
      h->no_robust = true;
      break;
    default:
      return false;
    }
  return true;
}

/* The tolerance the options chose, and the one-shot example's kernel
   names, which the deception check tells from the candidate's own.  */
static int
finish (struct dice_harness *h, char *err, size_t errlen)
{
  if (h->atol_set || h->rtol_set)
    h->tolerance = "custom";
  else if (strcmp (h->tolerance, "kernelbench") == 0)
    h->atol = h->rtol = 1e-4;
  if ((h->decoys = dice_deception_decoys ()) == NULL)
    {
      snprintf (err, errlen, "memory exhausted");
      return -1;
    }
  return 0;
}

static const char help[] = "\
\n\
Checking:\n\
      --trials=N         compare on N sets of inputs (default 5)\n\
      --seed=N           weights use seed N, trial T's inputs seed N+1+T\n\
                           (default 42)\n\
      --tolerance=NAME   dice (atol = rtol = 1e-2) or kernelbench (1e-4,\n\
                           1e-2 for float16/bfloat16 outputs); default dice\n\
      --atol=X           absolute tolerance (overrides the preset)\n\
      --rtol=X           relative tolerance (overrides the preset)\n\
      --no-robust        report deception flags but decide nothing:\n\
                           check.deception.deceptive is null\n\
      --precision=P      fp32, fp16 or bf16: inputs and weights cast to P,\n\
                           P's tolerance (default: the record's\n\
                           prompt.precision, else fp32)\n\
";

/* What a record's provenance covers (lib/resume.h).  */
static const char *const resume_inputs[] = {
  "code", "ref", "prompt.precision", NULL
};

static const char intro[] = "\
Check each candidate record (JSON lines with 'ref' and 'code') read from\n\
FILEs (standard input by default) against its reference, and add 'check':\n\
the status (correct, incorrect, compile_error, runtime_error, timeout, oom,\n\
crashed or no_code), the errors measured, the build and where it ran.\n\
Each candidate runs in a sandbox of its own; see dice-check(1).";

static const struct harness_tool tool = {
  .mode = &dice_harness_check, .intro = intro, .help = help,
  .long_options = long_options, .option = option, .finish = finish,
  .resume_inputs = resume_inputs, .resume_settings = HARNESS_IN_CHECK
};

int
main (int argc, char **argv)
{
  return harness_tool_main (&tool, argc, argv);
}
