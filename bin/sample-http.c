/* sample-http.c: dice-sample's HTTP backend: requests to an
   OpenAI-compatible server through lib/http (-j at once, retried), their
   answers turned into samples.  */
#include "system.h"

#include "http.h"
#include "msg.h"
#include "progname.h"
#include "sample.h"
#include "xalloc.h"
struct http_job
{
  struct dice_http_request req;
  size_t first;                 /* its first slot */
  long count;                   /* slots first .. first + count - 1 */
  char *body;
};

/* The requests made so far; bodies exist only for those queued and not
   yet done, so memory stays bounded however many samples there are.  */
struct http_run
{
  struct sample_run *run;
  char *endpoint;
  struct dice_http *client;
  struct http_job *jobs;
  size_t njobs;
  size_t next_slot;             /* the first slot without a request */
  size_t pending;               /* queued or in flight */
};


/* The endpoint for base URL API: it may already name the endpoint, end
   in /v1, or be the server's root.  */
static char *
make_endpoint (const char *api, bool raw)
{
  const char *path = raw ? "/completions" : "/chat/completions";
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
request_body (const struct sample_settings *s, const char *prompt,
              long n, long long seed)
{
  json_t *body = json_object ();
  char *text;

  json_object_set_new (body, "model", json_string (s->model));
  if (s->raw)
    json_object_set_new (body, "prompt", json_string (prompt));
  else
    json_object_set_new (body, "messages",
                         json_pack ("[{s:s, s:s}]", "role", "user",
                                    "content", prompt));
  json_object_set_new (body, "n", json_integer (n));
  json_object_set_new (body, "max_tokens", json_integer (s->max_tokens));
  json_object_set_new (body, "temperature", json_real (s->temperature));
  json_object_set_new (body, "top_p", json_real (s->top_p));
  json_object_set_new (body, "top_k", json_integer (s->top_k));
  json_object_set_new (body, "seed", json_integer (seed));
  json_object_set_new (body, "stop", json_deep_copy (s->stops));
  json_object_set_new (body, "stream", json_false ());
  if (s->extra)
    {
      const char *key;
      json_t *value;

      /* A key given without a value is left out of the body.  */
      json_object_foreach (s->extra, key, value)
        if (value == s->omitted)
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
server_message (const struct sample_run *run,
                const struct dice_http_request *req)
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
    out = sample_one_line (run, msg, strlen (msg));
  else if (req->response && req->response_len)
    out = sample_one_line (run, req->response, req->response_len);
  else
    out = xstrdup ("(empty body)");
  json_decref (body);
  return out;
}

static void
fail_job (struct sample_run *run, struct http_job *job, const char *why)
{
  const struct sample_settings *s = run->s;
  for (long k = 0; k < job->count; k++)
    sample_complete (run, &run->slots[job->first + k], s->model, NULL, 0,
                     NULL, -1,
              job->req.ms, why);
}

/* Turn a 200 answer into the job's samples: one per choice, matched by
   choice index; a body that is not a completion fails them all.  */
static void
parse_answer (struct http_run *h, struct http_job *job)
{
  struct sample_run *run = h->run;
  const struct sample_settings *s = run->s;
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
    model = s->model;
  if (!json_is_object (body) || !json_is_array (choices))
    {
      char *shown = sample_one_line (run, job->req.response
                                     ? job->req.response : "",
                              job->req.response_len);

      if (json_is_object (body) && json_object_get (body, "error"))
        {
          char *msg = server_message (run, &job->req);

          snprintf (why, sizeof why, "error from %s: %s", h->endpoint, msg);
          free (msg);
        }
      else
        snprintf (why, sizeof why, "malformed answer from %s (%s): %.200s",
                  h->endpoint, body ? "no choices" : jerr.text, shown);
      free (shown);
      fail_job (run, job, why);
      json_decref (body);
      free (seen);
      return;
    }
  if (job->count == 1
      && json_is_integer (json_object_get (usage, "completion_tokens")))
    tokens = json_integer_value (json_object_get (usage, "completion_tokens"));
  json_array_foreach (choices, i, choice)
    {
      json_t *jindex = json_object_get (choice, "index");
      long k = json_is_integer (jindex) ? (long) json_integer_value (jindex)
        : (long) i;
      json_t *content = s->raw ? json_object_get (choice, "text")
        : json_object_get (json_object_get (choice, "message"), "content");
      const char *finish =
        json_string_value (json_object_get (choice, "finish_reason"));

      if (k < 0 || k >= job->count || seen[k])
        continue;
      seen[k] = true;
      if (json_is_string (content))
        sample_complete (run, &run->slots[job->first + k], model,
                         json_string_value (content),
                  json_string_length (content), finish, tokens, job->req.ms,
                  NULL);
      else
        sample_complete (run, &run->slots[job->first + k], model, NULL, 0,
                         NULL, -1,
                  job->req.ms, "the answer has no completion text");
    }
  for (long k = 0; k < job->count; k++)
    if (!seen[k])
      {
        snprintf (why, sizeof why, "the server answered %zu choices for n=%ld",
                  json_array_size (choices), job->count);
        sample_complete (run, &run->slots[job->first + k], model, NULL, 0,
                         NULL, -1,
                  job->req.ms, why);
      }
  free (seen);
  json_decref (body);
}


/* Queue requests until twice -j are pending or every slot has one.  */
static void
queue_more (struct http_run *h)
{
  struct sample_run *run = h->run;
  const struct sample_settings *s = run->s;

  while (h->next_slot < run->nslots && h->pending < 2 * (size_t) s->jobs)
    {
      size_t i = h->next_slot, j = i + 1;
      struct http_job *job = &h->jobs[h->njobs++];

      /* --batch-n: consecutive samples of one prompt in one request.  */
      while (s->batch_n && j < run->nslots
             && run->slots[j].input == run->slots[i].input
             && run->slots[j].index == run->slots[j - 1].index + 1)
        j++;
      memset (job, 0, sizeof *job);
      job->first = i;
      job->count = j - i;
      job->body = request_body (s, sample_prompt_text
                                (run->inputs[run->slots[i].input].rec),
                                job->count, s->seed + run->slots[i].index);
      job->req.url = h->endpoint;
      job->req.body = job->body;
      job->req.body_len = strlen (job->body);
      job->req.data = job;
      if (dice_http_add (h->client, &job->req) != 0)
        dice_die_memory ();
      h->pending++;
      h->next_slot = j;
    }
}

static int
http_done (struct dice_http_request *req, void *ctx)
{
  struct http_run *h = ctx;
  struct sample_run *run = h->run;
  const struct sample_settings *s = run->s;
  struct http_job *job = req->data;
  char why[1024];

  if (req->status == 200)
    parse_answer (h, job);
  else if (req->status == 0)
    {
      if (req->curl_code == 28)   /* CURLE_OPERATION_TIMEDOUT */
        snprintf (why, sizeof why, "no answer from %s within %g s (%d "
                  "attempt%s)", h->endpoint, s->timeout, req->attempts,
                  req->attempts == 1 ? "" : "s");
      else
        snprintf (why, sizeof why, "no answer from %s: %s (%d attempt%s)",
                  h->endpoint, req->error, req->attempts,
                  req->attempts == 1 ? "" : "s");
      fail_job (run, job, why);
    }
  else
    {
      char *msg = server_message (run, req);

      if (req->status == 401 || req->status == 403)
        {
          dice_error ("HTTP %ld from %s: the server refused the key (set "
                      "DICE_API_KEY or OPENAI_API_KEY): %s", req->status,
                      h->endpoint, msg);
          free (msg);
          return 1;
        }
      if (req->status == 404)
        {
          dice_error ("HTTP 404 from %s: no model '%s' there, or a wrong URL "
                      "(check --model and --api): %s", h->endpoint, s->model,
                      msg);
          free (msg);
          return 1;
        }
      snprintf (why, sizeof why, "HTTP %ld from %s for model '%s'%s: %s",
                req->status, h->endpoint, s->model,
                dice_http_retryable (req->status, 0) ? " (out of retries)"
                : "", msg);
      free (msg);
      fail_job (run, job, why);
    }
  dice_http_request_clear (req);
  free (job->body);
  job->body = NULL;
  h->pending--;
  queue_more (h);
  return 0;
}

static void
http_retry_notice (const struct dice_http_request *req, double delay,
                   void *ctx)
{
  const struct http_run *h = ctx;
  const struct sample_run *run = h->run;
  const struct sample_settings *s = run->s;

  if (s->quiet)
    return;
  if (req->status)
    fprintf (stderr, "%s%s: HTTP %ld from %s; retry in %.1f s\n",
             dice_progress_clear (&run->progress), dice_program_name,
             req->status,
             h->endpoint, delay);
  else
    fprintf (stderr, "%s%s: %s (%s); retry in %.1f s\n",
             dice_progress_clear (&run->progress), dice_program_name,
             h->endpoint,
             req->error,
             delay);
}

void
sample_http (struct sample_run *run)
{
  const struct sample_settings *s = run->s;
  struct dice_http_options o = {
    .jobs = (int) s->jobs, .retries = (int) s->retries, .timeout = s->timeout,
    .connect_timeout = s->timeout < 30 ? s->timeout : 30,
    .backoff = s->retry_wait, .backoff_max = s->retry_max_wait,
    .bearer = s->key, .user_agent = PACKAGE_NAME "-sample/" PACKAGE_VERSION,
    .on_retry = http_retry_notice
  };
  struct http_run hr = { .run = run, .client = dice_http_new (&o) };
  struct http_run *h = &hr;
  char err[512];
  int rc;

  if (h->client == NULL)
    dice_die_memory ();
  h->endpoint = make_endpoint (s->api, s->raw);
  h->jobs = xrealloc (NULL, (run->nslots ? run->nslots : 1) * sizeof *h->jobs);
  queue_more (h);
  rc = dice_http_run (h->client, http_done, h, err, sizeof err);
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
  free (h->jobs);
  dice_http_free (h->client);
  free (h->endpoint);
}