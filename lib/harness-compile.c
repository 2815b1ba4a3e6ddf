/* harness-compile.c: the compile mode (dice-compile): the job builds the
   candidate's extensions into the cache and runs nothing, and the
   record's "compile" object is the harness's own, or says why there is
   none.  */
#include "system.h"

#include <math.h>

#include "harness-end.h"

static json_t *
failed_compile (const char *error, double ms)
{
  return json_pack ("{s:b, s:I, s:n, s:n, s:n, s:s, s:[], s:s}",
                    "ok", 0, "ms", (json_int_t) llround (ms), "cache", "key",
                    "arch", "log", "", "builds", "error", error);
}

static json_t *
compile_not_run (const struct dice_harness *h, const json_t *rec)
{
  const char *code = json_string_value (json_object_get (rec, "code"));

  (void) h;
  return code && *code ? NULL : failed_compile ("no code", 0);
}

static json_t *
compile_result (const struct dice_harness *h, const json_t *rec,
                struct dice_harness_end *end)
{
  json_t *compile = json_object_get (end->result, "compile");

  (void) h;
  (void) rec;
  if (json_is_object (compile))
    return json_deep_copy (compile);
  if (end->result)
    snprintf (end->why, end->whylen, "the harness's result has no compile "
              "object");
  return failed_compile (end->why, end->sb->ms);
}

static const char *
compile_label (const json_t *value)
{
  return json_is_true (json_object_get (value, "ok")) ? "built" : "failed";
}

const struct dice_harness_mode dice_harness_compile = {
  .name = "compile", .not_run = compile_not_run,
  .job_fields = dice_harness_check_job_fields, .result = compile_result,
  .label = compile_label, .gpu_hold = DICE_GPU_HOLD_NONE, .builds = true
};
