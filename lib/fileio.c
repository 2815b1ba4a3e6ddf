/* fileio.c: whole-file reading.  */
#include "system.h"

#include "fileio.h"

int
dice_read_file (const char *path, char **data, size_t *len)
{
  FILE *fp = fopen (path, "rb");
  char *buf = NULL;
  size_t size = 0, cap = 0;

  if (fp == NULL)
    return -1;
  for (;;)
    {
      size_t got;

      if (cap - size < 4096)
        {
          size_t ncap = cap ? 2 * cap : 16384;
          char *nbuf = realloc (buf, ncap);

          if (nbuf == NULL)
            goto fail;
          buf = nbuf;
          cap = ncap;
        }
      got = fread (buf + size, 1, cap - size - 1, fp);
      size += got;
      if (got == 0)
        break;
    }
  if (ferror (fp))
    goto fail;
  fclose (fp);
  buf[size] = '\0';
  *data = buf;
  *len = size;
  return 0;

fail:
  {
    int saved = errno ? errno : EIO;

    free (buf);
    fclose (fp);
    errno = saved;
    return -1;
  }
}

char *
dice_path_join (const char *dir, const char *name)
{
  size_t dlen = strlen (dir);
  char *path;

  while (dlen > 1 && dir[dlen - 1] == '/')
    dlen--;
  path = malloc (dlen + strlen (name) + 2);
  if (path)
    sprintf (path, "%.*s/%s", (int) dlen, dir, name);
  return path;
}

bool
dice_path_under (const char *path, const char *dir)
{
  size_t n = strlen (dir);

  if (n > 0 && dir[n - 1] == '/')
    n--;
  return strncmp (path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}
