/* dice-score: summarise checked and timed records (Exec, pass@k, fast_p,
   geometric-mean speedup, compile and deception rates) per level, in the
   robust view (deceptive samples are not correct) and the plain view side
   by side; or, with --rewards, add an RL reward to each record.  */
#include "system.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>

#include "cli.h"
#include "closeout.h"
#include "jsonl.h"
#include "jsonpick.h"
#include "msg.h"
#include "numarg.h"
#include "options.h"
#include "progname.h"
#include "record.h"
#include "stats.h"
#include "strmap.h"
#include "xalloc.h"
#include "score.h"

enum
{
  OPT_JSON = DICE_OPT_TOOL,
  OPT_CSV,
  OPT_MARKDOWN,
  OPT_LATEX,
  OPT_ROWS_ONLY,
  OPT_LABEL,
  OPT_VIEW,
  OPT_PER_PROBLEM,
  OPT_SVG,
  OPT_SVG_MAX,
  OPT_HTML,
  OPT_TASKS,
  OPT_REWARDS,
  OPT_COMPILE_WEIGHT,
  OPT_CORRECT_WEIGHT,
  OPT_SPEED_WEIGHT,
  OPT_SPEEDUP_CAP,
  OPT_NORMALIZE
};

static const struct option long_options[] = {
  {"pass-at", required_argument, NULL, 'k'},
  {"fast", required_argument, NULL, 'p'},
  {"json", no_argument, NULL, OPT_JSON},
  {"csv", no_argument, NULL, OPT_CSV},
  {"markdown", no_argument, NULL, OPT_MARKDOWN},
  {"latex", no_argument, NULL, OPT_LATEX},
  {"rows-only", no_argument, NULL, OPT_ROWS_ONLY},
  {"label", required_argument, NULL, OPT_LABEL},
  {"view", required_argument, NULL, OPT_VIEW},
  {"per-problem", no_argument, NULL, OPT_PER_PROBLEM},
  {"svg", required_argument, NULL, OPT_SVG},
  {"svg-max", required_argument, NULL, OPT_SVG_MAX},
  {"html", required_argument, NULL, OPT_HTML},
  {"tasks", required_argument, NULL, OPT_TASKS},
  {"rewards", optional_argument, NULL, OPT_REWARDS},
  {"compile-weight", required_argument, NULL, OPT_COMPILE_WEIGHT},
  {"correct-weight", required_argument, NULL, OPT_CORRECT_WEIGHT},
  {"speed-weight", required_argument, NULL, OPT_SPEED_WEIGHT},
  {"speedup-cap", required_argument, NULL, OPT_SPEEDUP_CAP},
  {"normalize", no_argument, NULL, OPT_NORMALIZE},
  DICE_FILTER_LONG_OPTIONS,
  DICE_COMMON_LONG_OPTIONS,
  {NULL, 0, NULL, 0}
};

