/* dice-compile: build each candidate's extensions into the shared,
   content-addressed cache without running anything, so that CPU-only
   nodes can do the builds and GPU time goes to checking and timing.
   The program is shared with dice-check and dice-time
   (bin/harness-tool.c); what a build is, is lib/harness-compile.c.  */
#include "system.h"

#include "harness-tool.h"

static const struct option long_options[] = {
  HARNESS_LONG_OPTIONS,
  DICE_FILTER_LONG_OPTIONS,
  DICE_SHARD_LONG_OPTIONS,
  DICE_COMMON_LONG_OPTIONS,
  {NULL, 0, NULL, 0}
};

/* What a record's provenance covers (lib/resume.h).  */
static const char *const resume_inputs[] = { "code", NULL };

static const char intro[] = "\
Build the extensions of each candidate record (JSON lines with 'code')\n\
read from FILEs (standard input by default) into the build cache, and add\n\
'compile': whether it built, how long it took, whether the cache had it,\n\
the cache key and the compiler's first errors.  Each candidate runs in a\n\
sandbox of its own; see dice-check(1).";

static const struct harness_tool tool = {
  .mode = &dice_harness_compile, .intro = intro, .long_options = long_options,
  .resume_inputs = resume_inputs, .resume_settings = HARNESS_IN_COMPILE
};

int
main (int argc, char **argv)
{
  return harness_tool_main (&tool, argc, argv);
}
