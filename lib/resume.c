/* resume.c: --resume FILE; see resume.h.  */
#include "system.h"

#include <fcntl.h>
#include <math.h>
#include <sys/file.h>
#include <unistd.h>

#include "fileio.h"
#include "jsonl.h"
#include "msg.h"
#include "record.h"
#include "resume.h"
#include "sha256.h"
#include "xalloc.h"

/* A line of FILE: where it starts and how long it is, less its
   newline.  */
struct resume_span
{
  off_t at;
  size_t len;
};

/* What FILE holds for one (id, sample.index): the input of its last
   record, and every line that held one (more than one only in a file
   put together by hand), blanked when the record is done again.  */
struct resume_entry
{
  char input[DICE_SHA256_HEX_SIZE];
  struct resume_span *lines;
  size_t nlines;
};

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

/* The SHA-256 of REC's INPUTS, into HEX: the digest of the compact JSON
   array of the values at those dotted paths (null where there is none),
   object keys sorted, which is how dice-records(5) defines it.  */
static void
input_hash (const json_t *rec, const char *const *inputs,
            char hex[DICE_SHA256_HEX_SIZE])
{
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream (&buf, &len);
  bool ok = mem != NULL && putc ('[', mem) != EOF;

  for (size_t i = 0; ok && inputs[i]; i++)
    {
      const json_t *value = dice_record_get (rec, inputs[i]);

      if (i > 0)
        ok = putc (',', mem) != EOF;
      if (ok && value)
        ok = json_dumpf (value, mem, JSON_COMPACT | JSON_SORT_KEYS
                         | JSON_ENCODE_ANY) == 0;
      else if (ok)
        ok = fputs ("null", mem) != EOF;
    }
  if (mem == NULL || !ok || putc (']', mem) == EOF || fclose (mem) != 0
      || dice_sha256_hex (buf, len, hex) != 0)
    dice_die_memory ();
  free (buf);
}

/* The value of row S for the structure at BASE: a new reference, or
   NULL with errno set.  */
static json_t *
setting_value (const struct dice_setting *s, const void *base)
{
  const void *field = (const char *) base + s->offset;
  const char *string;
  json_t *value;

  switch (s->type)
    {
    case DICE_SETTING_STRING:
      string = *(const char *const *) field;
      value = string ? json_string (string) : json_null ();
      break;
    case DICE_SETTING_LONG:
      value = json_integer (*(const long *) field);
      break;
    case DICE_SETTING_LLONG:
      value = json_integer ((json_int_t) *(const long long *) field);
      break;
    case DICE_SETTING_DOUBLE:
      value = json_real (*(const double *) field);
      break;
    case DICE_SETTING_BOOL:
      value = json_boolean (*(const bool *) field);
      break;
    case DICE_SETTING_NOT_BOOL:
      value = json_boolean (!*(const bool *) field);
      break;
    case DICE_SETTING_CUSTOM:
    default:
      errno = ENOMEM;
      return s->custom (base);
    }
  if (value == NULL)
    errno = ENOMEM;
  return value;
}

json_t *
dice_resume_settings (const struct dice_setting *table, size_t n,
                      unsigned where, const void *base)
{
  json_t *settings = json_object ();

  if (settings == NULL)
    {
      errno = ENOMEM;
      return NULL;
    }
  for (size_t i = 0; i < n; i++)
    if (table[i].where & where)
      {
        json_t *value = setting_value (&table[i], base);
        int err = value ? ENOMEM : errno;

        if (value == NULL
            || json_object_set_new (settings, table[i].name, value) != 0)
          {
            json_decref (settings);
            errno = err;
            return NULL;
          }
      }
  return settings;
}

static bool
is_sha256_hex (const char *s)
{
  return s && strlen (s) == DICE_SHA256_HEX_SIZE - 1
    && strspn (s, "0123456789abcdef") == DICE_SHA256_HEX_SIZE - 1;
}

