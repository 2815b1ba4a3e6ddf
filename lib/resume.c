/* resume.c: --resume FILE; see resume.h.  */
#include "system.h"

#include <fcntl.h>
#include <unistd.h>

#include "fileio.h"
#include "jsonl.h"
#include "msg.h"
#include "record.h"
#include "resume.h"
#include "xalloc.h"

/* The key of sample INDEX of record ID: the unit separator cannot occur
   in an id that a person would write.  */
static char *
resume_key (const char *id, long long index)
{
  size_t n = strlen (id) + 32;
  char *key = xrealloc (NULL, n);

  if (index < 0)
    snprintf (key, n, "%s\037", id);
  else
    snprintf (key, n, "%s\037%lld", id, index);
  return key;
}

static bool
is_done_record (const json_t *rec, const char *key)
{
  return rec && dice_record_id (rec) && json_object_get (rec, key);
}

void
dice_resume_open (struct dice_resume *r, const char *path, const char *key)
{
  char *data;
  size_t len, good = 0;
  unsigned long line = 0;
  bool missing_newline = false;

  r->path = path;
  r->done = json_object ();
  if (r->done == NULL)
    dice_die_memory ();
  if (dice_read_file (path, &data, &len) != 0)
    {
      if (errno != ENOENT)
        {
          dice_error_errno (errno, "cannot read '%s'", path);
          exit (DICE_EXIT_TROUBLE);
        }
      data = NULL;
      len = 0;
    }
  for (size_t at = 0; at < len;)
    {
      char *nl = memchr (data + at, '\n', len - at);
      json_error_t jerr;
      json_t *rec;

      line++;
      rec = json_loadb (data + at, (nl ? nl : data + len) - data - at, 0,
                        &jerr);
      if (nl == NULL && !is_done_record (rec, key))
        {
          /* What a kill in the middle of a write leaves.  */
          dice_error_at (path, line, "incomplete last line (an "
                         "interrupted run); removed");
          json_decref (rec);
          break;
        }
      if (nl == NULL)
        {
          /* A whole record that lost its newline (an editor): keep it.  */
          nl = data + len;
          missing_newline = true;
        }
      if (is_done_record (rec, key))
        {
          char *k = resume_key (dice_record_id (rec),
                                dice_record_sample_index (rec));

          if (json_object_set_new (r->done, k, json_true ()) != 0)
            dice_die_memory ();
          free (k);
        }
      else if (strspn (data + at, " \t\r") != (size_t) (nl - data - at))
        dice_error_at (path, line, "not a %s record; ignored", key);
      json_decref (rec);
      at = nl + 1 - data;
      good = at < len ? at : len;
    }
  free (data);
  r->fd = open (path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (r->fd < 0 || (good < len && ftruncate (r->fd, good) != 0)
      || (missing_newline && write (r->fd, "\n", 1) != 1))
    {
      dice_error_errno (errno, "cannot write to '%s'", path);
      exit (DICE_EXIT_TROUBLE);
    }
}

bool
dice_resume_done (const struct dice_resume *r, const char *id,
                  long long index)
{
  char *k = resume_key (id, index);
  bool found = json_object_get (r->done, k) != NULL;

  free (k);
  return found;
}

int
dice_resume_write (struct dice_resume *r, const json_t *rec)
{
  char *buf = NULL;
  size_t len = 0, off = 0;
  FILE *mem = open_memstream (&buf, &len);

  if (mem == NULL || dice_jsonl_write (mem, rec) != 0 || fclose (mem))
    dice_die_memory ();
  while (off < len)
    {
      ssize_t n = write (r->fd, buf + off, len - off);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int err = errno;

          free (buf);
          errno = err;
          return -1;
        }
      off += (size_t) n;
    }
  free (buf);
  return 0;
}

int
dice_resume_close (struct dice_resume *r)
{
  int status = r->fd >= 0 ? close (r->fd) : 0;

  r->fd = -1;
  json_decref (r->done);
  r->done = NULL;
  return status;
}
