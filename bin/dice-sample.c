/* dice-sample: n sampled completions for each prompt record, from an
   OpenAI-compatible server, the bundled block-diffusion sampler, a
   command, or saved runs; one output record per sample, with the
   candidate module extracted.  */
#include "system.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "closeout.h"
#include "datadir.h"
#include "extract.h"
#include "fileio.h"
#include "http.h"
#include "jsonl.h"
#include "msg.h"
#include "options.h"
#include "proc.h"
#include "progname.h"
#include "record.h"
#include "resume.h"
#include "xalloc.h"

enum
{
  OPT_API = DICE_OPT_TOOL,
  OPT_MODEL,
  OPT_RAW,
  OPT_BATCH_N,
  OPT_MAX_TOKENS,
  OPT_TEMPERATURE,
  OPT_TOP_P,
  OPT_TOP_K,
  OPT_SEED,
  OPT_STOP,
  OPT_TIMEOUT,
  OPT_RETRIES,
  OPT_RETRY_WAIT,
  OPT_RETRY_MAX_WAIT,
  OPT_LOCAL,
  OPT_BLOCK_LENGTH,
  OPT_STEPS,
  OPT_UNMASKING,
  OPT_THRESHOLD,
  OPT_EXEC,
  OPT_REPLAY,
  OPT_RESUME,
  OPT_UNORDERED,
  OPT_PROGRESS
};

static const struct option long_options[] = {
  {"api", required_argument, NULL, OPT_API},
  {"model", required_argument, NULL, OPT_MODEL},
  {"raw", no_argument, NULL, OPT_RAW},
  {"samples", required_argument, NULL, 'n'},
  {"batch-n", no_argument, NULL, OPT_BATCH_N},
  {"jobs", required_argument, NULL, 'j'},
  {"max-tokens", required_argument, NULL, OPT_MAX_TOKENS},
  {"temperature", required_argument, NULL, OPT_TEMPERATURE},
  {"top-p", required_argument, NULL, OPT_TOP_P},
  {"top-k", required_argument, NULL, OPT_TOP_K},
  {"seed", required_argument, NULL, OPT_SEED},
  {"stop", required_argument, NULL, OPT_STOP},
  {"option", required_argument, NULL, 'o'},
  {"timeout", required_argument, NULL, OPT_TIMEOUT},
  {"retries", required_argument, NULL, OPT_RETRIES},
  {"retry-wait", required_argument, NULL, OPT_RETRY_WAIT},
  {"retry-max-wait", required_argument, NULL, OPT_RETRY_MAX_WAIT},
  {"local", required_argument, NULL, OPT_LOCAL},
  {"block-length", required_argument, NULL, OPT_BLOCK_LENGTH},
  {"steps", required_argument, NULL, OPT_STEPS},
  {"unmasking", required_argument, NULL, OPT_UNMASKING},
  {"threshold", required_argument, NULL, OPT_THRESHOLD},
  {"exec", required_argument, NULL, OPT_EXEC},
  {"replay", required_argument, NULL, OPT_REPLAY},
  {"resume", required_argument, NULL, OPT_RESUME},
  {"unordered", no_argument, NULL, OPT_UNORDERED},
  {"progress", no_argument, NULL, OPT_PROGRESS},
  {"quiet", no_argument, NULL, 'q'},
  DICE_FILTER_LONG_OPTIONS,
  DICE_SHARD_LONG_OPTIONS,
  DICE_COMMON_LONG_OPTIONS,
  {NULL, 0, NULL, 0}
};

static void
usage (void)
{
  printf ("\
Usage: %s [OPTION]... [FILE]...\n\
Read prompt records (JSON lines) from FILEs (standard input by default)\n\
and write one record per sample: the prompt record with 'sample' (the\n\
completion and how it was made) and 'code' (the Python module defining\n\
ModelNew found in it, or null) added.  Records come out in input order,\n\
then by sample index.\n\
\n\
Backends (one of):\n\
      --api=URL          an OpenAI-compatible server (lmdeploy, vLLM,\n\
                           SGLang ...): its base URL, such as\n\
                           http://localhost:23333; default $DICE_API_BASE\n\
      --local=PATH|ID    the bundled block-diffusion sampler, for SDAR and\n\
                           DICE checkpoints, run with $DICE_PYTHON\n\
      --exec=CMD         run 'sh -c CMD' per sample: the prompt on its\n\
                           stdin, the completion on its stdout\n\
      --replay=DIR|FILE  completions saved earlier: a KernelBench run\n\
                           directory or dice records (JSON lines)\n\
\n\
Sampling:\n\
  -n, --samples=N        samples per prompt (default 1)\n\
      --model=NAME       the model to ask for (needed with --api)\n\
      --raw              send the prompt as is to /v1/completions, not as\n\
                           a chat message to /v1/chat/completions; with\n\
                           --local, no chat template\n\
      --max-tokens=N     at most N new tokens (default 4096)\n\
      --temperature=T    sampling temperature (default 1.0)\n\
      --top-p=P          nucleus sampling mass (default 1.0)\n\
      --top-k=K          sample among the K likeliest tokens; 0: all\n\
                           (default 0)\n\
      --seed=S           sample i gets seed S+i (default 0)\n\
      --stop=STRING      stop at STRING; may be repeated\n\
  -o, --option=KEY=VALUE  add KEY to each request body: VALUE as JSON if\n\
                           it parses, else as a string; -o KEY alone\n\
                           leaves KEY out; may be repeated\n\
\n\
Concurrency and HTTP:\n\
  -j, --jobs=N           requests in flight at once (default 16), or\n\
                           --exec commands running at once (default 1)\n\
      --batch-n          ask for the n samples of a prompt in one request\n\
                           (the 'n' field) instead of n requests\n\
      --timeout=SECONDS  limit per request, per --exec command, or on\n\
                           the wait for the next --local sample\n\
                           (default 600)\n\
      --retries=N        retries of a request that got 408, 429, 5xx or a\n\
                           transport error (default 5)\n\
      --retry-wait=SECONDS  the first backoff, doubled after each retry,\n\
                           with jitter (default 1)\n\
      --retry-max-wait=SECONDS  cap on any wait, Retry-After included\n\
                           (default 60)\n\
\n\
Block diffusion (--local):\n\
      --block-length=N   tokens per block (default 4)\n\
      --steps=N          denoising steps per block (default: the block\n\
                           length)\n\
      --unmasking=S      static (a fixed number of tokens per step) or\n\
                           dynamic (every token above the threshold;\n\
                           default)\n\
      --threshold=X      confidence threshold of dynamic unmasking\n\
                           (default 0.9)\n\
\n\
Input and output:\n\
      --resume=FILE      skip the samples whose (id, sample.index) FILE\n\
                           already has and append the new records to FILE\n\
                           instead of writing them to standard output\n\
      --unordered        write each record as soon as it is done\n\
      --progress         show progress on standard error (the default\n\
                           when it is a terminal)\n\
  -q, --quiet            no progress and no retry notices\n\
      --strict           stop at the first malformed input line (exit 2);\n\
                           by default it is reported, skipped, and the\n\
                           exit status is 1\n\
      --unbuffered       flush the output after every record\n\
      --shard=I/N        do only shard I of N (1 <= I <= N): a stable split\n\
                           by id and sample.index, whatever the input order\n\
      --help             display this help and exit\n\
      --version          output version information and exit\n\
\n\
Environment: DICE_API_BASE, DICE_API_KEY or OPENAI_API_KEY (sent as a\n\
bearer token, never shown), DICE_PYTHON and DICE_DATADIR (--local).\n\
A sample that could not be had gets sample.error and exit status 1.\n",
          dice_program_name);
  dice_print_help_tail ();
}

