/* dice-sample: n sampled completions for each prompt record, from an
   OpenAI-compatible server, the bundled block-diffusion sampler, a
   command, or saved runs; one output record per sample, with the
   candidate module extracted.  This file holds the options and main; the
   run (records in and out) and the backends have files of their own
   (sample.h).  */
#include "system.h"

#include <unistd.h>

#include "cli.h"
#include "closeout.h"
#include "msg.h"
#include "options.h"
#include "proc.h"
#include "progname.h"
#include "record.h"
#include "sample.h"
#include "secrets.h"
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
  OPT_INDEX_OFFSET,
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
  {"index-offset", required_argument, NULL, OPT_INDEX_OFFSET},
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
  {"progress", optional_argument, NULL, OPT_PROGRESS},
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
      --index-offset=K   number the samples K to K+N-1, not 0 to N-1, so\n\
                           that runs on several nodes never collide\n\
                           (default 0)\n\
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
                           already has, asked with the same prompt, and\n\
                           append the new records to FILE instead of\n\
                           writing them to standard output; FILE must have\n\
                           been made with the same settings\n\
      --unordered        write each record as soon as it is done\n\
      --progress[=WHEN]  show progress on standard error: auto (a status\n\
                           line when it is a terminal; the default),\n\
                           always (plain lines in a log), never\n\
  -q, --quiet            no progress and no retry notices\n",
          dice_program_name);
  dice_print_shard_help ();
  dice_print_common_help (true);
  fputs ("\n\
Environment: DICE_API_BASE, DICE_API_KEY or OPENAI_API_KEY (sent as a\n\
bearer token, never shown), DICE_PYTHON and DICE_DATADIR (--local).\n\
A sample that could not be had gets sample.error and exit status 1.\n",
         stdout);
  dice_print_help_tail ();
}


/* ---- Options ----  */

static void
add_extra (struct sample_settings *s, const char *arg)
{
  const char *eq = strchr (arg, '=');
  json_t *value;
  char *key;

  if (s->extra == NULL)
    s->extra = json_object ();
  if (eq == NULL && *arg)
    {
      json_object_set (s->extra, arg, s->omitted);
      return;
    }
  if (eq == NULL || eq == arg)
    dice_die_usage ("invalid --option '%s' (KEY=VALUE or KEY)", arg);
  value = json_loads (eq + 1, JSON_DECODE_ANY, NULL);
  if (value == NULL)
    value = json_string (eq + 1);
  if (value == NULL)
    dice_die (DICE_EXIT_TROUBLE, "invalid --option '%s': not UTF-8", arg);
  key = xrealloc (NULL, eq - arg + 1);
  memcpy (key, arg, eq - arg);
  key[eq - arg] = '\0';
  json_object_set_new (s->extra, key, value);
  free (key);
}

static void
choose_backend (struct sample_settings *s, enum backend b)
{
  if (s->backend != BACKEND_NONE && s->backend != b)
    dice_die_usage ("--api, --local, --exec and --replay exclude each other");
  s->backend = b;
}

/* Read the command line into S; returns optind, or exits for --help,
   --version and usage errors.  */
