/* fileio.h: whole-file reading.  */
#ifndef DICE_FILEIO_H
#define DICE_FILEIO_H

#include "system.h"

/* Read all of PATH into a new NUL-terminated buffer *DATA (the caller
   frees it) of *LEN bytes.  Returns 0, or -1 with errno set.  */
int dice_read_file (const char *path, char **data, size_t *len);

/* Join DIR and NAME with one '/' into a new string the caller frees;
   NULL when out of memory.  */
char *dice_path_join (const char *dir, const char *name);

/* Whether PATH is DIR or below it (both absolute, DIR perhaps ending in
   '/').  */
bool dice_path_under (const char *path, const char *dir);

#endif
