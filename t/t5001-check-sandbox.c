/* t5001-check-sandbox: the sandbox with plain shell commands as the
   untrusted process: results, logs, deadlines, lingering children,
   signals to the parent, the scrubbed environment.  */
#include "system.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sandbox.h"
#include "secrets.h"
#include "tap.h"

/* Directories the candidates may write, besides their own.  */
static char *writable[2];

static void
run_sh (struct dice_sandbox *sb, const char *script, double timeout)
{
  static char *argv[4] = { "sh", "-c", NULL, NULL };

  memset (sb, 0, sizeof *sb);
  argv[2] = (char *) script;
  sb->argv = argv;
  sb->timeout = timeout;
  sb->isolate = true;
  sb->writable = writable;
  sb->input = "{\"job\":1}";
  sb->input_len = strlen (sb->input);
  dice_sandbox_run (sb);
}

static void
test_environment (void)
{
  char *extra[] = { "PYTHONPATH=/x", NULL };
  char **env;
  bool key = false, home = false, path = false, pp = false, fd = false;

  ok (dice_secret_name ("OPENAI_API_KEY"), "an API key is secret");
  ok (dice_secret_name ("github_token"), "so is a token, in any case");
  ok (dice_secret_name ("AWS_REGION"), "AWS_ names are dropped");
  ok (!dice_secret_name ("CUDA_VISIBLE_DEVICES"), "CUDA_ is not");
  ok (dice_sandbox_keeps_variable ("LC_ALL"), "LC_ALL is kept");
  ok (!dice_sandbox_keeps_variable ("CUDA_API_KEY"), "a secret is never kept");
  ok (!dice_sandbox_keeps_variable ("EDITOR"), "nor an unlisted name");
  setenv ("DICE_API_KEY", "canary-5f3a9c", 1);
  setenv ("MY_SERVICE_TOKEN", "canary-token-77", 1);
  env = dice_sandbox_environ ("/tmp/d", extra);
  for (char **e = env; e && *e; e++)
    {
      key |= strstr (*e, "canary") != NULL;
      home |= strcmp (*e, "HOME=/tmp/d") == 0;
      path |= strncmp (*e, "PATH=", 5) == 0;
      pp |= strcmp (*e, "PYTHONPATH=/x") == 0;
      fd |= strcmp (*e, "DICE_RESULT_FD=3") == 0;
    }
  ok (env && !key, "no secret in the candidate's environment");
  ok (home && path && pp && fd, "HOME moved, PATH kept, extras and fd set");
  dice_sandbox_free_env (env);
}

static void
test_redact (void)
{
  char *r;

  /* The variables set in test_environment were noted by prepare only if
     set before it: set, prepare again.  */
  dice_sandbox_prepare ();
  r = dice_sandbox_redact ("key=canary-5f3a9c and canary-5f3a9c!");
  is_str (r, "key=[redacted] and [redacted]!", "secret values are redacted");
  free (r);
  ok (dice_sandbox_redact ("nothing here") == NULL, "clean text is kept");
}

static void
test_runs (void)
{
  struct dice_sandbox sb;
  struct stat st;

  run_sh (&sb, "cat >&3; echo out; echo err >&2; exit 0", 10);
  is_int (sb.end, DICE_SANDBOX_EXITED, "a run that exits");
  is_str (sb.result, "{\"job\":1}", "stdin reaches the candidate, fd 3 back");
  is_str (sb.log, "out\nerr\n", "stdout and stderr are kept");
  ok (stat (sb.dir, &st) != 0, "the working directory is removed");
  printf ("# namespaces: network %s, pid namespace %s\n",
          sb.net_isolated ? "isolated" : "shared",
          sb.pid_namespace ? "yes" : "no");
  dice_sandbox_free (&sb);

  run_sh (&sb, "test \"$HOME\" = \"$PWD\" && test \"$TMPDIR\" = \"$PWD\" "
          "&& test -z \"$DICE_API_KEY$MY_SERVICE_TOKEN\" && ls -A | wc -l >&3",
          10);
  is_str (sb.result, "0\n", "HOME and TMPDIR are the empty working dir");
  dice_sandbox_free (&sb);

  run_sh (&sb, "exit 7", 10);
  ok (sb.end == DICE_SANDBOX_EXITED && sb.status == 7, "exit status 7");
  dice_sandbox_free (&sb);

  /* A real fault: the first process of a PID namespace ignores kill()
     from inside it, but not a fault.  */
  run_sh (&sb, "exec python3 -c 'import ctypes; ctypes.string_at(0)'", 10);
  ok (sb.end == DICE_SANDBOX_SIGNALED && sb.status == SIGSEGV,
      "death by SIGSEGV");
  dice_sandbox_free (&sb);

  run_sh (&sb, "i=0; while test $i -lt 3000; do echo line $i; i=$((i+1)); "
          "done", 10);
  ok (sb.log_truncated && sb.log_len == 16384
      && strstr (sb.log, "line 2999\n") != NULL, "only the tail is kept");
  dice_sandbox_free (&sb);
}

