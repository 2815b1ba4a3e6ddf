/* dice-time: time each correct, non-deceptive candidate against its
   reference, both in one fresh sandboxed process on the same device and
   inputs, called in turn, with the L2 cache flushed and the device
   synchronised around every call.  The program is shared with
   dice-compile and dice-check (bin/harness-tool.c); what dice-time
   decides is lib/harness-time.c.  */
#include "system.h"

#include <math.h>
#include <sys/wait.h>

#include "cli.h"
#include "datadir.h"
#include "harness-tool.h"
#include "msg.h"
#include "numarg.h"
#include "proc.h"
#include "reftimes.h"
#include "secrets.h"

#define DEFAULT_TRIALS 100
#define DEFAULT_WARMUP 10
#define DEFAULT_INPUT_SETS 3
#define DEFAULT_MAX_SPEEDUP 10.0
#define DEFAULT_MAX_SPREAD 0.1
#define MAX_RUNS 10

enum
{
  OPT_WARMUP = HARNESS_OPT_TOOL,
  OPT_INPUT_SETS,
  OPT_ALL,
  OPT_BASELINE,
  OPT_REF_TIMES,
  OPT_MAX_SPEEDUP,
  OPT_MAX_SPREAD,
  OPT_RUNS,
  OPT_REF_DEVICE,
  OPT_FORCE_REF_TIMES
};

static const struct option long_options[] = {
  HARNESS_LONG_OPTIONS,
  {"trials", required_argument, NULL, HARNESS_OPT_TRIALS},
  {"seed", required_argument, NULL, HARNESS_OPT_SEED},
  {"warmup", required_argument, NULL, OPT_WARMUP},
  {"input-sets", required_argument, NULL, OPT_INPUT_SETS},
  {"all", no_argument, NULL, OPT_ALL},
  {"baseline", required_argument, NULL, OPT_BASELINE},
  {"ref-times", required_argument, NULL, OPT_REF_TIMES},
  {"max-speedup", required_argument, NULL, OPT_MAX_SPEEDUP},
  {"max-spread", required_argument, NULL, OPT_MAX_SPREAD},
  {"runs", required_argument, NULL, OPT_RUNS},
  {"ref-device", required_argument, NULL, OPT_REF_DEVICE},
  {"force-ref-times", no_argument, NULL, OPT_FORCE_REF_TIMES},
  {"precision", required_argument, NULL, HARNESS_OPT_PRECISION},
  DICE_FILTER_LONG_OPTIONS,
  DICE_SHARD_LONG_OPTIONS,
  DICE_COMMON_LONG_OPTIONS,
  {NULL, 0, NULL, 0}
};

static void
defaults (struct dice_harness *h)
{
  const char *no_flush = getenv ("DICE_TIME_NO_FLUSH");

  h->trials = DEFAULT_TRIALS;
  h->warmup = DEFAULT_WARMUP;
  h->input_sets = DEFAULT_INPUT_SETS;
  h->baseline = "eager";
  h->max_speedup = DEFAULT_MAX_SPEEDUP;
  h->max_spread = DEFAULT_MAX_SPREAD;
  h->runs = 1;
  /* An environment variable, not an option: only for measuring what the
     flush changes.  */
  h->flush = !(no_flush && strcmp (no_flush, "1") == 0);
}

/* ARG, or a usage error when it is empty: OPTION takes WHAT.  */
static const char *
nonempty (const char *option, const char *arg, const char *what)
{
  char msg[512];

  if (*arg)
    return arg;
  dice_invalid_value (msg, sizeof msg, option, arg, what);
  dice_die_usage ("%s", msg);
}

