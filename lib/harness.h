/* harness.h: the C side of the harness protocol of dice(7).  One record
   becomes one job for the Python harness (share/dice/python/dice_harness),
   run in the sandbox; its result, or the way the run ended, becomes the
   record's "compile" (dice-compile) or "check" (dice-check) object.  The
   options that dice-compile and dice-check share live here too.  */
#ifndef DICE_HARNESS_H
#define DICE_HARNESS_H

#include "system.h"

#include <getopt.h>
#include <jansson.h>

#include "options.h"

enum dice_harness_mode
{
  DICE_HARNESS_COMPILE,
  DICE_HARNESS_CHECK,
  DICE_HARNESS_TIME             /* dice-time: lib/harness-time.c */
};

struct dice_harness
{
  enum dice_harness_mode mode;
  const char *device;           /* "auto" until resolved: "cpu" or "cuda" */
  double timeout;               /* seconds, build and run together */
  long trials;
  long long seed;
  const char *tolerance;        /* "dice", "kernelbench" or "custom" */
  const char *precision;        /* fp32, fp16 or bf16; NULL: each record's
                                   prompt.precision, else fp32 */
  double atol, rtol;
  bool atol_set, rtol_set;
  char *cache;                  /* the build cache, an absolute path */
  const char *arch;             /* the target architecture, or NULL */
  long long memory;             /* address-space limit (bytes) for --device
                                   cpu; 0 none; -1 the default */
  bool keep_temp;
  bool isolate;                 /* namespaces, unless DICE_SANDBOX=none */
  long build_jobs;              /* MAX_JOBS for builds; 0: leave it */
  char *datadir;                /* the data directory, made absolute (the
                                   harness runs in another directory) */

  /* Scheduling, passed to scheduler.h.  */
  long jobs;                    /* 0: one per GPU, else 1 */
  char *gpus;                   /* --gpus LIST, or NULL: all found */
  bool unordered;
  int progress;                 /* an enum dice_progress_when */
  const char *resume;           /* --resume FILE, or NULL */

  /* dice-time.  */
  long warmup;                  /* untimed calls of each side first */
  long input_sets;              /* input sets the calls rotate through */
  bool time_all;                /* --all: time what check did not pass */
  const char *baseline;         /* "eager", "compile", or "file" */
  double max_speedup, max_spread;
  long runs;                    /* --runs: fresh-process timings of each */
  const char *ref_times_path;   /* --ref-times FILE, or NULL */
  void *ref_times;              /* struct dice_strmap of id -> stats */
  const char *ref_device;       /* --ref-device NAME, or NULL */
  bool force_ref_times;         /* --force-ref-times */

  /* Deception (dice-check).  */
  bool no_robust;               /* --no-robust: flags, but no verdict */
  char **decoys;                /* the one-shot example's kernel names */
};

/* Codes of the shared long-only options.  */
enum
{
  DICE_OPT_GPUS = DICE_OPT_TOOL,
  DICE_OPT_DEVICE,
  DICE_OPT_TIMEOUT,
  DICE_OPT_CACHE,
  DICE_OPT_ARCH,
  DICE_OPT_MEMORY,
  DICE_OPT_KEEP_TEMP,
  DICE_OPT_UNORDERED,
  DICE_OPT_PROGRESS,
  DICE_OPT_RESUME,
  DICE_OPT_TRIALS,
  DICE_OPT_SEED,
  DICE_OPT_TOLERANCE,
  DICE_OPT_ATOL,
  DICE_OPT_RTOL,
  DICE_OPT_NO_ROBUST,
  DICE_OPT_PRECISION,
  DICE_OPT_HARNESS_END
};

#define DICE_HARNESS_SHORT_OPTIONS "j:q"

