/* harness-end.c: how a run of the harness ended, and the parts of a
   record's object that say so alike in every mode.  */
#include "system.h"

#include <ctype.h>
#include <math.h>
#include <signal.h>

#include "harness-end.h"

void
dice_harness_one_line (char *s)
{
  char *w = s;

  for (const char *r = s; *r && w - s < DICE_HARNESS_ERROR_MAX; r++)
    {
      char c = iscntrl ((unsigned char) *r) ? ' ' : *r;

      if (c == ' ' && (w == s || w[-1] == ' '))
        continue;
      *w++ = c;
    }
  while (w > s && w[-1] == ' ')
    w--;
  *w = '\0';
}

/* The last non-blank line of LOG, at most 200 bytes, into BUF.  */
static void
last_line (const char *log, char *buf, size_t size)
{
  const char *end = log + strlen (log);
  const char *start;
  size_t len;

  while (end > log && isspace ((unsigned char) end[-1]))
    end--;
  start = end;
  while (start > log && start[-1] != '\n')
    start--;
  len = (size_t) (end - start);
  if (len > 200)
    start = end - 200, len = 200;
  snprintf (buf, size, "%.*s", (int) len, start);
  dice_harness_one_line (buf);
}

static const char *
signal_name (int sig)
{
  const char *name = strsignal (sig);

  return name ? name : "unknown signal";
}

const char *
dice_harness_explain_end (const struct dice_harness *h,
                          const struct dice_sandbox *sb, char *why,
                          size_t size)
{
  char tail[256], said[300] = "";

  last_line (sb->log ? sb->log : "", tail, sizeof tail);
  if (*tail)
    snprintf (said, sizeof said, "; last output: %s", tail);
  switch (sb->end)
    {
    case DICE_SANDBOX_TIMEOUT:
      snprintf (why, size, "timed out after %g s (build and run)%s",
                h->timeout, said);
      return "timeout";
    case DICE_SANDBOX_SIGNALED:
      if (sb->status == SIGKILL && sb->oom_kill)
        {
          snprintf (why, size, "killed by the kernel's out-of-memory "
                    "killer%s", said);
          return "oom";
        }
      snprintf (why, size, "killed by signal %d (%s)%s", sb->status,
                signal_name (sb->status), said);
      return "crashed";
    case DICE_SANDBOX_EXITED:
      snprintf (why, size, "the harness exited with status %d without a "
                "result%s", sb->status, said);
      return "crashed";
    case DICE_SANDBOX_GUARD_LOST:
      snprintf (why, size, "the sandbox's guard process was killed or "
                "stopped (by the candidate?)%s", said);
      return "crashed";
    case DICE_SANDBOX_NOT_STARTED:
    default:
      snprintf (why, size, "could not start the harness: %s", sb->error);
      return "crashed";
    }
}

json_t *
dice_harness_sandbox_object (const struct dice_harness *h,
                             const struct dice_sandbox *sb, bool started)
{
  return json_pack ("{s:s?, s:o, s:s?, s:s?, s:o, s:o}",
                    "network", !started ? NULL
                    : sb->net_isolated ? "isolated" : "shared",
                    "pid_namespace", started ? json_boolean (sb->pid_namespace)
                    : json_null (),
                    "filesystem", !started ? NULL
                    : sb->fs_readonly ? "read-only" : "shared",
                    "proc", !started ? NULL
                    : sb->proc_private ? "private" : "shared",
                    "memory", sb->memory
                    ? json_integer ((json_int_t) sb->memory)
                    : json_null (),
                    "timeout", h->timeout == floor (h->timeout)
                    ? json_integer ((json_int_t) h->timeout)
                    : json_real (h->timeout));
}

unsigned long long
dice_harness_sandbox_memory (const struct dice_harness *h)
{
  return strcmp (h->device, "cpu") == 0 && h->memory > 0
    ? (unsigned long long) h->memory : 0;
}

const char *
dice_harness_status (struct dice_harness_end *end, const json_t *object,
                     const char *const *statuses)
{
  const char *said = json_string_value (json_object_get (object, "status"));

  if (end->status)
    return end->status;
  for (size_t i = 0; said && statuses[i]; i++)
    if (strcmp (said, statuses[i]) == 0)
      return statuses[i];
  snprintf (end->why, end->whylen, "the harness's result has %s status",
            said ? "an unknown" : "no");
  return "crashed";
}
