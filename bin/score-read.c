/* score-read.c: dice-score reading records into the facts scoring uses,
   and gathering them per problem.  */
#include "system.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>

#include "jsonl.h"
#include "jsonpick.h"
#include "msg.h"
#include "options.h"
#include "record.h"
#include "stats.h"
#include "strmap.h"
#include "xalloc.h"
#include "score.h"

const char *const status_names[NSTATUS] = {
  "correct", "incorrect", "compile_error", "runtime_error", "timeout",
  "oom", "crashed", "no_code", "other", "unchecked"
};

int exit_status = DICE_EXIT_OK;
unsigned long record_count, checked_count;
char *first_model;

static struct dice_strmap problem_map;
struct problem **problems;
size_t nproblems;
static size_t problems_cap;


char *
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
  F_TIME_DECEPTIVE,
  F_SPEEDUP,
  F_CONFIRMED_SPEEDUP,
  F_TIME_VERIFIED,
  F_TIME_SKIPPED,
  F_REWARD,                     /* only whether it is there */
  F_SAMPLE_INDEX,
  /* Provenance: where and how the record was judged; time's where it
     was timed, else check's.  */
  F_CHECK_DEVICE,
  F_TIME_DEVICE,
  F_CHECK_DEVICE_UUID,
  F_TIME_DEVICE_UUID,
  F_CHECK_TORCH,
  F_TIME_TORCH,
  F_CHECK_CUDA,
  F_TIME_CUDA,
  F_CHECK_ATOL,
  F_CHECK_RTOL,
  F_CHECK_PRECISION,
  F_TIME_PRECISION,
  F_TIME_BASELINE,
  NFIELDS
};

static const char *const field_paths[NFIELDS] = {
  "id", "problem.level", "sample.model", "compile.ok", "check.status",
  "check.correct", "check.compile.ok", "check.deception.deceptive",
  "time.deception.deceptive", "time.speedup", "time.confirmed_speedup",
  "time.verified", "time.skipped", "reward", "sample.index",
  "check.device", "time.device", "check.device_uuid", "time.device_uuid",
  "check.torch", "time.torch", "check.cuda", "time.cuda", "check.atol",
  "check.rtol", "check.precision", "time.precision", "time.baseline"
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
read_speedup (const struct field *v, const char *name, struct facts *f,
              char *err, size_t errlen)
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
          snprintf (err, errlen, "%s is not a number: '%.40s'", name,
                    v->string);
          return false;
        }
    }
  else
    {
      snprintf (err, errlen, "%s is not a number", name);
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
  int correct, deceptive, time_deceptive, verified, compiled;

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
                                     err, errlen)) == -2
      || (time_deceptive = boolean_field (&fields[F_TIME_DECEPTIVE],
                                          F_TIME_DECEPTIVE, err,
                                          errlen)) == -2
      || (verified = boolean_field (&fields[F_TIME_VERIFIED],
                                    F_TIME_VERIFIED, err, errlen)) == -2)
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
  /* Caught anywhere means deceptive: by the check's static and dynamic
     analysis, or by the timing stage, where a speedup above
     --max-speedup that a fresh process did not bear out (time.verified
     false) is caught too (dice-time(1)).  */
  f->deceptive = deceptive == 1 || time_deceptive == 1 || verified == 0;

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

  /* A candidate that was not timed (dice-time skips deceptive ones) has
     no speed to count: the views it is correct in cannot say how fast
     their candidates are.  */
  f->time_skipped = fields[F_TIME_SKIPPED].type == DICE_PICK_STRING;
  /* dice-time --runs confirms a speedup in runs of their own: that one,
     where there is one, is the speedup scored.  */
  if (fields[F_CONFIRMED_SPEEDUP].type != DICE_PICK_MISSING)
    return read_speedup (&fields[F_CONFIRMED_SPEEDUP],
                         "time.confirmed_speedup", f, err, errlen);
  return read_speedup (&fields[F_SPEEDUP], "time.speedup", f, err, errlen);
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

unsigned long repeated_samples;

/* Provenance.  */

const char *const provenance_names[NPROVENANCE] = {
  "devices", "device_uuids", "torch", "cuda", "tolerances", "precisions",
  "baselines"
};

struct provenance *provenances;
size_t nprovenances;

static struct provenance *
provenance_for (long level)
{
  for (size_t i = 0; i < nprovenances; i++)
    if (provenances[i].level == level)
      return &provenances[i];
  provenances = xrealloc (provenances,
                          (nprovenances + 1) * sizeof *provenances);
  memset (&provenances[nprovenances], 0, sizeof *provenances);
  provenances[nprovenances].level = level;
  return &provenances[nprovenances++];
}

