/* scheduler.h: a record filter with slow, independent work per record, run
   by several workers at once (one per GPU, or -j N), with the output in
   input order by default.  The main thread reads; each worker thread
   takes the next record, does the work, and hands the result to a
   reorder buffer, which writes what is next in order.  Reading runs at
   most a window ahead of writing, so memory stays bounded however long
   one record takes.  */
#ifndef DICE_SCHEDULER_H
#define DICE_SCHEDULER_H

#include "system.h"

#include <jansson.h>

#include "progress.h"
#include "resume.h"

struct dice_sched
{
  const char *key;              /* the tool's key, set in each record */
  size_t nworkers;
  char **slots;                 /* per worker: what it owns (a GPU), or NULL */
  bool unordered;               /* write records as they finish */
  enum dice_progress_when progress; /* counts on standard error */
  /* NULL, or --resume: records it holds are skipped, and the output is
     appended to it instead of standard output.  */
  struct dice_resume *resume;
  /* The work: the new value of KEY for REC (a new reference), or NULL
     when memory ran out.  Called from worker threads.  */
  json_t *(*work) (const json_t *rec, const char *slot, void *ctx);
  /* NULL, or whether REC can be worked on at all: false (ERR saying
     why) makes it bad input, reported and skipped as a malformed line.
     Called from the reading thread.  */
  bool (*judgeable) (const json_t *rec, void *ctx, char *err,
                     size_t errlen);
  /* NULL, or what each worker thread does as it ends, when the input
     is done or the run stops: give back what it holds for the next
     record.  */
  void (*worker_done) (const char *slot, void *ctx);
  /* NULL, or what a worker thread does when it has waited a second for
     a record while the input goes on (a producer upstream that is slow,
     as a build is): get ready for the records to come.  At most once
     each time it waits.  */
  void (*worker_idle) (const char *slot, void *ctx);
  /* A word for a value, for the progress counts (may be NULL).  */
  const char *(*label) (const json_t *value, void *ctx);
  void *ctx;
};

/* Read records from FILES (NFILES of them; none: standard input), run
   the work on each, write them to standard output.  Malformed lines are
   reported as prog:FILE:LINE and skipped (or, with --strict, end the
   reading).  Returns the exit status: 0, 1 (lines skipped) or 2 (could
   not go on: unreadable input, a write error, --strict).  */
int dice_sched_run (const struct dice_sched *s, char **files, int nfiles);

/* Called by the work, from its worker thread: WAITING says whether it is
   waiting for its slot (the GPU, which other processes hold), so that the
   progress line can say so.  Outside a worker thread, nothing.  */
void dice_sched_waiting (bool waiting);

/* Called by the work, from its worker thread: how many records may still
   come to the workers besides those they hold: the ones read and not yet
   taken, or SIZE_MAX while the input has not ended.  Outside a worker
   thread, 0.  */
size_t dice_sched_records_to_come (void);

#endif
