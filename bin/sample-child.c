/* sample-child.c: dice-sample's child-process backends: --exec (a
   command per sample, -j at once) and --local (one bundled sampler process
   for the whole run), each child with a scrubbed environment, in its own
   process group, under --timeout.  */
#include "system.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "datadir.h"
#include "jsonl.h"
#include "msg.h"
#include "proc.h"
#include "progname.h"
#include "record.h"
#include "sample.h"
#include "secrets.h"
#include "xalloc.h"

/* The environment of a child: ours without anything that may hold a
   secret (lib/secrets.h's one rule), plus ADD.  */
static char **
child_env (const char *const *add)
{
  char **env = dice_proc_env (dice_secret_name, add);

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
exec_start (struct sample_run *run, struct exec_run *x, struct slot *sl)
{
  const struct sample_settings *s = run->s;
  const char *prompt = sample_prompt_text (run->inputs[sl->input].rec);
  const char *id = dice_record_id (run->inputs[sl->input].rec);
  char index_var[64], seed_var[64], *argv[4];
  const char *add[4];

  snprintf (index_var, sizeof index_var, "DICE_SAMPLE_INDEX=%ld", sl->index);
  snprintf (seed_var, sizeof seed_var, "DICE_SAMPLE_SEED=%lld",
            s->seed + sl->index);
  x->id_var = xrealloc (NULL, strlen (id ? id : "") + 16);
  sprintf (x->id_var, "DICE_SAMPLE_ID=%s", id ? id : "");
  add[0] = index_var;
  add[1] = seed_var;
  add[2] = x->id_var;
  add[3] = NULL;
  x->env = child_env (add);
  argv[0] = (char *) "/bin/sh";
  argv[1] = (char *) "-c";
  argv[2] = (char *) s->exec_cmd;
  argv[3] = NULL;
  if (dice_proc_task_start (&x->task, argv, x->env, prompt, strlen (prompt),
                            s->timeout) != 0)
    {
      dice_error_errno (errno, "cannot run '%s'", s->exec_cmd);
      exit (DICE_EXIT_TROUBLE);
    }
  x->sl = sl;
  x->busy = true;
}

/* The last line of a command's stderr, which says most: a new string.  */
static char *
last_line (const struct sample_run *run, char *text, size_t len)
{
  char *start;

  while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
    len--;
  text[len] = '\0';
  start = strrchr (text, '\n');
  start = start ? start + 1 : text;
  return sample_one_line (run, start, strlen (start));
}

static void
exec_finish (struct sample_run *run, struct exec_run *x)
{
  const struct sample_settings *s = run->s;
  struct dice_proc_result *r = &x->task.r;
  char why[1024], status[128];

  if (r->timed_out)
    {
      snprintf (why, sizeof why, "the command timed out after %g s",
                s->timeout);
      sample_complete (run, x->sl, s->model, NULL, 0, NULL, -1, r->ms, why);
    }
  else if (!WIFEXITED (r->status) || WEXITSTATUS (r->status) != 0)
    {
      char *tail = last_line (run, r->err, r->err_len);

      snprintf (why, sizeof why, "the command failed (%s)%s%s",
                dice_proc_status_string (r->status, status, sizeof status),
                *tail ? ": " : "", tail);
      free (tail);
      sample_complete (run, x->sl, s->model, NULL, 0, NULL, -1, r->ms, why);
    }
  else
    sample_complete (run, x->sl, s->model, r->out, r->out_len, "stop", -1,
                     r->ms, NULL);
  dice_proc_result_free (r);
  dice_proc_env_free (x->env);
  free (x->id_var);
  x->busy = false;
}

/* --exec: up to -j commands at once (one unless -j is given), fed and
   read through one poll.  */
void
sample_exec (struct sample_run *run)
{
  const struct sample_settings *s = run->s;
  long width = s->jobs_given ? s->jobs : 1;
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
  while (next < run->nslots || busy > 0)
    {
      int nfds = 0;
      double wait = -1;

      for (long i = 0; i < width && next < run->nslots; i++)
        if (!runs[i].busy)
          {
            exec_start (run, &runs[i], &run->slots[next++]);
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
                exec_finish (run, &runs[i]);
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
local_spawn (const struct sample_run *run, struct local *L)
{
  const struct sample_settings *s = run->s;
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
  argv[4] = (char *) s->local;
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
local_jobs (const struct sample_run *run, struct local *L, size_t *len)
{
  const struct sample_settings *s = run->s;
  char *text = NULL;
  FILE *mem = open_memstream (&text, len);

  if (mem == NULL)
    dice_die_memory ();
  L->jobs = xrealloc (NULL, (run->nslots ? run->nslots : 1) * sizeof *L->jobs);
  for (size_t i = 0; i < run->nslots;)
    {
      size_t j = i + 1;
      json_t *job;

      while (j < run->nslots && run->slots[j].input == run->slots[i].input
             && run->slots[j].index == run->slots[j - 1].index + 1)
        j++;
      L->jobs[L->njobs] = (struct local_job) { i, (long) (j - i) };
      job = json_pack ("{s:I, s:s, s:b, s:I, s:I, s:I, s:f, s:f, s:I, s:I, "
                       "s:I, s:s, s:f, s:o}",
                       "job", (json_int_t) L->njobs,
                       "prompt",
                       sample_prompt_text (run->inputs[run->slots[i]
                                                       .input].rec),
                       "raw", s->raw, "n", (json_int_t) (j - i),
                       "seed", (json_int_t) (s->seed + run->slots[i].index),
                       "max_tokens", (json_int_t) s->max_tokens,
                       "temperature", s->temperature, "top_p", s->top_p,
                       "top_k", (json_int_t) s->top_k,
                       "block_length", (json_int_t) s->block_length,
                       "steps", (json_int_t) (s->steps ? s->steps
                                              : s->block_length),
                       "unmasking", s->unmasking, "threshold", s->threshold,
                       "stop", json_deep_copy (s->stops));
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
local_ready_line (const struct sample_run *run, struct local *L,
                  json_t *msg, const char *line)
{
  const struct sample_settings *s = run->s;
  const char *name = json_string_value (json_object_get (msg, "model"));
  const char *device = json_string_value (json_object_get (msg, "device"));
  const char *error = json_string_value (json_object_get (msg, "error"));
  char *shown;

  if (json_is_object (msg) && json_is_true (json_object_get (msg, "ready")))
    {
      L->ready = true;
      snprintf (L->model, sizeof L->model, "%s", name ? name : s->local);
      if (!s->quiet)
        fprintf (stderr, "%s: %s ready on %s after %.1f s\n",
                 dice_program_name, L->model, device ? device : "?",
                 dice_now () - L->start);
      return true;
    }
  shown = sample_one_line (run, error ? error : line,
                           strlen (error ? error : line));
  dice_error ("the local sampler could not load '%s': %s", s->local, shown);
  free (shown);
  return false;
}

/* A sample line, for the slot its job and index name.  */
static void
local_sample_line (struct sample_run *run, struct local *L, json_t *msg,
                   const char *line)
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
    sl = &run->slots[L->jobs[json_integer_value (job)].first
                + json_integer_value (index)];
  if (sl == NULL || sl->done)
    {
      char *shown = sample_one_line (run, line, strlen (line));

      dice_error ("the local sampler sent an unexpected line: %s", shown);
      free (shown);
    }
  else if (json_is_string (text))
    sample_complete (run, sl, L->model, json_string_value (text),
              json_string_length (text),
              json_string_value (json_object_get (msg, "finish")),
              json_is_integer (tokens) ? json_integer_value (tokens) : -1,
              ms, NULL);
  else
    sample_complete (run, sl, L->model, NULL, 0, NULL, -1, ms,
              error ? error : "the local sampler sent no text");
}

/* --local: one sampler for the whole run, fed every job while its
   answers are read, through one poll.  */
void
sample_local (struct sample_run *run)
{
  const struct sample_settings *s = run->s;
  struct local L = { 0 };
  struct line_reader lr = { 0 };
  size_t out_len, out_off = 0;
  char *out, *line;
  bool hung = false;
  /* Loading may take long; once loaded, a sampler that says nothing for
     --timeout seconds is taken for hung.  */
  int quiet_ms = s->timeout * 1000 < INT_MAX ? (int) (s->timeout * 1000)
    : INT_MAX;

  local_spawn (run, &L);
  out = local_jobs (run, &L, &out_len);
  while (!lr.eof && run->ndone < run->nslots)
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
            local_sample_line (run, &L, msg, line);
          else
            failed = !local_ready_line (run, &L, msg, line);
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
  if (run->ndone < run->nslots)
    {
      int status = dice_proc_kill (&L.p);
      char how[128], why[256];

      if (hung)
        snprintf (why, sizeof why, "the local sampler sent nothing for %g s "
                  "and was killed", s->timeout);
      else
        snprintf (why, sizeof why, "the local sampler ended early (%s)",
                  dice_proc_status_string (status, how, sizeof how));
      for (size_t i = 0; i < run->nslots; i++)
        if (!run->slots[i].done)
          sample_complete (run, &run->slots[i], L.model, NULL, 0, NULL, -1,
                           0, why);
    }
  else
    dice_proc_wait (&L.p);
  free (lr.buf);
  free (out);
  free (L.jobs);
}