static void
provenance_add (struct provenance *p, enum provenance_kind kind,
                const char *value)
{
  size_t n = p->n[kind];

  for (size_t i = 0; i < n; i++)
    if (strcmp (p->values[kind][i], value) == 0)
      return;
  if (n == MAX_PROVENANCE)
    {
      p->more[kind] = true;
      return;
    }
  p->values[kind][n] = xstrdup (value);
  p->n[kind] = n + 1;
}

/* The string of field TIMED where it is one, else of CHECKED; NULL.  */
static const char *
string_of (const struct field *fields, enum field_id timed,
           enum field_id checked)
{
  if (fields[timed].type == DICE_PICK_STRING)
    return fields[timed].string;
  if (fields[checked].type == DICE_PICK_STRING)
    return fields[checked].string;
  return NULL;
}

static bool
is_number (const struct field *f)
{
  return f->type == DICE_PICK_INTEGER || f->type == DICE_PICK_REAL;
}

/* Note what FIELDS say about where and how the sample of LEVEL was
   judged, under its level and under all (-1).  */
static void
note_provenance (const struct field *fields, long level)
{
  const char *values[NPROVENANCE];
  char tolerance[64] = "";

  values[PROV_DEVICE] = string_of (fields, F_TIME_DEVICE, F_CHECK_DEVICE);
  values[PROV_DEVICE_UUID] = string_of (fields, F_TIME_DEVICE_UUID,
                                        F_CHECK_DEVICE_UUID);
  values[PROV_TORCH] = string_of (fields, F_TIME_TORCH, F_CHECK_TORCH);
  values[PROV_CUDA] = string_of (fields, F_TIME_CUDA, F_CHECK_CUDA);
  if (is_number (&fields[F_CHECK_ATOL]) && is_number (&fields[F_CHECK_RTOL]))
    snprintf (tolerance, sizeof tolerance, "atol=%g rtol=%g",
              fields[F_CHECK_ATOL].number, fields[F_CHECK_RTOL].number);
  values[PROV_TOLERANCE] = *tolerance ? tolerance : NULL;
  values[PROV_PRECISION] = string_of (fields, F_TIME_PRECISION,
                                      F_CHECK_PRECISION);
  values[PROV_BASELINE] = fields[F_TIME_BASELINE].type == DICE_PICK_STRING
    ? fields[F_TIME_BASELINE].string : NULL;
  for (int k = 0; k < NPROVENANCE; k++)
    if (values[k])
      {
        provenance_add (provenance_for (level), k, values[k]);
        provenance_add (provenance_for (-1), k, values[k]);
      }
}

const struct provenance *
provenance_of (long level)
{
  for (size_t i = 0; i < nprovenances; i++)
    if (provenances[i].level == level)
      return &provenances[i];
  return NULL;
}

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

