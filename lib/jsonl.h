/* jsonl.h: JSON lines, one object per line, read and written with Jansson.  */
#ifndef DICE_JSONL_H
#define DICE_JSONL_H

#include "system.h"

#include <jansson.h>

/* A reader over one input.  Lines may be any length; blank lines are
   skipped; every other line must hold exactly one JSON object.  */
struct dice_jsonl_reader
{
  FILE *fp;
  const char *name;             /* for messages: the path, or "-" */
  unsigned long line;           /* number of the line last read */
  char *buf;
  size_t cap;
  bool owns_fp;
};

/* Open PATH ("-" means stdin).  Returns 0, or -1 with errno set.  */
int dice_jsonl_open (struct dice_jsonl_reader *r, const char *path);

/* Read the next record into *REC (a new reference the caller owns).
   Returns 1 for a record, 0 at end of input, -1 for a malformed line
   (ERR, of size ERRLEN, says why; r->line is its number; reading may go
   on), -2 for a read error (errno set).  */
int dice_jsonl_next (struct dice_jsonl_reader *r, json_t **rec,
                     char *err, size_t errlen);

/* The two halves of dice_jsonl_next, for a reader that looks at a line
   before deciding to parse it.  dice_jsonl_read_line sets *LINE (into
   R's buffer, valid until the next read) and *LEN to the next line that
   is not blank and returns 1, or 0 at end of input, -2 for a read error.
   dice_jsonl_parse parses one line as dice_jsonl_next does, returning 1
   or -1.  */
int dice_jsonl_read_line (struct dice_jsonl_reader *r, char **line,
                          size_t *len);
int dice_jsonl_parse (const char *line, size_t len, json_t **rec,
                      char *err, size_t errlen);

/* Close the input (not stdin) and free the buffer.  */
void dice_jsonl_close (struct dice_jsonl_reader *r);

/* Reading records as every filter does.  A bad line or record (reported
   already) is a problem of the input: with --strict the program ends with
   status 2 (DICE_EXIT_TROUBLE), else it is skipped and *STATUS becomes at
   least 1 (DICE_EXIT_INPUT).  */
void dice_input_problem (int *status);

/* Open PATH ("-": stdin) for dice_input_next, or end the program with
   status 2 and a message.  */
void dice_input_open (struct dice_jsonl_reader *r, const char *path);

/* The next record of R (a new reference the caller owns), or NULL at the
   end.  Malformed lines are reported as prog:FILE:LINE and go to
   dice_input_problem (STATUS); a read error ends the program (status 2).  */
json_t *dice_input_next (struct dice_jsonl_reader *r, int *status);

/* The next line of R that is not blank, for a reader that looks at the
   text before parsing it (dice_jsonl_read_line): true with *LINE and *LEN
   set, false at the end; a read error ends the program (status 2).  */
bool dice_input_line (struct dice_jsonl_reader *r, char **line, size_t *len);

/* Write REC to FP as one compact line.  Reals are written with the fewest
   digits that read back to the same double, so values pass through every
   tool unchanged.  Returns 0, or -1 if the write failed; a failed write
   to stdout is the caller's to report, and dice_close_stdout then keeps
   quiet about it (one error line, not two).  */
int dice_jsonl_write (FILE *fp, const json_t *rec);

/* The fewest significant digits (1 to 17) that print V with "%.*g" so
   that it reads back as V.  */
int dice_shortest_digits (double v);

/* V rounded to DIGITS significant digits, for measured values whose
   further digits are noise.  */
double dice_round_sig (double v, int digits);

#endif
