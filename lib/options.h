/* options.h: the options every dice tool shares, in one place.
   A tool appends DICE_COMMON_LONG_OPTIONS (and, for record filters,
   DICE_FILTER_LONG_OPTIONS) to its own long option table, numbers its own
   long-only options from DICE_OPT_TOOL, and passes unknown codes to
   dice_common_option.  */
#ifndef DICE_OPTIONS_H
#define DICE_OPTIONS_H

#include "system.h"

#include <getopt.h>

#include "shard.h"

enum
{
  DICE_OPT_HELP = CHAR_MAX + 1,
  DICE_OPT_VERSION,
  DICE_OPT_STRICT,
  DICE_OPT_UNBUFFERED,
  DICE_OPT_SHARD,
  DICE_OPT_TOOL                 /* first code free for a tool's own options */
};

#define DICE_COMMON_LONG_OPTIONS                                \
  {"help", no_argument, NULL, DICE_OPT_HELP},                   \
  {"version", no_argument, NULL, DICE_OPT_VERSION}

#define DICE_FILTER_LONG_OPTIONS                                \
  {"strict", no_argument, NULL, DICE_OPT_STRICT},               \
  {"unbuffered", no_argument, NULL, DICE_OPT_UNBUFFERED}

/* --shard, for the tools that write one record per record (not
   dice-score, which summarises).  */
#define DICE_SHARD_LONG_OPTIONS                                 \
  {"shard", required_argument, NULL, DICE_OPT_SHARD}

/* Settings the shared options control.  */
struct dice_common_options
{
  bool strict;                  /* stop at the first bad input line (exit 2) */
  bool unbuffered;              /* flush stdout after every record */
  struct dice_shard shard;      /* --shard I/N; count 0 when not given */
};

extern struct dice_common_options dice_opts;

/* What dice_common_option did with an option code.  */
enum dice_option_result
{
  DICE_OPTION_HANDLED,          /* a shared option; it is recorded in dice_opts */
  DICE_OPTION_EXIT_OK,          /* --help or --version was printed: exit 0 */
  DICE_OPTION_UNKNOWN           /* not a shared option, or a bad value of
                                   one (its message printed): a usage
                                   error */
};

/* Handle shared option code C.  USAGE prints the tool's --help text.  */
enum dice_option_result dice_common_option (int c, void (*usage) (void));

/* The --help lines for the shared options; FILTER adds --strict and
   --unbuffered.  */
void dice_print_common_help (bool filter);

/* The --help line for --shard (DICE_SHARD_LONG_OPTIONS).  */
void dice_print_shard_help (void);

/* The closing lines of --help: exit statuses and where to report bugs.  */
void dice_print_help_tail (void);

/* "prog (dice) VERSION" and the licence, in the GNU form.  */
void dice_print_version (void);

#endif
