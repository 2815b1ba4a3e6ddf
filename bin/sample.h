/* sample.h: what the sources of dice-sample share: its settings, the run
   (sample-run.c: the prompt records read and the slots that become output
   records), and the backends that fill the slots.  Each backend gets the
   run and finishes every slot through sample_complete, which writes the
   records in order.  */
#ifndef DICE_SAMPLE_H
#define DICE_SAMPLE_H

#include "system.h"

#include <jansson.h>

#include "progress.h"
#include "resume.h"

enum backend
{
  BACKEND_NONE,
  BACKEND_HTTP,
  BACKEND_LOCAL,
  BACKEND_EXEC,
  BACKEND_REPLAY
};

/* The largest --index-offset: with -n and --seed at their largest, every
   index and seed (--seed plus the index) still fits in a long.  */
#define DICE_SAMPLE_INDEX_MAX (LONG_MAX / 4)

/* What the command line asked for; set once by main, read by all.  */
struct sample_settings
{
  enum backend backend;
  const char *api;
  const char *model;
  bool raw;
  long samples;
  bool samples_given;
  long index_offset;            /* the first sample's index */
  bool batch_n;
  long jobs;
  bool jobs_given;
  long max_tokens;
  double temperature, top_p;
  long top_k;
  long long seed;
  json_t *stops;
  json_t *extra;
  /* The value of an -o KEY given without '=': a distinct object, so that
     no value a user can give is taken for it.  */
  json_t *omitted;
  double timeout;
  long retries;
  double retry_wait, retry_max_wait;
  const char *local;
  long block_length, steps;
  const char *unmasking;
  double threshold;
  const char *exec_cmd;
  const char *replay;
  const char *resume;
  bool unordered;
  enum dice_progress_when progress;
  bool quiet;
  const char *key;              /* the API key: never printed */
};

/* An input record and where it came from.  */
struct input
{
  json_t *rec;
  const char *file;
  unsigned long line;
};

/* One output record to be: sample INDEX of input INPUT.  */
struct slot
{
  size_t input;
  long index;
  json_t *sample;               /* set when done */
  json_t *code;
  bool done;
};

/* One run of dice-sample: the records read, the slots to fill, and how
   far the output has got.  */
struct sample_run
{
  const struct sample_settings *s;
  struct input *inputs;
  size_t ninputs;
  struct slot *slots;
  size_t nslots, next_emit, ndone, nfailed;
  struct dice_resume resume;
  int exit_status;
  struct dice_progress progress;
  json_t *saved;                /* --replay: the saved samples */
};

/* The name of BACKEND, as records and --resume settings say it.  */
const char *sample_backend_name (enum backend backend);

/* Read the prompt records of PATH ("-": standard input) into RUN: a record
   without a prompt (unless replaying), or without an id under --resume,
   is an input error, skipped.  */
void sample_read_inputs (struct sample_run *run, const char *path);

/* The prompt text of input record REC (borrowed), or NULL.  */
const char *sample_prompt_text (const json_t *rec);

/* A slot for sample INDEX of input INPUT, unless --resume has it.  */
void sample_add_slot (struct sample_run *run, size_t input, long index);

/* Finish slot SL: build its sample object from what the backend got, and
   write what can be written.  TEXT (may be NULL) is the completion; ERROR
   (may be NULL) says why there is none.  MODEL may be NULL.  TOKENS < 0:
   unknown.  */
void sample_complete (struct sample_run *run, struct slot *sl,
                      const char *model, const char *text, size_t text_len,
                      const char *finish, long long tokens, double ms,
                      const char *error);

/* TEXT (LEN bytes) with the API key redacted: a new string (*OUTLEN, when
   not NULL, its length).  */
char *sample_redact (const struct sample_run *run, const char *text,
                     size_t len, size_t *outlen);

/* Foreign text fit for one line of a message: redacted, blanks folded,
   cut at 300 bytes; a new string.  */
char *sample_one_line (const struct sample_run *run, const char *text,
                       size_t len);

/* The backends (sample-http.c, sample-child.c, sample-replay.c): each
   completes every slot or dies.  */
void sample_http (struct sample_run *run);
void sample_exec (struct sample_run *run);
void sample_local (struct sample_run *run);
void sample_replay_load (struct sample_run *run);
void sample_replay_slots (struct sample_run *run, size_t input);
void sample_replay (struct sample_run *run);

#endif
