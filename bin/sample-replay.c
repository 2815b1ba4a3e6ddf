/* sample-replay.c: dice-sample --replay: samples from saved runs (a
   KernelBench run directory or earlier dice-sample records) instead of a
   model.  */
#include "system.h"

#include <dirent.h>
#include <sys/stat.h>

#include "fileio.h"
#include "jsonl.h"
#include "msg.h"
#include "record.h"
#include "sample.h"
#include "xalloc.h"

/* run->saved holds the saved completions by problem: "LEVEL/INDEX"
   (KernelBench run directories) or id (dice records) to an object of
   sample index to either a file path (string) or a saved sample object.  */

static void
save (json_t *saved, const char *key, long long index, json_t *value)
{
  json_t *per = json_object_get (saved, key);
  char num[32];

  if (per == NULL)
    {
      per = json_object ();
      json_object_set_new (saved, key, per);
    }
  snprintf (num, sizeof num, "%lld", index);
  json_object_set_new (per, num, value);
}

/* level_L_problem_P_sample_S_kernel.py  */
static bool
kernelbench_file (const char *name, long *level, long *problem, long *sample)
{
  int used = 0;

  return sscanf (name, "level_%ld_problem_%ld_sample_%ld_kernel.py%n",
                 level, problem, sample, &used) == 3
    && used > 0 && name[used] == '\0';
}

void
sample_replay_load (struct sample_run *run)
{
  const struct sample_settings *s = run->s;
  struct stat st;

  run->saved = json_object ();
  if (stat (s->replay, &st) != 0)
    {
      dice_error_errno (errno, "cannot read '%s'", s->replay);
      exit (DICE_EXIT_TROUBLE);
    }
  if (S_ISDIR (st.st_mode))
    {
      DIR *d = opendir (s->replay);
      struct dirent *de;
      size_t found = 0;

      if (d == NULL)
        {
          dice_error_errno (errno, "cannot read '%s'", s->replay);
          exit (DICE_EXIT_TROUBLE);
        }
      while ((de = readdir (d)) != NULL)
        {
          long level, problem, sample;
          char key[64], *path;

          if (!kernelbench_file (de->d_name, &level, &problem, &sample))
            continue;
          snprintf (key, sizeof key, "%ld/%ld", level, problem);
          path = dice_path_join (s->replay, de->d_name);
          if (path == NULL)
            dice_die_memory ();
          save (run->saved, key, sample, json_string (path));
          free (path);
          found++;
        }
      closedir (d);
      if (found == 0)
        {
          dice_error ("no level_L_problem_P_sample_S_kernel.py files in '%s'",
                      s->replay);
          exit (DICE_EXIT_TROUBLE);
        }
      return;
    }

  struct dice_jsonl_reader in;
  json_t *rec;

  dice_input_open (&in, s->replay);
  while ((rec = dice_input_next (&in, &run->exit_status)) != NULL)
    {
      const char *id;
      json_t *sample;

      id = dice_record_id (rec);
      sample = json_object_get (rec, "sample");
      if (id == NULL || dice_record_sample_index (rec) < 0
          || !json_is_object (sample))
        {
          dice_error_at (in.name, in.line, "not a sample record (no id or "
                         "sample.index); skipped");
          json_decref (rec);
          dice_input_problem (&run->exit_status);
          continue;
        }
      save (run->saved, id, dice_record_sample_index (rec),
            json_incref (sample));
      json_decref (rec);
    }
  dice_jsonl_close (&in);
}

/* The saved samples of input I (borrowed), or NULL.  */
static json_t *
saved_for (const struct sample_run *run, size_t i)
{
  const json_t *rec = run->inputs[i].rec;
  const char *id = dice_record_id (rec);
  json_t *level = dice_record_get (rec, "problem.level");
  json_t *index = dice_record_get (rec, "problem.index");
  char key[64];

  if (id && json_object_get (run->saved, id))
    return json_object_get (run->saved, id);
  if (!json_is_integer (level) || !json_is_integer (index))
    return NULL;
  snprintf (key, sizeof key, "%lld/%lld",
            (long long) json_integer_value (level),
            (long long) json_integer_value (index));
  return json_object_get (run->saved, key);
}

static int
compare_long (const void *a, const void *b)
{
  long x = *(const long *) a, y = *(const long *) b;

  return (x > y) - (x < y);
}

/* Slots for replay: the first -n indices, or every saved one.  */
void
sample_replay_slots (struct sample_run *run, size_t i)
{
  const struct sample_settings *s = run->s;
  json_t *per = saved_for (run, i), *value;
  const char *num;
  long *found = NULL;
  size_t n = 0;

  if (s->samples_given || per == NULL)
    {
      for (long k = 0; k < s->samples; k++)
        sample_add_slot (run, i, run->s->index_offset + k);
      return;
    }
  found = xrealloc (NULL, (json_object_size (per) + 1) * sizeof *found);
  json_object_foreach (per, num, value)
    found[n++] = strtol (num, NULL, 10);
  qsort (found, n, sizeof *found, compare_long);
  for (size_t k = 0; k < n; k++)
    sample_add_slot (run, i, found[k]);
  free (found);
}

void
sample_replay (struct sample_run *run)
{
  const struct sample_settings *s = run->s;
  for (size_t i = 0; i < run->nslots; i++)
    {
      struct slot *sl = &run->slots[i];
      json_t *per = saved_for (run, sl->input), *value;
      char num[32];

      snprintf (num, sizeof num, "%ld", sl->index);
      value = per ? json_object_get (per, num) : NULL;
      if (json_is_string (value))
        {
          char *text;
          size_t len;

          if (dice_read_file (json_string_value (value), &text, &len) != 0)
            {
              char why[512];

              snprintf (why, sizeof why, "cannot read '%s': %s",
                        json_string_value (value), strerror (errno));
              sample_complete (run, sl, NULL, NULL, 0, NULL, -1, 0, why);
              continue;
            }
          sample_complete (run, sl, NULL, text, len, "stop", -1, 0, NULL);
          free (text);
        }
      else if (json_is_object (value))
        {
          json_t *text = json_object_get (value, "text");
          json_t *tokens = json_object_get (value, "tokens");
          const char *error = json_string_value (json_object_get (value,
                                                                  "error"));

          sample_complete (run, sl,
                           json_string_value (json_object_get (value,
                                                               "model")),
                    json_string_value (text), json_string_length (text),
                    json_string_value (json_object_get (value, "finish")),
                    json_is_integer (tokens) ? json_integer_value (tokens)
                    : -1, json_number_value (json_object_get (value, "ms")),
                    json_is_string (text) ? NULL
                    : error ? error : "the saved sample has no text");
        }
      else
        {
          const char *id = dice_record_id (run->inputs[sl->input].rec);
          char why[512];

          snprintf (why, sizeof why, "no saved sample %ld for %s in '%s'",
                    sl->index, id ? id : "this record", s->replay);
          sample_complete (run, sl, NULL, NULL, 0, NULL, -1, 0, why);
        }
    }
}