/* dice-curate: turn judged records into training data.  The default makes
   a supervised fine-tuning set in the chat-messages layout that Hugging
   Face TRL and the SDAR/TraDo training code read, keeping only pairs that
   are robust-correct and whose speedup survived repeated timing runs (the
   DICE paper's CuKe rule); --difficulty orders the problems of a run from
   easy to hard, for scheduling RL batches.  */
#include "system.h"

#include <ctype.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "closeout.h"
#include "jsonl.h"
#include "msg.h"
#include "outfile.h"
#include "options.h"
#include "progname.h"
#include "pylex.h"
#include "record.h"
#include "xalloc.h"
#include "strmap.h"

enum
{
  OPT_MIN_SPEEDUP = DICE_OPT_TOOL,
  OPT_UNCONFIRMED,
  OPT_SYSTEM,
  OPT_STATS,
  OPT_DIFFICULTY
};

static const struct option long_options[] = {
  {"min-speedup", required_argument, NULL, OPT_MIN_SPEEDUP},
  {"unconfirmed", no_argument, NULL, OPT_UNCONFIRMED},
  {"system", required_argument, NULL, OPT_SYSTEM},
  {"output", required_argument, NULL, 'o'},
  {"stats", no_argument, NULL, OPT_STATS},
  {"difficulty", no_argument, NULL, OPT_DIFFICULTY},
  DICE_FILTER_LONG_OPTIONS,
  DICE_COMMON_LONG_OPTIONS,
  {NULL, 0, NULL, 0}
};

#define DEFAULT_SYSTEM "You are an expert in writing fast, correct CUDA \
kernels for PyTorch models."

static void
usage (void)
{
  printf ("\
Usage: %s [OPTION]... [FILE]...\n\
  or:  %s --difficulty [OPTION]... [FILE]...\n\
Make a supervised fine-tuning set from judged records (dice-check and\n\
dice-time output): one JSON line per kept pair, {\"messages\": [system, user\n\
(the prompt), assistant (the completion)], ...provenance}.  A pair is kept\n\
when it is correct and not deceptive (in check or time) and its confirmed\n\
speedup is at least the threshold; duplicates (the same code, comments and\n\
white space aside, for the same problem) are kept once.  With --difficulty,\n\
write one line per problem instead, easiest first.  Records are read from\n\
FILEs (standard input by default).\n\
\n\
      --min-speedup=X    keep pairs whose confirmed speedup is at least X\n\
                           (default 2.0)\n\
      --unconfirmed      use time.speedup where a record has no confirmed\n\
                           figure (timed without dice-time --runs)\n\
      --system=TEXT      the system message ('' for none)\n\
  -o, --output=FILE      write to FILE, replaced whole when done ('-':\n\
                           standard output, the default)\n\
      --stats            say on standard error how many records were kept\n\
                           and why the others were dropped\n\
      --difficulty       order the problems by pass rate, then level, then\n\
                           id, instead of making pairs\n\
\n\
Input and output:\n",
          dice_program_name, dice_program_name);
  dice_print_common_help (true);
  dice_print_help_tail ();
}

static int exit_status = DICE_EXIT_OK;
static double min_speedup = 2.0;
static bool use_unconfirmed, show_stats, difficulty_mode;
static const char *system_text = DEFAULT_SYSTEM;
static FILE *out;

/* Why a record did not make the set, in the order they are tested.  */
enum drop
{
  KEPT,
  DROP_NOT_CORRECT,
  DROP_NOT_ROBUST,
  DROP_DECEPTIVE_CHECK,
  DROP_DECEPTIVE_TIME,
  DROP_NOT_TIMED,
  DROP_UNCONFIRMED,
  DROP_SLOW,
  DROP_NO_PAIR,
  DROP_DUPLICATE,
  DROP_COUNT
};

static const char *const drop_names[DROP_COUNT] = {
  "kept",
  "not correct",
  "not checked for deception (--no-robust)",
  "deceptive in dice-check",
  "deceptive in dice-time",
  "not timed",
  "speedup not confirmed",
  "confirmed speedup below the threshold",
  "no prompt text or no code",
  "duplicate"
};

static unsigned long drop_counts[DROP_COUNT];

/* Add S[0, N) with C and C++ comments removed and every run of white
   space made one space: CUDA sources live in Python strings, and two
   completions that differ only there are the same kernel.  */
