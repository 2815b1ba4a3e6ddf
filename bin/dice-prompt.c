/* dice-prompt: turn a problem set (a KernelBench checkout or the bundled
   suite) into prompt records, one per problem; or, with --infill, render a
   prompt for each record read from the input.  */
#include "system.h"

#include <ctype.h>
#include <dirent.h>
#include <fnmatch.h>
#include <sys/stat.h>

#include "cli.h"
#include "closeout.h"
#include "datadir.h"
#include "fileio.h"
#include "jsonl.h"
#include "msg.h"
#include "numarg.h"
#include "options.h"
#include "progname.h"
#include "record.h"
#include "sha256.h"
#include "template.h"
#include "xalloc.h"

enum
{
  OPT_KERNELBENCH = DICE_OPT_TOOL,
  OPT_PROBLEMS,
  OPT_PRECISION,
  OPT_INFILL,
  OPT_SOLUTIONS
};

static const struct option long_options[] = {
  {"kernelbench", required_argument, NULL, OPT_KERNELBENCH},
  {"problems", required_argument, NULL, OPT_PROBLEMS},
  {"template", required_argument, NULL, 't'},
  {"precision", required_argument, NULL, OPT_PRECISION},
  {"match", required_argument, NULL, 'm'},
  {"infill", no_argument, NULL, OPT_INFILL},
  {"solutions", required_argument, NULL, OPT_SOLUTIONS},
  DICE_FILTER_LONG_OPTIONS,
  DICE_SHARD_LONG_OPTIONS,
  DICE_COMMON_LONG_OPTIONS,
  {NULL, 0, NULL, 0}
};

static void
usage (void)
{
  printf ("\
Usage: %s [OPTION]... [SELECTOR]...\n\
  or:  %s [OPTION]... --infill [FILE]...\n\
Write one prompt record (JSON lines) for each selected problem of a problem\n\
set; with --infill, or with '-' as the only selector, add a prompt to each\n\
record read from FILEs (standard input by default) instead.\n\
\n\
Selectors: L1 L2 L3 L4 (a level), all, LEVEL:RANGES such as L1:1-20,\n\
L2:5,7,9 or L3:10- (problem numbers).  Several may be given; with none,\n\
all problems are selected.  Problems come out by level, then number.\n\
\n\
Problem sets:\n\
      --kernelbench=DIR  a KernelBench checkout (the repository root or its\n\
                           KernelBench/ folder); default $DICE_KERNELBENCH\n\
      --problems=DIR     any directory in KernelBench's layout\n\
                           (levelN/<number>_<Name>.py)\n\
                         with neither, the bundled suite in the data directory\n\
      --solutions=NAME|DIR  add each problem's solution as 'code': the file\n\
                           of the same name in DIR/levelN/, or in a bundled\n\
                           set (cuda, cpu) for a NAME without '/'\n\
\n\
Prompts:\n\
  -t, --template=NAME|FILE  the template: a name in the template directory\n\
                           (oneshot, zeroshot, infill) or a path containing\n\
                           '/'; default oneshot, or infill with --infill\n\
      --precision=P      fp32, fp16 or bf16: the precision the prompt asks\n\
                           for (default fp32)\n\
  -m, --match=GLOB       only problems whose name (ReLU in 19_ReLU.py)\n\
                           matches GLOB; may be repeated\n\
      --infill           read records instead of a problem set\n\
\n\
Input and output:\n\
      --strict           stop at the first malformed problem file or input\n\
                           line (exit 2); by default it is reported,\n\
                           skipped, and the exit status is 1\n\
      --unbuffered       flush the output after every record\n\
      --shard=I/N        do only shard I of N (1 <= I <= N): a stable split\n\
                           by id and sample.index, whatever the input order\n\
      --help             display this help and exit\n\
      --version          output version information and exit\n\
\n\
Environment: DICE_KERNELBENCH, DICE_DATADIR (bundled problems),\n\
DICE_PROMPTDIR (templates).\n", dice_program_name, dice_program_name);
  dice_print_help_tail ();
}

/* One problem file of a problem set.  */
struct problem
{
  int level;
  long index;
  char *stem;                   /* "19_ReLU" */
  const char *name;             /* into stem: "ReLU" */
  char *path;
};

struct problem_list
{
  struct problem *items;
  size_t n, cap;
};

/* A selector: LEVEL 0 means every level; no ranges means every problem.  */
struct range
{
  long lo, hi;
};