/* Score F under its problem, which it returns.  */
static struct problem *
add_sample (const struct facts *f)
{
  struct problem *p = problem_for (f);

  /* The same sample twice (overlapping files, a resumed run joined to
     its first part) would weigh it twice in pass@k: the first counts.  */
  if (seen_before (p, f->index))
    {
      repeated_samples++;
      return p;
    }
  p->samples++;
  p->compiled += f->compiled;
  p->status[f->status]++;
  if (f->correct)
    {
      p->correct++;
      p->deceptive += f->deceptive;
    }
  if (f->correct && f->time_skipped)
    {
      p->untimed++;
      p->untimed_deceptive += f->deceptive;
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
  return p;
}

/* The fields of LINE into FIELDS, and the facts they say into F: picked
   out of the text, else parsed by Jansson into *REC (NULL when not; the
   caller releases it).  False, with ERR saying why, for a malformed line.  */
static bool
read_line_facts (char *line, size_t len, struct field *fields,
                 struct facts *f, json_t **rec, bool *picked, bool *compact,
                 char *err, size_t errlen)
{
  *rec = NULL;
  *compact = false;
  *picked = fields_from_line (line, len, fields, compact);
  if (!*picked)
    {
      if (dice_jsonl_parse (line, len, rec, err, errlen) != 1)
        return false;
      fields_from_record (*rec, fields);
    }
  return read_facts (fields, f, err, errlen);
}

void
read_input (const struct settings *o, const char *path)
{
  struct dice_jsonl_reader in;
  char *line;
  size_t len;

  dice_input_open (&in, path);
  while (dice_input_line (&in, &line, &len))
    {
      struct field fields[NFIELDS];
      struct facts f = { 0 };
      json_t *rec = NULL;
      char err[256];
      size_t offset = 0;
      bool picked, compact;

      /* Picking writes into the line: keep it first.  */
      if (o->rewards != REWARD_NONE)
        offset = keep_text (line, len);
      if (!read_line_facts (line, len, fields, &f, &rec, &picked, &compact,
                            err, sizeof err))
        {
          json_decref (rec);
          if (o->rewards != REWARD_NONE)
            unkeep_text (offset);
          dice_error_at (in.name, in.line, "%s", err);
          dice_input_problem (&exit_status);
          continue;
        }
      record_count++;
      checked_count += f.status != ST_UNCHECKED;
      remember_model (&fields[F_MODEL]);
      if (o->rewards != REWARD_NONE)
        keep_record (o, offset, len, picked && compact
                     && fields[F_REWARD].type == DICE_PICK_MISSING, &f);
      else if (add_sample (&f)->listed || !problem_set_given)
        note_provenance (fields, f.level);
      json_decref (rec);
    }
  dice_jsonl_close (&in);
}

/* The problem set.  The paper's metrics are shares of all the tasks of a
   level, and a task that left no record (its samples lost to a crashed
   job, say) has failed: counting only the tasks present would score the
   run on the tasks it managed.  */

bool problem_set_given;

/* Read the tasks of PATH, JSON lines with an id each (what dice-prompt
   writes, or any records of the tasks), before any record: each becomes
   a problem with no samples until its records come.  A bad line is fatal,
   since a problem set read in part would give every share the wrong
   denominator.  */
void
read_tasks (const char *path)
{
  struct dice_jsonl_reader in;
  char *line;
  size_t len;

  dice_input_open (&in, path);
  while (dice_input_line (&in, &line, &len))
    {
      struct field fields[NFIELDS];
      struct facts f;
      json_t *rec = NULL;
      char err[256];
      bool picked, compact;

      if (!read_line_facts (line, len, fields, &f, &rec, &picked, &compact,
                            err, sizeof err))
        {
          dice_error_at (in.name, in.line, "%s", err);
          exit (DICE_EXIT_TROUBLE);
        }
      problem_for (&f)->listed = true;
      json_decref (rec);
    }
  dice_jsonl_close (&in);
  if (nproblems == 0)
    {
      dice_error ("no tasks in '%s'", path);
      exit (DICE_EXIT_TROUBLE);
    }
  problem_set_given = true;
}

/* NAMES with ID added to its list of the first few; a new string.  */
static char *
name_a_few (char *names, size_t already, const char *id)
{
  char *longer;

  if (already > 3)
    return names;
  longer = already == 3 ? xasprintf ("%s, ...", names)
    : xasprintf ("%s%s%s", names, already ? ", " : "", id);
  free (names);
  return longer;
}

/* After reading, with --tasks: leave out the problems it does not name
   (they are not of the set the shares are of) and say which tasks have
   no record (they count as failures), a few by name.  */
void
close_problem_set (void)
{
  unsigned long samples = 0;
  size_t kept = 0, strangers = 0, missing = 0;
  char *stranger_names = xstrdup (""), *missing_names = xstrdup ("");

  for (size_t i = 0; problem_set_given && i < nproblems; i++)
    {
      struct problem *p = problems[i];

      if (p->listed)
        {
          if (p->samples == 0)
            missing_names = name_a_few (missing_names, missing++, p->id);
          problems[kept++] = p;
          continue;
        }
      stranger_names = name_a_few (stranger_names, strangers++, p->id);
      samples += p->samples;
      free (p->speeds);
      free (p->seen);
      free (p);
    }
  if (problem_set_given)
    nproblems = kept;
  if (missing)
    dice_error ("%zu of %zu tasks %s no record (%s): counted as failures",
                missing, kept, missing == 1 ? "has" : "have", missing_names);
  if (strangers)
    dice_error ("%lu sample%s of %zu problem%s not among the tasks (%s) "
                "%s not scored", samples, samples == 1 ? "" : "s", strangers,
                strangers == 1 ? "" : "s", stranger_names,
                samples == 1 ? "was" : "were");
  free (stranger_names);
  free (missing_names);
}

void
free_problems (void)
{
  for (size_t i = 0; i < nproblems; i++)
    {
      free (problems[i]->speeds);
      free (problems[i]->seen);
      free (problems[i]);
    }
  free (problems);
  for (size_t i = 0; i < nprovenances; i++)
    for (int k = 0; k < NPROVENANCE; k++)
      for (size_t j = 0; j < provenances[i].n[k]; j++)
        free (provenances[i].values[k][j]);
  free (provenances);
  free (first_model);
  dice_strmap_free (&problem_map);
}