static int
compare_names (const void *a, const void *b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* VALUE as compact JSON for a message, a real with the fewest digits
   that say it (and all of its integer part: 180.0, not 1.8e2); a new
   string, or NULL for no value.  */
static char *
show_value (const json_t *value)
{
  double v = json_real_value (value);
  int digits = json_is_real (value) ? dice_shortest_digits (v) : 17;

  while (digits < 17 && fabs (v) >= pow (10, digits))
    digits++;

  return value ? json_dumps (value, JSON_COMPACT | JSON_SORT_KEYS
                             | JSON_ENCODE_ANY
                             | JSON_REAL_PRECISION (digits)) : NULL;
}

/* Report, as PATH:LINE, each setting whose value in WAS (the file's)
   differs from NOW (this run's), in the order of their names.  */
static void
report_settings (const char *path, unsigned long line, const json_t *was,
                 const json_t *now)
{
  const json_t *sides[2] = { was, now };
  const char **names = NULL;
  size_t nnames = 0, len = 0;
  char *text = NULL;
  FILE *mem = open_memstream (&text, &len);

  if (mem == NULL)
    dice_die_memory ();
  for (int s = 0; s < 2; s++)
    {
      const char *name;
      json_t *value;

      json_object_foreach ((json_t *) sides[s], name, value)
        if (s == 0 || json_object_get (was, name) == NULL)
          {
            names = xrealloc (names, (nnames + 1) * sizeof *names);
            names[nnames++] = name;
          }
    }
  qsort (names, nnames, sizeof *names, compare_names);
  for (size_t i = 0, shown = 0; i < nnames; i++)
    {
      const json_t *a = json_object_get (was, names[i]);
      const json_t *b = json_object_get (now, names[i]);
      char *as, *bs;

      if (a && b && json_equal ((json_t *) a, (json_t *) b))
        continue;
      as = show_value (a);
      bs = show_value (b);
      fprintf (mem, "%s%s %s (now %s)", shown++ ? ", " : "", names[i],
               as ? as : "unset", bs ? bs : "unset");
      free (as);
      free (bs);
    }
  if (fclose (mem) != 0)
    dice_die_memory ();
  dice_error_at (path, line, "made with other settings: %s; resume with "
                 "the same settings, or into another file", text);
  free (text);
  free (names);
}

/* Note REC, a KEY record at LINE of PATH that spans LEN bytes from AT,
   as done.  Returns 0, or -1 after reporting why the run must not go
   on.  */
static int
take_record (struct dice_resume *r, const json_t *rec, unsigned long line,
             off_t at, size_t len)
{
  const json_t *provenance = dice_record_get (rec, r->key);
  const char *input;
  const json_t *settings;
  struct dice_strmap_entry *e;
  struct resume_entry *entry;
  char *k;

  provenance = json_object_get (provenance, "provenance");
  input = json_string_value (json_object_get (provenance, "input_sha256"));
  settings = json_object_get (provenance, "settings");
  if (!is_sha256_hex (input) || !json_is_object (settings))
    {
      dice_error_at (r->path, line, "a %s record without %s.provenance "
                     "(made without --resume, or by an older dice): what "
                     "made it cannot be known; remove such lines to have "
                     "them done again, or resume into another file",
                     r->key, r->key);
      return -1;
    }
  if (!json_equal ((json_t *) settings, r->settings))
    {
      report_settings (r->path, line, settings, r->settings);
      return -1;
    }
  k = resume_key (dice_record_id (rec), dice_record_sample_index (rec));
  e = dice_strmap_add (&r->done, k);
  free (k);
  if (e == NULL)
    dice_die_memory ();
  if (e->value == NULL)
    e->value = xcalloc (1, sizeof *entry);
  entry = e->value;
  memcpy (entry->input, input, DICE_SHA256_HEX_SIZE);
  entry->lines = xrealloc (entry->lines,
                           (entry->nlines + 1) * sizeof *entry->lines);
  entry->lines[entry->nlines++] = (struct resume_span) { at, len };
  return 0;
}

/* Write spaces over the LEN bytes at AT of FD.  Returns 0, or -1 with
   errno set.  */
static int
blank (int fd, off_t at, size_t len)
{
  char spaces[4096];

  memset (spaces, ' ', sizeof spaces);
  while (len > 0)
    {
      ssize_t n = pwrite (fd, spaces, len < sizeof spaces ? len
                          : sizeof spaces, at);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return -1;
      at += n;
      len -= (size_t) n;
    }
  return 0;
}

/* Read PATH's lines into R.  *GOOD becomes the length of what is to be
   kept, *MISSING_NEWLINE whether the last line kept needs a newline, and
   *TORN the lines that a kill left blanked in part (a new array of
   *NTORN).  Returns 0, or -1 after reporting why.  */
static int
read_lines (struct dice_resume *r, size_t *good, bool *missing_newline,
            struct resume_span **torn, size_t *ntorn)
{
  char *data;
  size_t len;
  unsigned long line = 0;
  int status = 0;

  *good = 0;
  if (dice_read_file (r->path, &data, &len) != 0)
    {
      if (errno == ENOENT)
        return 0;
      dice_error_errno (errno, "cannot read '%s'", r->path);
      return -1;
    }
  for (size_t at = 0; at < len && status == 0;)
    {
      char *nl = memchr (data + at, '\n', len - at);
      json_error_t jerr;
      json_t *rec;

      line++;
      rec = json_loadb (data + at, (nl ? nl : data + len) - data - at, 0,
                        &jerr);
      if (nl == NULL && !is_done_record (rec, r->key))
        {
          /* What a kill in the middle of a write leaves.  */
          dice_error_at (r->path, line, "incomplete last line (an "
                         "interrupted run); removed");
          json_decref (rec);
          break;
        }
      if (nl == NULL)
        {
          /* A whole record that lost its newline (an editor): keep it.  */
          nl = data + len;
          *missing_newline = true;
        }
      if (is_done_record (rec, r->key))
        status = take_record (r, rec, line, (off_t) at,
                              (size_t) (nl - data - at));
      else if (strspn (data + at, " \t\r") == (size_t) (nl - data - at))
        ;                       /* blank, or a record done again */
      else if (rec == NULL && data[at] == ' ')
        {
          /* Blanking goes from the start of the line, so a kill in the
             middle of it leaves spaces and then what no parser takes.  */
          dice_error_at (r->path, line, "a record blanked in part (an "
                         "interrupted run); blanked");
          *torn = xrealloc (*torn, (*ntorn + 1) * sizeof **torn);
          (*torn)[(*ntorn)++] = (struct resume_span) {
            (off_t) at, (size_t) (nl - data - at) };
        }
      else
        dice_error_at (r->path, line, "not a %s record; ignored", r->key);
      json_decref (rec);
      at = nl + 1 - data;
      *good = at < len ? at : len;
    }
  free (data);
  return status;
}

int
dice_resume_open (struct dice_resume *r, const char *path, const char *key,
                  const char *const *inputs, json_t *settings)
{
  struct resume_span *torn = NULL;
  size_t good, ntorn = 0;
  bool missing_newline = false;
  int status;

  memset (r, 0, sizeof *r);
  r->path = path;
  r->key = key;
  r->inputs = inputs;
  r->settings = settings;
  r->fd = r->blank_fd = -1;
  if (settings == NULL)
    dice_die_memory ();
  r->fd = open (path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  /* pwrite on a descriptor opened with O_APPEND appends on Linux.  */
  r->blank_fd = open (path, O_WRONLY | O_CLOEXEC);
  if (r->fd < 0 || r->blank_fd < 0)
    {
      dice_error_errno (errno, "cannot write to '%s'", path);
      status = -1;
    }
  /* Two runs on one file would both do what it lacks.  A file system
     without locks (some cluster mounts) cannot tell: go on.  */
  else if (flock (r->fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK)
    {
      dice_error ("'%s' is in use by another run", path);
      status = -1;
    }
  else
    status = read_lines (r, &good, &missing_newline, &torn, &ntorn);
  if (status == 0
      && (ftruncate (r->fd, (off_t) good) != 0
          || (missing_newline && write (r->fd, "\n", 1) != 1)))
    {
      dice_error_errno (errno, "cannot write to '%s'", path);
      status = -1;
    }
  for (size_t i = 0; status == 0 && i < ntorn; i++)
    if (blank (r->blank_fd, torn[i].at, torn[i].len) != 0)
      {
        dice_error_errno (errno, "cannot write to '%s'", path);
        status = -1;
      }
  free (torn);
  if (status != 0)
    {
      int err = errno;

      dice_resume_close (r);
      errno = err;
    }
  return status;
}

bool
dice_resume_done (const struct dice_resume *r, const json_t *rec,
                  long long index)
{
  char *k = resume_key (dice_record_id (rec), index);
  const struct resume_entry *entry = dice_strmap_get (&r->done, k);
  char input[DICE_SHA256_HEX_SIZE];

  free (k);
  if (entry == NULL)
    return false;
  input_hash (rec, r->inputs, input);
  return strcmp (input, entry->input) == 0;
}

int
dice_resume_write (struct dice_resume *r, json_t *rec)
{
  json_t *own = json_object_get (rec, r->key);
  char *buf = NULL, *k;
  size_t len = 0, off = 0;
  char input[DICE_SHA256_HEX_SIZE];
  struct resume_entry *entry;
  FILE *mem;

  /* Every tool leaves the other keys as they came, so the output
     record's inputs are the input record's.  */
  input_hash (rec, r->inputs, input);
  if (json_is_object (own)
      && json_object_set_new (own, "provenance",
                              json_pack ("{s:s, s:o}", "input_sha256", input,
                                         "settings",
                                         json_deep_copy (r->settings))) != 0)
    dice_die_memory ();
  k = resume_key (dice_record_id (rec), dice_record_sample_index (rec));
  entry = dice_strmap_get (&r->done, k);
  free (k);
  if (entry && entry->nlines)
    {
      /* Blanked first: a kill between the two leaves the record missing,
         which the next run does, never there twice.  */
      for (size_t i = 0; i < entry->nlines; i++)
        if (blank (r->blank_fd, entry->lines[i].at, entry->lines[i].len) != 0)
          return -1;
      entry->nlines = 0;
      r->replaced++;
    }
  mem = open_memstream (&buf, &len);
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
  int status = 0;

  if (r->replaced)
    {
      char what[256] = "";
      size_t n = 0, len = 0;

      while (r->inputs[n])
        n++;
      for (size_t i = 0; i < n && len < sizeof what; i++)
        len += (size_t) snprintf (what + len, sizeof what - len, "%s%s",
                                  i == 0 ? "" : i + 1 < n ? ", " : " or ",
                                  r->inputs[i]);
      dice_error ("%lu record%s in '%s' %s made from another %s: "
                  "done again", r->replaced, r->replaced == 1 ? "" : "s",
                  r->path, r->replaced == 1 ? "was" : "were", what);
    }
  if (r->fd >= 0 && close (r->fd) != 0)
    status = -1;
  if (r->blank_fd >= 0 && close (r->blank_fd) != 0)
    status = -1;
  r->fd = r->blank_fd = -1;
  for (size_t i = 0; i < r->done.cap; i++)
    if (r->done.slots[i].key)
      {
        struct resume_entry *entry = r->done.slots[i].value;

        free (entry->lines);
        free (entry);
      }
  dice_strmap_free (&r->done);
  json_decref (r->settings);
  r->settings = NULL;
  r->replaced = 0;
  return status;
}