struct selector
{
  int level;
  struct range *ranges;
  size_t nranges;
};

struct settings
{
  const char *source_dir;       /* NULL: the bundled suite */
  char *solutions_dir;          /* NULL: no code added */
  const char *template_spec;
  const char *precision;
  char **globs;
  size_t nglobs;
  struct selector *selectors;
  size_t nselectors;
  bool infill;
};

static struct dice_template template;
static int exit_status = DICE_EXIT_OK;
static unsigned long unprompted_records;
static unsigned long unsolved_problems;



static void
write_record (const json_t *rec)
{
  if (!dice_shard_keeps (&dice_opts.shard, rec))
    return;
  if (dice_jsonl_write (stdout, rec) != 0)
    {
      dice_error_errno (errno, "write error");
      exit (DICE_EXIT_TROUBLE);
    }
  if (dice_opts.unbuffered)
    fflush (stdout);
}

/* Parse a number at *S; returns false unless there are digits.  */
static bool
parse_number (const char **s, long *value)
{
  char *end;

  if (!isdigit ((unsigned char) **s))
    return false;
  errno = 0;
  *value = strtol (*s, &end, 10);
  if (errno)
    return false;
  *s = end;
  return true;
}

static bool
parse_selector (const char *arg, struct selector *sel)
{
  const char *p = arg;
  long level;

  memset (sel, 0, sizeof *sel);
  if (strcasecmp (arg, "all") == 0)
    return true;
  if (*p != 'L' && *p != 'l')
    return false;
  p++;
  if (!parse_number (&p, &level) || level < 1 || level > 99)
    return false;
  sel->level = (int) level;
  if (*p == '\0')
    return true;
  if (*p++ != ':')
    return false;
  do
    {
      struct range r;

      if (!parse_number (&p, &r.lo))
        return false;
      r.hi = r.lo;
      if (*p == '-')
        {
          p++;
          if (*p == '\0' || *p == ',')
            r.hi = LONG_MAX;
          else if (!parse_number (&p, &r.hi) || r.hi < r.lo)
            return false;
        }
      sel->ranges = xrealloc (sel->ranges, (sel->nranges + 1) * sizeof r);
      sel->ranges[sel->nranges++] = r;
    }
  while (*p++ == ',');
  return p[-1] == '\0';
}

static bool
selected (const struct settings *s, const struct problem *pb)
{
  bool any = s->nselectors == 0;

  for (size_t i = 0; i < s->nselectors && !any; i++)
    {
      const struct selector *sel = &s->selectors[i];

      if (sel->level && sel->level != pb->level)
        continue;
      if (sel->nranges == 0)
        any = true;
      for (size_t r = 0; r < sel->nranges; r++)
        if (pb->index >= sel->ranges[r].lo && pb->index <= sel->ranges[r].hi)
          any = true;
    }
  if (!any)
    return false;
  if (s->nglobs == 0)
    return true;
  for (size_t g = 0; g < s->nglobs; g++)
    if (fnmatch (s->globs[g], pb->name, 0) == 0)
      return true;
  return false;
}

static bool
is_directory (const char *path)
{
  struct stat st;

  return stat (path, &st) == 0 && S_ISDIR (st.st_mode);
}

/* Folders and other non-files named like problems are not problems; a
   file that cannot be examined is kept so reading it reports why.  */
static bool
maybe_regular_file (const char *path)
{
  struct stat st;

  return stat (path, &st) != 0 || S_ISREG (st.st_mode);
}

/* Parse "levelN" into N; false for any other name.  */
static bool
level_of (const char *dirname, int *level)
{
  const char *p = dirname + 5;
  long n;

  if (strncmp (dirname, "level", 5) != 0 || !parse_number (&p, &n) || *p
      || n < 1 || n > 99)
    return false;
  *level = (int) n;
  return true;
}

/* Parse "19_ReLU.py" into its number and stem; false for other files.  */
static bool
problem_file (const char *file, long *index)
{
  const char *p = file;
  size_t len = strlen (file);

  return parse_number (&p, index) && *p == '_' && p[1] != '.'
    && len > 3 && strcmp (file + len - 3, ".py") == 0;
}

static int
compare_problems (const void *a, const void *b)
{
  const struct problem *x = a, *y = b;

  if (x->level != y->level)
    return x->level < y->level ? -1 : 1;
  if (x->index != y->index)
    return x->index < y->index ? -1 : 1;
  return strcmp (x->stem, y->stem);
}

