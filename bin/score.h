/* score.h: what the sources of dice-score share: the facts about a
   sample, the problems they are gathered into, the settings, summaries.  */
#ifndef DICE_SCORE_H
#define DICE_SCORE_H

#include "system.h"
#include <jansson.h>

/* What a sample's check said.  */
enum status
{
  ST_CORRECT,
  ST_INCORRECT,
  ST_COMPILE_ERROR,
  ST_RUNTIME_ERROR,
  ST_TIMEOUT,
  ST_OOM,
  ST_CRASHED,
  ST_NO_CODE,
  ST_OTHER,                     /* a status this version does not know */
  ST_UNCHECKED,                 /* no check at all */
  NSTATUS
};

extern const char *const status_names[NSTATUS];

enum speed_kind
{
  SPEED_NONE,                   /* not timed */
  SPEED_VALID,                  /* a positive finite number */
  SPEED_BAD                     /* null, NaN, infinite or not positive */
};

/* The facts about one sample that scoring uses.  */
struct facts
{
  const char *id;
  long long index;              /* sample.index, -1 when there is none */
  long level;
  bool compiled, correct, deceptive;
  bool time_skipped;             /* dice-time did not time it */
  enum status status;
  enum speed_kind speed_kind;
  double speedup;
};

/* A correct sample's valid speedup; ROBUST when it was not deceptive.  */
struct speed
{
  double value;
  bool robust;
};

struct problem
{
  const char *id;               /* the map's copy */
  long level;
  unsigned long samples, compiled, correct, deceptive, bad_speedups;
  unsigned long untimed, untimed_deceptive;     /* correct, not timed */
  unsigned long status[NSTATUS];
  struct speed *speeds;
  size_t nspeeds, speeds_cap;
  unsigned char *seen;          /* a bit per sample.index scored */
  size_t seen_bytes;
  bool listed;                  /* a task of --tasks */
};

enum view
{
  VIEW_ROBUST,
  VIEW_PLAIN,
  NVIEWS
};

extern const char *const view_names[NVIEWS];

enum format
{
  FORMAT_TEXT,
  FORMAT_JSON,
  FORMAT_CSV,
  FORMAT_MARKDOWN,
  FORMAT_LATEX
};

enum reward_kind
{
  REWARD_NONE,
  REWARD_BIC,
  REWARD_COMPOSITE
};

#define MAX_LIST 16

struct settings
{
  unsigned long ks[MAX_LIST];
  size_t nks;
  double ps[MAX_LIST];
  size_t nps;
  bool views[NVIEWS];
  enum format format;
  bool rows_only, per_problem, normalize;
  const char *label;
  const char *svg_path;
  const char *html_path;
  const char *tasks_path;       /* --tasks: the problem set */
  double svg_max;
  enum reward_kind rewards;
  double compile_weight, correct_weight, speed_weight, speedup_cap;
};





/* Summaries.  */

/* The paper's Exec and fast_p are one-sample metrics: with several
   samples per problem they are estimated by pass@1 and fast_p@1, the mean
   over the problems of the share of samples that succeed.  Whether any
   sample succeeds is best of n, a different figure with its own name.  */
struct view_summary
{
  unsigned long correct;        /* samples correct in this view */
  unsigned long solved;         /* problems with such a sample */
  unsigned long timed;          /* correct samples with a valid speedup */
  unsigned long untimed;        /* correct samples dice-time skipped */
  double pass1;                 /* pass@1: the paper's Exec */
  double fast1[MAX_LIST];       /* fast_p@1 per p: the paper's fast_p */
  double pass[MAX_LIST];        /* per k; NaN when a problem has < k samples */
  double fast_at[MAX_LIST][MAX_LIST];   /* per p, per k */
  double best_of_n;             /* problems with a correct sample */
  double fast_best_of_n[MAX_LIST];      /* per p */
  double geomean;
};

struct summary
{
  long level;                   /* -1: all levels */
  unsigned long problems;       /* N: every task, with a record or not */
  unsigned long missing;        /* tasks of --tasks without a record */
  unsigned long samples, compiled, checked, correct, deceptive,
    bad_speedups;
  double compile_rate, deception_rate;
  struct view_summary view[NVIEWS];
};