enum backend
{
  BACKEND_NONE,
  BACKEND_HTTP,
  BACKEND_LOCAL,
  BACKEND_EXEC,
  BACKEND_REPLAY
};

static const char *const backend_names[] = {
  "none", "http", "local", "exec", "replay"
};

struct settings
{
  enum backend backend;
  const char *api;
  const char *model;
  bool raw;
  long samples;
  bool samples_given;
  bool batch_n;
  long jobs;
  bool jobs_given;
  long max_tokens;
  double temperature, top_p;
  long top_k;
  long long seed;
  json_t *stops;
  json_t *extra;
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
  bool progress;
  bool quiet;
  const char *key;              /* the API key: never printed */
};

static struct settings s = {
  .samples = 1, .jobs = 16, .max_tokens = 4096, .temperature = 1.0,
  .top_p = 1.0, .timeout = 600, .retries = 5, .retry_wait = 1,
  .retry_max_wait = 60, .block_length = 4, .unmasking = "dynamic",
  .threshold = 0.9
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

static struct input *inputs;
static size_t ninputs;
static struct slot *slots;
static size_t nslots, next_emit, ndone, nfailed;
static struct dice_resume resume = { .fd = -1 };
static int exit_status = DICE_EXIT_OK;
static double last_progress;




/* A copy of TEXT (LEN bytes) with every occurrence of the API key
   replaced, so a server that echoes the request cannot make it appear in
   records or messages.  */
static char *
redact (const char *text, size_t len, size_t *outlen)
{
  size_t klen = s.key ? strlen (s.key) : 0;
  char *out = xrealloc (NULL, len + 1), *o = out;
  static const char mark[] = "[redacted]";
  const char *p = text, *end = text + len;

  if (klen < 4 || len < klen)
    {
      memcpy (out, text, len);
      out[len] = '\0';
      if (outlen)
        *outlen = len;
      return out;
    }
  /* "[redacted]" may be longer than the key.  */
  out = xrealloc (out, len / klen * sizeof mark + len + 1);
  o = out;
  while (p < end)
    {
      if ((size_t) (end - p) >= klen && *p == *s.key
          && memcmp (p, s.key, klen) == 0)
        {
          memcpy (o, mark, sizeof mark - 1);
          o += sizeof mark - 1;
          p += klen;
        }
      else
        *o++ = *p++;
    }
  *o = '\0';
  if (outlen)
    *outlen = o - out;
  return out;
}

/* Server text fit for one line of a message: redacted, blanks folded,
   cut at 300 bytes.  */
static char *
one_line (const char *text, size_t len)
{
  char *r = redact (text, len > 300 ? 300 : len, NULL);

  for (char *p = r; *p; p++)
    if (*p == '\n' || *p == '\r' || *p == '\t')
      *p = ' ';
  return r;
}

/* ---- Output ----  */

static void
write_record (const json_t *rec)
{
  if (resume.fd >= 0)
    {
      if (dice_resume_write (&resume, rec) != 0)
        {
          dice_error_errno (errno, "cannot write to '%s'", s.resume);
          exit (DICE_EXIT_TROUBLE);
        }
      return;
    }
  if (dice_jsonl_write (stdout, rec) != 0)
    {
      dice_error_errno (errno, "write error");
      exit (DICE_EXIT_TROUBLE);
    }
  if (dice_opts.unbuffered)
    fflush (stdout);
}

static void
emit (struct slot *sl)
{
  json_t *rec = json_copy (inputs[sl->input].rec);

  if (rec == NULL
      || dice_record_set (rec, "sample", sl->sample) != 0
      || dice_record_set (rec, "code", sl->code) != 0)
    dice_die_memory ();
  sl->sample = sl->code = NULL;
  write_record (rec);
  json_decref (rec);
}

static void
show_progress (bool final)
{
  double now = dice_now ();

  if (!s.progress || (!final && now - last_progress < 0.2))
    return;
  last_progress = now;
  fprintf (stderr, "\r%s: %zu/%zu samples", dice_program_name, ndone,
           nslots);
  if (nfailed)
    fprintf (stderr, ", %zu failed", nfailed);
  fputs (final ? "\n" : " ", stderr);
  fflush (stderr);
}

static double
rounded_ms (double ms)
{
  return round (ms * 10) / 10;
}

/* Finish slot SL: build its sample object from what the backend got.
   TEXT (may be NULL) is the completion; ERROR (may be NULL) says why
   there is none.  MODEL may be NULL.  TOKENS < 0: unknown.  */
static void
complete (struct slot *sl, const char *model, const char *text,
          size_t text_len, const char *finish, long long tokens, double ms,
          const char *error)
{
  json_t *sample = json_object (), *code = json_null ();
  char *clean = text ? redact (text, text_len, &text_len) : NULL;
  char *why = error ? redact (error, strlen (error), NULL) : NULL;
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
    nfailed++;
  json_object_set_new (sample, "index", json_integer (sl->index));
  json_object_set_new (sample, "backend",
                       json_string (backend_names[s.backend]));
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
  if (!clean && !s.quiet && why)
    {
      const char *id = dice_record_id (inputs[sl->input].rec);

      fprintf (stderr, "%s%s: %s sample %ld: %s\n", s.progress ? "\r" : "",
               dice_program_name, id ? id : "(no id)", sl->index, why);
    }
  free (clean);
  free (why);
  sl->sample = sample;
  sl->code = code ? code : json_null ();
  sl->done = true;
  ndone++;
  if (s.unordered)
    emit (sl);
  else
    while (next_emit < nslots && slots[next_emit].done)
      emit (&slots[next_emit++]);
  show_progress (false);
}

/* ---- Input ----  */

static const char *
prompt_text (const json_t *rec)
{
  return dice_record_string (rec, "prompt.text");
}

static void
read_inputs (const char *path)
{
  struct dice_jsonl_reader in;
  json_t *rec;

  dice_input_open (&in, path);
  while ((rec = dice_input_next (&in, &exit_status)) != NULL)
    {
      if (!dice_shard_keeps (&dice_opts.shard, rec))
        {
          json_decref (rec);
          continue;
        }
      if (s.backend != BACKEND_REPLAY && prompt_text (rec) == NULL)
        {
          const char *why = dice_record_string (rec, "prompt.error");

          dice_error_at (in.name, in.line, "no prompt.text%s%s; skipped",
                         why ? ": " : "", why ? why : "");
          json_decref (rec);
          dice_input_problem (&exit_status);
          continue;
        }
      if (s.resume && dice_record_id (rec) == NULL)
        {
          dice_error_at (in.name, in.line,
                         "no id, which --resume needs; skipped");
          json_decref (rec);
          dice_input_problem (&exit_status);
          continue;
        }
      inputs = xrealloc (inputs, (ninputs + 1) * sizeof *inputs);
      inputs[ninputs++] = (struct input) {
        rec, xstrdup (in.name), in.line };
    }
  dice_jsonl_close (&in);
}

static bool
already_done (size_t input, long index)
{
  return resume.fd >= 0
    && dice_resume_done (&resume, dice_record_id (inputs[input].rec), index);
}

static void
add_slot (size_t input, long index)
{
  if (already_done (input, index))
    return;
  if ((nslots & (nslots - 1)) == 0)
    slots = xrealloc (slots, (nslots ? 2 * nslots : 1) * sizeof *slots);
  slots[nslots++] = (struct slot) { input, index, NULL, NULL, false };
}

/* ---- Requests: what every backend sends ----  */

/* The value of an -o KEY given without '=': a distinct object, so that
   no value a user can give is taken for it.  */
static json_t *omitted;

static json_t *
stop_list (void)
{
  return json_deep_copy (s.stops);
}

/* ---- HTTP ----  */

struct http_job
{
  struct dice_http_request req;
  size_t first;                 /* its first slot */
  long count;                   /* slots first .. first + count - 1 */
  char *body;
};

static char *endpoint;

/* The endpoint for base URL API: it may already name the endpoint, end
   in /v1, or be the server's root.  */
static char *
make_endpoint (const char *api)
{
  const char *path = s.raw ? "/completions" : "/chat/completions";
  size_t len = strlen (api);
  char *url = xrealloc (NULL, len + 32);

  while (len > 0 && api[len - 1] == '/')
    len--;
  if ((len >= 12 && memcmp (api + len - 12, "/completions", 12) == 0))
    snprintf (url, len + 32, "%.*s", (int) len, api);
  else if (len >= 3 && memcmp (api + len - 3, "/v1", 3) == 0)
    snprintf (url, len + 32, "%.*s%s", (int) len, api, path);
  else
    snprintf (url, len + 32, "%.*s/v1%s", (int) len, api, path);
  return url;
}

static char *
request_body (const char *prompt, long n, long long seed)
{
  json_t *body = json_object ();
  char *text;

  json_object_set_new (body, "model", json_string (s.model));
  if (s.raw)
    json_object_set_new (body, "prompt", json_string (prompt));
  else
    json_object_set_new (body, "messages",
                         json_pack ("[{s:s, s:s}]", "role", "user",
                                    "content", prompt));
  json_object_set_new (body, "n", json_integer (n));
  json_object_set_new (body, "max_tokens", json_integer (s.max_tokens));
  json_object_set_new (body, "temperature", json_real (s.temperature));
  json_object_set_new (body, "top_p", json_real (s.top_p));
  json_object_set_new (body, "top_k", json_integer (s.top_k));
  json_object_set_new (body, "seed", json_integer (seed));
  json_object_set_new (body, "stop", stop_list ());
  json_object_set_new (body, "stream", json_false ());
  if (s.extra)
    {
      const char *key;
      json_t *value;

      /* A key given without a value is left out of the body.  */
      json_object_foreach (s.extra, key, value)
        if (value == omitted)
          json_object_del (body, key);
        else
          json_object_set (body, key, value);
    }
  text = json_dumps (body, JSON_COMPACT | JSON_REAL_PRECISION (17));
  json_decref (body);
  if (text == NULL)
    dice_die_memory ();
  return text;
}

/* What a server said in an error answer: error.message, error, message
   or detail of a JSON body, else the body; one line, redacted.  */
static char *
server_message (const struct dice_http_request *req)
{
  json_t *body = req->response
    ? json_loadb (req->response, req->response_len, 0, NULL) : NULL;
  const char *msg = NULL;
  char *out;

  if (json_is_object (body))
    {
      json_t *e = json_object_get (body, "error");

      msg = json_string_value (json_object_get (e, "message"));
      if (msg == NULL)
        msg = json_string_value (e);
      if (msg == NULL)
        msg = json_string_value (json_object_get (body, "message"));
      if (msg == NULL)
        msg = json_string_value (json_object_get (body, "detail"));
    }
  if (msg)
    out = one_line (msg, strlen (msg));
  else if (req->response && req->response_len)
    out = one_line (req->response, req->response_len);
  else
    out = xstrdup ("(empty body)");
  json_decref (body);
  return out;
}

static void
fail_job (struct http_job *job, const char *why)
{
  for (long k = 0; k < job->count; k++)
    complete (&slots[job->first + k], s.model, NULL, 0, NULL, -1,
              job->req.ms, why);
}

/* Turn a 200 answer into the job's samples: one per choice, matched by
   choice index; a body that is not a completion fails them all.  */
static void
parse_answer (struct http_job *job)
{
  json_error_t jerr;
  json_t *body = json_loadb (job->req.response ? job->req.response : "",
                             job->req.response_len, 0, &jerr);
  json_t *choices = json_object_get (body, "choices");
  json_t *usage = json_object_get (body, "usage");
  const char *model = json_string_value (json_object_get (body, "model"));
  long long tokens = -1;
  bool *seen = calloc (job->count, sizeof *seen);
  char why[512];
  size_t i;
  json_t *choice;

  if (seen == NULL)
    dice_die_memory ();
  if (model == NULL)
    model = s.model;
  if (!json_is_object (body) || !json_is_array (choices))
    {
      char *shown = one_line (job->req.response ? job->req.response : "",
                              job->req.response_len);

      if (json_is_object (body) && json_object_get (body, "error"))
        {
          char *msg = server_message (&job->req);

          snprintf (why, sizeof why, "error from %s: %s", endpoint, msg);
          free (msg);
        }
      else
        snprintf (why, sizeof why, "malformed answer from %s (%s): %.200s",
                  endpoint, body ? "no choices" : jerr.text, shown);
      free (shown);
      fail_job (job, why);
      json_decref (body);
      free (seen);
      return;
    }
  if (job->count == 1 && json_is_integer (json_object_get (usage,
                                                           "completion_tokens")))
    tokens = json_integer_value (json_object_get (usage, "completion_tokens"));
  json_array_foreach (choices, i, choice)
    {
      json_t *jindex = json_object_get (choice, "index");
      long k = json_is_integer (jindex) ? (long) json_integer_value (jindex)
        : (long) i;
      json_t *content = s.raw ? json_object_get (choice, "text")
        : json_object_get (json_object_get (choice, "message"), "content");
      const char *finish = json_string_value (json_object_get (choice,
                                                              "finish_reason"));

      if (k < 0 || k >= job->count || seen[k])
        continue;
      seen[k] = true;
      if (json_is_string (content))
        complete (&slots[job->first + k], model, json_string_value (content),
                  json_string_length (content), finish, tokens, job->req.ms,
                  NULL);
      else
        complete (&slots[job->first + k], model, NULL, 0, NULL, -1,
                  job->req.ms, "the answer has no completion text");
    }
  for (long k = 0; k < job->count; k++)
    if (!seen[k])
      {
        snprintf (why, sizeof why, "the server answered %zu choices for n=%ld",
                  json_array_size (choices), job->count);
        complete (&slots[job->first + k], model, NULL, 0, NULL, -1,
                  job->req.ms, why);
      }
  free (seen);
  json_decref (body);
}

/* The requests made so far; bodies exist only for those queued and not
   yet done, so memory stays bounded however many samples there are.  */
static struct
{
  struct dice_http *client;
  struct http_job *jobs;
  size_t njobs;
  size_t next_slot;             /* the first slot without a request */
  size_t pending;               /* queued or in flight */
} http;

/* Queue requests until twice -j are pending or every slot has one.  */
static void
queue_more (void)
{
  while (http.next_slot < nslots && http.pending < 2 * (size_t) s.jobs)
    {
      size_t i = http.next_slot, j = i + 1;
      struct http_job *job = &http.jobs[http.njobs++];

      /* --batch-n: consecutive samples of one prompt in one request.  */
      while (s.batch_n && j < nslots && slots[j].input == slots[i].input
             && slots[j].index == slots[j - 1].index + 1)
        j++;
      memset (job, 0, sizeof *job);
      job->first = i;
      job->count = j - i;
      job->body = request_body (prompt_text (inputs[slots[i].input].rec),
                                job->count, s.seed + slots[i].index);
      job->req.url = endpoint;
      job->req.body = job->body;
      job->req.body_len = strlen (job->body);
      job->req.data = job;
      if (dice_http_add (http.client, &job->req) != 0)
        dice_die_memory ();
      http.pending++;
      http.next_slot = j;
    }
}

static int
http_done (struct dice_http_request *req, void *ctx)
{
  struct http_job *job = req->data;
  char why[1024];

  if (req->status == 200)
    parse_answer (job);
  else if (req->status == 0)
    {
      if (req->curl_code == 28)   /* CURLE_OPERATION_TIMEDOUT */
        snprintf (why, sizeof why, "no answer from %s within %g s (%d "
                  "attempt%s)", endpoint, s.timeout, req->attempts,
                  req->attempts == 1 ? "" : "s");
      else
        snprintf (why, sizeof why, "no answer from %s: %s (%d attempt%s)",
                  endpoint, req->error, req->attempts,
                  req->attempts == 1 ? "" : "s");
      fail_job (job, why);
    }
  else
    {
      char *msg = server_message (req);

      if (req->status == 401 || req->status == 403)
        {
          dice_error ("HTTP %ld from %s: the server refused the key (set "
                      "DICE_API_KEY or OPENAI_API_KEY): %s", req->status,
                      endpoint, msg);
          free (msg);
          return 1;
        }
      if (req->status == 404)
        {
          dice_error ("HTTP 404 from %s: no model '%s' there, or a wrong URL "
                      "(check --model and --api): %s", endpoint, s.model, msg);
          free (msg);
          return 1;
        }
      snprintf (why, sizeof why, "HTTP %ld from %s for model '%s'%s: %s",
                req->status, endpoint, s.model,
                dice_http_retryable (req->status, 0) ? " (out of retries)"
                : "", msg);
      free (msg);
      fail_job (job, why);
    }
  dice_http_request_clear (req);
  free (job->body);
  job->body = NULL;
  http.pending--;
  queue_more ();
  return 0;
}

static void
http_retry_notice (const struct dice_http_request *req, double delay,
                   void *ctx)
{
  if (s.quiet)
    return;
  if (req->status)
    fprintf (stderr, "%s%s: HTTP %ld from %s; retry in %.1f s\n",
             s.progress ? "\r" : "", dice_program_name, req->status,
             endpoint, delay);
  else
    fprintf (stderr, "%s%s: %s (%s); retry in %.1f s\n",
             s.progress ? "\r" : "", dice_program_name, endpoint, req->error,
             delay);
}

static void
run_http (void)
{
  struct dice_http_options o = {
    .jobs = (int) s.jobs, .retries = (int) s.retries, .timeout = s.timeout,
    .connect_timeout = s.timeout < 30 ? s.timeout : 30,
    .backoff = s.retry_wait, .backoff_max = s.retry_max_wait,
    .bearer = s.key, .user_agent = PACKAGE_NAME "-sample/" PACKAGE_VERSION,
    .on_retry = http_retry_notice
  };
  struct dice_http *h = dice_http_new (&o);
  char err[512];
  int rc;

  if (h == NULL)
    dice_die_memory ();
  endpoint = make_endpoint (s.api);
  http.client = h;
  http.jobs = xrealloc (NULL, (nslots ? nslots : 1) * sizeof *http.jobs);
  queue_more ();
  rc = dice_http_run (h, http_done, NULL, err, sizeof err);
  if (rc == DICE_HTTP_UNREACHABLE)
    {
      dice_error ("%s%s", err, strncmp (err, "cannot reach", 12) == 0
                  ? " (is the server running?)" : "");
      exit (DICE_EXIT_TROUBLE);
    }
  if (rc == DICE_HTTP_FAILED)
    {
      dice_error ("%s", err);
      exit (DICE_EXIT_TROUBLE);
    }
  if (rc == DICE_HTTP_STOPPED)
    exit (DICE_EXIT_TROUBLE);
  free (http.jobs);
  dice_http_free (h);
  free (endpoint);
}

/* ---- Children: --exec and --local ----  */

/* The environment of a child: ours without the API keys, plus ADD.  */
static char **
child_env (const char *const *add)
{
  static const char *const secrets[] = {
    "DICE_API_KEY", "OPENAI_API_KEY", NULL
  };
  char **env = dice_proc_env (secrets, add);

  if (env == NULL)
    dice_die_memory ();
  return env;
}

/* A --exec command in progress.  */
struct exec_run
{
  struct dice_proc_task task;
  struct slot *sl;
  char **env;
  char *id_var;
  bool busy;
};

static void
exec_start (struct exec_run *x, struct slot *sl)
{
  const char *prompt = prompt_text (inputs[sl->input].rec);
  const char *id = dice_record_id (inputs[sl->input].rec);
  char index_var[64], seed_var[64], *argv[4];
  const char *add[4];

  snprintf (index_var, sizeof index_var, "DICE_SAMPLE_INDEX=%ld", sl->index);
  snprintf (seed_var, sizeof seed_var, "DICE_SAMPLE_SEED=%lld",
            s.seed + sl->index);
  x->id_var = xrealloc (NULL, strlen (id ? id : "") + 16);
  sprintf (x->id_var, "DICE_SAMPLE_ID=%s", id ? id : "");
  add[0] = index_var;
  add[1] = seed_var;
  add[2] = x->id_var;
  add[3] = NULL;
  x->env = child_env (add);
  argv[0] = (char *) "/bin/sh";
  argv[1] = (char *) "-c";
  argv[2] = (char *) s.exec_cmd;
  argv[3] = NULL;
  if (dice_proc_task_start (&x->task, argv, x->env, prompt, strlen (prompt),
                            s.timeout) != 0)
    {
      dice_error_errno (errno, "cannot run '%s'", s.exec_cmd);
      exit (DICE_EXIT_TROUBLE);
    }
  x->sl = sl;
  x->busy = true;
}

/* The last line of a command's stderr, which says most: a new string.  */
static char *
last_line (char *text, size_t len)
{
  char *start;

  while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
    len--;
  text[len] = '\0';
  start = strrchr (text, '\n');
  start = start ? start + 1 : text;
  return one_line (start, strlen (start));
}

static void
exec_finish (struct exec_run *x)
{
  struct dice_proc_result *r = &x->task.r;
  char why[1024], status[128];

  if (r->timed_out)
    {
      snprintf (why, sizeof why, "the command timed out after %g s",
                s.timeout);
      complete (x->sl, s.model, NULL, 0, NULL, -1, r->ms, why);
    }
  else if (!WIFEXITED (r->status) || WEXITSTATUS (r->status) != 0)
    {
      char *tail = last_line (r->err, r->err_len);

      snprintf (why, sizeof why, "the command failed (%s)%s%s",
                dice_proc_status_string (r->status, status, sizeof status),
                *tail ? ": " : "", tail);
      free (tail);
      complete (x->sl, s.model, NULL, 0, NULL, -1, r->ms, why);
    }
  else
    complete (x->sl, s.model, r->out, r->out_len, "stop", -1, r->ms, NULL);
  dice_proc_result_free (r);
  dice_proc_env_free (x->env);
  free (x->id_var);
  x->busy = false;
}

/* --exec: up to -j commands at once (one unless -j is given), fed and
   read through one poll.  */
static void
run_exec (void)
{
  long width = s.jobs_given ? s.jobs : 1;
  struct exec_run *runs = calloc (width, sizeof *runs);
  struct pollfd *fds = calloc (3 * width, sizeof *fds);
  int *first = calloc (width, sizeof *first), *count = calloc (width,
                                                              sizeof *count);
  struct sigaction ignore = { .sa_handler = SIG_IGN };
  size_t next = 0;
  long busy = 0;

  if (runs == NULL || fds == NULL || first == NULL || count == NULL)
    dice_die_memory ();
  sigaction (SIGPIPE, &ignore, NULL);
  while (next < nslots || busy > 0)
    {
      int nfds = 0;
      double wait = -1;

      for (long i = 0; i < width && next < nslots; i++)
        if (!runs[i].busy)
          {
            exec_start (&runs[i], &slots[next++]);
            busy++;
          }
      for (long i = 0; i < width; i++)
        if (runs[i].busy)
          {
            double w = dice_proc_task_wait (&runs[i].task);

            first[i] = nfds;
            count[i] = dice_proc_task_fds (&runs[i].task, fds + nfds);
            nfds += count[i];
            if (w >= 0 && (wait < 0 || w < wait))
              wait = w;
          }
      if (poll (fds, nfds, wait < 0 ? -1 : (int) (wait * 1000) + 1) < 0
          && errno != EINTR)
        {
          dice_error_errno (errno, "poll failed");
          exit (DICE_EXIT_TROUBLE);
        }
      for (long i = 0; i < width; i++)
        if (runs[i].busy)
          {
            int rc = dice_proc_task_step (&runs[i].task, fds + first[i],
                                          count[i]);

            if (rc < 0)
              dice_die_memory ();
            if (rc > 0)
              {
                exec_finish (&runs[i]);
                busy--;
              }
          }
    }
  free (runs);
  free (fds);
  free (first);
  free (count);
}

/* A line-oriented reader over a non-blocking pipe.  */
struct line_reader
{
  char *buf;
  size_t len, cap;
  bool eof;
};

/* Read what is there from FD.  Returns 0, or -1 on a read error.  */
static int
fill (struct line_reader *lr, int fd)
{
  for (;;)
    {
      ssize_t n;

      if (lr->cap - lr->len < 65536)
        {
          lr->cap = lr->cap ? 2 * lr->cap : 131072;
          lr->buf = xrealloc (lr->buf, lr->cap);
        }
      n = read (fd, lr->buf + lr->len, lr->cap - lr->len - 1);
      if (n > 0)
        {
          lr->len += n;
          continue;
        }
      if (n == 0)
        lr->eof = true;
      else if (errno != EAGAIN && errno != EINTR)
        return -1;
      return 0;
    }
}

/* The next whole line (without its newline) into a new string, or NULL.  */
static char *
next_line (struct line_reader *lr)
{
  char *nl = lr->len ? memchr (lr->buf, '\n', lr->len) : NULL;
  char *line;
  size_t n;

  if (nl == NULL)
    return NULL;
  n = nl - lr->buf;
  line = xrealloc (NULL, n + 1);
  memcpy (line, lr->buf, n);
  line[n] = '\0';
  memmove (lr->buf, nl + 1, lr->len - n - 1);
  lr->len -= n + 1;
  return line;
}

/* A --local job: consecutive samples of one prompt.  */
struct local_job
{
  size_t first;                 /* its first slot */
  long count;
};

/* The local sampler and what it has said.  */
struct local
{
  struct dice_proc p;
  struct local_job *jobs;
  size_t njobs;
  bool ready;
  char model[256];
  double start;
};

/* Start $DICE_PYTHON -m dice_sampler with the data directory's python/
   first on PYTHONPATH and no API key.  */
static void
local_spawn (struct local *L)
{
  const char *old = getenv ("PYTHONPATH"), *add[2];
  char *pythonpath, *argv[8], **env;
  struct sigaction ignore = { .sa_handler = SIG_IGN };

  pythonpath = xrealloc (NULL, strlen (dice_datadir ())
                         + (old ? strlen (old) : 0) + 32);
  sprintf (pythonpath, "PYTHONPATH=%s/python%s%s", dice_datadir (),
           old && *old ? ":" : "", old && *old ? old : "");
  add[0] = pythonpath;
  add[1] = NULL;
  env = child_env (add);
  argv[0] = (char *) dice_python ();
  argv[1] = (char *) "-m";
  argv[2] = (char *) "dice_sampler";
  argv[3] = (char *) "--model";
  argv[4] = (char *) s.local;
  argv[5] = (char *) "--device";
  argv[6] = (char *) "auto";
  argv[7] = NULL;
  /* A sampler that dies makes writing its jobs fail with EPIPE.  */
  sigaction (SIGPIPE, &ignore, NULL);
  L->start = dice_now ();
  if (dice_proc_spawn (&L->p, argv, env, false) != 0)
    {
      dice_error_errno (errno, "cannot start '%s'", argv[0]);
      exit (DICE_EXIT_TROUBLE);
    }
  dice_proc_env_free (env);
  free (pythonpath);
}

/* Every job, as the lines to write to the sampler: a new buffer of
   *LEN bytes.  */
static char *
local_jobs (struct local *L, size_t *len)
{
  char *text = NULL;
  FILE *mem = open_memstream (&text, len);

  if (mem == NULL)
    dice_die_memory ();
  L->jobs = xrealloc (NULL, (nslots ? nslots : 1) * sizeof *L->jobs);
  for (size_t i = 0; i < nslots;)
    {
      size_t j = i + 1;
      json_t *job;

      while (j < nslots && slots[j].input == slots[i].input
             && slots[j].index == slots[j - 1].index + 1)
        j++;
      L->jobs[L->njobs] = (struct local_job) { i, (long) (j - i) };
      job = json_pack ("{s:I, s:s, s:b, s:I, s:I, s:I, s:f, s:f, s:I, s:I, "
                       "s:I, s:s, s:f, s:o}",
                       "job", (json_int_t) L->njobs,
                       "prompt", prompt_text (inputs[slots[i].input].rec),
                       "raw", s.raw, "n", (json_int_t) (j - i),
                       "seed", (json_int_t) (s.seed + slots[i].index),
                       "max_tokens", (json_int_t) s.max_tokens,
                       "temperature", s.temperature, "top_p", s.top_p,
                       "top_k", (json_int_t) s.top_k,
                       "block_length", (json_int_t) s.block_length,
                       "steps", (json_int_t) (s.steps ? s.steps
                                              : s.block_length),
                       "unmasking", s.unmasking, "threshold", s.threshold,
                       "stop", stop_list ());
      if (job == NULL || dice_jsonl_write (mem, job) != 0)
        dice_die_memory ();
      json_decref (job);
      L->njobs++;
      i = j;
    }
  if (fclose (mem) != 0)
    dice_die_memory ();
  return text;
}

/* The first line: ready, or why not.  Returns whether it is ready,
   having said why not.  */
static bool
local_ready_line (struct local *L, json_t *msg, const char *line)
{
  const char *name = json_string_value (json_object_get (msg, "model"));
  const char *device = json_string_value (json_object_get (msg, "device"));
  const char *error = json_string_value (json_object_get (msg, "error"));
  char *shown;

  if (json_is_object (msg) && json_is_true (json_object_get (msg, "ready")))
    {
      L->ready = true;
      snprintf (L->model, sizeof L->model, "%s", name ? name : s.local);
      if (!s.quiet)
        fprintf (stderr, "%s: %s ready on %s after %.1f s\n",
                 dice_program_name, L->model, device ? device : "?",
                 dice_now () - L->start);
      return true;
    }
  shown = one_line (error ? error : line, strlen (error ? error : line));
  dice_error ("the local sampler could not load '%s': %s", s.local, shown);
  free (shown);
  return false;
}

/* A sample line, for the slot its job and index name.  */
static void
local_sample_line (struct local *L, json_t *msg, const char *line)
{
  json_t *job = json_object_get (msg, "job");
  json_t *index = json_object_get (msg, "index");
  json_t *text = json_object_get (msg, "text");
  json_t *tokens = json_object_get (msg, "tokens");
  double ms = json_number_value (json_object_get (msg, "ms"));
  const char *error = json_string_value (json_object_get (msg, "error"));
  struct slot *sl = NULL;

  if (json_is_integer (job) && json_is_integer (index)
      && json_integer_value (job) >= 0
      && (size_t) json_integer_value (job) < L->njobs
      && json_integer_value (index) >= 0
      && json_integer_value (index) < L->jobs[json_integer_value (job)].count)
    sl = &slots[L->jobs[json_integer_value (job)].first
                + json_integer_value (index)];
  if (sl == NULL || sl->done)
    {
      char *shown = one_line (line, strlen (line));

      dice_error ("the local sampler sent an unexpected line: %s", shown);
      free (shown);
    }
  else if (json_is_string (text))
    complete (sl, L->model, json_string_value (text),
              json_string_length (text),
              json_string_value (json_object_get (msg, "finish")),
              json_is_integer (tokens) ? json_integer_value (tokens) : -1,
              ms, NULL);
  else
    complete (sl, L->model, NULL, 0, NULL, -1, ms,
              error ? error : "the local sampler sent no text");
}

/* --local: one sampler for the whole run, fed every job while its
   answers are read, through one poll.  */
static void
run_local (void)
{
  struct local L = { 0 };
  struct line_reader lr = { 0 };
  size_t out_len, out_off = 0;
  char *out, *line;
  bool hung = false;
  /* Loading may take long; once loaded, a sampler that says nothing for
     --timeout seconds is taken for hung.  */
  int quiet_ms = s.timeout * 1000 < INT_MAX ? (int) (s.timeout * 1000)
    : INT_MAX;

  local_spawn (&L);
  out = local_jobs (&L, &out_len);
  while (!lr.eof && ndone < nslots)
    {
      struct pollfd fds[2];
      int nfds = 0, got;

      fds[nfds++] = (struct pollfd) { L.p.out_fd, POLLIN, 0 };
      if (L.ready && L.p.in_fd >= 0 && out_off < out_len)
        fds[nfds++] = (struct pollfd) { L.p.in_fd, POLLOUT, 0 };
      got = poll (fds, nfds, L.ready ? quiet_ms : -1);
      if (got < 0 && errno != EINTR)
        break;
      if (got == 0)
        {
          hung = true;
          break;
        }
      if (nfds == 2 && fds[1].revents)
        {
          ssize_t n = write (L.p.in_fd, out + out_off, out_len - out_off);

          if (n > 0)
            out_off += n;
          else if (n < 0 && errno != EAGAIN && errno != EINTR)
            out_off = out_len;
        }
      if (fds[0].revents && fill (&lr, L.p.out_fd) != 0)
        break;
      while ((line = next_line (&lr)) != NULL)
        {
          json_t *msg = json_loads (line, 0, NULL);

          bool failed = false;

          if (L.ready)
            local_sample_line (&L, msg, line);
          else
            failed = !local_ready_line (&L, msg, line);
          json_decref (msg);
          free (line);
          if (failed)
            {
              dice_proc_kill (&L.p);
              exit (DICE_EXIT_TROUBLE);
            }
        }
      if (L.ready && out_off == out_len && L.p.in_fd >= 0)
        {
          close (L.p.in_fd);    /* EOF: no more jobs */
          L.p.in_fd = -1;
        }
    }
  if (!L.ready)
    {
      int status = dice_proc_wait (&L.p);
      char how[128];

      dice_error ("the local sampler (%s -m dice_sampler) ended before it "
                  "was ready (%s)", dice_python (),
                  dice_proc_status_string (status, how, sizeof how));
      exit (DICE_EXIT_TROUBLE);
    }
  if (ndone < nslots)
    {
      int status = dice_proc_kill (&L.p);
      char how[128], why[256];

      if (hung)
        snprintf (why, sizeof why, "the local sampler sent nothing for %g s "
                  "and was killed", s.timeout);
      else
        snprintf (why, sizeof why, "the local sampler ended early (%s)",
                  dice_proc_status_string (status, how, sizeof how));
      for (size_t i = 0; i < nslots; i++)
        if (!slots[i].done)
          complete (&slots[i], L.model, NULL, 0, NULL, -1, 0, why);
    }
  else
    dice_proc_wait (&L.p);
  free (lr.buf);
  free (out);
  free (L.jobs);
}

/* ---- Replay ----  */

/* Saved completions by problem: "LEVEL/INDEX" (KernelBench run
   directories) or id (dice records) to an object of sample index to
   either a file path (string) or a saved sample object.  */
static json_t *saved;

static void
save (const char *key, long long index, json_t *value)
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

static void
load_replay (void)
{
  struct stat st;

  saved = json_object ();
  if (stat (s.replay, &st) != 0)
    {
      dice_error_errno (errno, "cannot read '%s'", s.replay);
      exit (DICE_EXIT_TROUBLE);
    }
  if (S_ISDIR (st.st_mode))
    {
      DIR *d = opendir (s.replay);
      struct dirent *de;
      size_t found = 0;

      if (d == NULL)
        {
          dice_error_errno (errno, "cannot read '%s'", s.replay);
          exit (DICE_EXIT_TROUBLE);
        }
      while ((de = readdir (d)) != NULL)
        {
          long level, problem, sample;
          char key[64], *path;

          if (!kernelbench_file (de->d_name, &level, &problem, &sample))
            continue;
          snprintf (key, sizeof key, "%ld/%ld", level, problem);
          path = dice_path_join (s.replay, de->d_name);
          if (path == NULL)
            dice_die_memory ();
          save (key, sample, json_string (path));
          free (path);
          found++;
        }
      closedir (d);
      if (found == 0)
        {
          dice_error ("no level_L_problem_P_sample_S_kernel.py files in '%s'",
                      s.replay);
          exit (DICE_EXIT_TROUBLE);
        }
      return;
    }

  struct dice_jsonl_reader in;
  json_t *rec;

  dice_input_open (&in, s.replay);
  while ((rec = dice_input_next (&in, &exit_status)) != NULL)
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
          dice_input_problem (&exit_status);
          continue;
        }
      save (id, dice_record_sample_index (rec), json_incref (sample));
      json_decref (rec);
    }
  dice_jsonl_close (&in);
}

