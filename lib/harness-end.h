/* harness-end.h: how a run of the harness ended, as the runner
   (lib/harness.c) hands it to a mode's result hook, and the pieces of a
   record's object that every mode writes alike: the sandbox it ran in,
   errors as one line, the statuses the harness may report.  */
#ifndef DICE_HARNESS_END_H
#define DICE_HARNESS_END_H

#include "system.h"

#include <jansson.h>

#include "harness.h"
#include "sandbox.h"

struct dice_harness_end
{
  const json_t *result;         /* the harness's result object, or NULL */
  const char *status;           /* what C decided when no usable result
                                   came (timeout, oom, crashed), or NULL */
  char *why;                    /* why C decided STATUS; "" when it did
                                   not; a mode may write its own */
  size_t whylen;
  const struct dice_sandbox *sb;
  json_t *sandbox;              /* the record's "sandbox" object of SB */
};

/* Why the run SB, which gave no result, ended, into WHY; the status that
   means (timeout, oom or crashed).  */
const char *dice_harness_explain_end (const struct dice_harness *h,
                                      const struct dice_sandbox *sb,
                                      char *why, size_t size);

/* The record's "sandbox" object of SB (STARTED: the harness ran).  */
json_t *dice_harness_sandbox_object (const struct dice_harness *h,
                                     const struct dice_sandbox *sb,
                                     bool started);

/* The address-space limit of a candidate's sandbox: --memory on a CPU
   run, else none (0).  */
unsigned long long dice_harness_sandbox_memory (const struct dice_harness *h);

/* Make S one line of at most DICE_HARNESS_ERROR_MAX bytes, in place:
   control characters become spaces, runs of spaces one.  */
#define DICE_HARNESS_ERROR_MAX 1000
void dice_harness_one_line (char *s);

/* The status of the run that ended as END says: C's when it decided,
   else the one of the NULL-terminated STATUSES that OBJECT (the mode's
   object in the harness's result) gives; "crashed", with END->why saying
   so, when it gives none of them.  */
const char *dice_harness_status (struct dice_harness_end *end,
                                 const json_t *object,
                                 const char *const *statuses);

#endif