/* Collect the problem files of ROOT's levelN folders.  Returns 0, or -1
   after reporting an unreadable directory.  */
static int
scan_problems (const char *root, struct problem_list *list)
{
  DIR *top = opendir (root);
  struct dirent *de;

  if (top == NULL)
    {
      dice_error_errno (errno, "cannot read problem directory '%s'", root);
      return -1;
    }
  while ((de = readdir (top)) != NULL)
    {
      int level;
      char *dir;
      DIR *ld;
      struct dirent *fe;

      if (!level_of (de->d_name, &level))
        continue;
      dir = dice_path_join (root, de->d_name);
      if (dir == NULL || !is_directory (dir))
        {
          free (dir);
          continue;
        }
      ld = opendir (dir);
      if (ld == NULL)
        {
          dice_error_errno (errno, "cannot read problem directory '%s'", dir);
          free (dir);
          closedir (top);
          return -1;
        }
      while ((fe = readdir (ld)) != NULL)
        {
          struct problem pb;

          if (!problem_file (fe->d_name, &pb.index))
            continue;
          pb.level = level;
          pb.stem = xstrdup (fe->d_name);
          pb.stem[strlen (pb.stem) - 3] = '\0';
          pb.name = strchr (pb.stem, '_') + 1;
          pb.path = dice_path_join (dir, fe->d_name);
          if (pb.path == NULL)
            {
              dice_error ("memory exhausted");
              exit (DICE_EXIT_TROUBLE);
            }
          if (!maybe_regular_file (pb.path))
            {
              free (pb.path);
              free (pb.stem);
              continue;
            }
          if (list->n == list->cap)
            {
              list->cap = list->cap ? 2 * list->cap : 64;
              list->items = xrealloc (list->items,
                                      list->cap * sizeof *list->items);
            }
          list->items[list->n++] = pb;
        }
      closedir (ld);
      free (dir);
    }
  closedir (top);
  if (list->n > 1)
    qsort (list->items, list->n, sizeof *list->items, compare_problems);
  return 0;
}

/* Whether some line of SRC starts with WORD followed by a non-name
   character: "class Model(" or "def get_inputs(".  */
static bool
defines (const char *src, const char *word)
{
  size_t len = strlen (word);

  for (const char *line = src; line; line = strchr (line, '\n'))
    {
      if (*line == '\n')
        line++;
      if (strncmp (line, word, len) == 0
          && !isalnum ((unsigned char) line[len]) && line[len] != '_')
        return true;
    }
  return false;
}

static bool
utf8_text (const char *src)
{
  json_t *probe = json_string (src);

  json_decref (probe);
  return probe != NULL;
}

static const char *
precision_note (const char *precision)
{
  if (strcmp (precision, "fp16") == 0)
    return "The reference is run in half precision: inputs, weights and "
      "outputs are torch.float16 tensors. Your kernels must read and write "
      "float16 (accumulate in float32 where precision matters).";
  if (strcmp (precision, "bf16") == 0)
    return "The reference is run in bfloat16: inputs, weights and outputs "
      "are torch.bfloat16 tensors. Your kernels must read and write "
      "bfloat16 (accumulate in float32 where precision matters).";
  return "Inputs, weights and outputs are float32 tensors; keep float32 "
    "arithmetic.";
}

/* Values for the template: from a problem file or from an input record.  */
struct values
{
  const struct settings *settings;
  const json_t *rec;
  const char *ref;
  char level[16], index[32];
  char *names;                  /* {{names}}, made when asked for */
};

/* The core's variable names of REC's infill, in backquotes: "`a`",
   "`a` and `b`", "`a`, `b` and `c`"; NULL when there are none.  */
static char *
infill_names (const json_t *rec)
{
  json_t *names = dice_record_get (rec, "infill.names");
  size_t n = json_array_size (names), len = 1;
  char *text;

  for (size_t i = 0; i < n; i++)
    {
      const char *name = json_string_value (json_array_get (names, i));

      if (name == NULL)
        return NULL;
      len += strlen (name) + sizeof "``, and ";
    }
  if (n == 0)
    return NULL;
  text = xrealloc (NULL, len);
  *text = '\0';
  for (size_t i = 0; i < n; i++)
    {
      strcat (text, i == 0 ? "" : i + 1 == n ? " and " : ", ");
      strcat (text, "`");
      strcat (text, json_string_value (json_array_get (names, i)));
      strcat (text, "`");
    }
  return text;
}