#define DICE_HARNESS_LONG_OPTIONS                                       \
  {"jobs", required_argument, NULL, 'j'},                               \
  {"gpus", required_argument, NULL, DICE_OPT_GPUS},                     \
  {"device", required_argument, NULL, DICE_OPT_DEVICE},                 \
  {"timeout", required_argument, NULL, DICE_OPT_TIMEOUT},               \
  {"cache", required_argument, NULL, DICE_OPT_CACHE},                   \
  {"arch", required_argument, NULL, DICE_OPT_ARCH},                     \
  {"memory", required_argument, NULL, DICE_OPT_MEMORY},                 \
  {"keep-temp", no_argument, NULL, DICE_OPT_KEEP_TEMP},                 \
  {"unordered", no_argument, NULL, DICE_OPT_UNORDERED},                 \
  {"progress", optional_argument, NULL, DICE_OPT_PROGRESS},             \
  {"resume", required_argument, NULL, DICE_OPT_RESUME},                 \
  {"quiet", no_argument, NULL, 'q'}

#define DICE_HARNESS_CHECK_LONG_OPTIONS                                 \
  {"trials", required_argument, NULL, DICE_OPT_TRIALS},                 \
  {"seed", required_argument, NULL, DICE_OPT_SEED},                     \
  {"tolerance", required_argument, NULL, DICE_OPT_TOLERANCE},           \
  {"atol", required_argument, NULL, DICE_OPT_ATOL},                     \
  {"rtol", required_argument, NULL, DICE_OPT_RTOL},                     \
  {"no-robust", no_argument, NULL, DICE_OPT_NO_ROBUST},                 \
  {"precision", required_argument, NULL, DICE_OPT_PRECISION}

/* dice-time's own long-only options, numbered apart from the shared
   ones so that either list can grow.  */
enum
{
  DICE_OPT_WARMUP = DICE_OPT_HARNESS_END + 64,
  DICE_OPT_INPUT_SETS,
  DICE_OPT_ALL,
  DICE_OPT_BASELINE,
  DICE_OPT_REF_TIMES,
  DICE_OPT_MAX_SPEEDUP,
  DICE_OPT_MAX_SPREAD,
  DICE_OPT_RUNS,
  DICE_OPT_REF_DEVICE,
  DICE_OPT_FORCE_REF_TIMES
};

#define DICE_HARNESS_TIME_LONG_OPTIONS                                  \
  {"trials", required_argument, NULL, DICE_OPT_TRIALS},                 \
  {"seed", required_argument, NULL, DICE_OPT_SEED},                     \
  {"warmup", required_argument, NULL, DICE_OPT_WARMUP},                 \
  {"input-sets", required_argument, NULL, DICE_OPT_INPUT_SETS},         \
  {"all", no_argument, NULL, DICE_OPT_ALL},                             \
  {"baseline", required_argument, NULL, DICE_OPT_BASELINE},             \
  {"ref-times", required_argument, NULL, DICE_OPT_REF_TIMES},           \
  {"max-speedup", required_argument, NULL, DICE_OPT_MAX_SPEEDUP},       \
  {"max-spread", required_argument, NULL, DICE_OPT_MAX_SPREAD},         \
  {"runs", required_argument, NULL, DICE_OPT_RUNS},                     \
  {"ref-device", required_argument, NULL, DICE_OPT_REF_DEVICE},         \
  {"force-ref-times", no_argument, NULL, DICE_OPT_FORCE_REF_TIMES},     \
  {"precision", required_argument, NULL, DICE_OPT_PRECISION}

/* OPTION's value ARG as an integer in [LO, HI], or a number of at least
   LO (above LO when ABOVE_LO), into *VALUE.  False, with the one wording
   of lib/numarg.h in ERR, when it is not one.  */
bool dice_harness_option_long (const char *option, const char *arg, long lo,
                               long hi, long *value, char *err,
                               size_t errlen);
bool dice_harness_option_double (const char *option, const char *arg,
                                 double lo, bool above_lo, double *value,
                                 char *err, size_t errlen);