static void
usage (void)
{
  printf ("\
Usage: %s [OPTION]... [FILE]...\n\
  or:  %s --rewards[=KIND] [OPTION]... [FILE]...\n\
Summarise dice records (JSON lines) read from FILEs, standard input by\n\
default: per level and over all, the problems and samples, compile and\n\
deception rates, pass@1 and fast_p@1 (the DICE paper's Exec and fast_p:\n\
the mean over the problems of the share of their samples that are correct,\n\
or correct and more than p times faster than the reference), pass@k and\n\
fast_p@k, best of n (problems with such a sample) and the geometric-mean\n\
speedup of correct samples, in the robust view (deceptive samples are not\n\
correct) and the plain view.\n\
With --rewards, write the records back with a reward added instead.\n\
\n\
Metrics:\n\
  -k, --pass-at=LIST     pass@k and fast_p@k for each k in LIST (default 1)\n\
                           besides pass@1 and fast_p@1, always there\n\
  -p, --fast=LIST        fast_p for each p in LIST (default 1,2)\n\
      --view=VIEW        robust, plain or both (default both)\n\
      --tasks=FILE       the problem set, N of each level: JSON lines with\n\
                           an id each (dice-prompt's output); a task with\n\
                           no record counts as failed (default: the\n\
                           problems that have records)\n\
\n\
Output (aligned text by default):\n\
      --json             one JSON object\n\
      --csv              comma-separated values, a row per level and view\n\
      --markdown         a Markdown table, a row per level and view\n\
      --latex            a LaTeX table in the layout of the DICE paper:\n\
                           a row per model, Exec and fast_p per level\n\
      --rows-only        with --latex, only the rows (to stack tables)\n\
      --label=TEXT       a first column naming the run; the LaTeX row's\n\
                           name (there by default the first sample.model)\n\
      --per-problem      a row per problem instead: status counts, best\n\
                           and median speedup\n\
      --svg=FILE         also draw fast_p against p, a plot per level\n\
                           with a line per FILE, to FILE\n\
      --svg-max=P        the largest p drawn (default 10)\n\
      --html=FILE        also write a report page to FILE: provenance,\n\
                           per level both views and their plots, a row\n\
                           per problem with its flags and errors\n\
\n\
Rewards:\n\
      --rewards[=KIND]   write each record with a 'reward' key: KIND bic\n\
                           (default: 1 if correct and not deceptive, else\n\
                           0, z-scored within the samples of each id) or\n\
                           composite (A*compiled + B*correct\n\
                           + C*min(speedup, R)*correct)\n\
      --compile-weight=A (default 0.1)\n\
      --correct-weight=B (default 1)\n\
      --speed-weight=C   (default 1)\n\
      --speedup-cap=R    (default 10)\n\
      --normalize        z-score composite rewards within each id too\n\
\n\
Input and output:\n", dice_program_name, dice_program_name);
  dice_print_common_help (true);
  dice_print_help_tail ();
}

/* Options.  */



/* A usage error in the one wording of lib/numarg.h:
   "invalid --OPTION 'ARG' (EXPECTED)".  */
static _Noreturn void
bad_option (const char *option, const char *arg, const char *expected)
{
  char msg[512];

  dice_invalid_value (msg, sizeof msg, option, arg, expected);
  dice_die_usage ("%s", msg);
}

static void
parse_k_list (struct settings *o, const char *arg)
{
  static const char expected[] = "positive whole numbers separated by "
    "commas, at most 16";
  const char *p = arg;

  o->nks = 0;
  do
    {
      const char *end = p + strcspn (p, ",");
      char number[32];
      long k;

      if (o->nks == MAX_LIST || (size_t) (end - p) >= sizeof number)
        bad_option ("pass-at", arg, expected);
      memcpy (number, p, (size_t) (end - p));
      number[end - p] = '\0';
      if (!isdigit ((unsigned char) number[0])
          || !dice_parse_long (number, 1, 1000000, &k))
        bad_option ("pass-at", arg, expected);
      o->ks[o->nks++] = (unsigned long) k;
      p = *end ? end + 1 : end;
    }
  while (*p || p[-1] == ',');
}

static void
parse_p_list (struct settings *o, const char *arg)
{
  static const char expected[] = "numbers of 0 or more separated by "
    "commas, at most 16";
  char *copy = xstrdup (arg), *save = NULL;
  size_t len = strlen (arg);

  o->nps = 0;
  if (len == 0 || arg[0] == ',' || arg[len - 1] == ',' || strstr (arg, ",,"))
    bad_option ("fast", arg, expected);
  for (char *tok = strtok_r (copy, ",", &save); tok;
       tok = strtok_r (NULL, ",", &save))
    {
      double p;

      if (!dice_parse_double (tok, 0, HUGE_VAL, false, &p)
          || o->nps == MAX_LIST)
        bad_option ("fast", arg, expected);
      o->ps[o->nps++] = p;
    }
  free (copy);
}