/* Whether the lock on PATH, which the candidate's processes took (they
   cannot be named by PID from here: their /proc is their own), is free
   now, and was taken (PATH.held says so).  */
static bool
lock_freed (const char *path)
{
  char held[80];
  int fd = open (path, O_RDWR);
  bool free_now;

  snprintf (held, sizeof held, "%s.held", path);
  if (fd < 0 || access (held, F_OK) != 0)
    {
      if (fd >= 0)
        close (fd);
      return false;
    }
  free_now = flock (fd, LOCK_EX | LOCK_NB) == 0;
  close (fd);
  unlink (held);
  return free_now;
}

static void
test_hostile (void)
{
  struct dice_sandbox sb;
  char piddir[] = "/tmp/dice-t5001-XXXXXX";
  char pidfile[64];
  char script[512];
  double t0;

  if (mkdtemp (piddir) == NULL)
    return;
  writable[0] = piddir;
  snprintf (pidfile, sizeof pidfile, "%s/lock", piddir);
  snprintf (script, sizeof script,
            "(setsid sh -c 'exec 9>%s; flock 9; : >%s.held; exec sleep 300' &);"
            " sleep 0.3; echo done >&3", pidfile, pidfile);
  run_sh (&sb, script, 10);
  ok (sb.end == DICE_SANDBOX_EXITED && strcmp (sb.result, "done\n") == 0,
      "a run leaving a daemon behind ends");
  ok (lock_freed (pidfile), "the daemon is dead afterwards");
  dice_sandbox_free (&sb);

  t0 = (double) time (NULL);
  snprintf (script, sizeof script,
            "exec 9>%s; flock 9; : >%s.held; (sleep 300 &); sleep 300",
            pidfile, pidfile);
  run_sh (&sb, script, 1);
  is_int (sb.end, DICE_SANDBOX_TIMEOUT, "a hang is ended at the deadline");
  ok (time (NULL) - t0 < 8, "promptly");
  ok (lock_freed (pidfile), "and killed, with its child");
  dice_sandbox_free (&sb);

  run_sh (&sb, "kill -9 $PPID; kill -9 -$(ps -o pgid= $PPID 2>/dev/null "
          "| tr -d ' ') 2>/dev/null; kill -9 0; echo survived >&3", 10);
  ok (sb.end != DICE_SANDBOX_NOT_STARTED,
      "killing the parent and the groups: this process survives");
  printf ("# end %d status %d\n", (int) sb.end, sb.status);
  dice_sandbox_free (&sb);

  run_sh (&sb, "echo $$ >&3; echo ok", 10);
  is_str (sb.log, "ok\n", "and the next run is clean");
  if (sb.pid_namespace)
    is_str (sb.result, "1\n", "the candidate is PID 1 of its namespace");
  else
    ok (1, "# skip no PID namespace here");
  dice_sandbox_free (&sb);

  run_sh (&sb, "ls -d /proc/[0-9]* | wc -l >&3", 10);
  if (sb.proc_private)
    ok (atoi (sb.result) <= 3, "its /proc shows only its own processes");
  else
    ok (1, "# skip no private /proc here");
  dice_sandbox_free (&sb);

  unlink (pidfile);
  rmdir (piddir);
  writable[0] = NULL;
}

static void
test_filesystem (void)
{
  struct dice_sandbox sb;
  char outside[] = "/tmp/dice-t5001-out-XXXXXX";
  char allowed[] = "/tmp/dice-t5001-ok-XXXXXX";
  char script[512];
  struct stat st;

  if (mkdtemp (outside) == NULL || mkdtemp (allowed) == NULL)
    return;
  snprintf (script, sizeof script,
            "echo x >here && echo x >%s/f && (echo x >%s/f) 2>/dev/null;"
            "test -e %s/f && echo outside-written >&3; "
            "echo x >/dev/null && echo devnull-ok >&3", allowed, outside,
            outside);
  writable[0] = allowed;
  run_sh (&sb, script, 10);
  writable[0] = NULL;
  printf ("# file systems read-only: %s\n", sb.fs_readonly ? "yes" : "no");
  ok (stat (allowed, &st) == 0 && access ("/tmp", F_OK) == 0,
      "the writable directory stays");
  {
    char f[64];

    snprintf (f, sizeof f, "%s/f", allowed);
    ok (access (f, F_OK) == 0, "the candidate wrote in the writable one");
    unlink (f);
    snprintf (f, sizeof f, "%s/f", outside);
    if (sb.fs_readonly)
      ok (access (f, F_OK) != 0 && sb.result
          && strcmp (sb.result, "devnull-ok\n") == 0,
          "but not elsewhere; devices still work");
    else
      ok (1, "# skip no mount namespace here");
    unlink (f);
  }
  rmdir (allowed);
  rmdir (outside);
  dice_sandbox_free (&sb);
}

int
main (void)
{
  setenv ("DICE_API_KEY", "canary-5f3a9c", 1);
  dice_sandbox_prepare ();
  test_environment ();
  test_redact ();
  test_runs ();
  test_hostile ();
  test_filesystem ();
  return done_testing ();
}
