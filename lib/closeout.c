/* closeout.c: make a failed write to stdout an error at exit, so that
   "dice-check > /dev/full" cannot report success.  */
#include "system.h"

#include <signal.h>
#include <unistd.h>

#include "closeout.h"
#include "progname.h"

/* Whether a failed write to stdout has been reported by the tool, so that
   the exit handler does not say it a second time.  */
static bool reported;

void
dice_stdout_failure_reported (void)
{
  reported = true;
}

void
dice_stdout_failed (int errnum)
{
  if (errnum == EPIPE)
    {
      /* The reader has gone (| head): end as a tool that does not ignore
         SIGPIPE would, quietly and killed by it.  */
      sigset_t pipe;

      sigemptyset (&pipe);
      sigaddset (&pipe, SIGPIPE);
      signal (SIGPIPE, SIG_DFL);
      sigprocmask (SIG_UNBLOCK, &pipe, NULL);
      raise (SIGPIPE);
    }
  fprintf (stderr, "%s: write error%s%s\n", dice_program_name,
           errnum ? ": " : "", errnum ? strerror (errnum) : "");
  _exit (DICE_EXIT_TROUBLE);
}

void
dice_close_stdout (void)
{
  bool failed = ferror (stdout) != 0;
  int saved_errno = errno;

  if (fclose (stdout) != 0)
    {
      failed = true;
      saved_errno = errno;
    }
  else if (failed)
    saved_errno = 0;
  if (failed && reported && saved_errno != EPIPE)
    _exit (DICE_EXIT_TROUBLE);
  if (failed)
    dice_stdout_failed (saved_errno);
  /* stderr stays open: sanitizers and other atexit handlers report there.  */
  if (fflush (stderr) != 0)
    _exit (DICE_EXIT_TROUBLE);
}
