/* closeout.h: make a failed write to stdout an error at exit.  */
#ifndef DICE_CLOSEOUT_H
#define DICE_CLOSEOUT_H

/* Register with atexit.  Closes stdout and flushes stderr; if stdout could not be
   written (a full disk, a closed pipe without SIGPIPE, /dev/full), prints
   "prog: write error" and ends the process with status 2.  */
void dice_close_stdout (void);

/* A write to stdout failed with ERRNUM (0: unknown): end the process.
   EPIPE (the reader has gone, SIGPIPE being ignored for a child's pipes)
   ends it quietly by SIGPIPE, as the tools that do not ignore it end;
   anything else prints "prog: write error: ..." and exits with
   status 2 (dice_close_stdout does not say it again).  Like
   dice_close_stdout, for programs only.  */
_Noreturn void dice_stdout_failed (int errnum);

/* A failed write to stdout has been (or is about to be) reported by the
   caller: dice_close_stdout need not say it again.  dice_jsonl_write calls
   it, since its callers report its failures.  */
void dice_stdout_failure_reported (void);

#endif
