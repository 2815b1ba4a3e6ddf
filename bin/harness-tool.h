/* harness-tool.h: what dice-compile, dice-check and dice-time share as
   programs: the options that run candidates, --help, finding the build
   cache, the GPUs and the interpreter, and the run over the records.
   Each tool describes itself in a struct harness_tool: its mode (the
   hooks of lib/harness.h), its own options, its --help section, and what
   --resume compares.  */
#ifndef DICE_HARNESS_TOOL_H
#define DICE_HARNESS_TOOL_H

#include "system.h"

#include <getopt.h>

#include "harness.h"
#include "options.h"

/* Codes of the long-only options the three tools share; a tool numbers
   its own from HARNESS_OPT_TOOL.  */
enum
{
  HARNESS_OPT_GPUS = DICE_OPT_TOOL,
  HARNESS_OPT_DEVICE,
  HARNESS_OPT_TIMEOUT,
  HARNESS_OPT_CACHE,
  HARNESS_OPT_ARCH,
  HARNESS_OPT_MEMORY,
  HARNESS_OPT_KEEP_TEMP,
  HARNESS_OPT_UNORDERED,
  HARNESS_OPT_PROGRESS,
  HARNESS_OPT_RESUME,
  HARNESS_OPT_TRIALS,           /* dice-check and dice-time */
  HARNESS_OPT_SEED,             /* dice-check and dice-time */
  HARNESS_OPT_PRECISION,        /* dice-check and dice-time */
  HARNESS_OPT_TOOL
};

#define HARNESS_SHORT_OPTIONS "j:q"

#define HARNESS_LONG_OPTIONS                                            \
  {"jobs", required_argument, NULL, 'j'},                               \
  {"gpus", required_argument, NULL, HARNESS_OPT_GPUS},                  \
  {"device", required_argument, NULL, HARNESS_OPT_DEVICE},              \
  {"timeout", required_argument, NULL, HARNESS_OPT_TIMEOUT},            \
  {"cache", required_argument, NULL, HARNESS_OPT_CACHE},                \
  {"arch", required_argument, NULL, HARNESS_OPT_ARCH},                  \
  {"memory", required_argument, NULL, HARNESS_OPT_MEMORY},              \
  {"keep-temp", no_argument, NULL, HARNESS_OPT_KEEP_TEMP},              \
  {"unordered", no_argument, NULL, HARNESS_OPT_UNORDERED},              \
  {"progress", optional_argument, NULL, HARNESS_OPT_PROGRESS},          \
  {"resume", required_argument, NULL, HARNESS_OPT_RESUME},              \
  {"quiet", no_argument, NULL, 'q'}

/* What --resume compares, by tool: a row of the settings table counts
   for the tools whose bit it has.  */
#define HARNESS_IN_COMPILE 1u
#define HARNESS_IN_CHECK 2u
#define HARNESS_IN_TIME 4u

struct harness_tool
{
  const struct dice_harness_mode *mode;
  /* What --help says the tool does, after its Usage line.  */
  const char *intro;
  /* Every long option the tool takes, shared ones included, ending in
     a row of zeros.  */
  const struct option *long_options;
  /* Its own section of --help, or NULL.  */
  const char *help;
  /* Its defaults over the shared ones, or NULL.  */
  void (*defaults) (struct dice_harness *h);
  /* Handle its own option C (ARG its value): false when C is not one of
     them.  A bad value is a usage error (it dies).  */
  bool (*option) (struct dice_harness *h, int c, const char *arg);
  /* What its settings need once the shared ones are settled, or NULL:
     0, or -1 with ERR saying why the run cannot go on.  */
  int (*finish) (struct dice_harness *h, char *err, size_t errlen);
  /* --resume: the record fields its input hash covers (NULL-terminated),
     and its bit in the settings table.  */
  const char *const *resume_inputs;
  unsigned resume_settings;
};

/* The whole of a harness tool, its main: options, workers, records.
   Returns the exit status.  */
int harness_tool_main (const struct harness_tool *tool, int argc,
                       char **argv);

#endif
