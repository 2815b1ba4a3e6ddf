/* dice-split: the kernel-infilling stage.  Split each record's module into
   the part a model is asked to write (the assignment of the CUDA source:
   the core) and the scaffold around it (prefix and suffix); with --join,
   put a sampled core back into its scaffold so dice-check can judge it.
   The cut is made at statement boundaries found by a real Python
   tokenizer, so prefix + core + suffix is always the module, byte for
   byte.  */
#include "system.h"

#include <stdarg.h>
#include <stdint.h>

#include "cli.h"
#include "closeout.h"
#include "extract.h"
#include "jsonl.h"
#include "msg.h"
#include "options.h"
#include "progname.h"
#include "pymod.h"
#include "record.h"
#include "xalloc.h"

enum
{
  OPT_JOIN = DICE_OPT_TOOL
};

static const struct option long_options[] = {
  {"join", no_argument, NULL, OPT_JOIN},
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
  or:  %s --join [OPTION]... [FILE]...\n\
Split the module in each record's 'code' (a solution that builds its kernels\n\
with load_inline) around the assignment of its CUDA source, adding 'infill'\n\
{prefix, core, suffix}; or, with --join, rebuild 'code' from the prefix, the\n\
core in a sampled completion ('sample.text') and the suffix.  Records are\n\
read from FILEs (standard input by default) and written to standard output.\n\
\n\
      --join             put sampled cores back (after dice-prompt --infill\n\
                           and dice-sample) instead of splitting\n\
\n\
A module that cannot be split gets 'infill.error', and a record that cannot\n\
be joined 'infill.joined.error' and a null 'code'; both pass through.\n\
\n\
Input and output:\n",
          dice_program_name, dice_program_name);
  dice_print_shard_help ();
  dice_print_common_help (true);
  dice_print_help_tail ();
}

static int exit_status = DICE_EXIT_OK;
static bool join_mode;
static unsigned long records_seen, records_failed;

/* The text of token TOK, for messages (at most 64 bytes).  */
static const char *
tok_text (const struct dice_pymod *m, size_t tok, char *out, size_t size)
{
  const struct dice_pytok *t = &m->toks[tok];
  size_t n = t->end - t->start;

  if (n >= size)
    n = size - 1;
  memcpy (out, m->src + t->start, n);
  out[n] = '\0';
  return out;
}

/* The variables a split needs, as NAME tokens, in the order found.  */
struct names
{
  size_t toks[64];
  size_t n;
};

static bool
names_has (const struct dice_pymod *m, const struct names *v, size_t tok)
{
  const struct dice_pytok *t = &m->toks[tok];

  for (size_t i = 0; i < v->n; i++)
    {
      const struct dice_pytok *u = &m->toks[v->toks[i]];

      if (u->end - u->start == t->end - t->start
          && memcmp (m->src + u->start, m->src + t->start,
                     t->end - t->start) == 0)
        return true;
    }
  return false;
}

/* Add the variables read in tokens [FIRST, END) to V: names that are not
   called (a function's result is not a source we can cut out).  */
static void
collect_names (const struct dice_pymod *m, size_t first, size_t end,
               struct names *v)
{
  for (size_t i = first; i < end; i++)
    if (dice_pymod_is_variable (m, i) && !dice_pymod_tok_is (m, i + 1, "(")
        && !names_has (m, v, i) && v->n < DICE_ARRAY_SIZE (v->toks))
      v->toks[v->n++] = i;
}

/* The number of string literals among tokens [FIRST, END).  */
static size_t
strings_in (const struct dice_pymod *m, size_t first, size_t end)
{
  size_t n = 0;

  for (size_t i = first; i < end; i++)
    n += m->toks[i].kind == DICE_PYTOK_STRING;
  return n;
}

static const char *
kind_words (enum dice_pystmt_kind kind)
{
  switch (kind)
    {
    case DICE_PYSTMT_DEF: return "a function definition";
    case DICE_PYSTMT_CLASS: return "a class definition";
    default: return "a compound statement";
    }
}

/* Choose the load_inline call and the argument that holds the source: the
   first call with cuda_sources, else the first with cpp_sources.  */
