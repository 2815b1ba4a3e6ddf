/* progress.c: the progress report of the long-running tools; see
   progress.h.

   Several stages of one pipeline share one terminal.  Each claims a
   line slot: the first of the files PREFIX.0, PREFIX.1, ... it can
   flock, PREFIX naming the user, the terminal (its device number) and
   the process group, which the stages of a pipeline share.  The lock
   is the kernel's, so a stage that dies gives its slot back.  The
   cursor rests on slot 0's line; slot K is drawn K newlines below it
   (newlines, not cursor-down, so that the screen scrolls when the
   slots reach its bottom) and the cursor goes back up K lines, all in
   one write under PREFIX.lock so that two stages' draws never
   interleave.  The last stage to finish moves the cursor below every
   slot used and removes the files.  */
#include "system.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "progname.h"
#include "progress.h"
#include "proc.h"

enum { MODE_OFF, MODE_TERMINAL, MODE_LOG };
enum { MAX_SLOTS = 32 };

/* At most five redraws a second on a terminal.  */
static const double terminal_redraw = 0.2;

bool
dice_progress_parse (const char *arg, enum dice_progress_when *when)
{
  if (arg == NULL || strcmp (arg, "always") == 0)
    *when = DICE_PROGRESS_ALWAYS;
  else if (strcmp (arg, "auto") == 0)
    *when = DICE_PROGRESS_AUTO;
  else if (strcmp (arg, "never") == 0)
    *when = DICE_PROGRESS_NEVER;
  else
    return false;
  return true;
}

static long long
count_fd_lines (int fd)
{
  struct stat st;
  char buf[65536];
  long long lines = 0;
  off_t at = lseek (fd, 0, SEEK_CUR);
  char last = '\n';
  ssize_t n;

  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || at < 0)
    return -1;
  while ((n = pread (fd, buf, sizeof buf, at)) > 0)
    {
      for (char *p = buf; (p = memchr (p, '\n', (size_t) (buf + n - p)));
           p++)
        lines++;
      last = buf[n - 1];
      at += n;
    }
  if (n < 0)
    return -1;
  return lines + (last != '\n');
}

long long
dice_progress_count_lines (char **files, int nfiles)
{
  long long total = 0;

  if (nfiles == 0)
    return count_fd_lines (STDIN_FILENO);
  for (int i = 0; i < nfiles; i++)
    {
      long long n;
      int fd;

      if (strcmp (files[i], "-") == 0)
        n = count_fd_lines (STDIN_FILENO);
      else if ((fd = open (files[i], O_RDONLY | O_CLOEXEC)) < 0)
        n = -1;
      else
        {
          n = count_fd_lines (fd);
          close (fd);
        }
      if (n < 0)
        return -1;
      total += n;
    }
  return total;
}