static void
add_normalised_c (struct xbuf *b, const char *s, size_t n)
{
  bool space = false;

  for (size_t i = 0; i < n; i++)
    {
      if (s[i] == '/' && i + 1 < n && s[i + 1] == '/')
        {
          while (i < n && s[i] != '\n')
            i++;
          space = true;
          continue;
        }
      if (s[i] == '/' && i + 1 < n && s[i + 1] == '*')
        {
          i += 2;
          while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'))
            i++;
          i++;
          space = true;
          continue;
        }
      if (isspace ((unsigned char) s[i]))
        {
          space = true;
          continue;
        }
      if (space && b->len > 0)
        xbuf_add (b, " ", 1);
      space = false;
      xbuf_add (b, s + i, 1);
    }
}

/* CODE reduced to what makes it behave: Python comments, blank lines and
   the spelling of white space dropped (indentation kept as INDENT and
   DEDENT marks), string values normalised as C.  Code the tokenizer
   cannot read is normalised as C text as a whole.  The caller frees the
   result.  */
static char *
normalise_code (const char *code)
{
  struct xbuf b = { NULL, 0, 0 };
  struct dice_pylex lx;
  struct dice_pytok *toks;
  size_t ntoks;

  if (dice_pylex_all (&lx, code, strlen (code), &toks, &ntoks) != 0)
    {
      if (lx.error[0] == '\0')
        dice_die_memory ();
      add_normalised_c (&b, code, strlen (code));
      xbuf_add (&b, "", 0);
      return b.data;
    }
  for (size_t i = 0; i < ntoks; i++)
    {
      const struct dice_pytok *t = &toks[i];
      char *value;
      size_t len;

      switch (t->kind)
        {
        case DICE_PYTOK_COMMENT:
        case DICE_PYTOK_NL:
        case DICE_PYTOK_END:
          break;
        case DICE_PYTOK_NEWLINE:
          xbuf_add (&b, "\n", 1);
          break;
        case DICE_PYTOK_INDENT:
          xbuf_add (&b, "{\n", 2);
          break;
        case DICE_PYTOK_DEDENT:
          xbuf_add (&b, "}\n", 2);
          break;
        case DICE_PYTOK_STRING:
          value = dice_pystring_value (code, t, &len);
          xbuf_add (&b, "\"", 1);
          if (value)
            add_normalised_c (&b, value, len);
          else
            xbuf_add (&b, code + t->start, t->end - t->start);
          xbuf_add (&b, "\" ", 2);
          free (value);
          break;
        default:
          xbuf_add (&b, code + t->start, t->end - t->start);
          xbuf_add (&b, " ", 1);
        }
    }
  free (toks);
  xbuf_add (&b, "", 0);
  return b.data;
}

/* The speedup a record is judged by: time.confirmed_speedup (the worst of
   dice-time --runs), or with --unconfirmed time.speedup when the record
   was timed once.  Returns the reason to drop the record, or KEPT with
   *SPEEDUP set.  */
static enum drop
judged_speedup (const json_t *rec, double *speedup)
{
  const json_t *time = json_object_get (rec, "time");
  const json_t *confirmed, *v;

  if (json_is_true (dice_record_get (rec, "time.deception.deceptive")))
    return DROP_DECEPTIVE_TIME;
  if (!json_is_object (time) || json_object_get (time, "skipped")
      || !json_is_string (json_object_get (time, "status"))
      || strcmp (dice_record_string (rec, "time.status"), "ok") != 0)
    return DROP_NOT_TIMED;
  confirmed = json_object_get (time, "confirmed_speedup");
  if (confirmed == NULL && use_unconfirmed)
    v = json_object_get (time, "speedup");
  else if (json_is_false (json_object_get (time, "confirmed")))
    return DROP_UNCONFIRMED;
  else
    v = confirmed;
  if (!json_is_number (v))
    return DROP_UNCONFIRMED;
  *speedup = json_number_value (v);
  return *speedup >= min_speedup ? KEPT : DROP_SLOW;
}

/* Why REC is not a pair for the set, or KEPT.  */
static enum drop
judge (const json_t *rec, double *speedup)
{
  const char *status = dice_record_string (rec, "check.status");
  const json_t *deceptive = dice_record_get (rec, "check.deception.deceptive");

  if (status == NULL || strcmp (status, "correct") != 0)
    return DROP_NOT_CORRECT;
  if (json_is_true (deceptive))
    return DROP_DECEPTIVE_CHECK;
  if (!json_is_false (deceptive))
    return DROP_NOT_ROBUST;
  return judged_speedup (rec, speedup);
}

/* The assistant's turn: the raw completion when the record keeps it, else
   the code in a fenced block as a model would have written it.  */
static json_t *
assistant_text (const json_t *rec, const char *code)
{
  const char *text = dice_record_string (rec, "sample.text");
  char *fenced;
  json_t *j;

  if (text)
    return xcheck (json_string (text));
  if (asprintf (&fenced, "```python\n%s%s```", code,
                code[0] && code[strlen (code) - 1] == '\n' ? "" : "\n") < 0)
    dice_die_memory ();
  j = xcheck (json_string (fenced));
  free (fenced);
  return j;
}

