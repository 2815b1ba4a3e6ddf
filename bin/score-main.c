/* dice-score: summarise checked and timed records (Exec, pass@k, fast_p,
   geometric-mean speedup, compile and deception rates) per level, in the
   robust view (deceptive samples are not correct) and the plain view side
   by side; or, with --rewards, add an RL reward to each record.  */
#include "system.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>

#include "closeout.h"
#include "jsonl.h"
#include "jsonpick.h"
#include "msg.h"
#include "options.h"
#include "progname.h"
#include "record.h"
#include "stats.h"
#include "strmap.h"
#include "xalloc.h"

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
deception rates, Exec (problems with a correct sample), pass@k, fast_p\n\
(problems with a correct sample more than p times faster than the\n\
reference), fast_p@k and the geometric-mean speedup of correct samples,\n\
in the robust view (deceptive samples are not correct) and the plain view.\n\
With --rewards, write the records back with a reward added instead.\n\
\n\
Metrics:\n\
  -k, --pass-at=LIST     pass@k and fast_p@k for each k in LIST (default 1)\n\
  -p, --fast=LIST        fast_p for each p in LIST (default 1,2)\n\
      --view=VIEW        robust, plain or both (default both)\n\
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
      --svg=FILE         also draw fast_p against p for each level to FILE\n\
      --svg-max=P        the largest p drawn (default 4)\n\
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

/* What a sample's check said.  */
enum status
{
  ST_CORRECT,
  ST_INCORRECT,
  ST_COMPILE_ERROR,
  ST_RUNTIME_ERROR,
  ST_TIMEOUT,
  ST_OOM,
  ST_CRASHED,
  ST_NO_CODE,
  ST_OTHER,                     /* a status this version does not know */
  ST_UNCHECKED,                 /* no check at all */
  NSTATUS
};

static const char *const status_names[NSTATUS] = {
  "correct", "incorrect", "compile_error", "runtime_error", "timeout",
  "oom", "crashed", "no_code", "other", "unchecked"
};

enum speed_kind
{
  SPEED_NONE,                   /* not timed */
  SPEED_VALID,                  /* a positive finite number */
  SPEED_BAD                     /* null, NaN, infinite or not positive */
};

/* The facts about one sample that scoring uses.  */
struct facts
{
  const char *id;
  long long index;              /* sample.index, -1 when there is none */
  long level;
  bool compiled, correct, deceptive;
  enum status status;
  enum speed_kind speed_kind;
  double speedup;
};

/* A correct sample's valid speedup; ROBUST when it was not deceptive.  */
struct speed
{
  double value;
  bool robust;
};

struct problem
{
  const char *id;               /* the map's copy */
  long level;
  unsigned long samples, compiled, correct, deceptive, bad_speedups;
  unsigned long status[NSTATUS];
  struct speed *speeds;
  size_t nspeeds, speeds_cap;
  unsigned char *seen;          /* a bit per sample.index scored */
  size_t seen_bytes;
};

enum view
{
  VIEW_ROBUST,
  VIEW_PLAIN,
  NVIEWS
};

static const char *const view_names[NVIEWS] = { "robust", "plain" };

enum format
{
  FORMAT_TEXT,
  FORMAT_JSON,
  FORMAT_CSV,
  FORMAT_MARKDOWN,
  FORMAT_LATEX
};

enum reward_kind
{
  REWARD_NONE,
  REWARD_BIC,
  REWARD_COMPOSITE
};

#define MAX_LIST 16

struct settings
{
  unsigned long ks[MAX_LIST];
  size_t nks;
  double ps[MAX_LIST];
  size_t nps;
  bool views[NVIEWS];
  enum format format;
  bool rows_only, per_problem, normalize;
  const char *label;
  const char *svg_path;
  double svg_max;
  enum reward_kind rewards;
  double compile_weight, correct_weight, speed_weight, speedup_cap;
};

static struct settings settings = {
  .ks = {1}, .nks = 1,
  .ps = {1, 2}, .nps = 2,
  .views = {true, true},
  .svg_max = 4,
  .compile_weight = 0.1, .correct_weight = 1, .speed_weight = 1,
  .speedup_cap = 10,
};

static int exit_status = DICE_EXIT_OK;
static unsigned long record_count;
static char *first_model;       /* the default --label */

static struct dice_strmap problem_map;
static struct problem **problems;
static size_t nproblems, problems_cap;




/* A formatted string the caller frees.  */
static char *xasprintf (const char *fmt, ...) DICE_PRINTF (1, 2);

static char *
xasprintf (const char *fmt, ...)
{
  va_list ap;
  char *s;
  int n;

  va_start (ap, fmt);
  n = vasprintf (&s, fmt, ap);
  va_end (ap);
  if (n < 0)
    {
      dice_error ("memory exhausted");
      exit (DICE_EXIT_TROUBLE);
    }
  return s;
}

/* Reading records.  The fields scoring uses are read either from a
   Jansson record or, much faster, picked out of the line's text by
   dice_jsonpick; both give the same fields, so one function judges them.  */

enum field_id
{
  F_ID,
  F_LEVEL,
  F_MODEL,
  F_COMPILE_OK,
  F_CHECK_STATUS,
  F_CHECK_CORRECT,
  F_CHECK_COMPILE_OK,
  F_DECEPTIVE,
  F_SPEEDUP,
  F_REWARD,                     /* only whether it is there */
  F_SAMPLE_INDEX,
  NFIELDS
};

static const char *const field_paths[NFIELDS] = {
  "id", "problem.level", "sample.model", "compile.ok", "check.status",
  "check.correct", "check.compile.ok", "check.deception.deceptive",
  "time.speedup", "reward", "sample.index"
};

struct field
{
  enum dice_pick_type type;
  const char *string;           /* for DICE_PICK_STRING */
  long long integer;            /* for DICE_PICK_INTEGER */
  double number;                /* for DICE_PICK_INTEGER and _REAL */
};

static void
fields_from_record (const json_t *rec, struct field *fields)
{
  for (int i = 0; i < NFIELDS; i++)
    {
      json_t *v = dice_record_get (rec, field_paths[i]);
      struct field *f = &fields[i];

      memset (f, 0, sizeof *f);
      switch (v ? json_typeof (v) : JSON_NULL)
        {
        case JSON_OBJECT: f->type = DICE_PICK_OBJECT; break;
        case JSON_ARRAY: f->type = DICE_PICK_ARRAY; break;
        case JSON_TRUE: f->type = DICE_PICK_TRUE; break;
        case JSON_FALSE: f->type = DICE_PICK_FALSE; break;
        case JSON_STRING:
          f->type = DICE_PICK_STRING;
          f->string = json_string_value (v);
          break;
        case JSON_INTEGER:
          f->type = DICE_PICK_INTEGER;
          f->integer = json_integer_value (v);
          f->number = (double) f->integer;
          break;
        case JSON_REAL:
          f->type = DICE_PICK_REAL;
          f->number = json_real_value (v);
          break;
        default:
          f->type = v ? DICE_PICK_NULL : DICE_PICK_MISSING;
        }
    }
}

/* Pick the fields out of LINE; false when dice_jsonpick is not sure and
   the line must go to Jansson.  Picked strings are terminated in LINE.
   *COMPACT says whether the line is a compact object.  */
static bool
fields_from_line (char *line, size_t len, struct field *fields,
                  bool *compact)
{
  struct dice_pick picks[NFIELDS];

  for (int i = 0; i < NFIELDS; i++)
    picks[i].path = field_paths[i];
  if (!dice_jsonpick (line, len, picks, NFIELDS, compact))
    return false;
  for (int i = 0; i < NFIELDS; i++)
    {
      struct field *f = &fields[i];
      char *start = (char *) picks[i].start;

      memset (f, 0, sizeof *f);
      f->type = picks[i].type;
      if (f->type == DICE_PICK_STRING)
        {
          start[picks[i].len] = '\0';
          f->string = start;
        }
      else if (f->type == DICE_PICK_INTEGER)
        {
          f->integer = strtoll (start, NULL, 10);
          f->number = (double) f->integer;
        }
      else if (f->type == DICE_PICK_REAL)
        f->number = strtod (start, NULL);
    }
  return true;
}