static bool
option (struct dice_harness *h, int c, const char *arg)
{
  char msg[512];

  switch (c)
    {
    case OPT_WARMUP:            /* --warmup */
      h->warmup = dice_option_long ("warmup", arg, 0, 1000000);
      break;
    case OPT_INPUT_SETS:        /* --input-sets */
      h->input_sets = dice_option_long ("input-sets", arg, 1, 1000000);
      break;
    case OPT_ALL:               /* --all */
      h->time_all = true;
      break;
    case OPT_BASELINE:          /* --baseline */
      if (strcmp (arg, "eager") && strcmp (arg, "compile"))
        {
          dice_invalid_value (msg, sizeof msg, "baseline", arg,
                              "eager or compile");
          dice_die_usage ("%s", msg);
        }
      h->baseline = strcmp (arg, "eager") ? "compile" : "eager";
      break;
    case OPT_REF_TIMES:         /* --ref-times */
      h->ref_times_path = nonempty ("ref-times", arg, "a file");
      break;
    case OPT_REF_DEVICE:        /* --ref-device */
      h->ref_device = nonempty ("ref-device", arg, "a device name");
      break;
    case OPT_FORCE_REF_TIMES:   /* --force-ref-times */
      h->force_ref_times = true;
      break;
    case OPT_MAX_SPEEDUP:       /* --max-speedup */
      h->max_speedup = dice_option_double ("max-speedup", arg, 0, HUGE_VAL,
                                           true);
      break;
    case OPT_RUNS:              /* --runs */
      h->runs = dice_option_long ("runs", arg, 1, MAX_RUNS);
      break;
    case OPT_MAX_SPREAD:        /* --max-spread */
      h->max_spread = dice_option_double ("max-spread", arg, 0, HUGE_VAL,
                                          true);
      break;
    default:
      return false;
    }
  return true;
}

/* Whether the device DEVICE (a name as time.device spells it) is a CPU. */
static bool
cpu_device (const char *device)
{
  return strncasecmp (device, "cpu", 3) == 0;
}

/* Reference times taken on a CPU make every GPU kernel look fast, and a
   GPU's make every CPU candidate look slow: the speedups would measure
   the devices, not the candidates.  Refuse reference times measured on
   REF_DEVICE (NULL: not said) when it is of another kind than the device
   of this run, unless --force-ref-times.  */
static int
check_ref_device (const struct dice_harness *h, const char *ref_device,
                  char *err, size_t errlen)
{
  bool here_cpu = strcmp (h->device, "cpu") == 0;

  if (h->force_ref_times || ref_device == NULL
      || cpu_device (ref_device) == here_cpu)
    return 0;
  snprintf (err, errlen, "the reference times in '%s' were measured on %s, "
            "but this run times on %s: use --force-ref-times to use them "
            "anyway, or --ref-device to say where they were measured",
            h->ref_times_path, ref_device, here_cpu ? "the CPU" : "a GPU");
  return -1;
}

/* Asks the interpreter whether its torch can compile: prints why not and
   exits 1 when it cannot.  torch.compile came in torch 2.0; where it is,
   dynamo may still refuse this Python (torch 2.0 on Python 3.12).  */
static const char compile_probe[] = "\
import sys\n\
try:\n\
    import torch\n\
except Exception as e:\n\
    print('cannot import torch: %s' % e); sys.exit(1)\n\
if not hasattr(torch, 'compile'):\n\
    print('torch %s has no torch.compile (it came in torch 2.0)'\n\
          % torch.__version__); sys.exit(1)\n\
try:\n\
    from torch._dynamo.eval_frame import check_if_dynamo_supported\n\
except Exception:\n\
    check_if_dynamo_supported = lambda: None\n\
try:\n\
    check_if_dynamo_supported()\n\
except Exception as e:\n\
    print('torch %s cannot compile here: %s' % (torch.__version__, e))\n\
    sys.exit(1)\n";

/* --baseline compile on a torch that cannot compile would make every
   candidate's timing fail: one error before any candidate runs.  */