static const struct dice_pyarg *
source_argument (const struct dice_pymod *m, const struct dice_pycall **callp,
                 const char **what)
{
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < m->ncalls; i++)
      {
        const struct dice_pycall *c = &m->calls[i];
        const struct dice_pyarg *a;

        if (strcmp (c->function, "load_inline") != 0)
          continue;
        a = pass == 0 ? dice_pycall_arg (m, c, "cuda_sources", 2)
          : dice_pycall_arg (m, c, "cpp_sources", 1);
        if (a == NULL || (a->end_tok - a->first_tok == 1
                          && dice_pymod_tok_is (m, a->first_tok, "None")))
          continue;
        *callp = c;
        *what = pass == 0 ? "cuda_sources" : "cpp_sources";
        return a;
      }
  return NULL;
}

static json_t *
split_error (const char *fmt, ...) DICE_PRINTF (1, 2);

static json_t *
split_error (const char *fmt, ...)
{
  char why[320];
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (why, sizeof why, fmt, ap);
  va_end (ap);
  return xcheck (json_pack ("{s:s}", "error", why));
}

/* The variables of the source argument ARG (WHAT, of CALL) into V; NULL,
   or an error object when there are none to follow.  */
static json_t *
source_names (const struct dice_pymod *m, const struct dice_pycall *call,
              const struct dice_pyarg *arg, const char *what, struct names *v)
{
  unsigned long call_line = m->toks[call->name_tok].line;

  collect_names (m, arg->first_tok, arg->end_tok, v);
  if (v->n > 0)
    return NULL;
  if (strings_in (m, arg->first_tok, arg->end_tok))
    return split_error ("the %s of load_inline (line %lu) are a literal in "
                        "the call, not a variable whose assignment could "
                        "be the core", what, call_line);
  return split_error ("cannot tell where the %s of load_inline (line %lu) "
                      "come from", what, call_line);
}

/* Follow each variable of V to its assignment, and an assignment made of
   variables alone (a = b + c) to theirs, adding those to V: the core is
   where the source text is written.  Marks those statements, and the
   additions to them (src += ...) before CALL, in IN_CORE; ASSIGNED_AT[K]
   is the statement that assigns V's variable K.  NULL, or an error
   object.  */
static json_t *
mark_assignments (const struct dice_pymod *m, const struct dice_pycall *call,
                  const char *what, struct names *v, bool *in_core,
                  size_t *assigned_at)
{
  unsigned long call_line = m->toks[call->name_tok].line;
  char name[72];

  for (size_t k = 0; k < v->n; k++)
    {
      const struct dice_pytok *t = &m->toks[v->toks[k]];
      const char *id = m->src + t->start;
      size_t idlen = t->end - t->start;
      size_t value_tok, value_end;
      size_t at = dice_pymod_last_assignment (m, id, idlen, call->stmt,
                                              &value_tok, &value_end);

      if (at == DICE_PYMOD_NONE)
        at = dice_pymod_last_assignment (m, id, idlen, m->nstmts,
                                         &value_tok, &value_end);
      if (at == DICE_PYMOD_NONE)
        return split_error ("'%s' (in the %s of load_inline, line %lu) is "
                            "not assigned at the top level of the module",
                            tok_text (m, v->toks[k], name, sizeof name),
                            what, call_line);
      if (at == call->stmt)
        return split_error ("'%s' is assigned in the statement that calls "
                            "load_inline (line %lu)",
                            tok_text (m, v->toks[k], name, sizeof name),
                            call_line);
      in_core[at] = true;
      assigned_at[k] = at;
      for (size_t j = at + 1; j < m->nstmts && j != call->stmt; j++)
        {
          const struct dice_pytok *target;

          if (m->stmts[j].kind != DICE_PYSTMT_AUGASSIGN)
            continue;
          target = &m->toks[m->stmts[j].name_tok];
          if (target->end - target->start == idlen
              && memcmp (m->src + target->start, id, idlen) == 0)
            in_core[j] = true;
        }
      /* Names read by a value without a literal are followed too.  */
      if (strings_in (m, value_tok, value_end) == 0)
        collect_names (m, value_tok, value_end, v);
    }
  return NULL;
}