static bool
absent (const struct field *f)
{
  return f->type == DICE_PICK_MISSING || f->type == DICE_PICK_NULL;
}

/* The boolean field F: 1 or 0, -1 when absent or null; -2 (with ERR
   saying why) for any other type.  */
static int
boolean_field (const struct field *f, enum field_id which, char *err,
               size_t errlen)
{
  if (absent (f))
    return -1;
  if (f->type == DICE_PICK_TRUE || f->type == DICE_PICK_FALSE)
    return f->type == DICE_PICK_TRUE;
  snprintf (err, errlen, "%s is not a boolean", field_paths[which]);
  return -2;
}

static enum status
status_of (const char *name)
{
  for (int s = 0; s < ST_OTHER; s++)
    if (strcmp (status_names[s], name) == 0)
      return s;
  return ST_OTHER;
}

/* The level in an id of the form "L<digits>/...", or 0.  */
static long
level_from_id (const char *id)
{
  char *end;
  long level;

  if ((id[0] != 'L' && id[0] != 'l') || !isdigit ((unsigned char) id[1]))
    return 0;
  level = strtol (id + 1, &end, 10);
  return *end == '/' && level > 0 ? level : 0;
}

/* Read time.speedup into F.  Numbers may also arrive as strings (how
   some writers spell NaN and Infinity, which JSON lacks); null is how
   others write them.  */
static bool
read_speedup (const struct field *v, struct facts *f, char *err,
              size_t errlen)
{
  double x;

  f->speed_kind = SPEED_NONE;
  if (v->type == DICE_PICK_MISSING)
    return true;
  if (v->type == DICE_PICK_NULL)
    {
      f->speed_kind = SPEED_BAD;
      return true;
    }
  if (v->type == DICE_PICK_INTEGER || v->type == DICE_PICK_REAL)
    x = v->number;
  else if (v->type == DICE_PICK_STRING)
    {
      char *end;

      x = strtod (v->string, &end);
      if (end == v->string || *end)
        {
          snprintf (err, errlen, "time.speedup is not a number: '%.40s'",
                    v->string);
          return false;
        }
    }
  else
    {
      snprintf (err, errlen, "time.speedup is not a number");
      return false;
    }
  f->speedup = x;
  f->speed_kind = isfinite (x) && x > 0 ? SPEED_VALID : SPEED_BAD;
  return true;
}

/* Judge the FIELDS of a record into F (F->id borrows from FIELDS).
   Missing fields have their documented meaning; a field of the wrong
   type makes the record bad (false, ERR says why).  */
static bool
read_facts (const struct field *fields, struct facts *f, char *err,
            size_t errlen)
{
  const struct field *id = &fields[F_ID], *level = &fields[F_LEVEL];
  const struct field *status = &fields[F_CHECK_STATUS];
  int correct, deceptive, compiled;

  memset (f, 0, sizeof *f);
  if (absent (id))
    {
      snprintf (err, errlen, "record has no id");
      return false;
    }
  if (id->type != DICE_PICK_STRING)
    {
      snprintf (err, errlen, "id is not a string");
      return false;
    }
  f->id = id->string;

  f->index = -1;
  if (fields[F_SAMPLE_INDEX].type == DICE_PICK_INTEGER
      && fields[F_SAMPLE_INDEX].integer >= 0)
    f->index = fields[F_SAMPLE_INDEX].integer;
  else if (!absent (&fields[F_SAMPLE_INDEX]))
    {
      snprintf (err, errlen, "sample.index is not a whole number");
      return false;
    }

  if (absent (level))
    f->level = level_from_id (f->id);
  else if (level->type == DICE_PICK_INTEGER && level->integer >= 0
           && level->integer <= LONG_MAX)
    f->level = (long) level->integer;
  else
    {
      snprintf (err, errlen, "problem.level is not a level number");
      return false;
    }

  if ((correct = boolean_field (&fields[F_CHECK_CORRECT], F_CHECK_CORRECT,
                                err, errlen)) == -2
      || (deceptive = boolean_field (&fields[F_DECEPTIVE], F_DECEPTIVE,
                                     err, errlen)) == -2)
    return false;
  if (!absent (status) && status->type != DICE_PICK_STRING)
    {
      snprintf (err, errlen, "check.status is not a string");
      return false;
    }
  if (status->type == DICE_PICK_STRING)
    f->status = status_of (status->string);
  else if (correct >= 0)
    f->status = correct ? ST_CORRECT : ST_INCORRECT;
  else
    f->status = ST_UNCHECKED;
  f->correct = correct >= 0 ? correct : f->status == ST_CORRECT;
  f->deceptive = deceptive == 1;

  /* Whether it compiled: said by dice-compile, else by dice-check's own
     build, else implied by how far the check got.  */
  compiled = boolean_field (&fields[F_COMPILE_OK], F_COMPILE_OK, err, errlen);
  if (compiled == -1)
    compiled = boolean_field (&fields[F_CHECK_COMPILE_OK], F_CHECK_COMPILE_OK,
                              err, errlen);
  if (compiled == -2)
    return false;
  if (compiled == -1)
    compiled = f->status == ST_CORRECT || f->status == ST_INCORRECT
      || f->status == ST_RUNTIME_ERROR || f->status == ST_TIMEOUT
      || f->status == ST_OOM || f->status == ST_CRASHED || f->correct;
  f->compiled = compiled;

  return read_speedup (&fields[F_SPEEDUP], f, err, errlen);
}

static bool
robust_correct (const struct facts *f)
{
  return f->correct && !f->deceptive;
}

static void
remember_model (const struct field *model)
{
  if (first_model == NULL && model->type == DICE_PICK_STRING)
    first_model = xstrdup (model->string);
}

static struct problem *
problem_for (const struct facts *f)
{
  struct dice_strmap_entry *e = dice_strmap_add (&problem_map, f->id);
  struct problem *p;

  if (e == NULL)
    {
      dice_error ("memory exhausted");
      exit (DICE_EXIT_TROUBLE);
    }
  if (e->value)
    return e->value;
  p = xcalloc (1, sizeof *p);
  p->id = e->key;
  p->level = f->level;
  e->value = p;
  if (nproblems == problems_cap)
    {
      problems_cap = problems_cap ? 2 * problems_cap : 256;
      problems = xrealloc (problems, problems_cap * sizeof *problems);
    }
  problems[nproblems++] = p;
  return p;
}

/* The most sample indexes remembered per problem (2 MiB of bits); a
   sample with a larger index is always scored.  */
#define MAX_SEEN_INDEX (1LL << 24)

static unsigned long repeated_samples;

/* Whether P already scored a sample with INDEX; marks it scored.  */
static bool
seen_before (struct problem *p, long long index)
{
  size_t byte;
  unsigned char bit;

  if (index < 0 || index >= MAX_SEEN_INDEX)
    return false;
  byte = (size_t) (index / 8);
  bit = (unsigned char) (1u << (index % 8));
  if (byte >= p->seen_bytes)
    {
      size_t bytes = p->seen_bytes ? p->seen_bytes : 8;

      while (bytes <= byte)
        bytes *= 2;
      p->seen = xrealloc (p->seen, bytes);
      memset (p->seen + p->seen_bytes, 0, bytes - p->seen_bytes);
      p->seen_bytes = bytes;
    }
  if (p->seen[byte] & bit)
    return true;
  p->seen[byte] |= bit;
  return false;
}

