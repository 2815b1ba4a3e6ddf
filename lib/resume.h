/* resume.h: --resume FILE, how a long run goes on after it was stopped.
   The output is appended to FILE, one write per record, so that a kill
   leaves at most a torn last line; the next run cuts that line off and
   skips every record FILE already holds, by (id, sample.index).  */
#ifndef DICE_RESUME_H
#define DICE_RESUME_H

#include "system.h"

#include <jansson.h>

struct dice_resume
{
  const char *path;
  int fd;
  json_t *done;                 /* the keys of the records PATH holds */
};

/* Open PATH, creating it when missing.  A record counts as done when it
   has an id and the tool's KEY ("sample", "check"...); a last line
   without a newline that is not such a record is what a kill left, and
   is reported and removed; other lines are reported and ignored.  Exits
   with status 2 when PATH cannot be read or written.  */
void dice_resume_open (struct dice_resume *r, const char *path,
                       const char *key);

/* Whether PATH held the record of ID with sample index INDEX (-1: a
   record without one).  */
bool dice_resume_done (const struct dice_resume *r, const char *id,
                       long long index);

/* Append REC to PATH in one write.  Returns 0, or -1 with errno set.  */
int dice_resume_write (struct dice_resume *r, const json_t *rec);

/* Close PATH.  Returns 0, or -1 with errno set.  */
int dice_resume_close (struct dice_resume *r);

#endif
