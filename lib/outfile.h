/* outfile.h: writing an output FILE whole or not at all: "-" is standard
   output; any other name is written to a temporary file beside it and
   renamed over it once complete, so that nothing (make, a reader) ever
   sees half a file.  */
#ifndef DICE_OUTFILE_H
#define DICE_OUTFILE_H

#include "system.h"

struct dice_outfile
{
  const char *path;             /* as given */
  char *temp;                   /* the temporary file; NULL for "-" */
  FILE *fp;
};

/* Open OUT for PATH.  False with errno set when it cannot be created.  */
bool dice_outfile_open (struct dice_outfile *out, const char *path);

/* Finish OUT: flush it and, for a file, rename it into place (removing
   it on failure).  False with errno set on a write error.  */
bool dice_outfile_commit (struct dice_outfile *out);

#endif