static void
add_sample (const struct facts *f)
{
  struct problem *p = problem_for (f);

  /* The same sample twice (overlapping files, a resumed run joined to
     its first part) would weigh it twice in pass@k: the first counts.  */
  if (seen_before (p, f->index))
    {
      repeated_samples++;
      return;
    }
  p->samples++;
  p->compiled += f->compiled;
  p->status[f->status]++;
  if (f->correct)
    {
      p->correct++;
      p->deceptive += f->deceptive;
    }
  if (f->speed_kind == SPEED_BAD)
    p->bad_speedups++;
  if (f->correct && f->speed_kind == SPEED_VALID)
    {
      if (p->nspeeds == p->speeds_cap)
        {
          p->speeds_cap = p->speeds_cap ? 2 * p->speeds_cap : 4;
          p->speeds = xrealloc (p->speeds, p->speeds_cap * sizeof *p->speeds);
        }
      p->speeds[p->nspeeds].value = f->speedup;
      p->speeds[p->nspeeds].robust = !f->deceptive;
      p->nspeeds++;
    }
}

/* Records kept for --rewards, which can only normalise a group once all
   of it has been read, but writes records in the order they came.  The
   lines are kept as text, a tenth of the memory of Jansson's trees.  A
   compact line without a reward (what dice tools write) comes out as it
   came with the reward spliced in before its closing brace; any other
   line is parsed again and written by Jansson.  */
struct kept
{
  size_t offset, len;           /* of the line in kept_text */
  bool splice;
  size_t group;
  double reward;
};

static struct kept *kept;
static size_t nkept, kept_cap;
static char *kept_text;
static size_t kept_text_len, kept_text_cap;
static struct dice_strmap group_map;
static size_t ngroups;

static double
raw_reward (const struct facts *f)
{
  double rc = robust_correct (f), speed;

  if (settings.rewards == REWARD_BIC)
    return rc;
  speed = f->speed_kind == SPEED_VALID ? f->speedup : 0;
  if (speed > settings.speedup_cap)
    speed = settings.speedup_cap;
  return settings.compile_weight * f->compiled + settings.correct_weight * rc
    + settings.speed_weight * speed * rc;
}

/* Copy LINE to the kept text; returns its offset.  */
static size_t
keep_text (const char *line, size_t len)
{
  size_t offset = kept_text_len;

  if (kept_text_len + len > kept_text_cap)
    {
      kept_text_cap = kept_text_cap ? 2 * kept_text_cap : 1 << 16;
      if (kept_text_cap < kept_text_len + len)
        kept_text_cap = kept_text_len + len;
      kept_text = xrealloc (kept_text, kept_text_cap);
    }
  memcpy (kept_text + kept_text_len, line, len);
  kept_text_len += len;
  return offset;
}

static void
keep_record (size_t offset, size_t len, bool splice, const struct facts *f)
{
  struct dice_strmap_entry *e = dice_strmap_add (&group_map, f->id);

  if (e == NULL)
    {
      dice_error ("memory exhausted");
      exit (DICE_EXIT_TROUBLE);
    }
  /* Group numbers are stored plus one, so NULL means new.  */
  if (e->value == NULL)
    e->value = (void *) (++ngroups);
  if (nkept == kept_cap)
    {
      kept_cap = kept_cap ? 2 * kept_cap : 1024;
      kept = xrealloc (kept, kept_cap * sizeof *kept);
    }
  kept[nkept].offset = offset;
  kept[nkept].len = len;
  kept[nkept].splice = splice;
  kept[nkept].group = (size_t) e->value - 1;
  kept[nkept].reward = raw_reward (f);
  nkept++;
}

static void
read_input (const char *path)
{
  struct dice_jsonl_reader in;
  char *line;
  size_t len;
  int got;

  dice_input_open (&in, path);
  while ((got = dice_jsonl_read_line (&in, &line, &len)) != 0)
    {
      struct field fields[NFIELDS];
      struct facts f = { 0 };
      json_t *rec = NULL;
      char err[256];
      size_t offset = 0;
      bool picked, compact = false;

      if (got == -2)
        {
          dice_error_errno (errno, "read error on '%s'", path);
          exit (DICE_EXIT_TROUBLE);
        }
      /* Picking writes into the line: keep it first.  */
      if (settings.rewards != REWARD_NONE)
        offset = keep_text (line, len);
      picked = fields_from_line (line, len, fields, &compact);
      if (!picked)
        {
          if (dice_jsonl_parse (line, len, &rec, err, sizeof err) == 1)
            fields_from_record (rec, fields);
          else
            got = -1;
        }
      if (got == 1 && !read_facts (fields, &f, err, sizeof err))
        got = -1;
      if (got == -1)
        {
          json_decref (rec);
          kept_text_len = offset;
          dice_error_at (in.name, in.line, "%s", err);
          dice_input_problem (&exit_status);
          continue;
        }
      record_count++;
      remember_model (&fields[F_MODEL]);
      if (settings.rewards != REWARD_NONE)
        keep_record (offset, len, picked && compact
                     && fields[F_REWARD].type == DICE_PICK_MISSING, &f);
      else
        add_sample (&f);
      json_decref (rec);
    }
  dice_jsonl_close (&in);
}

/* Rewards.  */

static void
write_failed (void)
{
  dice_error_errno (errno, "write error");
  exit (DICE_EXIT_TROUBLE);
}

/* Write the compact object LINE (LEN bytes, perhaps with a newline) with
   "reward":R added last, R written as Jansson writes reals.  */
static void
write_spliced (const char *line, size_t len, double r)
{
  char number[40];
  const char *close;

  while (len && line[len - 1] != '}')
    len--;
  close = line + len - 1;
  snprintf (number, sizeof number, "%.*g", dice_shortest_digits (r), r);
  if (strpbrk (number, ".e") == NULL)
    strcat (number, ".0");
  if (fwrite (line, 1, (size_t) (close - line), stdout)
      != (size_t) (close - line)
      || printf ("%s\"reward\":%s}\n", close[-1] == '{' ? "" : ",",
                 number) < 0)
    write_failed ();
}

/* Parse LINE again (it was read once, so it parses) and write it with
   its reward set.  */
static void
write_rewritten (const char *line, size_t len, double r)
{
  json_t *rec;
  char err[256];

  if (dice_jsonl_parse (line, len, &rec, err, sizeof err) != 1)
    {
      dice_error ("internal error: a kept record no longer parses: %s", err);
      exit (DICE_EXIT_TROUBLE);
    }
  dice_record_set (rec, "reward", json_real (r));
  if (dice_jsonl_write (stdout, rec) != 0)
    write_failed ();
  json_decref (rec);
}

static void
write_rewards (void)
{
  size_t *start = xcalloc (ngroups + 1, sizeof *start);
  size_t *fill = xcalloc (ngroups, sizeof *fill);
  double *values = xcalloc (nkept ? nkept : 1, sizeof *values);
  bool normalize = settings.rewards == REWARD_BIC || settings.normalize;

  if (normalize)
    {
      /* Lay the groups out one after another, z-score each, and put the
         scores back where their records are.  */
      for (size_t i = 0; i < nkept; i++)
        start[kept[i].group + 1]++;
      for (size_t g = 0; g < ngroups; g++)
        start[g + 1] += start[g];
      for (size_t i = 0; i < nkept; i++)
        values[start[kept[i].group] + fill[kept[i].group]++] = kept[i].reward;
      for (size_t g = 0; g < ngroups; g++)
        dice_zscore (values + start[g], start[g + 1] - start[g]);
      memset (fill, 0, ngroups * sizeof *fill);
      for (size_t i = 0; i < nkept; i++)
        kept[i].reward = values[start[kept[i].group] + fill[kept[i].group]++];
    }
  for (size_t i = 0; i < nkept; i++)
    {
      /* -0 would print as "-0.0".  */
      double r = kept[i].reward == 0 ? 0 : kept[i].reward;

      if (kept[i].splice)
        write_spliced (kept_text + kept[i].offset, kept[i].len, r);
      else
        write_rewritten (kept_text + kept[i].offset, kept[i].len, r);
      if (dice_opts.unbuffered)
        fflush (stdout);
    }
  free (start);
  free (fill);
  free (values);
}