static int
open_claim_file (const char *prefix, const char *suffix)
{
  char name[PATH_MAX];

  if ((size_t) snprintf (name, sizeof name, "%s%s", prefix, suffix)
      >= sizeof name)
    return -1;
  return open (name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
}

/* Claim a line slot; without one (no directory to lock in) the line is
   drawn where the cursor is, as a lone stage's would be.  */
static void
claim_slot (struct dice_progress *p)
{
  const char *dir = getenv ("XDG_RUNTIME_DIR");
  struct stat st;
  char prefix[PATH_MAX];

  p->slot = 0;
  p->slot_fd = p->lock_fd = -1;
  if (dir == NULL || *dir != '/')
    dir = "/tmp";
  if (fstat (STDERR_FILENO, &st) != 0
      || (size_t) snprintf (prefix, sizeof prefix,
                            "%s/dice-progress-%lu-%llx-%ld", dir,
                            (unsigned long) getuid (),
                            (unsigned long long) st.st_rdev,
                            (long) getpgrp ()) >= sizeof prefix
      || (p->lock_fd = open_claim_file (prefix, ".lock")) < 0)
    return;
  p->slot_dir = strdup (prefix);
  for (int k = 0; k < MAX_SLOTS && p->slot_dir; k++)
    {
      char suffix[16];
      int fd;

      snprintf (suffix, sizeof suffix, ".%d", k);
      if ((fd = open_claim_file (prefix, suffix)) < 0)
        break;
      if (flock (fd, LOCK_EX | LOCK_NB) == 0)
        {
          p->slot = k;
          p->slot_fd = fd;
          return;
        }
      close (fd);
    }
  close (p->lock_fd);
  p->lock_fd = -1;
}

void
dice_progress_start (struct dice_progress *p, enum dice_progress_when when,
                     long long total)
{
  const char *env = getenv ("DICE_PROGRESS_INTERVAL");
  char *end;
  bool tty = isatty (STDERR_FILENO);

  memset (p, 0, sizeof *p);
  p->slot = -1;
  p->slot_fd = p->lock_fd = -1;
  p->total = total;
  p->start = dice_now ();
  p->last_draw = p->start;
  p->interval = 30;
  if (env && *env)
    {
      double v = strtod (env, &end);

      if (*end == '\0' && v >= 0 && v < 1e9)
        p->interval = v;
    }
  if (when == DICE_PROGRESS_NEVER || (when == DICE_PROGRESS_AUTO && !tty))
    p->mode = MODE_OFF;
  else
    p->mode = tty ? MODE_TERMINAL : MODE_LOG;
  if (p->mode == MODE_TERMINAL)
    claim_slot (p);
}

static void
format_duration (char *buf, size_t len, double s)
{
  long t = s < 0 ? 0 : (long) (s + 0.5);

  if (t < 60)
    snprintf (buf, len, "%lds", t);
  else if (t < 3600)
    snprintf (buf, len, "%ldm%02lds", t / 60, t % 60);
  else
    snprintf (buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
}

static size_t
format_line (const struct dice_progress *p, char *line, size_t size,
             double now, bool final, const char *detail)
{
  double elapsed = now - p->start;
  double rate = elapsed > 0 ? (p->done - p->skipped) / elapsed : 0;
  char dur[32];
  size_t len;

#define ADD(...)                                                        \
  if (len < size)                                                       \
    len += (size_t) snprintf (line + len, size - len, __VA_ARGS__)
  len = (size_t) snprintf (line, size, "%s: %lld", dice_program_name,
                           p->done);
  if (p->total >= 0)
    ADD ("/%lld", p->total);
  ADD (" done");
  if (final)
    {
      format_duration (dur, sizeof dur, elapsed);
      ADD (" in %s", dur);
    }
  if (p->failed)
    ADD (", %lld failed", p->failed);
  if (p->skipped)
    ADD (", %lld done before", p->skipped);
  if (rate > 0)
    ADD (", %.*f/s", rate < 10 ? 1 : 0, rate);
  if (!final && p->total >= 0 && rate > 0 && p->total >= p->done)
    {
      format_duration (dur, sizeof dur, (p->total - p->done) / rate);
      ADD (", ETA %s", dur);
    }
  if (detail && *detail)
    ADD (" (%s)", detail);
#undef ADD
  return len < size ? len : size - 1;
}

static void
write_all (const char *buf, size_t len)
{
  while (len > 0)
    {
      ssize_t n = write (STDERR_FILENO, buf, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return;
      buf += n;
      len -= (size_t) n;
    }
}

/* Draw LINE into this stage's slot, cut to the terminal's width so that
   it never wraps into the next slot.  */
static void
draw_slot (const struct dice_progress *p, const char *line, size_t len)
{
  char buf[MAX_SLOTS + 1024];
  struct winsize ws;
  size_t n = 0;

  if (ioctl (STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1
      && len > (size_t) ws.ws_col - 1)
    len = (size_t) ws.ws_col - 1;
  if (len > 900)
    len = 900;
  for (int k = 0; k < p->slot; k++)
    buf[n++] = '\n';
  buf[n++] = '\r';
  memcpy (buf + n, line, len);
  n += len;
  n += (size_t) snprintf (buf + n, sizeof buf - n, "\033[K");
  if (p->slot > 0)
    n += (size_t) snprintf (buf + n, sizeof buf - n, "\033[%dA", p->slot);
  buf[n++] = '\r';
  if (p->lock_fd >= 0)
    flock (p->lock_fd, LOCK_EX);
  write_all (buf, n);
  if (p->lock_fd >= 0)
    flock (p->lock_fd, LOCK_UN);
}

static void
draw (struct dice_progress *p, double now, bool final, const char *detail)
{
  char line[1024];
  size_t len = format_line (p, line, sizeof line - 1, now, final, detail);

  p->last_draw = now;
  if (p->mode == MODE_LOG)
    {
      line[len++] = '\n';
      write_all (line, len);
    }
  else
    draw_slot (p, line, len);
}

void
dice_progress_update (struct dice_progress *p, long long done,
                      long long failed, long long skipped,
                      const char *detail)
{
  double now, every;
  int tenth = -1;

  if (p->mode == MODE_OFF)
    return;
  p->done = done;
  p->failed = failed;
  p->skipped = skipped;
  now = dice_now ();
  every = p->mode == MODE_LOG || p->interval < terminal_redraw
    ? p->interval : terminal_redraw;
  if (p->mode == MODE_LOG && p->total > 0)
    tenth = (int) (done * 10 / p->total);
  if (now - p->last_draw >= every || tenth > p->last_tenth)
    {
      if (tenth > p->last_tenth)
        p->last_tenth = tenth;
      draw (p, now, false, detail);
    }
}

/* Give the slot back; the last stage to finish puts the cursor below
   every slot used, so that the shell's prompt lands under them.  */
static void
release_slot (struct dice_progress *p)
{
  bool last = true;
  int highest = p->slot;
  char buf[MAX_SLOTS + 1];

  if (p->lock_fd < 0)
    {
      write_all ("\n", 1);
      return;
    }
  flock (p->lock_fd, LOCK_EX);
  close (p->slot_fd);
  for (int k = 0; k < MAX_SLOTS; k++)
    {
      char name[PATH_MAX];
      int fd;

      snprintf (name, sizeof name, "%s.%d", p->slot_dir, k);
      if ((fd = open (name, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) < 0)
        continue;
      highest = k > highest ? k : highest;
      if (flock (fd, LOCK_EX | LOCK_NB) != 0)
        last = false;
      close (fd);
    }
  if (last)
    {
      char name[PATH_MAX];

      memset (buf, '\n', (size_t) highest + 1);
      write_all (buf, (size_t) highest + 1);
      for (int k = 0; k <= highest; k++)
        {
          snprintf (name, sizeof name, "%s.%d", p->slot_dir, k);
          unlink (name);
        }
      snprintf (name, sizeof name, "%s.lock", p->slot_dir);
      unlink (name);
    }
  flock (p->lock_fd, LOCK_UN);
  close (p->lock_fd);
  p->lock_fd = p->slot_fd = -1;
}

void
dice_progress_finish (struct dice_progress *p, const char *detail)
{
  if (p->mode == MODE_OFF)
    return;
  draw (p, dice_now (), true, detail);
  if (p->mode == MODE_TERMINAL)
    release_slot (p);
  free (p->slot_dir);
  p->slot_dir = NULL;
  p->mode = MODE_OFF;
}

const char *
dice_progress_clear (const struct dice_progress *p)
{
  return p->mode == MODE_TERMINAL ? "\r\033[K" : "";
}