/* The statements *LO to *HI that IN_CORE spans (at least one is marked),
   which must be one stretch of simple statements before or after CALL.
   NULL, or an error object.  */
static json_t *
core_span (const struct dice_pymod *m, const struct dice_pycall *call,
           const char *what, const bool *in_core, size_t *lo, size_t *hi)
{
  *lo = SIZE_MAX;
  *hi = 0;
  for (size_t i = 0; i < m->nstmts; i++)
    if (in_core[i])
      {
        if (*lo == SIZE_MAX)
          *lo = i;
        *hi = i;
      }
  for (size_t i = *lo; i <= *hi; i++)
    {
      const struct dice_pystmt *s = &m->stmts[i];

      if (i == call->stmt)
        return split_error ("the %s are assigned both before and after the "
                            "load_inline call (line %lu)", what,
                            m->toks[call->name_tok].line);
      if (s->kind == DICE_PYSTMT_DEF || s->kind == DICE_PYSTMT_CLASS
          || s->kind == DICE_PYSTMT_COMPOUND)
        return split_error ("the assignments of the %s (lines %lu to %lu) "
                            "are separated by %s (line %lu)", what,
                            m->stmts[*lo].line, m->stmts[*hi].line,
                            kind_words (s->kind), s->line);
    }
  return NULL;
}

/* The infill object of module CODE (LEN bytes) whose core is statements LO
   to HI, assigning the variables V (ASSIGNED_AT as mark_assignments
   left it) of the source argument WHAT.  */
static json_t *
infill_object (const struct dice_pymod *m, const char *code, size_t len,
               const char *what, const struct names *v,
               const size_t *assigned_at, size_t lo, size_t hi)
{
  size_t start = m->stmts[lo].start, end = m->stmts[hi].end;
  char name[72];
  json_t *names = xcheck (json_array ()), *result;

  /* The source variables, in the order of their assignments.  */
  for (size_t i = lo; i <= hi; i++)
    for (size_t k = 0; k < v->n; k++)
      if (assigned_at[k] == i)
        json_array_append_new (names, xcheck (json_string
                                               (tok_text (m, v->toks[k], name,
                                                          sizeof name))));
  result = json_pack ("{s:s%, s:s%, s:s%, s:s, s:o, s:I}",
                      "prefix", code, start,
                      "core", code + start, end - start,
                      "suffix", code + end, len - end,
                      "source", what,
                      "names", names,
                      "line", (json_int_t) m->stmts[lo].line);
  if (result == NULL)
    result = split_error ("the module is not valid UTF-8");
  return result;
}

/* The infill object for module CODE (LEN bytes): {prefix, core, suffix,
   source, names, line}, or {error}.  */
static json_t *
split_module (const char *code, size_t len)
{
  struct dice_pymod m;
  const struct dice_pycall *call = NULL;
  const char *what = NULL;
  const struct dice_pyarg *arg;
  struct names v = { .n = 0 };
  size_t lo, hi;
  bool *in_core = NULL;
  size_t assigned_at[DICE_ARRAY_SIZE (v.toks)];
  json_t *result;

  if (dice_pymod_parse (&m, code, len) != 0)
    {
      if (m.error[0] == '\0')
        dice_die_memory ();
      result = split_error ("cannot read the module: line %lu: %s",
                            m.error_line, m.error);
      goto done;
    }
  arg = source_argument (&m, &call, &what);
  if (arg == NULL)
    {
      if (m.ncalls > 0)
        result = split_error ("the module builds its extension with load() "
                              "from source files (line %lu): no source "
                              "string to cut out",
                              m.toks[m.calls[0].name_tok].line);
      else
        result = split_error ("no load_inline call with cuda_sources or "
                              "cpp_sources");
      goto done;
    }
  in_core = xcalloc (m.nstmts, sizeof *in_core);
  if ((result = source_names (&m, call, arg, what, &v)) == NULL
      && (result = mark_assignments (&m, call, what, &v, in_core,
                                     assigned_at)) == NULL
      && (result = core_span (&m, call, what, in_core, &lo, &hi)) == NULL)
    result = infill_object (&m, code, len, what, &v, assigned_at, lo, hi);

done:
  free (in_core);
  dice_pymod_free (&m);
  return result;
}

