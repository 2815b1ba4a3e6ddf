/* proc.h: child processes that cannot be trusted to finish.  A child runs
   in its own process group so that a timeout kills everything it started
   (a shell, its pipelines, their background jobs), not just the first
   process; its environment is built explicitly so secrets can be left
   out.  Used by dice-sample --exec and --local; general enough for any
   tool that feeds a command and reads its answer.  */
#ifndef DICE_PROC_H
#define DICE_PROC_H

#include "system.h"

#include <poll.h>
#include <sys/types.h>

/* A copy of the current environment without the variables whose names
   DROP (may be NULL) says to leave out, such as dice_secret_name of
   lib/secrets.h, and with the NAME=VALUE strings of ADD (NULL-terminated,
   may be NULL) set, replacing any earlier value.  Returns a new
   NULL-terminated array for dice_proc_spawn; free it with
   dice_proc_env_free.  NULL when out of memory.  */
char **dice_proc_env (bool (*drop) (const char *name),
                      const char *const *add);
void dice_proc_env_free (char **env);

/* A running child, its pipes, and its process group (= its pid).  */
struct dice_proc
{
  pid_t pid;
  int in_fd;                    /* its stdin, or -1 */
  int out_fd;                   /* its stdout, or -1 */
  int err_fd;                   /* its stderr, or -1 when inherited */
};

/* Start ARGV (argv[0] looked up in PATH) with environment ENV (NULL:
   ours) in a new process group, with pipes to its stdin and from its
   stdout, and from its stderr when CAPTURE_STDERR (else it shares ours).
   The pipe ends are close-on-exec and non-blocking.  Returns 0, or -1
   with errno set (a program that cannot be executed is reported as exit
   status 127 by the child, as a shell does).  */
int dice_proc_spawn (struct dice_proc *p, char *const argv[],
                     char *const env[], bool capture_stderr);

/* Kill the child's whole process group with SIGKILL, reap the child and
   close the pipes.  Returns its wait status.  */
int dice_proc_kill (struct dice_proc *p);

/* Close the pipes and wait for the child.  Returns its wait status, or
   -1 with errno set.  Any process it left in its group is killed.  */
int dice_proc_wait (struct dice_proc *p);

/* What dice_proc_run collected.  */
struct dice_proc_result
{
  int status;                   /* wait status (WIFEXITED ...) */
  bool timed_out;               /* killed when the time ran out */
  char *out;                    /* stdout, NUL-terminated */
  size_t out_len;
  char *err;                    /* the last DICE_PROC_ERR_TAIL bytes of stderr */
  size_t err_len;
  double ms;                    /* wall time */
};

#define DICE_PROC_ERR_TAIL 4096

/* Run ARGV with ENV as dice_proc_spawn does, write INPUT (LEN bytes) to
   its stdin and close it, and collect stdout and the tail of stderr
   until both are closed and the child has exited, or until TIMEOUT
   seconds have passed (0: no limit), when the whole group is killed.  A
   child that does not read all its input is not an error.  SIGPIPE is
   ignored while writing.  Returns 0 with R filled (free it with
   dice_proc_result_free), or -1 with errno set when the child could not
   be started.  */
int dice_proc_run (char *const argv[], char *const env[],
                   const char *input, size_t len, double timeout,
                   struct dice_proc_result *r);

void dice_proc_result_free (struct dice_proc_result *r);

/* The same run, taken one step at a time so that a caller can drive many
   at once with one poll: start it, ask for the descriptors to poll and
   the longest wait, and after each poll let it step.  */
struct dice_proc_task
{
  struct dice_proc p;
  const char *input;
  size_t len, written;
  double start, timeout;
  size_t out_cap, err_cap;
  bool finished;
  struct dice_proc_result r;    /* filled when finished; the caller frees */
};

/* Start ARGV as dice_proc_run does.  Returns 0, or -1 with errno set.
   The caller must ignore SIGPIPE while tasks run.  */
int dice_proc_task_start (struct dice_proc_task *t, char *const argv[],
                          char *const env[], const char *input, size_t len,
                          double timeout);

/* Fill FDS with what T waits on; returns how many (0 to 3).  */
int dice_proc_task_fds (const struct dice_proc_task *t, struct pollfd fds[3]);

/* The longest poll T allows, in seconds (-1: no limit).  */
double dice_proc_task_wait (const struct dice_proc_task *t);

/* Act on the events in FDS (as filled by dice_proc_task_fds and then
   polled; NFDS 0 just checks the clock and the child).  Returns 1 when T
   is finished (T->r holds the outcome), 0 when not yet, -1 on an error
   (errno set; T is aborted).  */
int dice_proc_task_step (struct dice_proc_task *t, const struct pollfd *fds,
                         int nfds);

/* Kill T's group and free what it collected.  */
void dice_proc_task_abort (struct dice_proc_task *t);

/* Describe a wait status for messages: "exit status 3", "killed by
   signal 9", into BUF of SIZE bytes.  Returns BUF.  */
char *dice_proc_status_string (int status, char *buf, size_t size);

/* On SIGINT, SIGTERM, SIGHUP or SIGQUIT, kill the process group of every
   child started by dice_proc_spawn and not yet reaped, then die of the
   signal.  Children live in their own groups, so a Ctrl-C or a batch
   system's SIGTERM would otherwise leave them running (a model sampler
   holding a GPU, say).  Signals ignored at the start stay ignored.  */
void dice_proc_kill_on_signals (void);

/* Monotonic time in seconds, for timeouts and durations.  */
double dice_now (void);

#endif