static int
parse_options (struct sample_settings *s, int argc, char **argv)
{
  int c;

  while ((c = getopt_long (argc, argv, "n:j:o:q", long_options, NULL)) != -1)
    switch (c)
      {
      case OPT_API:             /* --api */
        choose_backend (s, BACKEND_HTTP);
        s->api = optarg;
        break;
      case OPT_MODEL:           /* --model */
        s->model = optarg;
        break;
      case OPT_RAW:             /* --raw */
        s->raw = true;
        break;
      case 'n':
        s->samples = dice_option_long ("samples", optarg, 1, 1000000);
        s->samples_given = true;
        break;
      case OPT_BATCH_N:         /* --batch-n */
        s->batch_n = true;
        break;
      case 'j':
        s->jobs = dice_option_long ("jobs", optarg, 1, 4096);
        s->jobs_given = true;
        break;
      case OPT_MAX_TOKENS:      /* --max-tokens */
        s->max_tokens = dice_option_long ("max-tokens", optarg, 1, LONG_MAX);
        break;
      case OPT_TEMPERATURE:     /* --temperature */
        s->temperature = dice_option_double ("temperature", optarg, 0, 100,
                                             false);
        break;
      case OPT_TOP_P:           /* --top-p */
        s->top_p = dice_option_double ("top-p", optarg, 0, 1, false);
        break;
      case OPT_TOP_K:           /* --top-k */
        s->top_k = dice_option_long ("top-k", optarg, -1, LONG_MAX);
        break;
      case OPT_INDEX_OFFSET:    /* --index-offset */
        s->index_offset = dice_option_long ("index-offset", optarg, 0,
                                            DICE_SAMPLE_INDEX_MAX);
        break;
      case OPT_SEED:            /* --seed */
        s->seed = dice_option_long ("seed", optarg, 0, LONG_MAX / 2);
        break;
      case OPT_STOP:            /* --stop */
        if (json_array_append_new (s->stops, json_string (optarg)) != 0)
          dice_die (DICE_EXIT_TROUBLE, "invalid --stop '%s': not UTF-8",
                    optarg);
        break;
      case 'o':
        add_extra (s, optarg);
        break;
      case OPT_TIMEOUT:         /* --timeout */
        s->timeout = dice_option_double ("timeout", optarg, 0.001, 1e7,
                                         false);
        break;
      case OPT_RETRIES:         /* --retries */
        s->retries = dice_option_long ("retries", optarg, 0, 1000);
        break;
      case OPT_RETRY_WAIT:      /* --retry-wait */
        s->retry_wait = dice_option_double ("retry-wait", optarg, 0, 1e6,
                                            false);
        break;
      case OPT_RETRY_MAX_WAIT:  /* --retry-max-wait */
        s->retry_max_wait = dice_option_double ("retry-max-wait", optarg, 0,
                                                1e6, false);
        break;
      case OPT_LOCAL:           /* --local */
        choose_backend (s, BACKEND_LOCAL);
        s->local = optarg;
        break;
      case OPT_BLOCK_LENGTH:    /* --block-length */
        s->block_length = dice_option_long ("block-length", optarg, 1, 4096);
        break;
      case OPT_STEPS:           /* --steps */
        s->steps = dice_option_long ("steps", optarg, 1, 4096);
        break;
      case OPT_UNMASKING:       /* --unmasking */
        if (strcmp (optarg, "static") && strcmp (optarg, "dynamic"))
          dice_die_usage ("invalid --unmasking '%s' (static or dynamic)",
                          optarg);
        s->unmasking = optarg;
        break;
      case OPT_THRESHOLD:       /* --threshold */
        s->threshold = dice_option_double ("threshold", optarg, 0, 1, false);
        break;
      case OPT_EXEC:            /* --exec */
        choose_backend (s, BACKEND_EXEC);
        s->exec_cmd = optarg;
        break;
      case OPT_REPLAY:          /* --replay */
        choose_backend (s, BACKEND_REPLAY);
        s->replay = optarg;
        break;
      case OPT_RESUME:          /* --resume */
        s->resume = optarg;
        break;
      case OPT_UNORDERED:       /* --unordered */
        s->unordered = true;
        break;
      case OPT_PROGRESS:        /* --progress */
        if (!dice_progress_parse (optarg, &s->progress))
          dice_die_usage ("invalid --progress '%s' (auto, always or never)",
                          optarg);
        break;
      case 'q':
        s->quiet = true;
        break;
      default:
        dice_cli_common_option (c, usage);
      }
  if (s->quiet)
    s->progress = DICE_PROGRESS_NEVER;
  return optind;
}

/* The backend from the options or DICE_API_BASE, and what it needs from
   the environment; a usage error when something is missing.  */
static void
settle_backend (struct sample_settings *s)
{
  const char *env_api = getenv ("DICE_API_BASE");

  if (s->backend == BACKEND_NONE && env_api && *env_api)
    {
      s->backend = BACKEND_HTTP;
      s->api = env_api;
    }
  if (s->backend == BACKEND_NONE)
    dice_die_usage ("no backend: give --api (or set DICE_API_BASE), --local, "
                    "--exec or --replay");
  if (s->backend != BACKEND_HTTP)
    return;
  if (*s->api == '\0')
    dice_die_usage ("--api needs a URL");
  if (s->model == NULL)
    dice_die_usage ("--api needs --model NAME (the name the server serves "
                    "the model under)");
  s->key = getenv ("DICE_API_KEY");
  if (s->key == NULL || *s->key == '\0')
    s->key = getenv ("OPENAI_API_KEY");
  if (s->key && *s->key == '\0')
    s->key = NULL;
}

/* ---- Resume ----  */

extern char **environ;

/* TEXT with the values of the environment's secrets (lib/secrets.h)
   redacted, as a JSON string: settings go into every record, and a
   command or a request option may carry a key.  */