/* Each run's speedup (null for a run that failed), from time.runs.  */
static json_t *
run_speedups (const json_t *rec)
{
  const json_t *runs = dice_record_get (rec, "time.runs");
  json_t *speedups = xcheck (json_array ());
  size_t i;
  json_t *run;

  json_array_foreach (runs, i, run)
  {
    json_t *s = json_object_get (run, "speedup");

    json_array_append_new (speedups, json_is_number (s) ? json_copy (s)
                           : json_null ());
  }
  return speedups;
}

static json_t *
copy_or_null (const json_t *v)
{
  return v ? xcheck (json_deep_copy (v)) : xcheck (json_null ());
}

/* The training line for REC (judged KEPT, with CODE and PROMPT).  */
static json_t *
make_pair (const json_t *rec, const char *prompt, const char *code,
           double speedup)
{
  json_t *messages = xcheck (json_array ());
  json_t *device = dice_record_get (rec, "time.device");

  if (system_text[0])
    json_array_append_new (messages,
                           xcheck (json_pack ("{s:s, s:s}", "role", "system",
                                               "content", system_text)));
  json_array_append_new (messages,
                         xcheck (json_pack ("{s:s, s:s}", "role", "user",
                                             "content", prompt)));
  json_array_append_new (messages,
                         xcheck (json_pack ("{s:s, s:o}", "role", "assistant",
                                             "content",
                                             assistant_text (rec, code))));
  return xcheck (json_pack ("{s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:f, s:b}",
                             "messages", messages,
                             "id", dice_record_id (rec),
                             "sample", copy_or_null (dice_record_get (rec, "sample.index")),
                             "level", copy_or_null (dice_record_get (rec, "problem.level")),
                             "model", copy_or_null (dice_record_get (rec, "sample.model")),
                             "device", copy_or_null (device ? device : dice_record_get (rec, "check.device")),
                             "runs", run_speedups (rec),
                             "confirmed_speedup", speedup,
                             "confirmed", json_is_true (dice_record_get (rec, "time.confirmed"))));
}

static void
write_line (const json_t *j)
{
  if (dice_jsonl_write (out, j) != 0)
    dice_die (DICE_EXIT_TROUBLE, "write error: %s", strerror (errno));
  if (dice_opts.unbuffered)
    fflush (out);
}

static struct dice_strmap seen;

/* Judge REC and write its pair if it is kept.  */
static void
curate_record (const json_t *rec)
{
  double speedup = 0;
  enum drop why = judge (rec, &speedup);
  const char *prompt = dice_record_string (rec, "prompt.text");
  const char *code = dice_record_string (rec, "code");
  const char *id = dice_record_id (rec);

  if (why == KEPT && (prompt == NULL || code == NULL || id == NULL))
    why = DROP_NO_PAIR;
  if (why == KEPT)
    {
      char *norm = normalise_code (code);
      char *key;
      struct dice_strmap_entry *e;

      if (asprintf (&key, "%s%c%s", id, '\n', norm) < 0)
        dice_die_memory ();
      free (norm);
      e = dice_strmap_add (&seen, key);
      free (key);
      if (e == NULL)
        dice_die_memory ();
      if (e->value)
        why = DROP_DUPLICATE;
      e->value = &seen;
    }
  drop_counts[why]++;
  if (why == KEPT)
    {
      json_t *pair = make_pair (rec, prompt, code, speedup);

      write_line (pair);
      json_decref (pair);
    }
}

/* What --difficulty knows of one problem.  */
struct problem
{
  const char *id;               /* the map's key */
  json_int_t level;             /* 0 when unknown */
  unsigned long samples, passed;
};

static struct dice_strmap problems;

static void
count_record (const json_t *rec)
{
  const char *id = dice_record_id (rec);
  struct dice_strmap_entry *e;
  struct problem *p;
  const json_t *level = dice_record_get (rec, "problem.level");
  double unused;
  enum drop why;

  if (id == NULL)
    return;
  e = dice_strmap_add (&problems, id);
  if (e == NULL)
    dice_die_memory ();
  if (e->value == NULL)
    {
      e->value = calloc (1, sizeof *p);
      if (e->value == NULL)
        dice_die_memory ();
      ((struct problem *) e->value)->id = e->key;
    }
  p = e->value;
  if (json_is_integer (level))
    p->level = json_integer_value (level);
  p->samples++;
  /* Passing is what earns a reward: robust-correct, whatever the speed.  */
  why = judge (rec, &unused);
  if (why == KEPT || why > DROP_DECEPTIVE_TIME)
    p->passed++;
}

/* Easiest first: higher pass rate, then lower level, then id, so that the
   order is the same for the same records whatever order they came in.  */