/* The saved samples of input I (borrowed), or NULL.  */
static json_t *
saved_for (size_t i)
{
  const json_t *rec = inputs[i].rec;
  const char *id = dice_record_id (rec);
  json_t *level = dice_record_get (rec, "problem.level");
  json_t *index = dice_record_get (rec, "problem.index");
  char key[64];

  if (id && json_object_get (saved, id))
    return json_object_get (saved, id);
  if (!json_is_integer (level) || !json_is_integer (index))
    return NULL;
  snprintf (key, sizeof key, "%lld/%lld",
            (long long) json_integer_value (level),
            (long long) json_integer_value (index));
  return json_object_get (saved, key);
}

static int
compare_long (const void *a, const void *b)
{
  long x = *(const long *) a, y = *(const long *) b;

  return (x > y) - (x < y);
}

/* Slots for replay: the first -n indices, or every saved one.  */
static void
replay_slots (size_t i)
{
  json_t *per = saved_for (i), *value;
  const char *num;
  long *found = NULL;
  size_t n = 0;

  if (s.samples_given || per == NULL)
    {
      for (long k = 0; k < s.samples; k++)
        add_slot (i, k);
      return;
    }
  found = xrealloc (NULL, (json_object_size (per) + 1) * sizeof *found);
  json_object_foreach (per, num, value)
    found[n++] = strtol (num, NULL, 10);
  qsort (found, n, sizeof *found, compare_long);
  for (size_t k = 0; k < n; k++)
    add_slot (i, found[k]);
  free (found);
}