static const char *
lookup (const char *variable, void *ctx)
{
  struct values *v = ctx;

  if (strcmp (variable, "ref") == 0)
    return v->ref;
  if (strcmp (variable, "precision") == 0)
    return v->settings->precision;
  if (strcmp (variable, "precision_note") == 0)
    return precision_note (v->settings->precision);
  if (strcmp (variable, "id") == 0)
    return dice_record_id (v->rec);
  if (strcmp (variable, "name") == 0)
    return dice_record_string (v->rec, "problem.name");
  if (strcmp (variable, "level") == 0 || strcmp (variable, "index") == 0)
    {
      json_t *n = dice_record_get (v->rec, strcmp (variable, "level") == 0
                                   ? "problem.level" : "problem.index");
      char *buf = strcmp (variable, "level") == 0 ? v->level : v->index;

      if (!json_is_integer (n))
        return NULL;
      snprintf (buf, 16, "%lld", (long long) json_integer_value (n));
      return buf;
    }
  if (strcmp (variable, "prefix") == 0)
    return dice_record_string (v->rec, "infill.prefix");
  if (strcmp (variable, "suffix") == 0)
    return dice_record_string (v->rec, "infill.suffix");
  if (strcmp (variable, "names") == 0)
    {
      if (v->names == NULL)
        v->names = infill_names (v->rec);
      return v->names;
    }
  return NULL;
}

/* Where a variable comes from in a record, for messages.  */
static const char *
record_source (const char *variable)
{
  static const char *const sources[][2] = {
    {"ref", "ref"}, {"id", "id"}, {"name", "problem.name"},
    {"level", "problem.level"}, {"index", "problem.index"},
    {"prefix", "infill.prefix"}, {"suffix", "infill.suffix"},
    {"names", "infill.names"},
  };

  for (size_t i = 0; i < DICE_ARRAY_SIZE (sources); i++)
    if (strcmp (sources[i][0], variable) == 0)
      return sources[i][1];
  return variable;
}

static json_t *
prompt_object (const struct settings *s)
{
  return json_pack ("{s:s, s:s, s:s}", "template", template.name,
                    "mode", template.infill ? "infill" : "end-to-end",
                    "precision", s->precision);
}

/* Render the template for REC and set its "prompt".  Returns the variable
   that had no value, or NULL.  */
static const char *
add_prompt (const struct settings *s, json_t *rec, const char *ref)
{
  struct values v = { .settings = s, .rec = rec, .ref = ref };
  const char *missing;
  char *text = dice_template_render (&template, lookup, &v, &missing);
  json_t *prompt = prompt_object (s);

  free (v.names);

  if (text == NULL && missing == NULL)
    {
      dice_error ("memory exhausted");
      exit (DICE_EXIT_TROUBLE);
    }
  if (text)
    json_object_set_new (prompt, "text", json_string (text));
  else
    {
      char why[128];

      snprintf (why, sizeof why, "template '%s' needs %s, which the record "
                "lacks", template.name, record_source (missing));
      json_object_set_new (prompt, "error", json_string (why));
    }
  free (text);
  dice_record_set (rec, "prompt", prompt);
  return missing;
}

/* Add 'code' to REC: PB's file in the solutions' levelN/ folder.  A
   problem without one is written without code, and counted.  */
static void
add_solution (const struct settings *s, const struct problem *pb, json_t *rec)
{
  char level[32], *name, *dir, *path;
  char *code;
  size_t len;

  snprintf (level, sizeof level, "level%d", pb->level);
  name = xrealloc (NULL, strlen (pb->stem) + sizeof ".py");
  strcpy (name, pb->stem);
  strcat (name, ".py");
  dir = dice_path_join (s->solutions_dir, level);
  path = dir ? dice_path_join (dir, name) : NULL;
  if (path == NULL)
    dice_die_memory ();
  if (dice_read_file (path, &code, &len) != 0)
    {
      if (errno != ENOENT)
        dice_error_errno (errno, "cannot read '%s'", path);
      unsolved_problems++;
    }
  else if (strlen (code) != len || !utf8_text (code))
    {
      dice_error_at (path, 0, "not UTF-8 text; no code added");
      unsolved_problems++;
      free (code);
    }
  else if (json_object_set_new (rec, "code", json_string (code)) != 0)
    dice_die_memory ();
  else
    free (code);
  free (path);
  free (dir);
  free (name);
}