static void
split_record (json_t *rec)
{
  json_t *code = json_object_get (rec, "code");
  json_t *infill;

  if (json_is_string (code))
    infill = split_module (json_string_value (code),
                           json_string_length (code));
  else
    infill = split_error (code == NULL ? "no code"
                          : json_is_null (code) ? "code is null"
                          : "code is not a string");
  if (json_object_get (infill, "error"))
    records_failed++;
  dice_record_set (rec, "infill", infill);
}

/* The start of the line after the one at LINE (its end if it is the
   last).  */
static const char *
next_line (const char *line)
{
  const char *nl = strchr (line, '\n');

  return nl ? nl + 1 : line + strlen (line);
}

/* Whether block B holds a source: a __global__ function, or a line that
   assigns one of the core's variables NAMES.  */
static bool
holds_source (const struct dice_fenced_block *b, const json_t *names)
{
  for (const char *l = b->body; l < b->end; l = next_line (l))
    {
      const char *p = l + strspn (l, " \t");

      if (strncmp (p, "__global__", 10) == 0)
        return true;
      for (size_t i = 0; i < json_array_size (names); i++)
        {
          const char *name = json_string_value (json_array_get (names, i));
          size_t n = name ? strlen (name) : 0;

          if (n && strncmp (p, name, n) == 0)
            {
              const char *q = p + n + strspn (p + n, " \t");

              if (*q == '=' || *q == ':' || strncmp (q, "+=", 2) == 0)
                return true;
            }
        }
    }
  return false;
}

/* The text a completion offers as the core, into OUT.  Text up to the last
   "</think>" is reasoning, searched only when what follows has no fenced
   block.  The core is the last fenced block that holds a source (models
   revise), else the first block, with its lines stripped of the fence's
   own indentation as Markdown does (a block in a list item is indented;
   fences are those of dice_fenced_block_find);
   with no block at all, the text after the reasoning.  *BLOCK says whether
   it came from a block.  */
static void
completion_core (const char *text, const json_t *names, struct xbuf *out,
                 bool *block)
{
  const char *end = text + strlen (text);
  const char *answer = dice_extract_answer (text, (size_t) (end - text));
  struct dice_fenced_block b, chosen;

  *block = dice_fenced_block_find (answer, end, &chosen)
    || (answer != text && dice_fenced_block_find (text, end, &chosen));
  if (!*block)
    {
      xbuf_puts (out, answer);
      return;
    }
  for (b = chosen; ; )
    {
      if (holds_source (&b, names))
        chosen = b;
      if (!b.closed || !dice_fenced_block_find (b.next, end, &b))
        break;
    }
  for (const char *l = chosen.body; l < chosen.end; l = next_line (l))
    {
      size_t strip = strspn (l, " ");

      if (strip > chosen.indent)
        strip = chosen.indent;
      xbuf_add (out, l + strip, (size_t) (next_line (l) - l) - strip);
    }
}

/* How a completion's core reads.  */
enum core_form
{
  CORE_PYTHON,                  /* Python statements: taken as written */
  CORE_LITERAL,                 /* one string literal: assigned as written */
  CORE_SOURCE                   /* anything else: a bare CUDA/C++ source */
};

/* Whether tokens of M show C++ rather than Python: a C++/CUDA keyword
   used as a name, two names in a row that are not Python keywords
   ("const float", "torch::Tensor x" has "Tensor x"), or "::".  A C++
   source can lex as Python ("#include" reads as a comment), so lexing
   alone does not tell.  */