/* A reward weight: any finite number.  */
static double
parse_weight (const char *option, const char *arg)
{
  double x;

  if (!dice_parse_double (arg, -HUGE_VAL, HUGE_VAL, false, &x))
    bad_option (option, arg, "a number");
  return x;
}

static void
set_format (struct settings *o, enum format f)
{
  if (o->format != FORMAT_TEXT && o->format != f)
    dice_die_usage ("--json, --csv, --markdown and --latex exclude each "
                    "other");
  o->format = f;
}

/* The summary in the format asked for, and the figure.  */
static void
write_summaries (const struct settings *o)
{
  size_t n;
  struct summary *s = all_summaries (o, &n);

  warn_about_bad_input (o, &s[n - 1]);
  /* "--svg -" or "--html -" puts the figure or page where the summary
     would go.  */
  if ((o->svg_path && strcmp (o->svg_path, "-") == 0)
      || (o->html_path && strcmp (o->html_path, "-") == 0))
    ;
  else if (o->per_problem)
    write_per_problem (o);
  else if (o->format == FORMAT_JSON)
    write_summary_json (o, s, n);
  else if (o->format == FORMAT_LATEX)
    write_latex (o, s, n);
  else
    write_summary_table (o, s, n);
  if (o->svg_path)
    write_svg (o, s, n);
  if (o->html_path)
    write_html (o, s, n);
  free (s);
}

/* Options that make no sense together, refused before any input.  */
static void
refuse_combinations (const struct settings *o, bool score_options,
                     bool reward_options, int argc, char **argv)
{
  if (o->rewards != REWARD_NONE && score_options)
    dice_die_usage ("--rewards writes records, not a summary: it takes no "
                 "summary options");
  if (o->rewards != REWARD_COMPOSITE && reward_options)
    dice_die_usage ("the reward weights and --normalize need "
                 "--rewards=composite");
  if (o->rows_only && o->format != FORMAT_LATEX)
    dice_die_usage ("--rows-only needs --latex");
  if (o->per_problem && o->format == FORMAT_LATEX)
    dice_die_usage ("--per-problem cannot be a LaTeX table");
  if (o->svg_path && o->html_path && !strcmp (o->svg_path, "-")
      && !strcmp (o->html_path, "-"))
    dice_die_usage ("--svg - and --html - cannot both have standard output");

  if (o->tasks_path && strcmp (o->tasks_path, "-") == 0)
    for (int i = optind; i < argc || i == optind; i++)
      if (i == argc || strcmp (argv[i], "-") == 0)
        dice_die_usage ("--tasks - and the records cannot both be read "
                        "from standard input");
}

/* Read the command line into O; --help, --version and usage errors end
   the program.  */