/* Summaries.  */

struct view_summary
{
  unsigned long correct;        /* samples correct in this view */
  unsigned long solved;         /* problems with such a sample */
  unsigned long timed;          /* correct samples with a valid speedup */
  double exec;
  double pass[MAX_LIST];        /* per k; NaN when a problem has < k samples */
  double fast[MAX_LIST];        /* per p */
  double fast_at[MAX_LIST][MAX_LIST];   /* per p, per k */
  double geomean;
};

struct summary
{
  long level;                   /* -1: all levels */
  unsigned long problems, samples, compiled, checked, correct, deceptive,
    bad_speedups;
  double compile_rate, deception_rate;
  struct view_summary view[NVIEWS];
};

static bool
speed_in_view (const struct speed *s, enum view v)
{
  return v == VIEW_PLAIN || s->robust;
}

static unsigned long
correct_in_view (const struct problem *p, enum view v)
{
  return v == VIEW_PLAIN ? p->correct : p->correct - p->deceptive;
}

/* How many of P's samples are correct in view V and faster than THRESHOLD
   times the reference.  */
static unsigned long
fast_samples (const struct problem *p, enum view v, double threshold)
{
  unsigned long n = 0;

  for (size_t i = 0; i < p->nspeeds; i++)
    n += speed_in_view (&p->speeds[i], v) && p->speeds[i].value > threshold;
  return n;
}

static double
ratio (unsigned long num, unsigned long den)
{
  return den ? (double) num / (double) den : NAN;
}

/* Summarise the problems of LEVEL (-1: all).  */
static void
summarise (long level, struct summary *s)
{
  const struct settings *o = &settings;
  double pass_sum[NVIEWS][MAX_LIST] = { {0} };
  double fast_at_sum[NVIEWS][MAX_LIST][MAX_LIST] = { { {0} } };
  unsigned long fast_count[NVIEWS][MAX_LIST] = { {0} };
  struct dice_geomean geo[NVIEWS] = { {0, 0} };
  bool k_too_big[MAX_LIST] = { 0 };

  memset (s, 0, sizeof *s);
  s->level = level;
  for (size_t i = 0; i < nproblems; i++)
    {
      const struct problem *p = problems[i];

      if (level >= 0 && p->level != level)
        continue;
      s->problems++;
      s->samples += p->samples;
      s->compiled += p->compiled;
      s->checked += p->samples - p->status[ST_UNCHECKED];
      s->correct += p->correct;
      s->deceptive += p->deceptive;
      s->bad_speedups += p->bad_speedups;
      for (size_t k = 0; k < o->nks; k++)
        k_too_big[k] |= o->ks[k] > p->samples;
      for (int v = 0; v < NVIEWS; v++)
        {
          unsigned long c = correct_in_view (p, v);

          s->view[v].correct += c;
          s->view[v].solved += c > 0;
          for (size_t k = 0; k < o->nks; k++)
            if (o->ks[k] <= p->samples)
              pass_sum[v][k] += dice_pass_at_k (p->samples, c, o->ks[k]);
          for (size_t j = 0; j < o->nps; j++)
            {
              unsigned long f = fast_samples (p, v, o->ps[j]);

              fast_count[v][j] += f > 0;
              for (size_t k = 0; k < o->nks; k++)
                if (o->ks[k] <= p->samples)
                  fast_at_sum[v][j][k] += dice_pass_at_k (p->samples, f,
                                                          o->ks[k]);
            }
          for (size_t i2 = 0; i2 < p->nspeeds; i2++)
            if (speed_in_view (&p->speeds[i2], v))
              s->view[v].timed += dice_geomean_add (&geo[v],
                                                    p->speeds[i2].value);
        }
    }
  s->compile_rate = ratio (s->compiled, s->samples);
  s->deception_rate = ratio (s->deceptive, s->correct);
  for (int v = 0; v < NVIEWS; v++)
    {
      struct view_summary *vs = &s->view[v];

      vs->exec = ratio (vs->solved, s->problems);
      for (size_t k = 0; k < o->nks; k++)
        vs->pass[k] = k_too_big[k] ? NAN : pass_sum[v][k] / s->problems;
      for (size_t j = 0; j < o->nps; j++)
        {
          vs->fast[j] = ratio (fast_count[v][j], s->problems);
          for (size_t k = 0; k < o->nks; k++)
            vs->fast_at[j][k] = k_too_big[k] ? NAN
              : fast_at_sum[v][j][k] / s->problems;
        }
      vs->geomean = dice_geomean_value (&geo[v]);
    }
}

static int
compare_longs (const void *a, const void *b)
{
  long x = *(const long *) a, y = *(const long *) b;

  return (x > y) - (x < y);
}

/* The distinct levels of the problems, sorted, into a new array.  */
static long *
distinct_levels (size_t *n)
{
  long *levels = xcalloc (nproblems + 1, sizeof *levels);
  size_t m = 0;

  for (size_t i = 0; i < nproblems; i++)
    levels[i] = problems[i]->level;
  qsort (levels, nproblems, sizeof *levels, compare_longs);
  for (size_t i = 0; i < nproblems; i++)
    if (m == 0 || levels[m - 1] != levels[i])
      levels[m++] = levels[i];
  *n = m;
  return levels;
}

/* Summaries for each level and then all: a new array of *N.  */
static struct summary *
all_summaries (size_t *n)
{
  size_t nlevels;
  long *levels = distinct_levels (&nlevels);
  struct summary *s = xcalloc (nlevels + 1, sizeof *s);

  for (size_t i = 0; i < nlevels; i++)
    summarise (levels[i], &s[i]);
  summarise (-1, &s[nlevels]);
  free (levels);
  *n = nlevels + 1;
  return s;
}

static void
warn_about_bad_input (const struct summary *all)
{
  if (repeated_samples)
    dice_error ("%lu record%s repeated the id and sample.index of an earlier "
                "one; only the first of each was scored", repeated_samples,
                repeated_samples == 1 ? "" : "s");
  if (all->bad_speedups)
    dice_error ("%lu sample%s had a speedup that is not a positive finite "
                "number (null, NaN or infinite); never counted as fast",
                all->bad_speedups, all->bad_speedups == 1 ? "" : "s");
  for (size_t k = 0; k < settings.nks; k++)
    if (isnan (all->view[VIEW_ROBUST].pass[k]))
      {
        dice_error ("pass@%lu needs at least %lu samples of each problem; "
                    "left out for levels with fewer", settings.ks[k],
                    settings.ks[k]);
      }
}

/* Cells and tables.  A grid of cells (row 0 the header) is drawn as
   aligned text, Markdown or CSV, so every format shows the same numbers.  */

struct grid
{
  char **cells;                 /* row-major, each a string the grid owns */
  size_t cols, ncells, cap;
};

static void
grid_add (struct grid *g, char *cell)
{
  if (g->ncells == g->cap)
    {
      g->cap = g->cap ? 2 * g->cap : 64;
      g->cells = xrealloc (g->cells, g->cap * sizeof *g->cells);
    }
  g->cells[g->ncells++] = cell;
}

static size_t
grid_rows (const struct grid *g)
{
  return g->ncells / g->cols;
}

