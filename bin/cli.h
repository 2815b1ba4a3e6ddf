/* cli.h: what only a program may do, shared by the dice tools: die with a
   message, handle the shared options, and read an option's numeric value
   or die with the one wording of lib/numarg.h.  lib/ never exits; these do.  */
#ifndef DICE_CLI_H
#define DICE_CLI_H

#include "system.h"

/* "prog: MESSAGE" on stderr, then exit STATUS.  */
_Noreturn void dice_die (int status, const char *fmt, ...) DICE_PRINTF (2, 3);

/* A usage error: "prog: MESSAGE", the "Try 'prog --help'" line, exit 2.  */
_Noreturn void dice_die_usage (const char *fmt, ...) DICE_PRINTF (1, 2);

/* Handle option code C, which is not the program's own: a shared option
   is recorded in dice_opts; --help (USAGE prints it) and --version exit 0;
   anything else is a usage error (exit 2).  */
void dice_cli_common_option (int c, void (*usage) (void));

/* OPTION's value ARG (OPTION without the dashes) as an integer in [LO, HI],
   or a usage error.  */
long dice_option_long (const char *option, const char *arg, long lo, long hi);

/* OPTION's value ARG as a number in [LO, HI] (above LO when ABOVE_LO; HI may
   be HUGE_VAL), or a usage error.  */
double dice_option_double (const char *option, const char *arg, double lo,
                           double hi, bool above_lo);

/* OPTION's value ARG as a size ("8G", "512M", bytes), or a usage error.  */
long long dice_option_size (const char *option, const char *arg);

#endif