static void
run_replay (void)
{
  for (size_t i = 0; i < nslots; i++)
    {
      struct slot *sl = &slots[i];
      json_t *per = saved_for (sl->input), *value;
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
              complete (sl, NULL, NULL, 0, NULL, -1, 0, why);
              continue;
            }
          complete (sl, NULL, text, len, "stop", -1, 0, NULL);
          free (text);
        }
      else if (json_is_object (value))
        {
          json_t *text = json_object_get (value, "text");
          json_t *tokens = json_object_get (value, "tokens");
          const char *error = json_string_value (json_object_get (value,
                                                                  "error"));

          complete (sl, json_string_value (json_object_get (value, "model")),
                    json_string_value (text), json_string_length (text),
                    json_string_value (json_object_get (value, "finish")),
                    json_is_integer (tokens) ? json_integer_value (tokens)
                    : -1, json_number_value (json_object_get (value, "ms")),
                    json_is_string (text) ? NULL
                    : error ? error : "the saved sample has no text");
        }
      else
        {
          const char *id = dice_record_id (inputs[sl->input].rec);
          char why[512];

          snprintf (why, sizeof why, "no saved sample %ld for %s in '%s'",
                    sl->index, id ? id : "this record", s.replay);
          complete (sl, NULL, NULL, 0, NULL, -1, 0, why);
        }
    }
}