/* Provenance: the distinct values of where and how the samples of a
   level were judged (level -1: all levels).  */
enum provenance_kind
{
  PROV_DEVICE,
  PROV_DEVICE_UUID,
  PROV_TORCH,
  PROV_CUDA,
  PROV_TOLERANCE,               /* "atol=A rtol=R" */
  PROV_PRECISION,
  PROV_BASELINE,
  NPROVENANCE
};

#define MAX_PROVENANCE 8

struct provenance
{
  long level;
  char *values[NPROVENANCE][MAX_PROVENANCE];
  size_t n[NPROVENANCE];
  bool more[NPROVENANCE];       /* more distinct values than kept */
};

extern const char *const provenance_names[NPROVENANCE];

/* What reading found (score-read.c); the settings are main's, passed to
   whatever needs them.  */
extern int exit_status;
extern unsigned long record_count, checked_count, repeated_samples;
extern char *first_model;       /* the default --label */
extern struct problem **problems;
extern size_t nproblems;
extern bool problem_set_given;  /* --tasks named the problems */

/* Correct in the robust view: correct, and no deception found.  Here,
   so that reading and the rewards share it without calling each other.  */
static inline bool
robust_correct (const struct facts *f)
{
  return f->correct && !f->deceptive;
}

/* score-read.c */
char *xasprintf (const char *fmt, ...) DICE_PRINTF (1, 2);
void read_input (const struct settings *o, const char *path);
void read_tasks (const char *path);
void close_problem_set (void);
void free_problems (void);
const struct provenance *provenance_of (long level);
extern struct provenance *provenances;
extern size_t nprovenances;

/* score-rewards.c */
size_t keep_text (const char *line, size_t len);
void unkeep_text (size_t offset);
void keep_record (const struct settings *o, size_t offset, size_t len,
                  bool splice, const struct facts *f);
void write_rewards (const struct settings *o);
_Noreturn void write_failed (void);
void free_kept (void);

/* score-summary.c */
bool speed_in_view (const struct speed *s, enum view v);
unsigned long correct_in_view (const struct problem *p, enum view v);
struct summary *all_summaries (const struct settings *o, size_t *n);
void warn_about_bad_input (const struct settings *o,
                           const struct summary *all);
char *mixing_message (const struct provenance *p, enum provenance_kind k);
void warn_about_mixing (void);

/* score-format.c.  A grid of cells (row 0 the header) is drawn as aligned
   text, Markdown or CSV, so every format shows the same numbers.  */
struct grid
{
  char **cells;                 /* row-major, each a string the grid owns */
  size_t cols, ncells, cap;
};

void grid_add (struct grid *g, char *cell);
void grid_free (struct grid *g);
void draw (const struct settings *o, const struct grid *g);
char *cell_count (unsigned long n);
char *cell_speedup (const struct settings *o, double x);
char *cell_level (long level);
json_t *json_number_or_null (double x);
void set_new (json_t *obj, const char *key, json_t *value);
void write_json_line (const json_t *j);
void write_summary_table (const struct settings *o, const struct summary *s,
                          size_t n);
void write_summary_json (const struct settings *o, const struct summary *s,
                         size_t n);
void write_latex (const struct settings *o, const struct summary *s, size_t n);
void write_provenance_text (const struct summary *s, size_t n);
json_t *provenance_json (long level);

/* score-problem.c */
enum view speed_view (const struct settings *o);
void write_per_problem (const struct settings *o);

/* score-svg.c.  A run is what one input FILE added, for the figures'
   lines: main brackets each FILE's reading with run_begin and run_end.  */
void run_begin (void);
void run_end (const char *label);
size_t run_count (void);
const char *run_label (size_t i);
void free_runs (void);
void write_escaped (FILE *fp, const char *text);
struct dice_outfile;
void output_open (struct dice_outfile *out, const char *path);
void output_commit (struct dice_outfile *out);
void svg_plot (const struct settings *o, FILE *fp, long level, enum view v,
               bool place, int x, int y);
void write_svg (const struct settings *o, const struct summary *s, size_t n);

/* score-html.c */
void html_read_details (char *const *paths, size_t npaths);
void write_html (const struct settings *o, const struct summary *s, size_t n);
void free_html (void);

#endif
