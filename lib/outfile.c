/* outfile.c: an output file written whole or not at all.  */
#include "system.h"

#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "xalloc.h"

bool
dice_outfile_open (struct dice_outfile *out, const char *path)
{
  int fd;

  out->path = path;
  out->temp = NULL;
  out->fp = NULL;
  if (strcmp (path, "-") == 0)
    {
      out->fp = stdout;
      return true;
    }
  out->temp = xrealloc (NULL, strlen (path) + sizeof ".tmpXXXXXX");
  strcpy (out->temp, path);
  strcat (out->temp, ".tmpXXXXXX");
  fd = mkstemp (out->temp);
  if (fd >= 0)
    {
      /* mkstemp's 0600 would make the file private; what any new file
         gets is what the user expects.  */
      mode_t mask = umask (0);
      int saved;

      umask (mask);
      if (fchmod (fd, 0666 & ~mask) == 0
          && (out->fp = fdopen (fd, "w")) != NULL)
        return true;
      saved = errno;
      close (fd);
      unlink (out->temp);
      errno = saved;
    }
  free (out->temp);
  out->temp = NULL;
  return false;
}

bool
dice_outfile_commit (struct dice_outfile *out)
{
  bool ok;
  int saved;

  if (out->temp == NULL)
    return fflush (out->fp) == 0 && !ferror (out->fp);
  ok = !ferror (out->fp);
  ok &= fclose (out->fp) == 0;
  saved = errno;
  if (ok && rename (out->temp, out->path) != 0)
    {
      saved = errno;
      ok = false;
    }
  if (!ok)
    unlink (out->temp);
  free (out->temp);
  out->temp = NULL;
  out->fp = NULL;
  errno = saved;
  return ok;
}