static void
prompt_problem (const struct settings *s, const struct problem *pb)
{
  char *src;
  size_t len;
  char digest[DICE_SHA256_HEX_SIZE];
  const char *lacking = NULL;
  char id[256];
  json_t *rec;

  if (dice_read_file (pb->path, &src, &len) != 0)
    {
      dice_error_errno (errno, "cannot read '%s'", pb->path);
      dice_input_problem (&exit_status);
      return;
    }
  if (strlen (src) != len || !utf8_text (src))
    lacking = "not UTF-8 text";
  else if (!defines (src, "class Model"))
    lacking = "no class Model";
  else if (!defines (src, "def get_inputs"))
    lacking = "no get_inputs function";
  else if (!defines (src, "def get_init_inputs"))
    lacking = "no get_init_inputs function";
  if (lacking)
    {
      dice_error_at (pb->path, 0, "not a problem file (%s); skipped",
                     lacking);
      free (src);
      dice_input_problem (&exit_status);
      return;
    }
  if (dice_sha256_hex (src, len, digest) != 0)
    {
      dice_error ("SHA-256 failed");
      exit (DICE_EXIT_TROUBLE);
    }
  snprintf (id, sizeof id, "L%d/%s", pb->level, pb->stem);
  rec = json_pack ("{s:s, s:{s:i, s:I, s:s, s:s, s:s}, s:s}",
                   "id", id,
                   "problem", "level", pb->level, "index", (json_int_t) pb->index,
                   "name", pb->name, "path", pb->path, "sha256", digest,
                   "ref", src);
  if (rec == NULL)
    {
      dice_error ("memory exhausted");
      exit (DICE_EXIT_TROUBLE);
    }
  if (s->solutions_dir)
    add_solution (s, pb, rec);
  /* Every variable a problem file can lack is reported when the template
     is loaded, except the infill ones.  */
  if (add_prompt (s, rec, src))
    {
      dice_error ("template '%s' needs an input record (use --infill)",
                  template.name);
      exit (DICE_EXIT_TROUBLE);
    }
  write_record (rec);
  json_decref (rec);
  free (src);
}

/* The folder holding levelN/: DIR/KernelBench when it exists, else DIR.  */
static char *
problem_root (const char *dir)
{
  char *inner = dice_path_join (dir, "KernelBench");

  if (inner && is_directory (inner))
    return inner;
  free (inner);
  return xstrdup (dir);
}

static void
prompt_problem_set (const struct settings *s)
{
  struct problem_list list = { 0 };
  char *bundled = NULL, *root;
  size_t chosen = 0;
  const char *dir = s->source_dir;

  if (dir == NULL)
    dir = bundled = dice_path_join (dice_datadir (), "problems");
  root = problem_root (dir);
  if (scan_problems (root, &list) != 0)
    exit (DICE_EXIT_TROUBLE);
  if (list.n == 0)
    {
      dice_error ("no problem files (levelN/<number>_<Name>.py) in '%s'",
                  root);
      exit (DICE_EXIT_TROUBLE);
    }
  for (size_t i = 0; i < list.n; i++)
    if (selected (s, &list.items[i]))
      {
        prompt_problem (s, &list.items[i]);
        chosen++;
      }
  if (chosen == 0)
    {
      dice_error ("no problem in '%s' matches the selection", root);
      exit_status = DICE_EXIT_INPUT;
    }
  for (size_t i = 0; i < list.n; i++)
    {
      free (list.items[i].stem);
      free (list.items[i].path);
    }
  free (list.items);
  free (root);
  free (bundled);
}

static void
prompt_records (const struct settings *s, const char *path)
{
  struct dice_jsonl_reader in;
  json_t *rec;

  dice_input_open (&in, path);
  while ((rec = dice_input_next (&in, &exit_status)) != NULL)
    {
      if (add_prompt (s, rec, json_string_value (json_object_get (rec, "ref"))))
        unprompted_records++;
      write_record (rec);
      json_decref (rec);
    }
  dice_jsonl_close (&in);
}