static bool
reads_as_cpp (const struct dice_pymod *m)
{
  static const char *const cpp_words[] = {
    "__global__", "__device__", "__host__", "__shared__", "template",
    "typename", "namespace", "struct", "void", "auto", "const", "int",
    "float", "double", "unsigned", "static", "inline", "extern"
  };
  static const char *const soft_keywords[] = {
    "match", "case", "type", "_"
  };

  for (size_t i = 0; i < m->ntoks; i++)
    {
      const struct dice_pytok *t = &m->toks[i];

      if (t->kind == DICE_PYTOK_OP && i + 1 < m->ntoks
          && dice_pymod_tok_is (m, i, ":")
          && dice_pymod_tok_is (m, i + 1, ":")
          && m->toks[i + 1].start == t->end)
        return true;
      if (t->kind != DICE_PYTOK_NAME)
        continue;
      for (size_t k = 0; k < DICE_ARRAY_SIZE (cpp_words); k++)
        if (dice_pymod_tok_is (m, i, cpp_words[k]))
          return true;
      if (i + 1 < m->ntoks && m->toks[i + 1].kind == DICE_PYTOK_NAME
          && !dice_pymod_is_keyword (m, i)
          && !dice_pymod_is_keyword (m, i + 1))
        {
          bool soft = false;

          for (size_t k = 0; k < DICE_ARRAY_SIZE (soft_keywords); k++)
            soft = soft || dice_pymod_tok_is (m, i, soft_keywords[k]);
          if (!soft)
            return true;
        }
    }
  return false;
}

static enum core_form
core_form (const char *text, size_t len)
{
  struct dice_pymod m;
  enum core_form form = CORE_SOURCE;

  if (dice_pymod_parse (&m, text, len) != 0)
    {
      if (m.error[0] == '\0')
        dice_die_memory ();
      dice_pymod_free (&m);
      return CORE_SOURCE;
    }
  if (m.nstmts == 0 || reads_as_cpp (&m))
    goto done;
  switch (m.stmts[0].kind)
    {
    case DICE_PYSTMT_ASSIGN:
    case DICE_PYSTMT_ANNASSIGN:
    case DICE_PYSTMT_AUGASSIGN:
    case DICE_PYSTMT_IMPORT:
      form = CORE_PYTHON;
      break;
    case DICE_PYSTMT_OTHER:
      if (m.nstmts == 1
          && m.toks[m.stmts[0].first_tok].kind == DICE_PYTOK_STRING
          && m.toks[m.stmts[0].first_tok + 1].kind == DICE_PYTOK_NEWLINE)
        form = CORE_LITERAL;
      break;
    default:
      break;
    }
done:
  dice_pymod_free (&m);
  return form;
}

/* Append to B a Python string literal whose value is SRC (LEN bytes): a
   raw triple-quoted string with the first quote form SRC does not
   contain, else an escaped one.  SRC's last line is ended so the closing
   quotes stand alone and cannot merge with a quote or backslash in it.  */
static void
add_source_literal (struct xbuf *b, const char *src, size_t len)
{
  bool ends_line = len > 0 && src[len - 1] == '\n';
  const char *quotes = NULL;

  if (!memmem (src, len, "\"\"\"", 3))
    quotes = "\"\"\"";
  else if (!memmem (src, len, "'''", 3))
    quotes = "'''";
  if (quotes)
    {
      xbuf_puts (b, "r");
      xbuf_puts (b, quotes);
      if (len == 0 || src[0] != '\n')
        xbuf_puts (b, "\n");
      xbuf_add (b, src, len);
      if (!ends_line)
        xbuf_puts (b, "\n");
      xbuf_puts (b, quotes);
      return;
    }
  xbuf_puts (b, "\"\"\"\n");
  for (size_t i = 0; i < len; i++)
    {
      if (src[i] == '\\' || src[i] == '"')
        xbuf_add (b, "\\", 1);
      xbuf_add (b, src + i, 1);
    }
  if (!ends_line)
    xbuf_puts (b, "\n");
  xbuf_puts (b, "\"\"\"");
}