static json_t *
redacted_string (const char *text)
{
  const char **secrets = NULL;
  size_t nsecrets = 0;
  char *clean;
  json_t *value;

  for (char **env = environ; *env; env++)
    {
      const char *eq = strchr (*env, '=');
      char *name;

      if (eq == NULL)
        continue;
      name = xstrdup (*env);
      name[eq - *env] = '\0';
      if (dice_secret_name (name))
        {
          secrets = xrealloc (secrets, (nsecrets + 1) * sizeof *secrets);
          secrets[nsecrets++] = eq + 1;
        }
      free (name);
    }
  clean = dice_redact (text, strlen (text), secrets, nsecrets, NULL);
  value = clean ? json_string (clean) : NULL;
  free (clean);
  free (secrets);
  return value;
}

/* VALUE (an -o value) with secrets redacted from its strings: a new
   reference.  */
static json_t *
redacted_value (json_t *value)
{
  json_t *copy;
  const char *key;
  json_t *v;
  size_t i;

  if (json_is_string (value))
    return redacted_string (json_string_value (value));
  copy = json_is_object (value) ? json_object ()
    : json_is_array (value) ? json_array () : json_deep_copy (value);
  if (json_is_object (value))
    json_object_foreach (value, key, v)
      json_object_set_new (copy, key, redacted_value (v));
  else if (json_is_array (value))
    json_array_foreach (value, i, v)
      json_array_append_new (copy, redacted_value (v));
  return copy;
}

static json_t *
backend_setting (const void *base)
{
  const struct sample_settings *s = base;

  return json_string (sample_backend_name (s->backend));
}

static json_t *
exec_setting (const void *base)
{
  const struct sample_settings *s = base;

  return redacted_string (s->exec_cmd);
}

static json_t *
steps_setting (const void *base)
{
  const struct sample_settings *s = base;

  return json_integer (s->steps ? s->steps : s->block_length);
}

static json_t *
stop_setting (const void *base)
{
  const struct sample_settings *s = base;

  return json_deep_copy (s->stops);
}

/* The -o KEY=VALUE pairs, keys sorted when written.  */
static json_t *
option_setting (const void *base)
{
  const struct sample_settings *s = base;
  json_t *options = json_object (), *value;
  const char *key;

  json_object_foreach (s->extra, key, value)
    if (value != s->omitted)
      json_object_set_new (options, key, redacted_value (value));
  return options;
}

