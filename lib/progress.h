/* progress.h: the one progress report of the long-running tools, on
   standard error.  On a terminal, a status line per tool, redrawn at
   most five times a second; the stages of one pipeline on one terminal
   each claim a line of their own (see progress.c).  In a log, a plain
   line every DICE_PROGRESS_INTERVAL seconds (30 by default) or each
   tenth of the total, whichever comes first.  Both end with a summary:
     dice-check: 120/800 done, 3 failed, 2.1/s, ETA 5m24s
   Not thread-safe: the caller serializes the calls.  */
#ifndef DICE_PROGRESS_H
#define DICE_PROGRESS_H

#include "system.h"

/* --progress=WHEN: auto (a status line when standard error is a
   terminal, nothing otherwise), always (log lines when it is not),
   never.  */
enum dice_progress_when
{
  DICE_PROGRESS_AUTO,
  DICE_PROGRESS_ALWAYS,
  DICE_PROGRESS_NEVER
};

struct dice_progress
{
  int mode;                     /* 0 off, 1 terminal, 2 log */
  long long total;              /* -1 when unknown */
  long long done, skipped, failed;
  double start, last_draw, interval;
  int last_tenth;
  int slot;                     /* the terminal line claimed, or -1 */
  int slot_fd, lock_fd;
  char *slot_dir;               /* the claim files' common prefix */
};

/* ARG of --progress (NULL: always) into *WHEN.  False when it is none of
   auto, always, never.  */
bool dice_progress_parse (const char *arg, enum dice_progress_when *when);

/* The number of lines in FILES (NFILES of them; none: standard input)
   when every one is a regular file, or -1.  */
long long dice_progress_count_lines (char **files, int nfiles);

/* Start a report on P of TOTAL items (-1: unknown).  */
void dice_progress_start (struct dice_progress *p,
                          enum dice_progress_when when, long long total);

/* DONE items so far, FAILED of them, SKIPPED of them done before this run
   (not counted in the rate); DETAIL (or NULL) is appended.  Draws when
   it is time to.  */
void dice_progress_update (struct dice_progress *p, long long done,
                           long long failed, long long skipped,
                           const char *detail);

/* The summary line, and the terminal line given back.  */
void dice_progress_finish (struct dice_progress *p, const char *detail);

/* What to write before a message of one's own on standard error so that
   it does not land inside the status line: "\r\033[K" on a terminal.  */
const char *dice_progress_clear (const struct dice_progress *p);

#endif
