/* reftimes.c: reference times read from a file (dice-time --ref-times):
   KernelBench's baseline JSON, or dice-time's own output, keyed by
   problem.  */
#include "system.h"

#include "jsonl.h"
#include "reftimes.h"

/* The --ref-times key of REC: "L1/19_ReLU" from its id, or from
   problem.level, problem.index and problem.name.  */
static char *
record_key (const json_t *rec)
{
  const char *id = json_string_value (json_object_get (rec, "id"));
  const json_t *p = json_object_get (rec, "problem");
  const char *name = json_string_value (json_object_get (p, "name"));
  json_t *level = json_object_get (p, "level");
  json_t *index = json_object_get (p, "index");
  char buf[512];

  if (id)
    return strdup (id);
  if (json_is_integer (level) && json_is_integer (index) && name)
    {
      snprintf (buf, sizeof buf, "L%lld/%lld_%s",
                (long long) json_integer_value (level),
                (long long) json_integer_value (index), name);
      return strdup (buf);
    }
  return NULL;
}

static int
add_ref (struct dice_strmap *m, const char *key, json_t *stats,
         char *err, size_t errlen)
{
  struct dice_strmap_entry *e = dice_strmap_add (m, key);

  if (e == NULL)
    {
      json_decref (stats);
      snprintf (err, errlen, "memory exhausted");
      return -1;
    }
  json_decref (e->value);
  e->value = stats;
  return 0;
}

/* KernelBench's baseline JSON: {"level1": {"19_ReLU.py": {"mean": ms,
   "std", "min", "max", "num_trials"}}}.  It has no median, so the mean
   stands in for it.  */
static int
load_kernelbench (struct dice_strmap *m, json_t *all, const char *path,
                  char *err, size_t errlen)
{
  const char *lkey, *fkey;
  json_t *level, *entry;

  json_object_foreach (all, lkey, level)
    {
      long n;
      char *end;

      if (strncmp (lkey, "level", 5) != 0 || !json_is_object (level))
        continue;
      n = strtol (lkey + 5, &end, 10);
      if (end == lkey + 5 || *end)
        continue;
      json_object_foreach (level, fkey, entry)
        {
          json_t *mean = json_object_get (entry, "mean");
          char key[512];
          size_t len = strlen (fkey);

          if (!json_is_number (mean) || json_number_value (mean) <= 0)
            {
              snprintf (err, errlen, "%s: %s/%s has no positive mean", path,
                        lkey, fkey);
              return -1;
            }
          if (len > 3 && strcmp (fkey + len - 3, ".py") == 0)
            len -= 3;
          snprintf (key, sizeof key, "L%ld/%.*s", n, (int) len, fkey);
          if (add_ref (m, key, json_pack
                       ("{s:O, s:O, s:n, s:O?, s:O?, s:O?}",
                        "median", mean, "mean", mean, "iqr",
                        "min", json_object_get (entry, "min"),
                        "max", json_object_get (entry, "max"),
                        "n", json_object_get (entry, "num_trials")),
                       err, errlen) != 0)
            return -1;
        }
    }
  return 0;
}

/* dice-time output: records with time.ref.median.  */
static int
load_records (struct dice_strmap *m, const char *path, char **device,
              char *err, size_t errlen)
{
  struct dice_jsonl_reader r;
  json_t *rec;
  char why[256];
  int got;

  if (dice_jsonl_open (&r, path) != 0)
    {
      snprintf (err, errlen, "%s: %s", path, strerror (errno));
      return -1;
    }
  while ((got = dice_jsonl_next (&r, &rec, why, sizeof why)) != 0)
    {
      json_t *ref;
      char *key;

      if (got < 0)
        {
          snprintf (err, errlen, "%s:%lu: %s", path, r.line,
                    got == -2 ? strerror (errno) : why);
          dice_jsonl_close (&r);
          return -1;
        }
      ref = json_object_get (json_object_get (rec, "time"), "ref");
      key = record_key (rec);
      if (*device == NULL && json_is_string (json_object_get
                                             (json_object_get (rec, "time"),
                                              "device")))
        *device = strdup (json_string_value (json_object_get
                                             (json_object_get (rec, "time"),
                                              "device")));
      if (key && json_is_number (json_object_get (ref, "median"))
          && json_number_value (json_object_get (ref, "median")) > 0
          && add_ref (m, key, json_deep_copy (ref), err, errlen) != 0)
        {
          free (key);
          json_decref (rec);
          dice_jsonl_close (&r);
          return -1;
        }
      free (key);
      json_decref (rec);
    }
  dice_jsonl_close (&r);
  return 0;
}

int
dice_reftimes_load (const char *path, struct dice_strmap **times,
                    char **device, char *err, size_t errlen)
{
  struct dice_strmap *m;
  json_t *all;
  json_error_t jerr;
  int status;

  *device = NULL;
  if ((*times = m = calloc (1, sizeof *m)) == NULL)
    {
      snprintf (err, errlen, "memory exhausted");
      return -1;
    }
  /* One JSON document with level keys is KernelBench's; anything else is
     read as JSON lines.  */
  all = json_load_file (path, 0, &jerr);
  if (json_is_object (all) && json_object_get (all, "id") == NULL
      && json_object_get (all, "time") == NULL)
    {
      status = load_kernelbench (m, all, path, err, errlen);
      /* KernelBench measured its baselines on GPUs (its timing
         directories are named for them) and its JSON does not say
         which.  */
      *device = strdup ("a GPU (KernelBench's baseline JSON does not "
                        "say which)");
    }
  else
    status = load_records (m, path, device, err, errlen);
  json_decref (all);
  if (status == 0 && m->count == 0)
    {
      snprintf (err, errlen, "%s: no reference times found", path);
      status = -1;
    }
  return status;
}

const json_t *
dice_reftimes_get (const struct dice_strmap *times, const json_t *rec)
{
  char *key = record_key (rec);
  const json_t *e = key ? dice_strmap_get (times, key) : NULL;

  free (key);
  return e;
}