static int
compare_strings (const void *a, const void *b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The keys -o KEY leaves out, sorted.  */
static json_t *
omit_setting (const void *base)
{
  const struct sample_settings *s = base;
  const char **keys = NULL;
  json_t *omit = json_array (), *value;
  const char *key;
  size_t n = 0;

  json_object_foreach (s->extra, key, value)
    if (value == s->omitted)
      {
        keys = xrealloc (keys, (n + 1) * sizeof *keys);
        keys[n++] = key;
      }
  if (n)
    qsort (keys, n, sizeof *keys, compare_strings);
  for (size_t i = 0; i < n; i++)
    json_array_append_new (omit, json_string (keys[i]));
  free (keys);
  return omit;
}

/* What a sample is made from, for --resume (lib/resume.h): the prompt
   record's fields its input hash covers, and, per backend, the settings
   that change what is asked of the model.  dice-sample(1) lists the same
   under --resume.  Left out on purpose: --api (a batch job's server
   moves from node to node; --model names what answers), -n and
   --index-offset (which samples, not how: a larger -n adds samples), and
   how fast or how patiently samples are had (--jobs, --batch-n,
   --timeout, --retries, --retry-wait, --retry-max-wait).  */
static const char *const sample_inputs[] = { "prompt.text", NULL };

#define ON_HTTP (1u << BACKEND_HTTP)
#define ON_LOCAL (1u << BACKEND_LOCAL)
#define ON_EXEC (1u << BACKEND_EXEC)
#define ON_REPLAY (1u << BACKEND_REPLAY)
#define ON_MODELS (ON_HTTP | ON_LOCAL)
#define SETTING(name, backends, type, field) \
  DICE_SETTING (name, backends, type, struct sample_settings, field)

static const struct dice_setting resume_settings[] = {
  DICE_SETTING_FN ("backend", ON_MODELS | ON_EXEC | ON_REPLAY,
                   backend_setting),
  SETTING ("block_length", ON_LOCAL, LONG, block_length),
  DICE_SETTING_FN ("exec", ON_EXEC, exec_setting),
  SETTING ("local", ON_LOCAL, STRING, local),
  SETTING ("max_tokens", ON_MODELS, LONG, max_tokens),
  SETTING ("model", ON_HTTP, STRING, model),
  DICE_SETTING_FN ("omit", ON_HTTP, omit_setting),
  DICE_SETTING_FN ("option", ON_HTTP, option_setting),
  SETTING ("raw", ON_MODELS, BOOL, raw),
  SETTING ("replay", ON_REPLAY, STRING, replay),
  SETTING ("seed", ON_MODELS | ON_EXEC, LLONG, seed),
  DICE_SETTING_FN ("steps", ON_LOCAL, steps_setting),
  DICE_SETTING_FN ("stop", ON_MODELS, stop_setting),
  SETTING ("temperature", ON_MODELS, DOUBLE, temperature),
  SETTING ("threshold", ON_LOCAL, DOUBLE, threshold),
  SETTING ("top_k", ON_MODELS, LONG, top_k),
  SETTING ("top_p", ON_MODELS, DOUBLE, top_p),
  SETTING ("unmasking", ON_LOCAL, STRING, unmasking)
};

/* Open --resume FILE, or end the program (status 2).  */
static void
open_resume (struct sample_run *run)
{
  const struct sample_settings *s = run->s;
  json_t *settings = dice_resume_settings (resume_settings,
                                           DICE_ARRAY_SIZE (resume_settings),
                                           1u << s->backend, s);

  if (settings == NULL)
    dice_die_memory ();
  if (dice_resume_open (&run->resume, s->resume, "sample", sample_inputs,
                        settings) != 0)
    exit (DICE_EXIT_TROUBLE);
}

/* Read the inputs named on the command line and make their slots.  */
static void
plan_run (struct sample_run *run, int argc, char **argv, int first_arg)
{
  const struct sample_settings *s = run->s;

  if (first_arg == argc)
    sample_read_inputs (run, "-");
  for (int i = first_arg; i < argc; i++)
    sample_read_inputs (run, argv[i]);
  if (s->resume)
    open_resume (run);
  if (s->backend == BACKEND_REPLAY)
    sample_replay_load (run);
  for (size_t i = 0; i < run->ninputs; i++)
    if (s->backend == BACKEND_REPLAY)
      sample_replay_slots (run, i);
    else
      for (long k = 0; k < s->samples; k++)
        sample_add_slot (run, i, s->index_offset + k);
}

/* Free what RUN holds.  */
static void
cleanup (struct sample_run *run)
{
  const struct sample_settings *s = run->s;

  for (size_t i = 0; i < run->ninputs; i++)
    {
      json_decref (run->inputs[i].rec);
      free ((char *) run->inputs[i].file);
    }
  free (run->inputs);
  for (size_t i = 0; i < run->nslots; i++)
    {
      json_decref (run->slots[i].sample);
      json_decref (run->slots[i].code);
    }
  free (run->slots);
  json_decref (run->saved);
  json_decref (s->stops);
  json_decref (s->extra);
  json_decref (s->omitted);
}

int
main (int argc, char **argv)
{
  struct sample_settings s = {
    .samples = 1, .jobs = 16, .max_tokens = 4096, .temperature = 1.0,
    .top_p = 1.0, .timeout = 600, .retries = 5, .retry_wait = 1,
    .retry_max_wait = 60, .block_length = 4, .unmasking = "dynamic",
    .threshold = 0.9
  };
  struct sample_run run = {
    .s = &s, .resume = { .fd = -1 }, .exit_status = DICE_EXIT_OK
  };
  int first_arg;

  dice_set_program_name (argv[0]);
  atexit (dice_close_stdout);

  s.stops = json_array ();
  s.omitted = json_object ();
  first_arg = parse_options (&s, argc, argv);
  settle_backend (&s);
  plan_run (&run, argc, argv, first_arg);
  dice_progress_start (&run.progress, s.progress, (long long) run.nslots);

  dice_proc_kill_on_signals ();
  if (run.nslots > 0)
    switch (s.backend)
      {
      case BACKEND_HTTP:
        sample_http (&run);
        break;
      case BACKEND_LOCAL:
        sample_local (&run);
        break;
      case BACKEND_EXEC:
        sample_exec (&run);
        break;
      case BACKEND_REPLAY:
        sample_replay (&run);
        break;
      default:
        abort ();
      }
  dice_progress_finish (&run.progress, NULL);
  if (run.nfailed)
    {
      dice_error ("%zu of %zu sample%s failed (see sample.error)",
                  run.nfailed, run.nslots, run.nslots == 1 ? "" : "s");
      run.exit_status = DICE_EXIT_INPUT;
    }
  if (run.resume.fd >= 0 && dice_resume_close (&run.resume) != 0)
    {
      dice_error_errno (errno, "cannot write to '%s'", s.resume);
      run.exit_status = DICE_EXIT_TROUBLE;
    }
  cleanup (&run);
  return run.exit_status;
}