static const char *
grid_cell (const struct grid *g, size_t row, size_t col)
{
  return g->cells[row * g->cols + col];
}

static void
grid_free (struct grid *g)
{
  for (size_t i = 0; i < g->ncells; i++)
    free (g->cells[i]);
  free (g->cells);
  memset (g, 0, sizeof *g);
}

/* G with rows and columns swapped.  */
static struct grid
grid_transpose (struct grid *g)
{
  struct grid t = { .cols = grid_rows (g) };

  for (size_t c = 0; c < g->cols; c++)
    for (size_t r = 0; r < grid_rows (g); r++)
      grid_add (&t, xstrdup (grid_cell (g, r, c)));
  return t;
}

static bool
format_for_people (void)
{
  return settings.format == FORMAT_TEXT || settings.format == FORMAT_MARKDOWN;
}

static char *
cell_count (unsigned long n)
{
  return xasprintf ("%lu", n);
}

/* A share: a percentage with one decimal for people, a fraction for
   programs; an empty or "-" cell when it is undefined.  */
static char *
cell_rate (double x)
{
  if (isnan (x))
    return xstrdup (format_for_people () ? "-" : "");
  if (format_for_people ())
    return xasprintf ("%.1f%%", 100 * x);
  return xasprintf ("%.10g", x);
}

static char *
cell_speedup (double x)
{
  if (isnan (x))
    return xstrdup (format_for_people () ? "-" : "");
  if (format_for_people ())
    return xasprintf ("%.3f", x);
  return xasprintf ("%.10g", x);
}

static char *
cell_level (long level)
{
  return level < 0 ? xstrdup ("all") : xasprintf ("%ld", level);
}

/* Column names for the metrics that depend on -k and -p.  */
static char *
pass_name (size_t k)
{
  return xasprintf ("pass@%lu", settings.ks[k]);
}

static char *
fast_name (size_t j)
{
  return xasprintf ("fast_%g", settings.ps[j]);
}

static char *
fast_at_name (size_t j, size_t k)
{
  return xasprintf ("fast_%g@%lu", settings.ps[j], settings.ks[k]);
}


static void
draw_text (const struct grid *g)
{
  size_t *width = xcalloc (g->cols, sizeof *width);

  for (size_t i = 0; i < g->ncells; i++)
    {
      size_t len = strlen (g->cells[i]);

      if (len > width[i % g->cols])
        width[i % g->cols] = len;
    }
  for (size_t r = 0; r < grid_rows (g); r++)
    {
      for (size_t c = 0; c < g->cols; c++)
        if (c == 0)
          printf ("%-*s", (int) width[c], grid_cell (g, r, c));
        else
          printf ("  %*s", (int) width[c], grid_cell (g, r, c));
      putchar ('\n');
    }
  free (width);
}

static void
markdown_cell (const char *s)
{
  for (; *s; s++)
    {
      if (*s == '|' || *s == '\\')
        putchar ('\\');
      putchar (*s);
    }
}

/* The first column is left-aligned, the numbers right-aligned.  */
static void
draw_markdown (const struct grid *g)
{
  for (size_t r = 0; r < grid_rows (g); r++)
    {
      for (size_t c = 0; c < g->cols; c++)
        {
          fputs ("| ", stdout);
          markdown_cell (grid_cell (g, r, c));
          putchar (' ');
        }
      fputs ("|\n", stdout);
      if (r == 0)
        {
          for (size_t c = 0; c < g->cols; c++)
            fputs (c == 0 ? "|:---" : "|---:", stdout);
          fputs ("|\n", stdout);
        }
    }
}

/* RFC 4180: quote a field holding a comma, a quote or a line break.  */
static void
csv_cell (const char *s)
{
  if (strpbrk (s, ",\"\r\n") == NULL)
    {
      fputs (s, stdout);
      return;
    }
  putchar ('"');
  for (; *s; s++)
    {
      if (*s == '"')
        putchar ('"');
      putchar (*s);
    }
  putchar ('"');
}

static void
draw_csv (const struct grid *g)
{
  for (size_t r = 0; r < grid_rows (g); r++)
    {
      for (size_t c = 0; c < g->cols; c++)
        {
          if (c)
            putchar (',');
          csv_cell (grid_cell (g, r, c));
        }
      putchar ('\n');
    }
}

static void
draw (const struct grid *g)
{
  switch (settings.format)
    {
    case FORMAT_MARKDOWN:
      draw_markdown (g);
      break;
    case FORMAT_CSV:
      draw_csv (g);
      break;
    default:
      draw_text (g);
      break;
    }
}

/* The summary as a grid: a row per level and view.  */
static struct grid
summary_grid (const struct summary *s, size_t n)
{
  const struct settings *o = &settings;
  struct grid g = { 0 };
  static const char *const lead[] = {
    "level", "view", "problems", "samples", "compile_rate", "deception_rate",
    "exec"
  };
  static const char *const tail[] = {
    "geomean_speedup", "timed", "bad_speedups"
  };

  if (o->label)
    grid_add (&g, xstrdup ("label"));
  for (size_t i = 0; i < DICE_ARRAY_SIZE (lead); i++)
    grid_add (&g, xstrdup (lead[i]));
  for (size_t k = 0; k < o->nks; k++)
    grid_add (&g, pass_name (k));
  for (size_t j = 0; j < o->nps; j++)
    grid_add (&g, fast_name (j));
  for (size_t j = 0; j < o->nps; j++)
    for (size_t k = 0; k < o->nks; k++)
      grid_add (&g, fast_at_name (j, k));
  for (size_t i = 0; i < DICE_ARRAY_SIZE (tail); i++)
    grid_add (&g, xstrdup (tail[i]));
  g.cols = g.ncells;

  for (size_t i = 0; i < n; i++)
    for (int v = 0; v < NVIEWS; v++)
      {
        const struct view_summary *vs = &s[i].view[v];

        if (!o->views[v])
          continue;
        if (o->label)
          grid_add (&g, xstrdup (o->label));
        grid_add (&g, cell_level (s[i].level));
        grid_add (&g, xstrdup (view_names[v]));
        grid_add (&g, cell_count (s[i].problems));
        grid_add (&g, cell_count (s[i].samples));
        grid_add (&g, cell_rate (s[i].compile_rate));
        grid_add (&g, cell_rate (s[i].deception_rate));
        grid_add (&g, cell_rate (vs->exec));
        for (size_t k = 0; k < o->nks; k++)
          grid_add (&g, cell_rate (vs->pass[k]));
        for (size_t j = 0; j < o->nps; j++)
          grid_add (&g, cell_rate (vs->fast[j]));
        for (size_t j = 0; j < o->nps; j++)
          for (size_t k = 0; k < o->nks; k++)
            grid_add (&g, cell_rate (vs->fast_at[j][k]));
        grid_add (&g, cell_speedup (vs->geomean));
        grid_add (&g, cell_count (vs->timed));
        grid_add (&g, cell_count (s[i].bad_speedups));
      }
  return g;
}

/* JSON's numbers cannot say NaN: an undefined value is null.  */
static json_t *
json_number_or_null (double x)
{
  return isfinite (x) ? json_real (x) : json_null ();
}

static void
set_new (json_t *obj, const char *key, json_t *value)
{
  if (value == NULL || json_object_set_new (obj, key, value) != 0)
    {
      dice_error ("memory exhausted");
      exit (DICE_EXIT_TROUBLE);
    }
}

static void
set_new_owned_key (json_t *obj, char *key, json_t *value)
{
  set_new (obj, key, value);
  free (key);
}