static void
parse_options (struct settings *o, int argc, char **argv)
{
  bool score_options = false, reward_options = false;
  int c;

  while ((c = getopt_long (argc, argv, "k:p:", long_options, NULL)) != -1)
    {
      switch (c)
        {
        case 'k':
          parse_k_list (o, optarg);
          break;
        case 'p':
          parse_p_list (o, optarg);
          break;
        case OPT_JSON:          /* --json */
          set_format (o, FORMAT_JSON);
          break;
        case OPT_CSV:           /* --csv */
          set_format (o, FORMAT_CSV);
          break;
        case OPT_MARKDOWN:      /* --markdown */
          set_format (o, FORMAT_MARKDOWN);
          break;
        case OPT_LATEX:         /* --latex */
          set_format (o, FORMAT_LATEX);
          break;
        case OPT_ROWS_ONLY:     /* --rows-only */
          o->rows_only = true;
          break;
        case OPT_LABEL:         /* --label */
          o->label = optarg;
          break;
        case OPT_VIEW:          /* --view */
          o->views[VIEW_ROBUST] = !strcmp (optarg, "robust")
            || !strcmp (optarg, "both");
          o->views[VIEW_PLAIN] = !strcmp (optarg, "plain")
            || !strcmp (optarg, "both");
          if (!o->views[VIEW_ROBUST] && !o->views[VIEW_PLAIN])
            bad_option ("view", optarg, "robust, plain or both");
          break;
        case OPT_PER_PROBLEM:   /* --per-problem */
          o->per_problem = true;
          break;
        case OPT_SVG:           /* --svg */
          o->svg_path = optarg;
          break;
        case OPT_SVG_MAX:       /* --svg-max */
          o->svg_max = dice_option_double ("svg-max", optarg, 1, HUGE_VAL,
                                           true);
          break;
        case OPT_HTML:          /* --html */
          o->html_path = optarg;
          break;
        case OPT_TASKS:         /* --tasks */
          o->tasks_path = optarg;
          break;
        case OPT_REWARDS:       /* --rewards */
          if (optarg == NULL || strcmp (optarg, "bic") == 0)
            o->rewards = REWARD_BIC;
          else if (strcmp (optarg, "composite") == 0)
            o->rewards = REWARD_COMPOSITE;
          else
            bad_option ("rewards", optarg, "bic or composite");
          break;
        case OPT_COMPILE_WEIGHT:        /* --compile-weight */
          o->compile_weight = parse_weight ("compile-weight", optarg);
          reward_options = true;
          break;
        case OPT_CORRECT_WEIGHT:        /* --correct-weight */
          o->correct_weight = parse_weight ("correct-weight", optarg);
          reward_options = true;
          break;
        case OPT_SPEED_WEIGHT:  /* --speed-weight */
          o->speed_weight = parse_weight ("speed-weight", optarg);
          reward_options = true;
          break;
        case OPT_SPEEDUP_CAP:   /* --speedup-cap */
          o->speedup_cap = parse_weight ("speedup-cap", optarg);
          reward_options = true;
          break;
        case OPT_NORMALIZE:     /* --normalize */
          o->normalize = true;
          reward_options = true;
          break;
        default:
          dice_cli_common_option (c, usage);
        }
      if ((c >= OPT_JSON && c <= OPT_TASKS) || c == 'k' || c == 'p')
        score_options = true;
    }
  refuse_combinations (o, score_options, reward_options, argc, argv);
}

int
main (int argc, char **argv)
{
  struct settings settings = {
    .ks = {1}, .nks = 1,
    .ps = {1, 2}, .nps = 2,
    .views = {true, true},
    .svg_max = 10,
    .compile_weight = 0.1, .correct_weight = 1, .speed_weight = 1,
    .speedup_cap = 10,
  };
  struct settings *o = &settings;

  dice_set_program_name (argv[0]);
  atexit (dice_close_stdout);
  parse_options (o, argc, argv);
  if (o->tasks_path)
    read_tasks (o->tasks_path);
  for (int i = optind; i < argc || i == optind; i++)
    {
      const char *path = i < argc ? argv[i] : "-";

      run_begin ();
      read_input (o, path);
      run_end (argc - optind > 1 || !(o->label || first_model) ? path
               : o->label ? o->label : first_model);
    }
  if (o->html_path)
    html_read_details (argv + optind, (size_t) (argc - optind));

  if (record_count == 0)
    {
      dice_error ("no records");
      return DICE_EXIT_INPUT;
    }
  /* Records that never went through dice-check would make a table of
     zeros, or rewards of 0, that look like results: a pipeline mistake.  */
  if (checked_count == 0)
    {
      dice_error ("no record has been checked (no check.status or "
                  "check.correct): run dice-check first");
      return DICE_EXIT_INPUT;
    }
  if (o->rewards != REWARD_NONE)
    write_rewards (o);
  else
    {
      close_problem_set ();
      write_summaries (o);
    }
  free_problems ();
  free_runs ();
  free_html ();
  free_kept ();
  return exit_status;
}