/* The object for infill.joined, and *CODE (a new string, or NULL).  */
static json_t *
join_core (const json_t *rec, char **code)
{
  const char *prefix = dice_record_string (rec, "infill.prefix");
  const char *suffix = dice_record_string (rec, "infill.suffix");
  const char *text = dice_record_string (rec, "sample.text");
  const char *split_failed = dice_record_string (rec, "infill.error");
  json_t *names = dice_record_get (rec, "infill.names");
  const char *start;
  size_t len;
  bool block;
  enum core_form form;
  struct xbuf extracted = { NULL, 0, 0 }, core = { NULL, 0, 0 };
  struct xbuf whole = { NULL, 0, 0 };
  json_t *joined;

  *code = NULL;
  if (prefix == NULL || suffix == NULL)
    {
      if (split_failed)
        return split_error ("the module was not split: %s", split_failed);
      return split_error ("no infill.prefix and infill.suffix (the record "
                          "did not go through dice-split)");
    }
  if (text == NULL)
    {
      const char *failed = dice_record_string (rec, "sample.error");

      if (failed)
        return split_error ("no sample.text (sampling failed: %s)", failed);
      return split_error ("no sample.text");
    }
  completion_core (text, names, &extracted, &block);
  start = extracted.data ? extracted.data : "";
  len = extracted.len;
  /* Blank lines around the core are not part of it.  */
  for (size_t blank; (blank = strspn (start, " \t\r")) < len
       && start[blank] == '\n'; )
    {
      start += blank + 1;
      len -= blank + 1;
    }
  while (len > 0 && strchr (" \t\r\n", start[len - 1]) && start[len - 1])
    len--;
  if (len == 0)
    {
      free (extracted.data);
      return split_error ("the completion holds no code");
    }
  form = core_form (start, len);
  if (form != CORE_PYTHON)
    {
      const char *name = json_string_value (json_array_get (names, 0));

      if (json_array_size (names) != 1 || name == NULL)
        {
          free (extracted.data);
          return split_error ("the completion is a bare source, but the "
                              "core assigns %zu variables: only Python "
                              "statements can replace it",
                              json_array_size (names));
        }
      xbuf_puts (&core, name);
      xbuf_puts (&core, " = ");
      if (form == CORE_LITERAL)
        xbuf_add (&core, start, len);
      else
        add_source_literal (&core, start, len);
    }
  else
    xbuf_add (&core, start, len);
  xbuf_puts (&core, "\n");
  xbuf_puts (&whole, prefix);
  xbuf_add (&whole, core.data, core.len);
  xbuf_puts (&whole, suffix);
  joined = json_pack ("{s:s%, s:b, s:b}", "core", core.data, core.len,
                      "block", block, "wrapped", form != CORE_PYTHON);
  free (core.data);
  free (extracted.data);
  if (joined == NULL)
    {
      free (whole.data);
      return split_error ("the completion is not valid UTF-8");
    }
  *code = whole.data;
  return joined;
}

static void
join_record (json_t *rec)
{
  json_t *infill = json_object_get (rec, "infill");
  char *code;
  json_t *joined = join_core (rec, &code);

  if (!json_is_object (infill))
    {
      infill = xcheck (json_object ());
      dice_record_set (rec, "infill", infill);
    }
  if (json_object_set_new (infill, "joined", joined) != 0)
    dice_die_memory ();
  if (code == NULL)
    records_failed++;
  dice_record_set (rec, "code", xcheck (code ? json_string (code)
                                         : json_null ()));
  free (code);
}

static void
write_record (const json_t *rec)
{
  if (dice_jsonl_write (stdout, rec) != 0)
    {
      dice_error_errno (errno, "write error");
      exit (DICE_EXIT_TROUBLE);
    }
  if (dice_opts.unbuffered)
    fflush (stdout);
}

static void
process (const char *path)
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
      records_seen++;
      if (join_mode)
        join_record (rec);
      else
        split_record (rec);
      write_record (rec);
      json_decref (rec);
    }
  dice_jsonl_close (&in);
}

int
main (int argc, char **argv)
{
  int c;

  dice_set_program_name (argv[0]);
  atexit (dice_close_stdout);

  while ((c = getopt_long (argc, argv, "", long_options, NULL)) != -1)
    switch (c)
      {
      case OPT_JOIN:            /* --join */
        join_mode = true;
        break;
      default:
        dice_cli_common_option (c, usage);
      }

  if (optind == argc)
    process ("-");
  for (int i = optind; i < argc; i++)
    process (argv[i]);
  if (records_failed)
    dice_error ("%lu of %lu record%s could not be %s (see %s)",
                records_failed, records_seen, records_seen == 1 ? "" : "s",
                join_mode ? "joined" : "split",
                join_mode ? "infill.joined.error" : "infill.error");
  return exit_status;
}
