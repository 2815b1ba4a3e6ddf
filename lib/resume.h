/* resume.h: --resume FILE, how a long run goes on after it was stopped.
   The output is appended to FILE, one write per record, so that a kill
   leaves at most a torn last line; the next run cuts that line off and
   skips every record FILE already holds, by (id, sample.index), provided
   that it was made from the same input and with the same settings.  Each
   record written says so in the tool's object: KEY.provenance holds the
   SHA-256 of the record's input fields and the run's settings
   (dice-records(5)).  A record whose input changed is done again: its
   old line is blanked in place (spaces, which every reader skips) just
   before the new record is appended, so FILE never holds a record
   twice.  A FILE made with other settings is refused.  */
#ifndef DICE_RESUME_H
#define DICE_RESUME_H

#include "system.h"

#include <jansson.h>

#include "strmap.h"

struct dice_resume
{
  const char *path;
  const char *key;              /* the tool's key: "sample", "check" ... */
  const char *const *inputs;    /* dotted paths the input hash covers */
  json_t *settings;             /* what the run's settings are (owned) */
  int fd;                       /* PATH, appended to */
  int blank_fd;                 /* PATH again, for blanking lines */
  struct dice_strmap done;      /* "id\037index" -> struct resume_entry */
  unsigned long replaced;       /* records done again for a new input */
};

/* A setting of a tool that can change a record's verdict, read from the
   tool's settings structure: one row of the tool's one table of them.  */
enum dice_setting_type
{
  DICE_SETTING_STRING,          /* const char *; NULL becomes null */
  DICE_SETTING_LONG,
  DICE_SETTING_LLONG,
  DICE_SETTING_DOUBLE,
  DICE_SETTING_BOOL,
  DICE_SETTING_NOT_BOOL,        /* a bool that says the opposite */
  DICE_SETTING_CUSTOM           /* what CUSTOM makes of the structure */
};

struct dice_setting
{
  const char *name;
  unsigned where;               /* the modes or backends it counts in */
  enum dice_setting_type type;
  size_t offset;                /* of the field in the structure */
  /* DICE_SETTING_CUSTOM: a new reference, or NULL with errno set.  */
  json_t *(*custom) (const void *base);
};

#define DICE_SETTING(name, where, type, structure, field)               \
  { name, where, DICE_SETTING_##type, offsetof (structure, field), NULL }
#define DICE_SETTING_FN(name, where, function)                          \
  { name, where, DICE_SETTING_CUSTOM, 0, function }

/* The settings object of the structure at BASE: each of the N rows of
   TABLE whose WHERE shares a bit with WHERE, by name.  A new reference,
   or NULL with errno set (ENOMEM, or what a custom row said).  */
json_t *dice_resume_settings (const struct dice_setting *table, size_t n,
                              unsigned where, const void *base);

/* Open PATH, creating it when missing, for a run of the tool whose key
   is KEY, whose records' input is the values at the dotted paths INPUTS
   (a NULL-terminated list that must outlive R), and whose settings are
   SETTINGS (an object of setting -> value; the reference is stolen).  A
   record counts as done when it has an id, KEY and KEY.provenance; a
   last line without a newline that is not such a record is what a kill
   left, and is reported and removed; a line that a kill left blanked
   only in part is blanked; other lines are reported and ignored.
   Returns 0, or -1 after reporting why the run must not go on: PATH
   cannot be read or written, a KEY record in it has no provenance (made
   without --resume or by an older dice: what made it cannot be known),
   or its settings differ from SETTINGS (each differing one is named).  */
int dice_resume_open (struct dice_resume *r, const char *path,
                      const char *key, const char *const *inputs,
                      json_t *settings);

/* Whether PATH holds sample INDEX (-1: a record without one) of the
   record REC (an input record: its id and R's inputs are read), made
   from the input REC has now.  Safe to call while another thread is in
   dice_resume_write.  */
bool dice_resume_done (const struct dice_resume *r, const json_t *rec,
                       long long index);

/* Add KEY.provenance to REC (whose KEY must be an object) and append REC
   to PATH in one write, after blanking the lines that held an earlier
   record of its (id, sample.index).  Not thread-safe: one call at a
   time.  Returns 0, or -1 with errno set.  */
int dice_resume_write (struct dice_resume *r, json_t *rec);

/* Close PATH, saying how many records were done again because their
   input had changed.  Returns 0, or -1 with errno set.  */
int dice_resume_close (struct dice_resume *r);

#endif
