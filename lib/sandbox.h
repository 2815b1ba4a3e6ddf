/* sandbox.h: run one untrusted process (a harness holding generated code)
   so that whatever it does (crash, hang, fork, eat memory, signal its
   parent, read the environment) ends as a fact about that one run, and
   never harms the caller or the next run.

   The caller's process forks a guard G in a session of its own.  G tries
   to enter new user, network and PID namespaces (falling back to none
   where the kernel refuses), forks the candidate C (the first process of
   the new PID namespace, in a session of its own), enforces the wall-clock
   deadline and then kills and reaps everything C left behind.  C runs in a
   new empty directory with a scrubbed environment and resource limits,
   without capabilities, and where a mount namespace can be had, with
   every file system read-only but that directory and the WRITABLE ones;
   its stdin receives INPUT, its stdout and stderr are kept (the last
   LOG_MAX bytes), fd 3, named by DICE_RESULT_FD, is a pipe whose
   contents are the result, and fd 4 is the CHANNEL when one is given.  See dice-check(1), "SANDBOX".  */
#ifndef DICE_SANDBOX_H
#define DICE_SANDBOX_H

#include "system.h"

/* The number of the candidate's result descriptor.  */
#define DICE_SANDBOX_RESULT_FD 3
/* The number the channel descriptor gets in the candidate.  */
#define DICE_SANDBOX_CHANNEL_FD 4

/* How a run ended.  */
enum dice_sandbox_end
{
  DICE_SANDBOX_EXITED,          /* exit status in STATUS */
  DICE_SANDBOX_SIGNALED,        /* killed by signal STATUS */
  DICE_SANDBOX_TIMEOUT,         /* the deadline passed; everything was killed */
  DICE_SANDBOX_GUARD_LOST,      /* the guard died (killed by the candidate) */
  DICE_SANDBOX_NOT_STARTED      /* ERROR says why */
};

struct dice_sandbox
{
  /* Set by the caller.  */
  char *const *argv;            /* argv[0] is looked up in PATH */
  char *const *extra_env;       /* "NAME=value" added to the scrubbed set */
  const char *input;            /* written to stdin, then end of file */
  size_t input_len;
  double timeout;               /* seconds; 0: none */
  unsigned long long memory;    /* RLIMIT_AS in bytes; 0: none */
  unsigned long long file_size; /* RLIMIT_FSIZE in bytes; 0: none */
  bool isolate;                 /* try to unshare namespaces */
  char *const *writable;        /* absolute directories the candidate may
                                   write besides its own (the build cache);
                                   at most 8 */
  char *const *hidden;          /* absolute directories the candidate must
                                   not see (the GPU locks, which it could
                                   hold to stall other runs): where a mount
                                   namespace can be had, each is covered by
                                   an empty read-only file system */
  const int *channel;           /* NULL, or a descriptor the candidate gets
                                   as DICE_SANDBOX_CHANNEL_FD (a socket to
                                   a process of the caller's choosing) */
  bool keep_dir;                /* leave the working directory behind */
  size_t log_max;               /* bytes of output kept (0: 16 KiB) */

  /* Set by dice_sandbox_run; freed by dice_sandbox_free.  */
  char *dir;                    /* the working directory (removed unless kept) */
  char *result;                 /* what C wrote to the result fd, NUL-ended */
  size_t result_len;
  char *log;                    /* the tail of stdout and stderr, NUL-ended */
  size_t log_len;
  bool log_truncated;           /* earlier output was dropped */
  enum dice_sandbox_end end;
  int status;
  bool oom_kill;                /* the kernel's OOM killer struck meanwhile */
  bool net_isolated;            /* C had its own network namespace */
  bool pid_namespace;           /* C was the first process of its own PID ns */
  bool proc_private;            /* C's /proc showed only its PID namespace */
  bool fs_readonly;             /* every file system but DIR, WRITABLE,
                                   /dev, /proc and /sys was read-only */
  double ms;                    /* wall time from the job's delivery (the
                                   fork, unless started ahead) to the end */
  char error[256];
  struct dice_sandbox_pending *pending; /* started ahead, not yet run */
};

/* Call once before any run, before other threads start: it notes the
   values of secret-looking environment variables (for
   dice_sandbox_redact) and makes this process non-dumpable, so that a
   candidate of the same user cannot read this process's environment or
   memory through /proc.  Returns 0, or -1 with errno set.  */
int dice_sandbox_prepare (void);

/* Run SB's command.  Blocks until it has ended and been cleaned up.
   Threads may run several sandboxes at once.  Returns 0 when the command
   ran (however it ended: see SB->end), -1 when it could not be started
   (SB->end is DICE_SANDBOX_NOT_STARTED and SB->error says why).  */
int dice_sandbox_run (struct dice_sandbox *sb);

/* Start SB's command ahead of its job, so that what it does before
   reading stdin (the harness imports torch) is done by the time the job
   comes: the sandbox is made and the command started as dice_sandbox_run
   would, but nothing is written to its stdin and its deadline has not
   started.  Everything the guard sees at the fork (all of SB's fields
   but INPUT and INPUT_LEN) must be set.  Then, from the same thread (the
   guard ends with the thread that forked it), either dice_sandbox_run (which delivers SB->input and starts the
   clock: the timeout and SB->ms count from there) or dice_sandbox_cancel.
   Returns 0, or -1 as dice_sandbox_run does (nothing is then left to
   run or cancel).  */
int dice_sandbox_start (struct dice_sandbox *sb);

/* End a run that dice_sandbox_start started and that never got its job:
   its processes are killed and reaped and its directory removed (even
   with KEEP_DIR: it holds nothing of a candidate's).  Nothing, for SB
   not so started.  */
void dice_sandbox_cancel (struct dice_sandbox *sb);

/* Free what dice_sandbox_run allocated in SB.  */
void dice_sandbox_free (struct dice_sandbox *sb);

/* Whether the environment variable NAME is passed to candidates.  Only
   what compilers, CUDA, torch and Python need is kept, and never a name
   that looks like a secret (dice_secret_name, lib/secrets.h).  */
bool dice_sandbox_keeps_variable (const char *name);

/* The environment for a candidate working in DIR: the kept part of
   environ, HOME, TMPDIR and TORCH_EXTENSIONS_DIR set to DIR,
   DICE_RESULT_FD, then EXTRA ("NAME=value", overriding).  A new
   NULL-ended array of new strings (free with dice_sandbox_free_env), or
   NULL when memory ran out.  */
char **dice_sandbox_environ (const char *dir, char *const *extra);
void dice_sandbox_free_env (char **env);

/* S with every value of a secret-looking variable of this process's
   environment (noted by dice_sandbox_prepare) replaced by "[redacted]"
   (dice_redact, lib/secrets.h):
   a new string the caller frees, or NULL when S holds none (or memory
   ran out).  */
char *dice_sandbox_redact (const char *s);

/* Remove the directory tree DIR, making unreadable folders readable on
   the way.  Returns 0, or -1 with errno set.  */
int dice_remove_tree (const char *dir);

#endif
