/* sample-run.c: one run of dice-sample: the prompt records read, the
   slots that become output records, and the records written as the
   backends complete them (in input order unless --unordered).  */
#include "system.h"

#include <math.h>

#include "closeout.h"
#include "extract.h"
#include "jsonl.h"
#include "msg.h"
#include "options.h"
#include "progname.h"
#include "record.h"
#include "sample.h"
#include "secrets.h"
#include "xalloc.h"

static const char *const backend_names[] = {
  "none", "http", "local", "exec", "replay"
};

const char *
sample_backend_name (enum backend backend)
{
  return backend_names[backend];
}

/* The API key is the one secret a server could echo back into records
   or messages.  */
char *
sample_redact (const struct sample_run *run, const char *text, size_t len,
               size_t *outlen)
{
  const struct sample_settings *s = run->s;
  const char *key = s->key;
  char *out = dice_redact (text, len, &key, key ? 1 : 0, outlen);

  if (out == NULL)
    dice_die_memory ();
  return out;
}

char *
sample_one_line (const struct sample_run *run, const char *text, size_t len)
{
  return dice_one_line (sample_redact (run, text, len > 300 ? 300 : len,
                                       NULL), 300);
}

/* ---- Output ----  */

static void
write_record (struct sample_run *run, json_t *rec)
{
  const struct sample_settings *s = run->s;

  if (run->resume.fd >= 0)
    {
      if (dice_resume_write (&run->resume, rec) != 0)
        {
          dice_error_errno (errno, "cannot write to '%s'", s->resume);
          exit (DICE_EXIT_TROUBLE);
        }
      return;
    }
  if (dice_jsonl_write (stdout, rec) != 0)
    dice_stdout_failed (errno);
  if (dice_opts.unbuffered)
    fflush (stdout);
}

static void
emit (struct sample_run *run, struct slot *sl)
{
  json_t *rec = json_copy (run->inputs[sl->input].rec);

  if (rec == NULL
      || dice_record_set (rec, "sample", sl->sample) != 0
      || dice_record_set (rec, "code", sl->code) != 0)
    dice_die_memory ();
  sl->sample = sl->code = NULL;
  write_record (run, rec);
  json_decref (rec);
}

static double
rounded_ms (double ms)
{
  return round (ms * 10) / 10;
}

void
sample_complete (struct sample_run *run, struct slot *sl, const char *model,
                 const char *text, size_t text_len, const char *finish,
                 long long tokens, double ms, const char *error)
{
  const struct sample_settings *s = run->s;
  json_t *sample = json_object (), *code = json_null ();
  char *clean = text ? sample_redact (run, text, text_len, &text_len) : NULL;
  char *why = error ? sample_redact (run, error, strlen (error), NULL) : NULL;
  json_t *text_value = clean ? json_stringn (clean, text_len) : json_null ();

  if (sample == NULL)
    dice_die_memory ();
  if (text_value == NULL)
    {
      /* Not UTF-8: keep nothing rather than a corrupted text.  */
      text_value = json_null ();
      free (why);
      why = xstrdup ("the completion is not UTF-8 text");
      free (clean);
      clean = NULL;
    }
  if (clean)
    {
      struct dice_extract x;

      if (dice_extract_code (clean, text_len, &x))
        code = json_stringn (x.code, x.len);
      else if (why == NULL)
        why = xstrdup (x.why);
    }
  else
    run->nfailed++;
  json_object_set_new (sample, "index", json_integer (sl->index));
  json_object_set_new (sample, "backend",
                       json_string (backend_names[s->backend]));
  json_object_set_new (sample, "model", model ? json_string (model)
                       : json_null ());
  json_object_set_new (sample, "text", text_value);
  json_object_set_new (sample, "finish", finish && clean
                       ? json_string (finish) : json_null ());
  json_object_set_new (sample, "tokens", tokens >= 0
                       ? json_integer (tokens) : json_null ());
  /* The rate from the rounded time, so the record agrees with itself.  */
  ms = rounded_ms (ms);
  json_object_set_new (sample, "ms", json_real (ms));
  json_object_set_new (sample, "tokens_per_s", tokens >= 0 && ms > 0
                       ? json_real (dice_round_sig (tokens * 1000.0 / ms, 4))
                       : json_null ());
  json_object_set_new (sample, "error", why ? json_string (why)
                       : json_null ());
  if (!clean && !s->quiet && why)
    {
      const char *id = dice_record_id (run->inputs[sl->input].rec);

      fprintf (stderr, "%s%s: %s sample %ld: %s\n",
               dice_progress_clear (&run->progress), dice_program_name,
               id ? id : "(no id)", sl->index, why);
    }
  free (clean);
  free (why);
  sl->sample = sample;
  sl->code = code ? code : json_null ();
  sl->done = true;
  run->ndone++;
  if (s->unordered)
    emit (run, sl);
  else
    while (run->next_emit < run->nslots && run->slots[run->next_emit].done)
      emit (run, &run->slots[run->next_emit++]);
  dice_progress_update (&run->progress, (long long) run->ndone,
                        (long long) run->nfailed, 0, NULL);
}

/* ---- Input ----  */

const char *
sample_prompt_text (const json_t *rec)
{
  return dice_record_string (rec, "prompt.text");
}

void
sample_read_inputs (struct sample_run *run, const char *path)
{
  const struct sample_settings *s = run->s;
  struct dice_jsonl_reader in;
  json_t *rec;

  dice_input_open (&in, path);
  while ((rec = dice_input_next (&in, &run->exit_status)) != NULL)
    {
      if (!dice_shard_keeps (&dice_opts.shard, rec))
        {
          json_decref (rec);
          continue;
        }
      if (s->backend != BACKEND_REPLAY && sample_prompt_text (rec) == NULL)
        {
          const char *why = dice_record_string (rec, "prompt.error");

          dice_error_at (in.name, in.line, "no prompt.text%s%s; skipped",
                         why ? ": " : "", why ? why : "");
          json_decref (rec);
          dice_input_problem (&run->exit_status);
          continue;
        }
      if (s->resume && dice_record_id (rec) == NULL)
        {
          dice_error_at (in.name, in.line,
                         "no id, which --resume needs; skipped");
          json_decref (rec);
          dice_input_problem (&run->exit_status);
          continue;
        }
      run->inputs = xrealloc (run->inputs,
                              (run->ninputs + 1) * sizeof *run->inputs);
      run->inputs[run->ninputs++] = (struct input) {
        rec, xstrdup (in.name), in.line };
    }
  dice_jsonl_close (&in);
}

static bool
already_done (const struct sample_run *run, size_t input, long index)
{
  return run->resume.fd >= 0
    && dice_resume_done (&run->resume, run->inputs[input].rec, index);
}

void
sample_add_slot (struct sample_run *run, size_t input, long index)
{
  if (already_done (run, input, index))
    return;
  if ((run->nslots & (run->nslots - 1)) == 0)
    run->slots = xrealloc (run->slots, (run->nslots ? 2 * run->nslots : 1)
                           * sizeof *run->slots);
  run->slots[run->nslots++] = (struct slot) {
    input, index, NULL, NULL, false };
}
