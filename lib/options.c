/* options.c: the options every dice tool shares.  */
#include "system.h"

#include "msg.h"
#include "options.h"
#include "progname.h"

struct dice_common_options dice_opts;

enum dice_option_result
dice_common_option (int c, void (*usage) (void))
{
  switch (c)
    {
    case DICE_OPT_HELP:
      usage ();
      return DICE_OPTION_EXIT_OK;
    case DICE_OPT_VERSION:
      dice_print_version ();
      return DICE_OPTION_EXIT_OK;
    case DICE_OPT_STRICT:
      dice_opts.strict = true;
      return DICE_OPTION_HANDLED;
    case DICE_OPT_UNBUFFERED:
      dice_opts.unbuffered = true;
      return DICE_OPTION_HANDLED;
    case DICE_OPT_SHARD:
      {
        char err[256];

        if (dice_shard_parse (optarg, &dice_opts.shard, err, sizeof err) == 0)
          return DICE_OPTION_HANDLED;
        dice_error ("%s", err);
        return DICE_OPTION_UNKNOWN;
      }
    default:
      return DICE_OPTION_UNKNOWN;
    }
}

void
dice_print_common_help (bool filter)
{
  if (filter)
    fputs ("\
      --strict           stop at the first malformed input line (exit 2);\n\
                           by default it is reported, skipped, and the\n\
                           exit status is 1\n\
      --unbuffered       flush the output after every record\n", stdout);
  fputs ("\
      --help             display this help and exit\n\
      --version          output version information and exit\n", stdout);
}

void
dice_print_shard_help (void)
{
  fputs ("\
      --shard=I/N        do only shard I of N (1 <= I <= N): a stable split\n\
                           by id and sample.index, whatever the input order\n",
         stdout);
}

void
dice_print_help_tail (void)
{
  printf ("\n\
Exit status: 0 if all went well, 1 if some input was malformed and skipped,\n\
2 if the run could not go on (bad usage, unreadable files, write errors).\n\
\n\
Report bugs to: %s\n\
%s home page: <%s>\n", PACKAGE_BUGREPORT, PACKAGE_NAME,
          "https://github.com/dice-kernels/dice");
}

void
dice_print_version (void)
{
  printf ("%s (%s) %s\n", dice_program_name, PACKAGE_NAME, PACKAGE_VERSION);
  fputs ("\
Copyright (C) 2026 the dice authors.\n\
License: MIT (Expat) <https://opensource.org/licenses/MIT>.\n\
This is free software: you are free to change and redistribute it.\n\
There is NO WARRANTY, to the extent permitted by law.\n", stdout);
}