/* Defaults for MODE.  */
void dice_harness_init (struct dice_harness *h, enum dice_harness_mode mode);

/* What dice_harness_option did with an option.  */
enum dice_harness_option_result
{
  DICE_HARNESS_OPTION_HANDLED,
  DICE_HARNESS_OPTION_BAD,      /* a bad value: ERR says why */
  DICE_HARNESS_OPTION_UNKNOWN   /* not one of the harness options */
};

/* Handle option C with argument ARG.  */
enum dice_harness_option_result
dice_harness_option (struct dice_harness *h, int c, const char *arg,
                     char *err, size_t errlen);

/* The --help lines of the shared options (and, for dice-check, the
   checking ones).  */
void dice_harness_print_help (enum dice_harness_mode mode);

/* Settle what the options left open: the cache directory (made if
   missing), the device, the GPUs and the number of workers, the memory
   limit, and that the Python interpreter exists.  *SLOTS becomes a new
   array of *NSLOTS GPU names (NULL entries: no GPU), one per worker;
   free it with dice_harness_free_slots.  Returns 0, or -1 with ERR
   saying why the run cannot go on.  */
int dice_harness_finish (struct dice_harness *h, char ***slots,
                         size_t *nslots, char *err, size_t errlen);
void dice_harness_free_slots (char **slots, size_t nslots);

/* The whole of dice-compile (MODE compile) or dice-check: options,
   workers, records.  USAGE prints the tool's --help.  Returns the exit
   status.  */
int dice_harness_tool (enum dice_harness_mode mode, int argc, char **argv,
                       void (*usage) (void));

/* Run the harness for REC, on GPU (NULL: none).  Returns the new
   "compile" or "check" object, or NULL when memory ran out.  Thread-safe
   once dice_sandbox_prepare has run.  */
json_t *dice_harness_run (const struct dice_harness *h, const json_t *rec,
                          const char *gpu);

/* A short word for VALUE (a result of dice_harness_run) for progress
   counts: the check status, or "built"/"failed".  */
/* Whether REC can be judged at all: false, with ERR saying why, for a
   record with code but no reference to judge it by (no ref, a ref that
   is not a string or defines no Model): a mistake in the input, not the
   candidate's failure.  */
bool dice_harness_judgeable (const struct dice_harness *h, const json_t *rec,
                             char *err, size_t errlen);

const char *dice_harness_label (const struct dice_harness *h,
                                const json_t *value);

/* dice-time (lib/harness-time.c).  */
void dice_harness_time_init (struct dice_harness *h);
enum dice_harness_option_result
dice_harness_time_option (struct dice_harness *h, int c, const char *arg,
                          char *err, size_t errlen);
void dice_harness_time_help (void);
/* Load --ref-times.  Returns 0, or -1 with ERR saying why.  */
int dice_harness_time_finish (struct dice_harness *h, char *err,
                              size_t errlen);
/* {"skipped": why} when REC is not to be timed, else NULL.  */
json_t *dice_harness_time_skip (const struct dice_harness *h,
                                const json_t *rec);
/* The record's "time" object from the harness's raw samples FROM (NULL
   when no result came), or from STATUS and ERROR when C decided.  */
json_t *dice_harness_time_object (const struct dice_harness *h,
                                  const json_t *rec, const json_t *from,
                                  const char *status, const char *error,
                                  double ms, json_t *sandbox);
/* dice-time's whole verdict on REC, on GPU: the first run of
   dice_harness_run, timed again in fresh processes when --runs asks for
   it or its speedup is above --max-speedup, with time.runs,
   time.confirmed_speedup, time.confirmed (and time.verified) added.
   NULL when memory ran out.  */
json_t *dice_harness_time_run (const struct dice_harness *h,
                               const json_t *rec, const char *gpu);
/* The "mean/median/iqr/min/max/n" object of the N VALUES (sorted in
   place); exposed for the tests.  */
json_t *dice_time_stats (double *values, size_t n);

#endif