static json_t *
view_json (const struct view_summary *vs)
{
  const struct settings *o = &settings;
  json_t *j = json_object ();

  set_new (j, "correct", json_integer (vs->correct));
  set_new (j, "exec", json_number_or_null (vs->exec));
  for (size_t k = 0; k < o->nks; k++)
    set_new_owned_key (j, pass_name (k), json_number_or_null (vs->pass[k]));
  for (size_t j2 = 0; j2 < o->nps; j2++)
    set_new_owned_key (j, fast_name (j2), json_number_or_null (vs->fast[j2]));
  for (size_t j2 = 0; j2 < o->nps; j2++)
    for (size_t k = 0; k < o->nks; k++)
      set_new_owned_key (j, fast_at_name (j2, k),
                         json_number_or_null (vs->fast_at[j2][k]));
  set_new (j, "geomean_speedup", json_number_or_null (vs->geomean));
  set_new (j, "timed", json_integer (vs->timed));
  return j;
}

static void
write_json_line (const json_t *j)
{
  if (dice_jsonl_write (stdout, j) != 0)
    write_failed ();
}

static void
write_summary_json (const struct summary *s, size_t n)
{
  const struct settings *o = &settings;
  json_t *top = json_object (), *levels = json_array (), *ks = json_array (),
    *ps = json_array ();

  if (o->label)
    set_new (top, "label", json_string (o->label));
  set_new (top, "records", json_integer (record_count));
  for (size_t k = 0; k < o->nks; k++)
    json_array_append_new (ks, json_integer (o->ks[k]));
  for (size_t j = 0; j < o->nps; j++)
    json_array_append_new (ps, json_real (o->ps[j]));
  set_new (top, "pass_at", ks);
  set_new (top, "fast_p", ps);
  for (size_t i = 0; i < n; i++)
    {
      json_t *l = json_object ();

      set_new (l, "level", s[i].level < 0 ? json_string ("all")
               : json_integer (s[i].level));
      set_new (l, "problems", json_integer (s[i].problems));
      set_new (l, "samples", json_integer (s[i].samples));
      set_new (l, "compiled", json_integer (s[i].compiled));
      set_new (l, "compile_rate", json_number_or_null (s[i].compile_rate));
      set_new (l, "checked", json_integer (s[i].checked));
      set_new (l, "correct", json_integer (s[i].correct));
      set_new (l, "deceptive", json_integer (s[i].deceptive));
      set_new (l, "deception_rate", json_number_or_null (s[i].deception_rate));
      set_new (l, "bad_speedups", json_integer (s[i].bad_speedups));
      for (int v = 0; v < NVIEWS; v++)
        if (o->views[v])
          set_new (l, view_names[v], view_json (&s[i].view[v]));
      json_array_append_new (levels, l);
    }
  set_new (top, "levels", levels);
  write_json_line (top);
  json_decref (top);
}

/* LaTeX: the layout of the DICE paper's tables, a row per model with
   Exec and fast_p for each level, in percent.  */

static void
latex_text (const char *s)
{
  for (; *s; s++)
    switch (*s)
      {
      case '\\':
        fputs ("\\textbackslash{}", stdout);
        break;
      case '~':
        fputs ("\\textasciitilde{}", stdout);
        break;
      case '^':
        fputs ("\\textasciicircum{}", stdout);
        break;
      case '_': case '&': case '%': case '#': case '$': case '{': case '}':
        putchar ('\\');
        /* Fall through.  */
      default:
        putchar (*s);
      }
}

static void
latex_rate (double x)
{
  if (isnan (x))
    fputs (" & --", stdout);
  else
    printf (" & %.1f", 100 * x);
}

static void
write_latex (const struct summary *s, size_t n)
{
  const struct settings *o = &settings;
  size_t nlevels = n - 1;       /* the per-level columns; not "all" */
  size_t per_level = 1 + o->nps;
  const char *label = o->label ? o->label : first_model ? first_model
    : "model";

  if (!o->rows_only)
    {
      fputs ("% dice-score --latex; needs \\usepackage{booktabs}\n"
             "\\begin{tabular}{l", stdout);
      for (size_t c = 0; c < nlevels * per_level; c++)
        putchar ('c');
      fputs ("}\n\\toprule\n", stdout);
      for (size_t i = 0; i < nlevels; i++)
        printf (" & \\multicolumn{%zu}{c}{Level %ld}", per_level, s[i].level);
      fputs (" \\\\\n", stdout);
      for (size_t i = 0; i < nlevels; i++)
        printf ("%s\\cmidrule(lr){%zu-%zu}", i ? " " : "",
                2 + i * per_level, 1 + (i + 1) * per_level);
      fputs ("\nModel", stdout);
      for (size_t i = 0; i < nlevels; i++)
        {
          fputs (" & Exec", stdout);
          for (size_t j = 0; j < o->nps; j++)
            printf (" & fast$_{%g}$", o->ps[j]);
        }
      fputs (" \\\\\n\\midrule\n", stdout);
    }
  for (int v = 0; v < NVIEWS; v++)
    {
      if (!o->views[v])
        continue;
      latex_text (label);
      if (v == VIEW_PLAIN && o->views[VIEW_ROBUST])
        fputs (" (plain)", stdout);
      for (size_t i = 0; i < nlevels; i++)
        {
          latex_rate (s[i].view[v].exec);
          for (size_t j = 0; j < o->nps; j++)
            latex_rate (s[i].view[v].fast[j]);
        }
      fputs (" \\\\\n", stdout);
    }
  if (!o->rows_only)
    fputs ("\\bottomrule\n\\end{tabular}\n", stdout);
}

/* Per-problem reports.  */

/* The number after "L1/" in an id, or -1.  */
static long
problem_number (const char *id)
{
  const char *slash = strchr (id, '/');

  if (slash == NULL || !isdigit ((unsigned char) slash[1]))
    return -1;
  return strtol (slash + 1, NULL, 10);
}

static int
compare_problems (const void *a, const void *b)
{
  const struct problem *x = *(struct problem *const *) a;
  const struct problem *y = *(struct problem *const *) b;
  long nx, ny;

  if (x->level != y->level)
    return x->level < y->level ? -1 : 1;
  nx = problem_number (x->id);
  ny = problem_number (y->id);
  if (nx != ny)
    return nx < ny ? -1 : 1;
  return strcmp (x->id, y->id);
}

/* The view best and median speedups are taken in.  */
static enum view
speed_view (void)
{
  return settings.views[VIEW_ROBUST] ? VIEW_ROBUST : VIEW_PLAIN;
}

/* The best and the median speedup of P's correct samples in the speed
   view; NaN when none was timed.  */
static void
problem_speedups (const struct problem *p, double *best, double *median)
{
  double *values = xcalloc (p->nspeeds + 1, sizeof *values);
  size_t n = 0;

  for (size_t i = 0; i < p->nspeeds; i++)
    if (speed_in_view (&p->speeds[i], speed_view ()))
      values[n++] = p->speeds[i].value;
  *median = dice_median (values, n);
  *best = n ? values[n - 1] : NAN;
  free (values);
}

