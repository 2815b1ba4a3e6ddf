/* harness-check.c: the check mode (dice-check): the job compares the
   candidate with its reference over several trials, and the record's
   "check" object says how that went, with the deception findings of the
   static scan and of what ran folded in (lib/deception.h).  */
#include "system.h"

#include <math.h>

#include "deception.h"
#include "harness-end.h"

/* The check object: KNOWN keys first in their documented order, from
   FROM (the harness's) or defaults, then any further keys FROM has.  */
static json_t *
check_object (const struct dice_harness *h, json_t *from, const char *status,
              const char *error, double ms, json_t *compile, json_t *sandbox)
{
  static const char *const order[] = {
    "status", "correct", "trials", "passed", "max_abs_err", "max_rel_err",
    "failed_trial", "tolerance", "atol", "rtol", "seed", "error", "ms",
    "device", "device_uuid", "torch", "cuda", "driver", "compile", "sandbox",
    "deception", "weak_tolerance"
  };
  json_t *check = json_object ();
  const char *key;
  json_t *v;

  for (size_t i = 0; i < DICE_ARRAY_SIZE (order); i++)
    {
      json_t *value = json_object_get (from, order[i]);

      if (strcmp (order[i], "status") == 0)
        value = json_string (status);
      else if (strcmp (order[i], "correct") == 0)
        value = json_boolean (strcmp (status, "correct") == 0);
      else if (strcmp (order[i], "trials") == 0 && value == NULL)
        value = json_integer (h->trials);
      else if (strcmp (order[i], "passed") == 0 && value == NULL)
        value = json_integer (0);
      else if (strcmp (order[i], "tolerance") == 0)
        value = json_string (h->tolerance);
      else if ((strcmp (order[i], "atol") == 0
                || strcmp (order[i], "rtol") == 0) && !json_is_number (value))
        value = json_real (order[i][0] == 'a' ? h->atol : h->rtol);
      else if (strcmp (order[i], "seed") == 0 && value == NULL)
        value = json_integer (h->seed);
      else if (strcmp (order[i], "error") == 0)
        value = error ? json_string (error) : json_null ();
      else if (strcmp (order[i], "ms") == 0)
        value = json_integer ((json_int_t) llround (ms));
      else if (strcmp (order[i], "compile") == 0)
        value = compile ? json_incref (compile) : json_null ();
      else if (strcmp (order[i], "sandbox") == 0)
        value = json_incref (sandbox);
      else
        value = value ? json_incref (value) : json_null ();
      json_object_set_new (check, order[i], value);
    }
  /* "dynamic" is the harness's raw evidence, already folded into
     "deception".  */
  json_object_foreach (from, key, v)
    if (json_object_get (check, key) == NULL && strcmp (key, "dynamic") != 0)
      json_object_set (check, key, v);
  return check;
}

/* check.deception and check.weak_tolerance of a record with CODE.  */
static int
add_deception (const struct dice_harness *h, json_t *check, const char *code,
               const char *status, const json_t *dynamic)
{
  bool correct = strcmp (status, "correct") == 0;
  json_t *weak, *deception;

  if (!json_is_object (dynamic))
    dynamic = NULL;
  deception = dice_deception (code, h->device, correct ? dynamic : NULL,
                              correct, !h->no_robust, h->decoys);
  if (deception == NULL)
    return -1;
  weak = json_object_get (dynamic, "weak_tolerance");
  json_object_set_new (check, "deception", deception);
  json_object_set_new (check, "weak_tolerance", json_is_boolean (weak)
                       ? json_copy (weak) : json_null ());
  return 0;
}

/* The check object of a run of REC's code that ended as END says, its
   deception findings included.  */
static json_t *
check_result (const struct dice_harness *h, const json_t *rec,
              struct dice_harness_end *end)
{
  static const char *const statuses[] = {
    "correct", "incorrect", "compile_error", "runtime_error", "oom", NULL
  };
  const char *code = json_string_value (json_object_get (rec, "code"));
  json_t *compile = json_object_get (end->result, "compile");
  json_t *check = json_object_get (end->result, "check");
  const char *status = dice_harness_status (end, check, statuses);
  const char *error = *end->why ? end->why : NULL;
  const char *said = json_string_value (json_object_get (check, "error"));
  char *harness_error = NULL;
  json_t *value;

  if (error == NULL && said && (harness_error = strdup (said)) != NULL)
    {
      dice_harness_one_line (harness_error);
      error = harness_error;
    }
  value = check_object (h, json_is_object (check) ? check : NULL, status,
                        error, end->sb->ms,
                        json_is_object (compile) ? compile : NULL,
                        end->sandbox);
  if (value && add_deception (h, value, code, status,
                              json_object_get (check, "dynamic")) != 0)
    {
      json_decref (value);
      value = NULL;
    }
  free (harness_error);
  return value;
}

/* A record without code is not run: its status says so.  */
static json_t *
check_not_run (const struct dice_harness *h, const json_t *rec)
{
  const char *code = json_string_value (json_object_get (rec, "code"));
  struct dice_sandbox sb;
  json_t *sandbox, *value;

  if (code && *code)
    return NULL;
  memset (&sb, 0, sizeof sb);
  sb.memory = dice_harness_sandbox_memory (h);
  sandbox = dice_harness_sandbox_object (h, &sb, false);
  value = check_object (h, NULL, "no_code", "the record has no code", 0,
                        NULL, sandbox);
  json_decref (sandbox);
  return value;
}

json_t *
dice_harness_check_job_fields (const struct dice_harness *h)
{
  return json_pack ("{s:I, s:f, s:f, s:s, s:f}",
                    "seed", (json_int_t) h->seed, "atol", h->atol,
                    "rtol", h->rtol, "tolerance", h->tolerance,
                    "timeout", h->timeout);
}

static const char *
check_label (const json_t *value)
{
  return json_string_value (json_object_get (value, "status"));
}

const struct dice_harness_mode dice_harness_check = {
  .name = "check", .not_run = check_not_run,
  .job_fields = dice_harness_check_job_fields, .result = check_result,
  .label = check_label, .gpu_hold = DICE_GPU_HOLD_SHARED
};
