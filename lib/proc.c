/* proc.c: child processes in their own process group, fed and read
   through pipes, with a timeout that kills the whole group.  */
#include "system.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"

extern char **environ;

/* The process groups of live children, for the signal handler of
   dice_proc_kill_on_signals.  A slot holds 0 when free.  */
#define MAX_TRACKED 4096
static volatile pid_t tracked[MAX_TRACKED];

static void
track (pid_t pid)
{
  for (int i = 0; i < MAX_TRACKED; i++)
    if (tracked[i] == 0)
      {
        tracked[i] = pid;
        return;
      }
}

static void
untrack (pid_t pid)
{
  for (int i = 0; i < MAX_TRACKED; i++)
    if (tracked[i] == pid)
      tracked[i] = 0;
}

static void
kill_tracked_and_die (int sig)
{
  for (int i = 0; i < MAX_TRACKED; i++)
    if (tracked[i] > 0)
      kill (-tracked[i], SIGKILL);
  signal (sig, SIG_DFL);
  raise (sig);
}

void
dice_proc_kill_on_signals (void)
{
  static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
  struct sigaction sa = { .sa_handler = kill_tracked_and_die };

  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
    {
      struct sigaction old;

      /* A signal ignored when we started (nohup) stays ignored.  */
      if (sigaction (sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
        sigaction (sigs[i], &sa, NULL);
    }
}

double
dice_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t
name_length (const char *entry)
{
  const char *eq = strchr (entry, '=');

  return eq ? (size_t) (eq - entry) : strlen (entry);
}

/* Whether ENTRY (NAME=VALUE) is named in LIST, as a name or as NAME=...  */
static bool
named_in (const char *entry, const char *const *list)
{
  size_t n = name_length (entry);

  for (; list && *list; list++)
    if (name_length (*list) == n && strncmp (*list, entry, n) == 0)
      return true;
  return false;
}

/* Whether DROP says ENTRY's name (ENTRY is NAME=VALUE) is to go.  */
static bool
dropped (const char *entry, bool (*drop) (const char *name))
{
  size_t n = name_length (entry);
  char name[256];

  if (drop == NULL)
    return false;
  /* A name too long for the buffer is nobody's secret we know of, but
     dropping it is the safe side.  */
  if (n >= sizeof name)
    return true;
  memcpy (name, entry, n);
  name[n] = '\0';
  return drop (name);
}

char **
dice_proc_env (bool (*drop) (const char *name), const char *const *add)
{
  size_t n = 0, nadd = 0, k = 0;
  char **env;

  while (environ[n])
    n++;
  while (add && add[nadd])
    nadd++;
  env = calloc (n + nadd + 1, sizeof *env);
  if (env == NULL)
    return NULL;
  for (size_t i = 0; i < n; i++)
    if (!dropped (environ[i], drop) && !named_in (environ[i], add))
      if ((env[k++] = strdup (environ[i])) == NULL)
        goto fail;
  for (size_t i = 0; i < nadd; i++)
    if ((env[k++] = strdup (add[i])) == NULL)
      goto fail;
  return env;
fail:
  dice_proc_env_free (env);
  return NULL;
}

void
dice_proc_env_free (char **env)
{
  for (size_t i = 0; env && env[i]; i++)
    free (env[i]);
  free (env);
}

static void
close_fd (int *fd)
{
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

static int
set_flags (int fd)
{
  int fl = fcntl (fd, F_GETFL);

  if (fl < 0 || fcntl (fd, F_SETFL, fl | O_NONBLOCK) < 0
      || fcntl (fd, F_SETFD, FD_CLOEXEC) < 0)
    return -1;
  return 0;
}

int
dice_proc_spawn (struct dice_proc *p, char *const argv[], char *const env[],
                 bool capture_stderr)
{
  int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };
  int saved;
  pid_t pid;

  p->pid = -1;
  p->in_fd = p->out_fd = p->err_fd = -1;
  if (pipe (in) < 0 || pipe (out) < 0 || (capture_stderr && pipe (err) < 0))
    goto fail;
  pid = fork ();
  if (pid < 0)
    goto fail;
  if (pid == 0)
    {
      setpgid (0, 0);
      signal (SIGPIPE, SIG_DFL);
      if (dup2 (in[0], 0) < 0 || dup2 (out[1], 1) < 0
          || (capture_stderr && dup2 (err[1], 2) < 0))
        _exit (127);
      for (int i = 0; i < 2; i++)
        {
          close (in[i]);
          close (out[i]);
          if (capture_stderr)
            close (err[i]);
        }
      if (env)
        execvpe (argv[0], argv, env);
      else
        execvp (argv[0], argv);
      _exit (127);
    }
  /* Set the group from this side too, so a kill sent before the child
     has run cannot miss it.  */
  setpgid (pid, pid);
  track (pid);
  close (in[0]);
  close (out[1]);
  if (capture_stderr)
    close (err[1]);
  p->pid = pid;
  p->in_fd = in[1];
  p->out_fd = out[0];
  p->err_fd = capture_stderr ? err[0] : -1;
  if (set_flags (p->in_fd) < 0 || set_flags (p->out_fd) < 0
      || (capture_stderr && set_flags (p->err_fd) < 0))
    {
      saved = errno;
      dice_proc_kill (p);
      errno = saved;
      return -1;
    }
  return 0;

fail:
  saved = errno;
  for (int i = 0; i < 2; i++)
    {
      close_fd (&in[i]);
      close_fd (&out[i]);
      close_fd (&err[i]);
    }
  errno = saved;
  return -1;
}

static int
reap (struct dice_proc *p)
{
  int status = -1;

  close_fd (&p->in_fd);
  close_fd (&p->out_fd);
  close_fd (&p->err_fd);
  if (p->pid > 0)
    {
      while (waitpid (p->pid, &status, 0) < 0)
        if (errno != EINTR)
          {
            status = -1;
            break;
          }
      /* Whatever the child left behind in its group goes with it.  */
      kill (-p->pid, SIGKILL);
      untrack (p->pid);
    }
  p->pid = -1;
  return status;
}

int
dice_proc_kill (struct dice_proc *p)
{
  if (p->pid > 0)
    kill (-p->pid, SIGKILL);
  return reap (p);
}

int
dice_proc_wait (struct dice_proc *p)
{
  return reap (p);
}

/* Append LEN bytes to a growing buffer; KEEP_TAIL bounds it to its last
   KEEP_TAIL bytes (0: unbounded).  Returns 0 or -1.  */
static int
append (char **buf, size_t *len, size_t *cap, const char *data, size_t n,
        size_t keep_tail)
{
  if (*len + n + 1 > *cap)
    {
      size_t want = *cap ? *cap : 4096;
      char *grown;

      while (want < *len + n + 1)
        want *= 2;
      grown = realloc (*buf, want);
      if (grown == NULL)
        return -1;
      *buf = grown;
      *cap = want;
    }
  memcpy (*buf + *len, data, n);
  *len += n;
  (*buf)[*len] = '\0';
  if (keep_tail && *len > keep_tail)
    {
      memmove (*buf, *buf + *len - keep_tail, keep_tail + 1);
      *len = keep_tail;
    }
  return 0;
}

int
dice_proc_task_start (struct dice_proc_task *t, char *const argv[],
                      char *const env[], const char *input, size_t len,
                      double timeout)
{
  memset (t, 0, sizeof *t);
  t->input = input;
  t->len = len;
  t->timeout = timeout;
  t->start = dice_now ();
  if (dice_proc_spawn (&t->p, argv, env, true) != 0)
    return -1;
  if (len == 0)
    close_fd (&t->p.in_fd);
  return 0;
}

int
dice_proc_task_fds (const struct dice_proc_task *t, struct pollfd fds[3])
{
  int n = 0;

  if (t->p.in_fd >= 0)
    fds[n++] = (struct pollfd) { t->p.in_fd, POLLOUT, 0 };
  if (t->p.out_fd >= 0)
    fds[n++] = (struct pollfd) { t->p.out_fd, POLLIN, 0 };
  if (t->p.err_fd >= 0)
    fds[n++] = (struct pollfd) { t->p.err_fd, POLLIN, 0 };
  return n;
}

double
dice_proc_task_wait (const struct dice_proc_task *t)
{
  double left = t->timeout > 0 ? t->start + t->timeout - dice_now () : -1;

  /* With its pipes closed, a child can only be polled for its exit.  */
  if (t->p.out_fd < 0 && t->p.err_fd < 0)
    return left >= 0 && left < 0.002 ? left : 0.002;
  return left < 0 && t->timeout > 0 ? 0 : left;
}

/* Finish T: its status, its time, empty strings for missing output.  */
static int
task_done (struct dice_proc_task *t, int status)
{
  t->r.status = status;
  t->r.ms = (dice_now () - t->start) * 1000;
  if ((t->r.out == NULL
       && append (&t->r.out, &t->r.out_len, &t->out_cap, "", 0, 0))
      || (t->r.err == NULL
          && append (&t->r.err, &t->r.err_len, &t->err_cap, "", 0, 0)))
    return -1;
  t->finished = true;
  return 1;
}

int
dice_proc_task_step (struct dice_proc_task *t, const struct pollfd *fds,
                     int nfds)
{
  for (int i = 0; i < nfds; i++)
    {
      char chunk[65536];
      ssize_t got;

      if (!fds[i].revents)
        continue;
      if (fds[i].fd == t->p.in_fd)
        {
          got = write (t->p.in_fd, t->input + t->written,
                       t->len - t->written);
          if (got > 0)
            t->written += got;
          /* EPIPE: it stopped reading, which is its right.  */
          if ((got < 0 && errno != EAGAIN && errno != EINTR)
              || t->written == t->len)
            close_fd (&t->p.in_fd);
          continue;
        }
      if (fds[i].fd != t->p.out_fd && fds[i].fd != t->p.err_fd)
        continue;
      got = read (fds[i].fd, chunk, sizeof chunk);
      if (got < 0 && (errno == EAGAIN || errno == EINTR))
        continue;
      if (got <= 0)
        {
          close_fd (fds[i].fd == t->p.out_fd ? &t->p.out_fd : &t->p.err_fd);
          continue;
        }
      if (fds[i].fd == t->p.out_fd
          ? append (&t->r.out, &t->r.out_len, &t->out_cap, chunk, got, 0)
          : append (&t->r.err, &t->r.err_len, &t->err_cap, chunk, got,
                    DICE_PROC_ERR_TAIL))
        {
          dice_proc_task_abort (t);
          errno = ENOMEM;
          return -1;
        }
    }
  if (t->timeout > 0 && dice_now () >= t->start + t->timeout)
    {
      t->r.timed_out = true;
      return task_done (t, dice_proc_kill (&t->p));
    }
  if (t->p.out_fd < 0 && t->p.err_fd < 0)
    {
      int status;
      pid_t done = waitpid (t->p.pid, &status, WNOHANG);

      if (done == t->p.pid)
        {
          t->p.pid = -1;
          /* What it left running in its group goes too.  */
          kill (-done, SIGKILL);
          untrack (done);
          dice_proc_wait (&t->p);
          return task_done (t, status);
        }
      if (done < 0 && errno != EINTR)
        return task_done (t, dice_proc_wait (&t->p));
    }
  return 0;
}

void
dice_proc_task_abort (struct dice_proc_task *t)
{
  if (t->p.pid > 0 || t->p.in_fd >= 0 || t->p.out_fd >= 0)
    dice_proc_kill (&t->p);
  dice_proc_result_free (&t->r);
}

int
dice_proc_run (char *const argv[], char *const env[], const char *input,
               size_t len, double timeout, struct dice_proc_result *r)
{
  struct dice_proc_task t;
  struct sigaction ignore = { .sa_handler = SIG_IGN }, saved_pipe;
  int rc = 0;

  memset (r, 0, sizeof *r);
  if (dice_proc_task_start (&t, argv, env, input, len, timeout) != 0)
    return -1;
  sigaction (SIGPIPE, &ignore, &saved_pipe);
  while (rc == 0)
    {
      struct pollfd fds[3];
      int n = dice_proc_task_fds (&t, fds);
      double wait = dice_proc_task_wait (&t);

      if (poll (fds, n, wait < 0 ? -1 : (int) (wait * 1000) + 1) < 0
          && errno != EINTR)
        {
          int saved = errno;

          dice_proc_task_abort (&t);
          sigaction (SIGPIPE, &saved_pipe, NULL);
          errno = saved;
          return -1;
        }
      rc = dice_proc_task_step (&t, fds, n);
    }
  sigaction (SIGPIPE, &saved_pipe, NULL);
  if (rc < 0)
    return -1;
  *r = t.r;
  return 0;
}

void
dice_proc_result_free (struct dice_proc_result *r)
{
  free (r->out);
  free (r->err);
  r->out = r->err = NULL;
  r->out_len = r->err_len = 0;
}

char *
dice_proc_status_string (int status, char *buf, size_t size)
{
  if (status == -1)
    snprintf (buf, size, "unknown status");
  else if (WIFEXITED (status))
    snprintf (buf, size, "exit status %d", WEXITSTATUS (status));
  else if (WIFSIGNALED (status))
    snprintf (buf, size, "killed by signal %d (%s)", WTERMSIG (status),
              strsignal (WTERMSIG (status)));
  else
    snprintf (buf, size, "wait status %#x", (unsigned) status);
  return buf;
}