/* The bundled solutions named NAME, or exit with a usage error.  */
static char *
solutions_set (const char *name)
{
  char *examples = dice_path_join (dice_datadir (), "examples");
  char *dir = examples ? dice_path_join (examples, name) : NULL;

  if (dir == NULL)
    dice_die_memory ();
  free (examples);
  if (*name == '\0' || *name == '.' || !is_directory (dir))
    dice_die_usage ("no bundled solutions named '%s' (cuda or cpu; a "
                    "directory needs a '/', as in ./%s)", name, name);
  return dir;
}

int
main (int argc, char **argv)
{
  /* Static, so what the settings point to stays reachable on every exit.  */
  static struct settings s = { .precision = "fp32" };
  int c;

  dice_set_program_name (argv[0]);
  atexit (dice_close_stdout);

  s.source_dir = getenv ("DICE_KERNELBENCH");
  if (s.source_dir && !*s.source_dir)
    s.source_dir = NULL;
  while ((c = getopt_long (argc, argv, "t:m:", long_options, NULL)) != -1)
    switch (c)
      {
      case OPT_KERNELBENCH:     /* --kernelbench */
      case OPT_PROBLEMS:        /* --problems */
        s.source_dir = optarg;
        break;
      case 't':
        s.template_spec = optarg;
        break;
      case OPT_PRECISION:       /* --precision */
        if (strcmp (optarg, "fp32") && strcmp (optarg, "fp16")
            && strcmp (optarg, "bf16"))
          {
            char msg[256];

            dice_invalid_value (msg, sizeof msg, "precision", optarg,
                                "fp32, fp16 or bf16");
            dice_die_usage ("%s", msg);
          }
        s.precision = optarg;
        break;
      case 'm':
        s.globs = xrealloc (s.globs, (s.nglobs + 1) * sizeof *s.globs);
        s.globs[s.nglobs++] = optarg;
        break;
      case OPT_INFILL:          /* --infill */
        s.infill = true;
        break;
      case OPT_SOLUTIONS:       /* --solutions */
        free (s.solutions_dir);
        s.solutions_dir = strchr (optarg, '/') ? xstrdup (optarg)
          : solutions_set (optarg);
        break;
      default:
        dice_cli_common_option (c, usage);
      }

  if (!s.infill && argc - optind == 1 && strcmp (argv[optind], "-") == 0)
    s.infill = true;
  if (s.infill && s.solutions_dir)
    dice_die_usage ("--solutions adds code to a problem set's records, not "
                    "to --infill input");
  if (!s.infill)
    {
      s.selectors = xrealloc (NULL, (argc - optind + 1) * sizeof *s.selectors);
      for (int i = optind; i < argc; i++)
        {
          if (!parse_selector (argv[i], &s.selectors[s.nselectors]))
            dice_die_usage ("invalid selector '%s'", argv[i]);
          s.nselectors++;
        }
    }

  if (dice_template_load (&template, s.template_spec ? s.template_spec
                          : s.infill ? "infill" : "oneshot",
                          dice_promptdir ()) != 0)
    {
      if (template.path && template.error_line)
        dice_error_at (template.path, template.error_line, "%s",
                       template.error);
      else if (template.path)
        dice_error ("cannot load template '%s': %s", template.path,
                    template.error);
      else
        dice_error ("%s", template.error);
      return DICE_EXIT_TROUBLE;
    }

  if (s.infill)
    {
      if (optind == argc)
        prompt_records (&s, "-");
      for (int i = optind; i < argc; i++)
        prompt_records (&s, argv[i]);
      if (unprompted_records)
        dice_error ("%lu record%s got no prompt text (see prompt.error)",
                    unprompted_records, unprompted_records == 1 ? "" : "s");
    }
  else
    {
      if (s.solutions_dir && !is_directory (s.solutions_dir))
        {
          dice_error ("cannot use solutions '%s': not a directory",
                      s.solutions_dir);
          return DICE_EXIT_TROUBLE;
        }
      prompt_problem_set (&s);
      if (unsolved_problems)
        {
          dice_error ("%lu problem%s had no solution in '%s' (written "
                      "without code)", unsolved_problems,
                      unsolved_problems == 1 ? "" : "s", s.solutions_dir);
          exit_status = DICE_EXIT_INPUT;
        }
    }

  dice_template_free (&template);
  for (size_t i = 0; i < s.nselectors; i++)
    free (s.selectors[i].ranges);
  free (s.selectors);
  free (s.globs);
  free (s.solutions_dir);
  return exit_status;
}