/* ---- Options ----  */

static long
parse_long (const char *arg, const char *option, long min, long max)
{
  char *end;
  long v;

  errno = 0;
  v = strtol (arg, &end, 10);
  if (errno || end == arg || *end || v < min || v > max)
    {
      dice_error ("invalid --%s '%s' (an integer from %ld to %ld)", option,
                  arg, min, max);
      dice_try_help ();
      exit (DICE_EXIT_TROUBLE);
    }
  return v;
}

static double
parse_number (const char *arg, const char *option, double min, double max)
{
  char *end;
  double v;

  errno = 0;
  v = strtod (arg, &end);
  if (errno || end == arg || *end || !(v >= min && v <= max))
    {
      dice_error ("invalid --%s '%s' (a number from %g to %g)", option, arg,
                  min, max);
      dice_try_help ();
      exit (DICE_EXIT_TROUBLE);
    }
  return v;
}

static void
add_extra (const char *arg)
{
  const char *eq = strchr (arg, '=');
  json_t *value;
  char *key;

  if (s.extra == NULL)
    s.extra = json_object ();
  if (eq == NULL && *arg)
    {
      json_object_set (s.extra, arg, omitted);
      return;
    }
  if (eq == NULL || eq == arg)
    {
      dice_error ("invalid --option '%s' (KEY=VALUE or KEY)", arg);
      dice_try_help ();
      exit (DICE_EXIT_TROUBLE);
    }
  value = json_loads (eq + 1, JSON_DECODE_ANY, NULL);
  if (value == NULL)
    value = json_string (eq + 1);
  if (value == NULL)
    {
      dice_error ("invalid --option '%s': not UTF-8", arg);
      exit (DICE_EXIT_TROUBLE);
    }
  key = xrealloc (NULL, eq - arg + 1);
  memcpy (key, arg, eq - arg);
  key[eq - arg] = '\0';
  json_object_set_new (s.extra, key, value);
  free (key);
}

