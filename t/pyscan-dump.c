/* pyscan-dump: print lib/pyscan's static analysis of each Python FILE as
   one JSON line; with -d NAME (repeatable) NAME is a decoy kernel, and
   with -k, print the __global__ names of each FILE instead, one a line.
   For the t0014 tests and contrib/bench/scan-speed.sh.  */
#include "system.h"

#include <unistd.h>

#include "fileio.h"
#include "pyscan.h"

int
main (int argc, char **argv)
{
  const char *decoys[17] = { NULL };
  size_t ndecoys = 0;
  bool names = false, quiet = false;
  int opt;

  while ((opt = getopt (argc, argv, "d:kq")) != -1)
    switch (opt)
      {
      case 'd':
        if (ndecoys + 1 < DICE_ARRAY_SIZE (decoys))
          decoys[ndecoys++] = optarg;
        break;
      case 'k':
        names = true;
        break;
      case 'q':
        quiet = true;
        break;
      default:
        fprintf (stderr, "usage: pyscan-dump [-kq] [-d DECOY]... FILE...\n");
        return 2;
      }
  for (int i = optind; i < argc; i++)
    {
      char *src;
      size_t len;

      if (dice_read_file (argv[i], &src, &len) != 0)
        {
          perror (argv[i]);
          return 2;
        }
      if (names)
        {
          char **k = dice_scan_kernel_names (src, len);

          if (k == NULL)
            return 2;
          for (size_t j = 0; k[j]; j++)
            puts (k[j]);
          dice_scan_free_names (k);
        }
      else
        {
          json_t *r = dice_scan (src, len, ndecoys ? decoys : NULL);

          if (r == NULL)
            return 2;
          if (!quiet)
            {
              char *s = json_dumps (r, JSON_COMPACT);

              if (s == NULL)
                return 2;
              puts (s);
              free (s);
            }
          json_decref (r);
        }
      free (src);
    }
  return fflush (stdout) == 0 ? 0 : 2;
}
