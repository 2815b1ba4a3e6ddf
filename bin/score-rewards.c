/* score-rewards.c: dice-score --rewards: each record written back with
   its RL reward, z-scored within its group.  */
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
raw_reward (const struct settings *o, const struct facts *f)
{
  double rc = robust_correct (f), speed;

  if (o->rewards == REWARD_BIC)
    return rc;
  speed = f->speed_kind == SPEED_VALID ? f->speedup : 0;
  if (speed > o->speedup_cap)
    speed = o->speedup_cap;
  return o->compile_weight * f->compiled + o->correct_weight * rc
    + o->speed_weight * speed * rc;
}

/* Copy LINE to the kept text; returns its offset.  */
size_t
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

/* Forget the kept text from OFFSET on: a line that could not be read.  */
void
unkeep_text (size_t offset)
{
  kept_text_len = offset;
}

void
keep_record (const struct settings *o, size_t offset, size_t len,
             bool splice, const struct facts *f)
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
  kept[nkept].reward = raw_reward (o, f);
  nkept++;
}


/* Rewards.  */

_Noreturn void
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

void
write_rewards (const struct settings *o)
{
  size_t *start = xcalloc (ngroups + 1, sizeof *start);
  size_t *fill = xcalloc (ngroups, sizeof *fill);
  double *values = xcalloc (nkept ? nkept : 1, sizeof *values);
  bool normalize = o->rewards == REWARD_BIC || o->normalize;

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


void
free_kept (void)
{
  free (kept);
  free (kept_text);
  dice_strmap_free (&group_map);
}