static int
check_compile_baseline (char *err, size_t errlen)
{
  char *argv[] = { (char *) dice_python (), "-c", (char *) compile_probe,
                   NULL };
  char **env = dice_proc_env (dice_secret_name, NULL);
  struct dice_proc_result r;
  int status = 0;

  if (env == NULL)
    {
      snprintf (err, errlen, "memory exhausted");
      return -1;
    }
  if (dice_proc_run (argv, env, "", 0, 300, &r) != 0)
    {
      snprintf (err, errlen, "--baseline compile: cannot run '%s': %s",
                dice_python (), strerror (errno));
      dice_proc_env_free (env);
      return -1;
    }
  dice_proc_env_free (env);
  if (r.timed_out || !WIFEXITED (r.status) || WEXITSTATUS (r.status) != 0)
    {
      char *why = r.out && *r.out ? r.out
        : r.err && *r.err ? r.err : "the interpreter failed";

      size_t n;

      dice_one_line (why, 300);
      n = strlen (why);
      while (n > 0 && why[n - 1] == ' ')
        why[--n] = '\0';
      snprintf (err, errlen, "--baseline compile needs torch.compile: %s",
                r.timed_out ? "asking torch timed out" : why);
      status = -1;
    }
  dice_proc_result_free (&r);
  return status;
}

/* Load --ref-times, which makes the baseline "file"; or, for --baseline
   compile, make sure torch can compile.  Returns 0, or -1 with ERR.  */
static int
finish (struct dice_harness *h, char *err, size_t errlen)
{
  struct dice_strmap *times;
  char *file_device;
  int status;

  if (h->ref_times_path == NULL)
    return strcmp (h->baseline, "compile") == 0
      ? check_compile_baseline (err, errlen) : 0;
  status = dice_reftimes_load (h->ref_times_path, &times, &file_device, err,
                               errlen);
  h->ref_times = times;
  h->baseline = "file";
  if (status == 0)
    status = check_ref_device (h, h->ref_device ? h->ref_device : file_device,
                               err, errlen);
  free (file_device);
  return status;
}

static const char help[] = "\
\n\
Timing:\n\
      --trials=N         timed calls of each side (default 100)\n\
      --warmup=N         untimed calls of each side first (default 10)\n\
      --input-sets=N     accepted for old scripts; changes nothing (every\n\
                           call gets inputs of its own)\n\
      --seed=N           weights use seed N, call I's inputs seed N+1+I\n\
                           (default 42, as dice-check)\n\
      --all              also time candidates that are not correct or are\n\
                           deceptive\n\
      --baseline=NAME    eager (the reference as written) or compile\n\
                           (torch.compile of it; torch >= 2.0); default eager\n\
      --ref-times=FILE   take the reference's times from FILE (KernelBench's\n\
                           baseline JSON, or dice-time output) instead of\n\
                           timing it\n\
      --ref-device=NAME  the device FILE's times were measured on (default:\n\
                           time.device of its records; a GPU for\n\
                           KernelBench's JSON)\n\
      --force-ref-times  use FILE's times even when they were measured on\n\
                           another kind of device (CPU or GPU) than this run\n\
      --max-speedup=X    flag speedups above X (default 10), and time such\n\
                           a candidate again in a fresh process before\n\
                           its speedup counts\n\
      --runs=N           time each candidate in N fresh processes (1 to\n\
                           10, default 1); the worst speedup is the\n\
                           confirmed one\n\
      --max-spread=X     flag a side whose IQR exceeds X times its median\n\
                           (default 0.1)\n\
      --precision=P      fp32, fp16 or bf16: inputs and weights cast to P\n\
                           (default: the record's prompt.precision, else\n\
                           fp32)\n\
";

/* What a record's provenance covers (lib/resume.h).  */
static const char *const resume_inputs[] = {
  "code", "ref", "prompt.precision", "check.correct",
  "check.deception.deceptive", NULL
};

static const char intro[] = "\
Time each checked candidate record (JSON lines with 'ref', 'code' and\n\
'check') read from FILEs (standard input by default) against its\n\
reference, and add 'time': medians and spread of both sides, the speedup\n\
(reference median / candidate median), flags, and where it ran.  Records\n\
not timed get time.skipped saying why.  See dice-time(1).";

static const struct harness_tool tool = {
  .mode = &dice_harness_time, .intro = intro, .help = help,
  .long_options = long_options, .defaults = defaults, .option = option,
  .finish = finish, .resume_inputs = resume_inputs,
  .resume_settings = HARNESS_IN_TIME
};

int
main (int argc, char **argv)
{
  return harness_tool_main (&tool, argc, argv);
}