static void
choose_backend (enum backend b)
{
  if (s.backend != BACKEND_NONE && s.backend != b)
    {
      dice_error ("--api, --local, --exec and --replay exclude each other");
      dice_try_help ();
      exit (DICE_EXIT_TROUBLE);
    }
  s.backend = b;
}

static void
cleanup (void)
{
  for (size_t i = 0; i < ninputs; i++)
    {
      json_decref (inputs[i].rec);
      free ((char *) inputs[i].file);
    }
  free (inputs);
  for (size_t i = 0; i < nslots; i++)
    {
      json_decref (slots[i].sample);
      json_decref (slots[i].code);
    }
  free (slots);
  json_decref (saved);
  json_decref (s.stops);
  json_decref (s.extra);
  json_decref (omitted);
}

int
main (int argc, char **argv)
{
  int c;
  const char *env_api;

  dice_set_program_name (argv[0]);
  atexit (dice_close_stdout);
  atexit (cleanup);

  s.stops = json_array ();
  omitted = json_object ();
  s.progress = isatty (STDERR_FILENO);
  while ((c = getopt_long (argc, argv, "n:j:o:q", long_options, NULL)) != -1)
    switch (c)
      {
      case OPT_API:             /* --api */
        choose_backend (BACKEND_HTTP);
        s.api = optarg;
        break;
      case OPT_MODEL:           /* --model */
        s.model = optarg;
        break;
      case OPT_RAW:             /* --raw */
        s.raw = true;
        break;
      case 'n':
        s.samples = parse_long (optarg, "samples", 1, 1000000);
        s.samples_given = true;
        break;
      case OPT_BATCH_N:         /* --batch-n */
        s.batch_n = true;
        break;
      case 'j':
        s.jobs = parse_long (optarg, "jobs", 1, 4096);
        s.jobs_given = true;
        break;
      case OPT_MAX_TOKENS:      /* --max-tokens */
        s.max_tokens = parse_long (optarg, "max-tokens", 1, LONG_MAX);
        break;
      case OPT_TEMPERATURE:     /* --temperature */
        s.temperature = parse_number (optarg, "temperature", 0, 100);
        break;
      case OPT_TOP_P:           /* --top-p */
        s.top_p = parse_number (optarg, "top-p", 0, 1);
        break;
      case OPT_TOP_K:           /* --top-k */
        s.top_k = parse_long (optarg, "top-k", -1, LONG_MAX);
        break;
      case OPT_SEED:            /* --seed */
        s.seed = parse_long (optarg, "seed", 0, LONG_MAX / 2);
        break;
      case OPT_STOP:            /* --stop */
        if (json_array_append_new (s.stops, json_string (optarg)) != 0)
          {
            dice_error ("invalid --stop '%s': not UTF-8", optarg);
            return DICE_EXIT_TROUBLE;
          }
        break;
      case 'o':
        add_extra (optarg);
        break;
      case OPT_TIMEOUT:         /* --timeout */
        s.timeout = parse_number (optarg, "timeout", 0.001, 1e7);
        break;
      case OPT_RETRIES:         /* --retries */
        s.retries = parse_long (optarg, "retries", 0, 1000);
        break;
      case OPT_RETRY_WAIT:      /* --retry-wait */
        s.retry_wait = parse_number (optarg, "retry-wait", 0, 1e6);
        break;
      case OPT_RETRY_MAX_WAIT:  /* --retry-max-wait */
        s.retry_max_wait = parse_number (optarg, "retry-max-wait", 0, 1e6);
        break;
      case OPT_LOCAL:           /* --local */
        choose_backend (BACKEND_LOCAL);
        s.local = optarg;
        break;
      case OPT_BLOCK_LENGTH:    /* --block-length */
        s.block_length = parse_long (optarg, "block-length", 1, 4096);
        break;
      case OPT_STEPS:           /* --steps */
        s.steps = parse_long (optarg, "steps", 1, 4096);
        break;
      case OPT_UNMASKING:       /* --unmasking */
        if (strcmp (optarg, "static") && strcmp (optarg, "dynamic"))
          {
            dice_error ("invalid --unmasking '%s' (static or dynamic)",
                        optarg);
            dice_try_help ();
            return DICE_EXIT_TROUBLE;
          }
        s.unmasking = optarg;
        break;
      case OPT_THRESHOLD:       /* --threshold */
        s.threshold = parse_number (optarg, "threshold", 0, 1);
        break;
      case OPT_EXEC:            /* --exec */
        choose_backend (BACKEND_EXEC);
        s.exec_cmd = optarg;
        break;
      case OPT_REPLAY:          /* --replay */
        choose_backend (BACKEND_REPLAY);
        s.replay = optarg;
        break;
      case OPT_RESUME:          /* --resume */
        s.resume = optarg;
        break;
      case OPT_UNORDERED:       /* --unordered */
        s.unordered = true;
        break;
      case OPT_PROGRESS:        /* --progress */
        s.progress = true;
        break;
      case 'q':
        s.quiet = true;
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
  if (s.quiet)
    s.progress = false;

  env_api = getenv ("DICE_API_BASE");
  if (s.backend == BACKEND_NONE && env_api && *env_api)
    {
      s.backend = BACKEND_HTTP;
      s.api = env_api;
    }
  if (s.backend == BACKEND_NONE)
    {
      dice_error ("no backend: give --api (or set DICE_API_BASE), --local, "
                  "--exec or --replay");
      dice_try_help ();
      return DICE_EXIT_TROUBLE;
    }
  if (s.backend == BACKEND_HTTP)
    {
      if (*s.api == '\0')
        {
          dice_error ("--api needs a URL");
          dice_try_help ();
          return DICE_EXIT_TROUBLE;
        }
      if (s.model == NULL)
        {
          dice_error ("--api needs --model NAME (the name the server "
                      "serves the model under)");
          dice_try_help ();
          return DICE_EXIT_TROUBLE;
        }
      s.key = getenv ("DICE_API_KEY");
      if (s.key == NULL || *s.key == '\0')
        s.key = getenv ("OPENAI_API_KEY");
      if (s.key && *s.key == '\0')
        s.key = NULL;
    }

  if (optind == argc)
    read_inputs ("-");
  for (int i = optind; i < argc; i++)
    read_inputs (argv[i]);
  if (s.resume)
    dice_resume_open (&resume, s.resume, "sample");
  if (s.backend == BACKEND_REPLAY)
    load_replay ();
  for (size_t i = 0; i < ninputs; i++)
    if (s.backend == BACKEND_REPLAY)
      replay_slots (i);
    else
      for (long k = 0; k < s.samples; k++)
        add_slot (i, k);

  dice_proc_kill_on_signals ();
  if (nslots > 0)
    switch (s.backend)
      {
      case BACKEND_HTTP:
        run_http ();
        break;
      case BACKEND_LOCAL:
        run_local ();
        break;
      case BACKEND_EXEC:
        run_exec ();
        break;
      case BACKEND_REPLAY:
        run_replay ();
        break;
      default:
        abort ();
      }
  show_progress (true);
  if (nfailed)
    {
      dice_error ("%zu of %zu sample%s failed (see sample.error)", nfailed,
                  nslots, nslots == 1 ? "" : "s");
      exit_status = DICE_EXIT_INPUT;
    }
  if (resume.fd >= 0 && dice_resume_close (&resume) != 0)
    {
      dice_error_errno (errno, "cannot write to '%s'", s.resume);
      return DICE_EXIT_TROUBLE;
    }
  return exit_status;
}