static void
write_per_problem (void)
{
  static const char *const head[] = {
    "id", "level", "samples", "compiled", "correct", "deceptive"
  };
  struct grid g = { 0 };

  qsort (problems, nproblems, sizeof *problems, compare_problems);
  if (settings.format == FORMAT_JSON)
    {
      for (size_t i = 0; i < nproblems; i++)
        {
          const struct problem *p = problems[i];
          json_t *j = json_object (), *st = json_object ();
          double best, median;

          problem_speedups (p, &best, &median);
          if (settings.label)
            set_new (j, "label", json_string (settings.label));
          set_new (j, "id", json_string (p->id));
          set_new (j, "level", json_integer (p->level));
          set_new (j, "samples", json_integer (p->samples));
          set_new (j, "compiled", json_integer (p->compiled));
          set_new (j, "correct", json_integer (p->correct));
          set_new (j, "deceptive", json_integer (p->deceptive));
          for (int s = 0; s < NSTATUS; s++)
            set_new (st, status_names[s], json_integer (p->status[s]));
          set_new (j, "status", st);
          set_new (j, "bad_speedups", json_integer (p->bad_speedups));
          set_new (j, "best_speedup", json_number_or_null (best));
          set_new (j, "median_speedup", json_number_or_null (median));
          write_json_line (j);
          json_decref (j);
        }
      return;
    }
  if (settings.label)
    grid_add (&g, xstrdup ("label"));
  for (size_t i = 0; i < DICE_ARRAY_SIZE (head); i++)
    grid_add (&g, xstrdup (head[i]));
  for (int s = ST_INCORRECT; s < NSTATUS; s++)
    grid_add (&g, xstrdup (status_names[s]));
  grid_add (&g, xstrdup ("bad_speedups"));
  grid_add (&g, xstrdup ("best_speedup"));
  grid_add (&g, xstrdup ("median_speedup"));
  g.cols = g.ncells;
  for (size_t i = 0; i < nproblems; i++)
    {
      const struct problem *p = problems[i];
      double best, median;

      problem_speedups (p, &best, &median);
      if (settings.label)
        grid_add (&g, xstrdup (settings.label));
      grid_add (&g, xstrdup (p->id));
      grid_add (&g, cell_level (p->level));
      grid_add (&g, cell_count (p->samples));
      grid_add (&g, cell_count (p->compiled));
      grid_add (&g, cell_count (p->correct));
      grid_add (&g, cell_count (p->deceptive));
      for (int s = ST_INCORRECT; s < NSTATUS; s++)
        grid_add (&g, cell_count (p->status[s]));
      grid_add (&g, cell_count (p->bad_speedups));
      grid_add (&g, cell_speedup (best));
      grid_add (&g, cell_speedup (median));
    }
  draw (&g);
  grid_free (&g);
}

/* The fast_p curve as an SVG figure.  fast_p is a step function of p: the
   share of problems whose best correct speedup exceeds p, so it is drawn
   exactly, as steps at each problem's best speedup.  */

/* Plot geometry, in SVG user units (points at 1:1): a figure for one
   column of a two-column paper.  */
enum
{
  SVG_WIDTH = 360, SVG_HEIGHT = 240,
  PLOT_LEFT = 46, PLOT_RIGHT = 282, PLOT_TOP = 12, PLOT_BOTTOM = 200
};

/* Okabe and Ito's palette, told apart with colour-blindness too.  */
static const char *const svg_colours[] = {
  "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
  "#F0E442"
};

static double
svg_x (double p)
{
  return PLOT_LEFT + p / settings.svg_max * (PLOT_RIGHT - PLOT_LEFT);
}

static double
svg_y (double share)
{
  return PLOT_BOTTOM - share * (PLOT_BOTTOM - PLOT_TOP);
}

/* The best speedup of each problem of LEVEL (-1: all) in the speed view,
   0 for a problem without one, sorted, into a new array of *N.  */
static double *
best_speedups (long level, size_t *n)
{
  double *best = xcalloc (nproblems + 1, sizeof *best);
  size_t m = 0;

  for (size_t i = 0; i < nproblems; i++)
    {
      const struct problem *p = problems[i];
      double b = 0;

      if (level >= 0 && p->level != level)
        continue;
      for (size_t s = 0; s < p->nspeeds; s++)
        if (speed_in_view (&p->speeds[s], speed_view ())
            && p->speeds[s].value > b)
          b = p->speeds[s].value;
      best[m++] = b;
    }
  dice_sort_doubles (best, m);
  *n = m;
  return best;
}

static void
svg_curve (FILE *fp, long level, const char *colour, bool dashed)
{
  size_t n, above;
  double *best = best_speedups (level, &n);

  /* BEST[i..n) are the problems faster than p = BEST[i-1].  */
  for (above = 0; above < n && best[above] <= 0; above++)
    ;
  fprintf (fp, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s "
           "d=\"M%.2f,%.2f", colour,
           dashed ? " stroke-dasharray=\"4,2\"" : "",
           svg_x (0), svg_y ((double) (n - above) / n));
  while (above < n && best[above] < settings.svg_max)
    {
      double p = best[above];

      while (above < n && best[above] <= p)
        above++;
      fprintf (fp, " H%.2f V%.2f", svg_x (p), svg_y ((double) (n - above) / n));
    }
  fprintf (fp, " H%.2f\"/>\n", svg_x (settings.svg_max));
  free (best);
}

static void
write_svg (const struct summary *s, size_t n)
{
  FILE *fp = fopen (settings.svg_path, "w");
  size_t nlevels = n - 1;
  size_t ncurves = nlevels > 1 ? n : nlevels;

  if (fp == NULL)
    {
      dice_error_errno (errno, "cannot write '%s'", settings.svg_path);
      exit (DICE_EXIT_TROUBLE);
    }
  fprintf (fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
           "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
           "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
           "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"10\">\n"
           "<title>fast_p against p (%s view)</title>\n"
           "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
           SVG_WIDTH, SVG_HEIGHT, SVG_WIDTH, SVG_HEIGHT,
           view_names[speed_view ()]);
  /* Grid lines and tick labels: p in quarters of the range, fast_p in
     quarters of 100%.  */
  for (int i = 0; i <= 4; i++)
    {
      double p = settings.svg_max * i / 4, y = svg_y (i / 4.0);

      fprintf (fp, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" "
               "stroke=\"#dddddd\"/>\n", svg_x (p), PLOT_TOP, svg_x (p),
               PLOT_BOTTOM);
      fprintf (fp, "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">%g"
               "</text>\n", svg_x (p), PLOT_BOTTOM + 13, p);
      fprintf (fp, "<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" "
               "stroke=\"#dddddd\"/>\n", PLOT_LEFT, y, PLOT_RIGHT, y);
      fprintf (fp, "<text x=\"%d\" y=\"%.2f\" text-anchor=\"end\">%d"
               "</text>\n", PLOT_LEFT - 4, y + 3.5, 25 * i);
    }
  if (settings.svg_max > 1)
    fprintf (fp, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" "
             "stroke=\"#888888\" stroke-dasharray=\"2,2\"/>\n",
             svg_x (1), PLOT_TOP, svg_x (1), PLOT_BOTTOM);
  fprintf (fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
           "fill=\"none\" stroke=\"black\"/>\n", PLOT_LEFT, PLOT_TOP,
           PLOT_RIGHT - PLOT_LEFT, PLOT_BOTTOM - PLOT_TOP);
  fprintf (fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">speedup "
           "threshold p</text>\n", (PLOT_LEFT + PLOT_RIGHT) / 2,
           SVG_HEIGHT - 10);
  fprintf (fp, "<text transform=\"translate(14,%d) rotate(-90)\" "
           "text-anchor=\"middle\">fast<tspan dy=\"3\" font-size=\"7\">p"
           "</tspan><tspan dy=\"-3\" dx=\"3\">(%% of problems)</tspan></text>\n",
           (PLOT_TOP + PLOT_BOTTOM) / 2);
  for (size_t i = 0; i < ncurves; i++)
    {
      bool all = s[i].level < 0;
      const char *colour = all ? "black"
        : svg_colours[i % DICE_ARRAY_SIZE (svg_colours)];
      int y = PLOT_TOP + 8 + 14 * (int) i;

      svg_curve (fp, s[i].level, colour, all);
      fprintf (fp, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
               "stroke=\"%s\" stroke-width=\"1.5\"%s/>\n", PLOT_RIGHT + 8, y,
               PLOT_RIGHT + 26, y, colour,
               all ? " stroke-dasharray=\"4,2\"" : "");
      if (all)
        fprintf (fp, "<text x=\"%d\" y=\"%d\">All</text>\n",
                 PLOT_RIGHT + 30, y + 3);
      else
        fprintf (fp, "<text x=\"%d\" y=\"%d\">Level %ld</text>\n",
                 PLOT_RIGHT + 30, y + 3, s[i].level);
    }
  fputs ("</svg>\n", fp);
  if (ferror (fp) | (fclose (fp) != 0))
    {
      dice_error_errno (errno, "write error on '%s'", settings.svg_path);
      exit (DICE_EXIT_TROUBLE);
    }
}