static int
easier (const void *a, const void *b)
{
  const struct problem *p = *(struct problem *const *) a;
  const struct problem *q = *(struct problem *const *) b;
  /* Cross-multiplied so that equal rates compare equal exactly.  */
  double lhs = (double) p->passed * q->samples;
  double rhs = (double) q->passed * p->samples;

  if (lhs != rhs)
    return lhs > rhs ? -1 : 1;
  if (p->level != q->level)
    return p->level < q->level ? -1 : 1;
  return strcmp (p->id, q->id);
}

static void
write_difficulty (void)
{
  struct problem **order = calloc (problems.count + 1, sizeof *order);
  size_t n = 0;

  if (order == NULL)
    dice_die_memory ();
  for (size_t i = 0; i < problems.cap; i++)
    if (problems.slots[i].key)
      order[n++] = problems.slots[i].value;
  qsort (order, n, sizeof *order, easier);
  for (size_t i = 0; i < n; i++)
    {
      struct problem *p = order[i];
      json_t *line = xcheck (json_pack ("{s:s, s:I, s:o, s:I, s:I, s:f}",
                                         "id", p->id, "rank", (json_int_t) i + 1,
                                         "level",
                                         p->level ? json_integer (p->level)
                                         : json_null (),
                                         "samples", (json_int_t) p->samples,
                                         "passed", (json_int_t) p->passed,
                                         "pass_rate",
                                         (double) p->passed / p->samples));

      write_line (line);
      json_decref (line);
      free (p);
    }
  free (order);
}

static void
process (const char *path)
{
  struct dice_jsonl_reader in;
  json_t *rec;

  dice_input_open (&in, path);
  while ((rec = dice_input_next (&in, &exit_status)) != NULL)
    {
      if (difficulty_mode)
        count_record (rec);
      else
        curate_record (rec);
      json_decref (rec);
    }
  dice_jsonl_close (&in);
}

static void
print_stats (void)
{
  unsigned long total = 0;

  for (int i = 0; i < DROP_COUNT; i++)
    total += drop_counts[i];
  dice_error ("%lu of %lu record%s kept (confirmed speedup at least %g)",
              drop_counts[KEPT], total, total == 1 ? "" : "s", min_speedup);
  for (int i = 1; i < DROP_COUNT; i++)
    if (drop_counts[i])
      dice_error ("dropped %lu: %s", drop_counts[i], drop_names[i]);
}

/* Where the output goes (lib/outfile: standard output, or a file
   replaced whole once everything is written).  */
static struct dice_outfile output_file;

/* A run that dies leaves no temporary file behind.  */
static void
remove_tmp (void)
{
  if (output_file.temp)
    unlink (output_file.temp);
}

static void
open_output (const char *output)
{
  if (output == NULL)
    output = "-";
  if (!dice_outfile_open (&output_file, output))
    dice_die (DICE_EXIT_TROUBLE, "%s: %s", output, strerror (errno));
  if (output_file.temp)
    atexit (remove_tmp);
  out = output_file.fp;
}

static void
close_output (const char *output)
{
  /* Standard output's write errors are dice_close_stdout's to report,
     once, as in every tool.  */
  if (output_file.temp == NULL)
    return;
  if (!dice_outfile_commit (&output_file))
    dice_die (DICE_EXIT_TROUBLE, "%s: %s", output ? output : "-",
              strerror (errno));
}

int
main (int argc, char **argv)
{
  const char *output = NULL;
  int c;

  dice_set_program_name (argv[0]);
  atexit (dice_close_stdout);

  while ((c = getopt_long (argc, argv, "o:", long_options, NULL)) != -1)
    switch (c)
      {
      case OPT_MIN_SPEEDUP:     /* --min-speedup */
        min_speedup = dice_option_double ("min-speedup", optarg, 0, HUGE_VAL,
                                          false);
        break;
      case OPT_UNCONFIRMED:     /* --unconfirmed */
        use_unconfirmed = true;
        break;
      case OPT_SYSTEM:          /* --system */
        system_text = optarg;
        break;
      case 'o':
        output = optarg;
        break;
      case OPT_STATS:           /* --stats */
        show_stats = true;
        break;
      case OPT_DIFFICULTY:      /* --difficulty */
        difficulty_mode = true;
        break;
      default:
        dice_cli_common_option (c, usage);
      }

  open_output (output);
  if (optind == argc)
    process ("-");
  for (int i = optind; i < argc; i++)
    process (argv[i]);
  if (difficulty_mode)
    write_difficulty ();
  else if (show_stats)
    print_stats ();
  close_output (output);
  dice_strmap_free (&seen);
  dice_strmap_free (&problems);
  return exit_status;
}