/* Options.  */

/* A usage error: "invalid WHAT 'ARG' (EXPECTED)".  */
static void
bad_option (const char *what, const char *arg, const char *expected)
{
  dice_error ("invalid %s '%s' (%s)", what, arg, expected);
  dice_try_help ();
  exit (DICE_EXIT_TROUBLE);
}

static void
usage_error (const char *message)
{
  dice_error ("%s", message);
  dice_try_help ();
  exit (DICE_EXIT_TROUBLE);
}

/* Parse a number: all of ARG, finite.  */
static bool
parse_double (const char *arg, double *x)
{
  char *end;

  errno = 0;
  *x = strtod (arg, &end);
  return end != arg && *end == '\0' && errno == 0 && isfinite (*x);
}

static void
parse_k_list (const char *arg)
{
  const char *p = arg;

  settings.nks = 0;
  do
    {
      char *end;
      unsigned long k;

      if (!isdigit ((unsigned char) *p) || settings.nks == MAX_LIST)
        bad_option ("pass@k list", arg, "positive whole numbers separated "
                    "by commas, at most 16");
      errno = 0;
      k = strtoul (p, &end, 10);
      if (errno || k == 0 || k > 1000000 || (*end && *end != ','))
        bad_option ("pass@k list", arg, "positive whole numbers separated "
                    "by commas, at most 16");
      settings.ks[settings.nks++] = k;
      p = *end ? end + 1 : end;
    }
  while (*p || p[-1] == ',');
}

static void
parse_p_list (const char *arg)
{
  char *copy = xstrdup (arg), *save = NULL;
  size_t len = strlen (arg);

  settings.nps = 0;
  if (len == 0 || arg[0] == ',' || arg[len - 1] == ',' || strstr (arg, ",,"))
    bad_option ("fast_p list", arg, "numbers of 0 or more separated by "
                "commas, at most 16");
  for (char *tok = strtok_r (copy, ",", &save); tok;
       tok = strtok_r (NULL, ",", &save))
    {
      double p;

      if (!parse_double (tok, &p) || p < 0 || settings.nps == MAX_LIST)
        bad_option ("fast_p list", arg, "numbers of 0 or more separated "
                    "by commas, at most 16");
      settings.ps[settings.nps++] = p;
    }
  free (copy);
}

static double
parse_weight (const char *arg, const char *option)
{
  double x;

  if (!parse_double (arg, &x))
    bad_option (option, arg, "a number");
  return x;
}

static void
set_format (enum format f)
{
  if (settings.format != FORMAT_TEXT && settings.format != f)
    usage_error ("--json, --csv, --markdown and --latex exclude each other");
  settings.format = f;
}

int
main (int argc, char **argv)
{
  struct settings *o = &settings;
  bool score_options = false, reward_options = false;
  int c;

  dice_set_program_name (argv[0]);
  atexit (dice_close_stdout);

  while ((c = getopt_long (argc, argv, "k:p:", long_options, NULL)) != -1)
    {
      switch (c)
        {
        case 'k':
          parse_k_list (optarg);
          break;
        case 'p':
          parse_p_list (optarg);
          break;
        case OPT_JSON:          /* --json */
          set_format (FORMAT_JSON);
          break;
        case OPT_CSV:           /* --csv */
          set_format (FORMAT_CSV);
          break;
        case OPT_MARKDOWN:      /* --markdown */
          set_format (FORMAT_MARKDOWN);
          break;
        case OPT_LATEX:         /* --latex */
          set_format (FORMAT_LATEX);
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
          if (!parse_double (optarg, &o->svg_max) || o->svg_max <= 0)
            bad_option ("--svg-max", optarg, "a number above 0");
          break;
        case OPT_REWARDS:       /* --rewards */
          if (optarg == NULL || strcmp (optarg, "bic") == 0)
            o->rewards = REWARD_BIC;
          else if (strcmp (optarg, "composite") == 0)
            o->rewards = REWARD_COMPOSITE;
          else
            bad_option ("reward", optarg, "bic or composite");
          break;
        case OPT_COMPILE_WEIGHT:        /* --compile-weight */
          o->compile_weight = parse_weight (optarg, "--compile-weight");
          reward_options = true;
          break;
        case OPT_CORRECT_WEIGHT:        /* --correct-weight */
          o->correct_weight = parse_weight (optarg, "--correct-weight");
          reward_options = true;
          break;
        case OPT_SPEED_WEIGHT:  /* --speed-weight */
          o->speed_weight = parse_weight (optarg, "--speed-weight");
          reward_options = true;
          break;
        case OPT_SPEEDUP_CAP:   /* --speedup-cap */
          o->speedup_cap = parse_weight (optarg, "--speedup-cap");
          reward_options = true;
          break;
        case OPT_NORMALIZE:     /* --normalize */
          o->normalize = true;
          reward_options = true;
          break;
        default:
          switch (dice_common_option (c, usage))
            {
            case DICE_OPTION_HANDLED:
              break;
            case DICE_OPTION_EXIT_OK:
              return DICE_EXIT_OK;
            case DICE_OPTION_UNKNOWN:
              dice_try_help ();
              return DICE_EXIT_TROUBLE;
            }
        }
      if ((c >= OPT_JSON && c <= OPT_SVG_MAX) || c == 'k' || c == 'p')
        score_options = true;
    }
  if (o->rewards != REWARD_NONE && score_options)
    usage_error ("--rewards writes records, not a summary: it takes no "
                 "summary options");
  if (o->rewards != REWARD_COMPOSITE && reward_options)
    usage_error ("the reward weights and --normalize need "
                 "--rewards=composite");
  if (o->rows_only && o->format != FORMAT_LATEX)
    usage_error ("--rows-only needs --latex");
  if (o->per_problem && o->format == FORMAT_LATEX)
    usage_error ("--per-problem cannot be a LaTeX table");

  if (optind == argc)
    read_input ("-");
  for (int i = optind; i < argc; i++)
    read_input (argv[i]);

  if (record_count == 0)
    {
      dice_error ("no records");
      return DICE_EXIT_INPUT;
    }
  if (o->rewards != REWARD_NONE)
    write_rewards ();
  else
    {
      size_t n;
      struct summary *s = all_summaries (&n);

      warn_about_bad_input (&s[n - 1]);
      if (o->per_problem)
        write_per_problem ();
      else if (o->format == FORMAT_JSON)
        write_summary_json (s, n);
      else if (o->format == FORMAT_LATEX)
        write_latex (s, n);
      else
        {
          struct grid g = summary_grid (s, n);

          if (o->format == FORMAT_TEXT)
            {
              struct grid t = grid_transpose (&g);

              draw (&t);
              grid_free (&t);
            }
          else
            draw (&g);
          grid_free (&g);
        }
      if (o->svg_path)
        write_svg (s, n);
      free (s);
    }

  for (size_t i = 0; i < nproblems; i++)
    {
      free (problems[i]->speeds);
      free (problems[i]->seen);
      free (problems[i]);
    }
  free (problems);
  free (kept);
  free (kept_text);
  free (first_model);
  dice_strmap_free (&problem_map);
  dice_strmap_free (&group_map);
  return exit_status;
}
