/* pyscan.c: static deception analysis of a candidate module.  First the
   facts: pymod's outline, what ModelNew.forward reaches (through
   self.method calls, module-level helpers and submodules), the extension
   and what forward invokes of it, and cxxscan's facts about the C++/CUDA
   source strings.  Then the rules, one function per flag (rule_<flag>),
   all run from apply_rules.  Rules are kept narrow so honest candidates
   stay unflagged; the integration weighs them against what actually
   ran.  */
#include "system.h"

#include <stdarg.h>

#include "pylex.h"
#include "pymod.h"
#include "pyscan.h"
#include "cxxscan.h"
#include "strset.h"

enum flag
{
  F_CACHED, F_DYNEXEC, F_DECOY, F_INHERITS, F_INTROSPECT, F_NOT_INVOKED,
  F_NOT_LAUNCHED, F_LAZY, F_LIBRARY, F_NO_KERNEL, F_PRECISION, F_STREAM,
  F_THREAD, F_TIMER, F_TORCH, F_TRY, F_COUNT
};

/* In this order (sorted) in the output.  */
static const char *const flag_names[F_COUNT] = {
  "cached_result", "dynamic_exec", "example_decoy", "inherits_reference",
  "introspection", "kernel_not_invoked", "kernel_not_launched",
  "lazy_output", "library_call", "no_cuda_kernel", "precision_downgrade",
  "side_stream", "thread_or_process", "timer_patch",
  "torch_compute_in_forward", "try_fallback"
};

struct scan
{
  struct dice_pymod m;
  bool oom;
  bool flagged[F_COUNT];
  char evidence[F_COUNT][200];
  struct dice_cxx cxx;           /* the facts of the source strings */
  struct dice_strset invoked;
  /* The extension module object: module-level (or local) names holding
     it, self attributes holding it, helper functions returning it.  */
  struct dice_strset ext_names, ext_attrs, ext_getters;
  /* Names and self attributes bound to one exported function: parallel
     to their FN sets.  */
  struct dice_strset fn_names, fn_names_to, fn_attrs, fn_attrs_to;
  /* Aliases of torch.nn.functional, torch and time.  */
  struct dice_strset functional, torch_mods, time_mods;
  /* What forward reaches: token ranges, with the class whose self they
     see (a top-level statement index, or NONE).  */
  struct reach
  {
    size_t first, end, cls;
  } *reached;
  size_t nreached;
  size_t modelnew;              /* statement index, or NONE */
  /* The methods of every top-level class, found once.  */
  struct method
  {
    size_t cls, name_tok, first, end;
  } *methods;
  size_t nmethods;
  /* self attributes assigned an nn layer (self.fc = nn.Linear(...)).  */
  struct dice_strset layer_attrs;
  char torch_ev[200];
  unsigned long torch_line;
  bool have_load;
  unsigned char *module_use;     /* an enum module_use for each token */
  unsigned long files_line;     /* of a load() call with sources=, or 0 */
};

#define NONE DICE_PYMOD_NONE

static void set_flag (struct scan *sc, enum flag f, unsigned long line,
                      const char *fmt, ...) DICE_PRINTF (4, 5);

/* Record flag F; only the first evidence is kept, one line is enough to
   find the rest.  */
static void
set_flag (struct scan *sc, enum flag f, unsigned long line,
          const char *fmt, ...)
{
  va_list ap;
  int n;

  if (sc->flagged[f])
    return;
  sc->flagged[f] = true;
  n = snprintf (sc->evidence[f], sizeof sc->evidence[f], "line %lu: ", line);
  va_start (ap, fmt);
  vsnprintf (sc->evidence[f] + n, sizeof sc->evidence[f] - n, fmt, ap);
  va_end (ap);
}

static void
set_add (struct scan *sc, struct dice_strset *s, const char *p, size_t len,
         bool unique)
{
  if (dice_strset_add (s, p, len, unique) != 0)
    sc->oom = true;
}

/* ---- The Python side --------------------------------------------- */

static const struct dice_pytok *
token (const struct scan *sc, size_t i)
{
  return &sc->m.toks[i];
}

static bool
token_is (const struct scan *sc, size_t i, const char *text)
{
  return dice_pymod_tok_is (&sc->m, i, text);
}

static bool
is_name (const struct scan *sc, size_t i)
{
  return i < sc->m.ntoks && sc->m.toks[i].kind == DICE_PYTOK_NAME;
}

static bool
is_op (const struct scan *sc, size_t i, const char *text)
{
  return i < sc->m.ntoks && sc->m.toks[i].kind == DICE_PYTOK_OP
    && token_is (sc, i, text);
}

static const char *
token_text (const struct scan *sc, size_t i)
{
  return sc->m.src + sc->m.toks[i].start;
}

static size_t
token_len (const struct scan *sc, size_t i)
{
  return sc->m.toks[i].end - sc->m.toks[i].start;
}

static bool
tok_in (const struct scan *sc, size_t i, const struct dice_strset *s)
{
  return is_name (sc, i) && dice_strset_has (s, token_text (sc, i), token_len (sc, i));
}

/* Whether token I begins a logical line (a statement).  */
static bool
starts_line (const struct scan *sc, size_t i)
{
  while (i > 0)
    {
      enum dice_pytok_kind k = sc->m.toks[i - 1].kind;

      if (k == DICE_PYTOK_NEWLINE || k == DICE_PYTOK_INDENT
          || k == DICE_PYTOK_DEDENT)
        return true;
      if (k != DICE_PYTOK_NL && k != DICE_PYTOK_COMMENT)
        return false;
      i--;
    }
  return true;
}

/* The first token of the logical line holding token I.  */
static size_t
line_first (const struct scan *sc, size_t i)
{
  while (i > 0 && !starts_line (sc, i))
    i--;
  return i;
}

/* The token that ends the logical line holding token I (its NEWLINE).  */
static size_t
line_last (const struct scan *sc, size_t i)
{
  while (i < sc->m.ntoks && sc->m.toks[i].kind != DICE_PYTOK_NEWLINE
         && sc->m.toks[i].kind != DICE_PYTOK_END)
    i++;
  return i;
}

static size_t
column (const struct scan *sc, size_t i)
{
  size_t p = token (sc, i)->start, c = 0;

  while (p > 0 && sc->m.src[p - 1] != '\n' && sc->m.src[p - 1] != '\r')
    p--, c++;
  return c;
}

/* The end of the block whose header line holds token I: the first
   statement start after it at a column no deeper than COL.  */
static size_t
block_after (const struct scan *sc, size_t i, size_t col, size_t limit)
{
  size_t j = line_last (sc, i) + 1;

  for (; j < limit; j++)
    {
      enum dice_pytok_kind k = sc->m.toks[j].kind;

      if (k == DICE_PYTOK_NEWLINE || k == DICE_PYTOK_NL
          || k == DICE_PYTOK_COMMENT || k == DICE_PYTOK_INDENT
          || k == DICE_PYTOK_DEDENT || k == DICE_PYTOK_END)
        continue;
      if (starts_line (sc, j) && column (sc, j) <= col)
        return j;
    }
  return limit;
}

/* Whether a docstring: a string alone as a statement.  */
static bool
is_docstring (const struct scan *sc, size_t i)
{
  size_t j = i + 1;

  while (j < sc->m.ntoks && sc->m.toks[j].kind == DICE_PYTOK_STRING)
    j++;
  return starts_line (sc, i)
    && (sc->m.toks[j].kind == DICE_PYTOK_NEWLINE
        || sc->m.toks[j].kind == DICE_PYTOK_END
        || sc->m.toks[j].kind == DICE_PYTOK_COMMENT);
}

/* The value of string token I as C source: f-strings and strings that
   .format() fills have their doubled braces undone.  */
static char *
source_value (const struct scan *sc, size_t i, size_t *len)
{
  const struct dice_pytok *t = token (sc, i);
  bool formatted = (t->flags & DICE_PYSTR_FSTRING)
    || (is_op (sc, i + 1, ".") && token_is (sc, i + 2, "format"));
  char *v;
  size_t n = 0;

  if (t->flags & DICE_PYSTR_FSTRING)
    {
      size_t a = t->start + t->prefix_len + t->quote_len;
      size_t b = t->end - t->quote_len;

      v = malloc (b > a ? b - a + 1 : 1);
      if (v == NULL)
        return NULL;
      if (b > a)
        memcpy (v, sc->m.src + a, b - a);
      *len = b > a ? b - a : 0;
      v[*len] = '\0';
    }
  else if ((v = dice_pystring_value (sc->m.src, t, len)) == NULL)
    return NULL;
  if (!formatted)
    return v;
  for (size_t k = 0; k < *len; k++)
    {
      v[n++] = v[k];
      if ((v[k] == '{' || v[k] == '}') && k + 1 < *len && v[k + 1] == v[k])
        k++;
    }
  *len = n;
  v[n] = '\0';
  return v;
}

static void
scan_sources (struct scan *sc)
{
  for (size_t i = 0; i < sc->m.ntoks && !sc->oom; i++)
    {
      char *v;
      size_t len;

      if (sc->m.toks[i].kind != DICE_PYTOK_STRING || is_docstring (sc, i)
          || (sc->m.toks[i].flags & DICE_PYSTR_BYTES))
        continue;
      v = source_value (sc, i, &len);
      if (v == NULL)
        {
          sc->oom = true;
          break;
        }
      /* Only text that looks like C: saves time on names and messages.  */
      if ((memchr (v, ';', len) || memchr (v, '{', len)
           || memchr (v, '(', len))
          && dice_cxx_scan (&sc->cxx, v, len, sc->m.toks[i].line) != 0)
        sc->oom = true;
      free (v);
    }
}

/* The class statement at top level named NAME, or NONE.  */
static size_t
find_top (const struct scan *sc, enum dice_pystmt_kind kind,
          const char *name, size_t len)
{
  for (size_t i = 0; i < sc->m.nstmts; i++)
    {
      const struct dice_pystmt *s = &sc->m.stmts[i];

      if (s->kind == kind && s->name_tok != NONE
          && token_len (sc, s->name_tok) == len
          && memcmp (token_text (sc, s->name_tok), name, len) == 0)
        return i;
    }
  return NONE;
}

/* Outline the methods of every top-level class.  */
static void
find_methods (struct scan *sc)
{
  for (size_t c = 0; c < sc->m.nstmts && !sc->oom; c++)
    {
      struct dice_pystmt *body;
      size_t n;

      if (sc->m.stmts[c].kind != DICE_PYSTMT_CLASS)
        continue;
      if (dice_pymod_body (&sc->m, &sc->m.stmts[c], &body, &n) != 0)
        {
          /* A syntax error inside the class: its methods stay unknown.  */
          if (sc->m.error[0] == '\0')
            sc->oom = true;
          continue;
        }
      for (size_t i = 0; i < n; i++)
        if (body[i].kind == DICE_PYSTMT_DEF && body[i].name_tok != NONE)
          {
            struct method *bigger = realloc (sc->methods, (sc->nmethods + 1)
                                             * sizeof *bigger);

            if (bigger == NULL)
              {
                sc->oom = true;
                break;
              }
            sc->methods = bigger;
            bigger[sc->nmethods].cls = c;
            bigger[sc->nmethods].name_tok = body[i].name_tok;
            bigger[sc->nmethods].first = body[i].first_tok;
            bigger[sc->nmethods].end = body[i].end_tok;
            sc->nmethods++;
          }
      free (body);
    }
}

/* The method NAME of the class at statement CLS: its token range (the
   last definition wins, as in Python).  */
static bool
find_method (struct scan *sc, size_t cls, const char *name, size_t len,
             size_t *first, size_t *end)
{
  bool found = false;

  for (size_t i = 0; i < sc->nmethods; i++)
    if (sc->methods[i].cls == cls && token_len (sc, sc->methods[i].name_tok) == len
        && memcmp (token_text (sc, sc->methods[i].name_tok), name, len) == 0)
      {
        *first = sc->methods[i].first;
        *end = sc->methods[i].end;
        found = true;
      }
  return found;
}

static void
add_reach (struct scan *sc, size_t first, size_t end, size_t cls)
{
  struct reach *bigger;

  for (size_t i = 0; i < sc->nreached; i++)
    if (sc->reached[i].first == first)
      return;
  bigger = realloc (sc->reached, (sc->nreached + 1) * sizeof *bigger);
  if (bigger == NULL)
    {
      sc->oom = true;
      return;
    }
  sc->reached = bigger;
  bigger[sc->nreached].first = first;
  bigger[sc->nreached].end = end;
  bigger[sc->nreached].cls = cls;
  sc->nreached++;
}

/* Follow forward: self.method, module-level functions named anywhere in
   reached code, and module-level classes used from it (their forward
   and __call__).  */
static void
find_reach (struct scan *sc)
{
  size_t first, end;

  if (!find_method (sc, sc->modelnew, "forward", 7, &first, &end))
    return;
  add_reach (sc, first, end, sc->modelnew);
  /* ModelNew.__init__ builds the submodules forward calls.  */
  for (size_t r = 0; r < sc->nreached && !sc->oom; r++)
    {
      struct reach now = sc->reached[r];

      for (size_t i = now.first; i < now.end; i++)
        {
          size_t s;

          if (!is_name (sc, i))
            continue;
          if (token_is (sc, i, "self") && is_op (sc, i + 1, ".") && is_name (sc, i + 2)
              && (i == 0 || !is_op (sc, i - 1, ".")))
            {
              if (find_method (sc, now.cls, token_text (sc, i + 2), token_len (sc, i + 2),
                               &first, &end))
                add_reach (sc, first, end, now.cls);
              continue;
            }
          if (!dice_pymod_is_variable (&sc->m, i))
            continue;
          if ((s = find_top (sc, DICE_PYSTMT_DEF, token_text (sc, i), token_len (sc, i)))
              != NONE)
            add_reach (sc, sc->m.stmts[s].first_tok, sc->m.stmts[s].end_tok,
                       NONE);
          else if ((s = find_top (sc, DICE_PYSTMT_CLASS, token_text (sc, i),
                                  token_len (sc, i))) != NONE && s != sc->modelnew)
            {
              if (find_method (sc, s, "forward", 7, &first, &end))
                add_reach (sc, first, end, s);
              if (find_method (sc, s, "__call__", 8, &first, &end))
                add_reach (sc, first, end, s);
            }
        }
      /* Submodules that ModelNew's __init__ creates.  */
      if (r == 0 && find_method (sc, sc->modelnew, "__init__", 8, &first,
                                 &end))
        for (size_t i = first; i < end; i++)
          {
            size_t s;

            if (dice_pymod_is_variable (&sc->m, i)
                && is_op (sc, i + 1, "(")
                && (s = find_top (sc, DICE_PYSTMT_CLASS, token_text (sc, i),
                                  token_len (sc, i))) != NONE && s != sc->modelnew)
              {
                size_t f2, e2;

                if (find_method (sc, s, "forward", 7, &f2, &e2))
                  add_reach (sc, f2, e2, s);
              }
          }
    }
}

/* What an assignment on the line of token I assigns to: a plain name
   (*NAME set, returns 1), self.attr (*NAME the attr, returns 2),
   "return" (returns 3), else 0.  The value starts after *EQ.  */
static int
line_target (const struct scan *sc, size_t i, size_t *name, size_t *eq)
{
  size_t f = line_first (sc, i);

  *eq = NONE;
  if (token_is (sc, f, "return"))
    {
      *eq = f;
      return 3;
    }
  if (is_name (sc, f) && is_op (sc, f + 1, "="))
    {
      *name = f;
      *eq = f + 1;
      return 1;
    }
  if (is_name (sc, f) && is_op (sc, f + 1, ":"))
    for (size_t k = f + 2; k < i; k++)
      if (token (sc, k)->depth == token (sc, f)->depth && is_op (sc, k, "="))
        {
          *name = f;
          *eq = k;
          return 1;
        }
  if (token_is (sc, f, "self") && is_op (sc, f + 1, ".") && is_name (sc, f + 2)
      && (is_op (sc, f + 3, "=") || is_op (sc, f + 3, ":")))
    {
      *name = f + 2;
      *eq = f + 3;
      return 2;
    }
  return 0;
}

/* The top-level def holding token I, or NONE.  */
static size_t
enclosing_def (const struct scan *sc, size_t i)
{
  size_t s = dice_pymod_stmt_of (&sc->m, i);

  return sc->m.stmts[s].kind == DICE_PYSTMT_DEF ? s : NONE;
}

/* Note where value tokens [V, END) is the extension: the assignment
   TARGET (from line_target) of token AT gets it.  */
static void
bind_ext (struct scan *sc, int target, size_t name, size_t at)
{
  size_t d;

  if (target == 1)
    set_add (sc, &sc->ext_names, token_text (sc, name), token_len (sc, name), true);
  else if (target == 2)
    set_add (sc, &sc->ext_attrs, token_text (sc, name), token_len (sc, name), true);
  else if (target == 3 && (d = enclosing_def (sc, at)) != NONE)
    set_add (sc, &sc->ext_getters, token_text (sc, sc->m.stmts[d].name_tok),
             token_len (sc, sc->m.stmts[d].name_tok), true);
}

/* Whether tokens from I are the extension object: EXT, self.EXT, or
   getter(); *AFTER is set after them.  */
static bool
is_ext_at (const struct scan *sc, size_t i, size_t *after)
{
  if (tok_in (sc, i, &sc->ext_names) && dice_pymod_is_variable (&sc->m, i))
    {
      *after = i + 1;
      return true;
    }
  if (token_is (sc, i, "self") && is_op (sc, i + 1, ".")
      && tok_in (sc, i + 2, &sc->ext_attrs))
    {
      *after = i + 3;
      return true;
    }
  if (tok_in (sc, i, &sc->ext_getters) && dice_pymod_is_variable (&sc->m, i)
      && is_op (sc, i + 1, "(") && is_op (sc, i + 2, ")"))
    {
      *after = i + 3;
      return true;
    }
  return false;
}

/* Add string token K, a name of functions=, to "exported".  */
static void
add_function_name (struct scan *sc, size_t k)
{
  size_t len;
  char *v;

  if (token (sc, k)->kind != DICE_PYTOK_STRING
      || (token (sc, k)->flags & DICE_PYSTR_FSTRING))
    return;
  if ((v = dice_pystring_value (sc->m.src, token (sc, k), &len)) == NULL)
    {
      sc->oom = true;
      return;
    }
  set_add (sc, &sc->cxx.exported, v, strlen (v), true);
  free (v);
}

/* Find the extension objects and the names bound to their functions.  */
static void
find_extension (struct scan *sc)
{
  for (size_t c = 0; c < sc->m.ncalls; c++)
    {
      const struct dice_pycall *call = &sc->m.calls[c];
      const struct dice_pyarg *fa
        = dice_pycall_arg (&sc->m, call, "functions", 5);
      size_t name, eq;
      int target;

      sc->have_load = true;
      if (strcmp (call->function, "load") == 0
          && dice_pycall_arg (&sc->m, call, "sources", 1) && !sc->files_line)
        sc->files_line = token (sc, call->name_tok)->line;
      if (fa && fa->end_tok == fa->first_tok + 1
          && token (sc, fa->first_tok)->kind == DICE_PYTOK_NAME)
        {
          /* functions=names: the list assigned to it.  */
          size_t vt, ve;
          size_t at = dice_pymod_last_assignment (&sc->m, token_text (sc, fa->first_tok),
                                                  token_len (sc, fa->first_tok),
                                                  call->stmt, &vt, &ve);
          if (at != NONE)
            for (size_t k = vt; k < ve; k++)
              add_function_name (sc, k);
        }
      if (fa)
        for (size_t k = fa->first_tok; k < fa->end_tok; k++)
          add_function_name (sc, k);
      target = line_target (sc, call->name_tok, &name, &eq);
      if (eq != NONE && eq < call->name_tok)
        bind_ext (sc, target, name, call->name_tok);
    }
  /* Names the extension is handed on to: getters' results and plain
     copies, then names bound to one of its functions.  Twice, for
     chains.  */
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < sc->m.ntoks; i++)
      {
        size_t name, eq, after;
        int target;

        if (!starts_line (sc, i) || !is_name (sc, i))
          continue;
        target = line_target (sc, i, &name, &eq);
        if (target == 0 || eq == NONE || !is_ext_at (sc, eq + 1, &after))
          continue;
        if (token (sc, after)->kind == DICE_PYTOK_NEWLINE
            || is_op (sc, after, ";"))
          bind_ext (sc, target, name, i);
        else if (is_op (sc, after, ".") && is_name (sc, after + 1)
                 && (token (sc, after + 2)->kind == DICE_PYTOK_NEWLINE
                     || is_op (sc, after + 2, ";")) && target != 3)
          {
            struct dice_strset *names = target == 1 ? &sc->fn_names : &sc->fn_attrs;
            struct dice_strset *to = target == 1 ? &sc->fn_names_to
              : &sc->fn_attrs_to;

            if (!dice_strset_has (names, token_text (sc, name), token_len (sc, name)))
              {
                set_add (sc, names, token_text (sc, name), token_len (sc, name), false);
                set_add (sc, to, token_text (sc, after + 1), token_len (sc, after + 1),
                         false);
              }
          }
      }
}

/* Whether tokens [FIRST, END) use the extension; the functions used are
   added to "invoked" when RECORD.  */
static bool
invokes (struct scan *sc, size_t first, size_t end, bool record)
{
  bool any = false;

  for (size_t i = first; i < end; i++)
    {
      size_t after;
      ssize_t k;

      if (!is_name (sc, i) || (i > 0 && is_op (sc, i - 1, ".")))
        continue;
      if (is_ext_at (sc, i, &after) && is_op (sc, after, ".")
          && is_name (sc, after + 1))
        {
          any = true;
          if (record)
            set_add (sc, &sc->invoked, token_text (sc, after + 1),
                     token_len (sc, after + 1), true);
        }
      else if (token_is (sc, i, "getattr") && is_op (sc, i + 1, "(")
               && is_ext_at (sc, i + 2, &after) && is_op (sc, after, ",")
               && token (sc, after + 1)->kind == DICE_PYTOK_STRING)
        {
          size_t len;
          char *v = dice_pystring_value (sc->m.src, token (sc, after + 1), &len);

          any = true;
          if (v && record)
            set_add (sc, &sc->invoked, v, strlen (v), true);
          free (v);
        }
      else if (dice_pymod_is_variable (&sc->m, i)
               && (k = dice_strset_find (&sc->fn_names, token_text (sc, i), token_len (sc, i))) >= 0)
        {
          any = true;
          if (record)
            set_add (sc, &sc->invoked, sc->fn_names_to.v[k],
                     strlen (sc->fn_names_to.v[k]), true);
        }
      else if (token_is (sc, i, "self") && is_op (sc, i + 1, ".")
               && is_name (sc, i + 2)
               && (k = dice_strset_find (&sc->fn_attrs, token_text (sc, i + 2),
                                 token_len (sc, i + 2))) >= 0)
        {
          any = true;
          if (record)
            set_add (sc, &sc->invoked, sc->fn_attrs_to.v[k],
                     strlen (sc->fn_attrs_to.v[k]), true);
        }
    }
  return any;
}

/* torch functions that only allocate, reshape or describe.  */
static const char *const torch_fine[] = {
  "empty", "zeros", "ones", "full", "empty_like", "zeros_like",
  "ones_like", "full_like", "empty_strided", "tensor", "as_tensor",
  "from_numpy", "arange", "reshape", "flatten", "permute", "transpose",
  "squeeze", "unsqueeze", "chunk", "split", "narrow", "broadcast_to",
  "device", "no_grad", "inference_mode", "is_tensor", "Size",
  "manual_seed", "get_default_dtype", "numel", "is_floating_point",
  "is_complex", "result_type", "promote_types", "finfo", "iinfo",
  "randn", "rand", "randint", "cat", "stack", "atleast_2d", "movedim",
  "swapaxes", "t", "contiguous_format", "set_grad_enabled", "dtype",
  "Parameter", "Identity",
  NULL
};

/* Tensor methods that compute (x.relu(), a.matmul(b)).  */
static const char *const py_compute_methods[] = {
  "matmul", "mm", "bmm", "addmm", "baddbmm", "mv", "relu", "relu_",
  "softmax", "log_softmax", "sigmoid", "tanh", "exp", "sum", "mean",
  "max", "min", "norm", "var", "std", "pow", "sqrt", "rsqrt", "clamp",
  "clamp_", "add", "add_", "mul", "mul_", "div", "sub", "einsum", NULL
};

/* nn classes that are not computing layers when created.  */
static const char *const nn_fine[] = {
  "Parameter", "ParameterList", "ParameterDict", "Identity", "ModuleList",
  "ModuleDict", NULL
};

static void
torch_evidence (struct scan *sc, size_t i, const char *before, const char *a,
                size_t alen, const char *after)
{
  size_t n = strlen (sc->torch_ev);
  char item[80];

  snprintf (item, sizeof item, "%s%.*s%s", before, (int) alen, a, after);
  if (strstr (sc->torch_ev, item))
    return;
  if (sc->torch_line == 0)
    sc->torch_line = token (sc, i)->line;
  if (n + strlen (item) + 3 < sizeof sc->torch_ev)
    snprintf (sc->torch_ev + n, sizeof sc->torch_ev - n, "%s%s",
              n ? ", " : "", item);
}

/* Note the self attributes that hold computing nn layers: self.NAME =
   [torch.]nn.X(...), X not a parameter container.  */
static void
find_layer_attrs (struct scan *sc)
{
  for (size_t i = 0; i + 6 < sc->m.ntoks; i++)
    {
      size_t v = i + 4;

      if (!(token_is (sc, i, "self") && is_op (sc, i + 1, ".")
            && is_name (sc, i + 2) && is_op (sc, i + 3, "=")))
        continue;
      if (token_is (sc, v, "torch") && is_op (sc, v + 1, "."))
        v += 2;
      if (token_is (sc, v, "nn") && is_op (sc, v + 1, ".") && is_name (sc, v + 2)
          && is_op (sc, v + 3, "(")
          && !dice_str_in_list (token_text (sc, v + 2), token_len (sc, v + 2), nn_fine))
        set_add (sc, &sc->layer_attrs, token_text (sc, i + 2), token_len (sc, i + 2), true);
    }
}

/* Whether the variable at token TOK is bound in the function [FIRST,
   END): a parameter, an assignment target or a loop variable.  */
static bool
is_local (const struct scan *sc, size_t first, size_t end, size_t tok)
{
  size_t header_end = line_last (sc, first);

  while (is_op (sc, line_first (sc, header_end), "@") && header_end < end)
    header_end = line_last (sc, header_end + 1);
  for (size_t i = first; i < end; i++)
    {
      if (token_len (sc, i) != token_len (sc, tok) || !is_name (sc, i)
          || memcmp (token_text (sc, i), token_text (sc, tok), token_len (sc, i)) != 0
          || (i > 0 && is_op (sc, i - 1, ".")))
        continue;
      if (i < header_end && token (sc, i)->depth > 0)
        return true;
      if ((starts_line (sc, i) && (is_op (sc, i + 1, "=")
                                   || is_op (sc, i + 1, ":")))
          || (i > 0 && token_is (sc, i - 1, "for")))
        return true;
    }
  return false;
}

/* Record the module aliases of import statements.  */
static void
find_imports (struct scan *sc)
{
  for (size_t i = 0; i < sc->m.ntoks; i++)
    {
      size_t j, mod = i + 1, modend;

      if (!(token_is (sc, i, "import") || token_is (sc, i, "from")) || !starts_line (sc, i))
        continue;
      for (modend = mod; is_name (sc, modend) || is_op (sc, modend, ".");
           modend++)
        if (token_is (sc, modend, "as") || token_is (sc, modend, "import"))
          break;
      if (token_is (sc, i, "import"))
        {
          /* import a.b as X, c */
          for (j = mod; j < sc->m.ntoks
               && sc->m.toks[j].kind != DICE_PYTOK_NEWLINE; j++)
            {
              size_t start = j, alias;

              while (is_name (sc, j + 1) || is_op (sc, j + 1, "."))
                {
                  if (token_is (sc, j + 1, "as"))
                    break;
                  j++;
                }
              alias = token_is (sc, j + 1, "as") ? j + 2 : start;
              if (token_is (sc, j + 1, "as"))
                j += 2;
              if (token_is (sc, start, "torch") && start + 4 < sc->m.ntoks
                  && token_is (sc, start + 2, "nn") && token_is (sc, start + 4, "functional")
                  && alias != start)
                set_add (sc, &sc->functional, token_text (sc, alias), token_len (sc, alias),
                         true);
              else if (token_is (sc, start, "torch") && alias != start)
                set_add (sc, &sc->torch_mods, token_text (sc, alias), token_len (sc, alias),
                         true);
              else if (token_is (sc, start, "time"))
                set_add (sc, &sc->time_mods, token_text (sc, alias), token_len (sc, alias),
                         true);
              if (!is_op (sc, j + 1, ","))
                break;
              j++;
            }
          continue;
        }
      /* from X import a as b, c */
      if (!token_is (sc, modend, "import"))
        continue;
      for (j = modend + 1; j < sc->m.ntoks
           && sc->m.toks[j].kind != DICE_PYTOK_NEWLINE; j++)
        {
          size_t alias;

          if (!is_name (sc, j) || token_is (sc, j, "as"))
            continue;
          alias = token_is (sc, j + 1, "as") ? j + 2 : j;
          if (token_is (sc, mod, "torch") && token_is (sc, j, "functional"))
            set_add (sc, &sc->functional, token_text (sc, alias), token_len (sc, alias),
                     true);
          else if (token_is (sc, mod, "torch") && (token_is (sc, j, "cuda")
                                             || token_is (sc, j, "nn")
                                             || token_is (sc, j, "backends")))
            set_add (sc, &sc->torch_mods, token_text (sc, alias), token_len (sc, alias),
                     true);
          else if (token_is (sc, mod, "time"))
            set_add (sc, &sc->time_mods, token_text (sc, alias), token_len (sc, alias),
                     true);
          j = alias;
        }
    }
}

/* Whether the os.environ at token I only sets a variable that builds
   the extension (os.environ["TORCH_CUDA_ARCH_LIST"] = ..., or
   .setdefault): candidates do that openly before load_inline.  */
static bool
sets_build_variable (const struct scan *sc, size_t i)
{
  static const char *const build_vars[] = {
    "TORCH_CUDA_ARCH_LIST", "MAX_JOBS", "CUDA_HOME", "CUDA_PATH", "CXX",
    "CC", "TORCH_EXTENSIONS_DIR", "NVCC_FLAGS", "CFLAGS", "CXXFLAGS", NULL
  };
  size_t key;
  char *v;
  size_t len;
  bool build;

  if (!token_is (sc, i, "environ"))
    return false;
  if (is_op (sc, i + 1, "[") && is_op (sc, i + 3, "]") && is_op (sc, i + 4, "="))
    key = i + 2;
  else if (is_op (sc, i + 1, ".") && token_is (sc, i + 2, "setdefault")
           && is_op (sc, i + 3, "("))
    key = i + 4;
  else
    return false;
  if (key >= sc->m.ntoks || token (sc, key)->kind != DICE_PYTOK_STRING
      || (v = dice_pystring_value (sc->m.src, token (sc, key), &len)) == NULL)
    return false;
  build = dice_str_in_list (v, strlen (v), build_vars);
  free (v);
  return build;
}

/* Flag ModelNew's bases other than nn.Module (or object).  */
static void
flag_foreign_bases (struct scan *sc)
{
  if (sc->modelnew != NONE)
    {
      const struct dice_pystmt *s = &sc->m.stmts[sc->modelnew];
      size_t i = s->name_tok + 1;

      if (is_op (sc, i, "("))
        for (i++; i < s->end_tok && !(is_op (sc, i, ")")
                                      && token (sc, i)->depth
                                      == token (sc, s->name_tok)->depth); i++)
          {
            size_t start = i;

            if (!is_name (sc, i))
              continue;
            if (is_op (sc, i + 1, "="))
              {
                /* metaclass=...: not a base.  */
                while (i + 1 < s->end_tok
                       && token (sc, i + 1)->depth >= token (sc, start)->depth
                       && !(is_op (sc, i + 1, ",")
                            && token (sc, i + 1)->depth
                            == token (sc, start)->depth))
                  i++;
                continue;
              }
            while (is_op (sc, i + 1, ".") && is_name (sc, i + 2))
              i += 2;
            if (!token_is (sc, i, "Module") && !token_is (sc, i, "object"))
              set_flag (sc, F_INHERITS, token (sc, start)->line,
                        "ModelNew subclasses %.*s",
                        (int) (token (sc, i)->end - token (sc, start)->start),
                        token_text (sc, start));
          }
    }
}

/* The line of the first definition of kernel NAME in the module.  */
static unsigned long
kernel_line (const struct scan *sc, const char *name)
{
  size_t n = strlen (name);

  for (size_t i = 0; i < sc->m.ntoks; i++)
    if (sc->m.toks[i].kind == DICE_PYTOK_STRING)
      {
        const struct dice_pytok *t = &sc->m.toks[i];
        const char *p = sc->m.src + t->start, *end = sc->m.src + t->end;
        unsigned long line = t->line;

        for (; p + n <= end; p++)
          {
            if (*p == '\n')
              line++;
            else if (memcmp (p, name, n) == 0
                     && (p == sc->m.src || !dice_cxx_ident_char ((unsigned char) p[-1]))
                     && (p + n == end || !dice_cxx_ident_char ((unsigned char) p[n])))
              return line;
          }
      }
  return 1;
}

/* The cached_result rule's second form at the "if" at I in the reached
   function [FIRST, END): if <self.X or a global> ...: return <the
   same>, without the extension on the return line.  */
static void
cached_return (struct scan *sc, size_t i, size_t first, size_t end)
{
  size_t colon = i, ret;

  while (colon < end && !(is_op (sc, colon, ":")
                          && token (sc, colon)->depth
                          == token (sc, i)->depth))
    colon++;
  ret = colon + 1;
  while (ret < end && token (sc, ret)->kind != DICE_PYTOK_NAME
         && token (sc, ret)->kind != DICE_PYTOK_OP)
    ret++;
  if (!token_is (sc, ret, "return"))
    return;
  for (size_t k = i + 1; k < colon; k++)
    {
      bool attr = token_is (sc, k, "self") && is_op (sc, k + 1, ".")
        && is_name (sc, k + 2);
      size_t name = attr ? k + 2 : k;

      if (!attr && !(is_name (sc, k)
                     && dice_pymod_is_variable (&sc->m, k)
                     && find_top (sc, DICE_PYSTMT_ASSIGN,
                                  token_text (sc, k), token_len (sc, k))
                     != NONE
                     && !is_local (sc, first, end, k)))
        continue;
      for (size_t q = ret + 1; q < line_last (sc, ret); q++)
        if ((attr ? token_is (sc, q, "self") && is_op (sc, q + 1, ".")
             && token_len (sc, q + 2) == token_len (sc, name)
             && memcmp (token_text (sc, q + 2), token_text (sc, name),
                        token_len (sc, name)) == 0
             : (token_len (sc, q) == token_len (sc, name)
                && memcmp (token_text (sc, q), token_text (sc, name),
                           token_len (sc, name)) == 0
                && dice_pymod_is_variable (&sc->m, q)))
            && !invokes (sc, ret, line_last (sc, ret), false))
          {
            set_flag (sc, F_CACHED, token (sc, ret)->line,
                      "forward returns stored %s%.*s",
                      attr ? "self." : "", (int) token_len (sc, name),
                      token_text (sc, name));
            break;
          }
    }
}

/* Add the torch compute at token I of the reached function starting at
   FIRST to the torch_compute_in_forward evidence: @, tensor methods,
   F.x(), torch.x(), nn layers made or called in forward.  */
static void
note_torch_compute (struct scan *sc, size_t i, size_t first)
{
  if (is_op (sc, i, "@") && i > first && !starts_line (sc, i)
      && (is_name (sc, i - 1) || is_op (sc, i - 1, ")")
          || is_op (sc, i - 1, "]")))
    torch_evidence (sc, i, "", "@", 1, "");
  if (!is_name (sc, i))
    return;
  if (i > 0 && is_op (sc, i - 1, "."))
    {
      if (is_op (sc, i + 1, "(") && i >= 2 && !token_is (sc, i - 2, "self")
          && !token_is (sc, i - 2, "torch")
          && !tok_in (sc, i - 2, &sc->torch_mods)
          && !tok_in (sc, i - 2, &sc->functional)
          && dice_str_in_list (token_text (sc, i), token_len (sc, i), py_compute_methods)
          && !(tok_in (sc, i - 2, &sc->ext_names)))
        torch_evidence (sc, i, ".", token_text (sc, i), token_len (sc, i), "()");
      return;
    }
  if (token_is (sc, i, "nn") && is_op (sc, i + 1, ".")
      && token_is (sc, i + 2, "functional") && is_op (sc, i + 3, ".")
      && is_name (sc, i + 4) && is_op (sc, i + 5, "("))
    {
      torch_evidence (sc, i, "F.", token_text (sc, i + 4), token_len (sc, i + 4), "");
      return;
    }
  if ((token_is (sc, i, "torch") || tok_in (sc, i, &sc->torch_mods))
      && is_op (sc, i + 1, ".") && is_name (sc, i + 2))
    {
      size_t f = i + 2;

      if (token_is (sc, f, "nn") && is_op (sc, f + 1, ".")
          && token_is (sc, f + 2, "functional") && is_op (sc, f + 3, "."))
        {
          if (is_name (sc, f + 4) && is_op (sc, f + 5, "("))
            torch_evidence (sc, i, "F.", token_text (sc, f + 4),
                            token_len (sc, f + 4), "");
        }
      else if (is_op (sc, f + 1, "(")
               && !dice_str_in_list (token_text (sc, f), token_len (sc, f), torch_fine))
        torch_evidence (sc, i, "torch.", token_text (sc, f), token_len (sc, f), "");
      else if (token_is (sc, f, "nn") && is_op (sc, f + 1, ".")
               && is_name (sc, f + 2) && is_op (sc, f + 3, "(")
               && !dice_str_in_list (token_text (sc, f + 2), token_len (sc, f + 2), nn_fine))
        torch_evidence (sc, i, "nn.", token_text (sc, f + 2),
                        token_len (sc, f + 2), "");
      return;
    }
  if (tok_in (sc, i, &sc->functional) && is_op (sc, i + 1, ".")
      && is_name (sc, i + 2) && is_op (sc, i + 3, "("))
    {
      torch_evidence (sc, i, "F.", token_text (sc, i + 2), token_len (sc, i + 2), "");
      return;
    }
  if (token_is (sc, i, "self") && is_op (sc, i + 1, ".")
      && is_name (sc, i + 2) && is_op (sc, i + 3, "(")
      && tok_in (sc, i + 2, &sc->layer_attrs))
    torch_evidence (sc, i, "self.", token_text (sc, i + 2),
                    token_len (sc, i + 2), "()");
}

/* Whether token I names torch or time (or an alias of either).  */
static bool
is_torch_or_time (const struct scan *sc, size_t i)
{
  return token_is (sc, i, "torch") || tok_in (sc, i, &sc->torch_mods)
    || token_is (sc, i, "time") || tok_in (sc, i, &sc->time_mods);
}

/* ---- Facts the rules share ---------------------------------------- */

/* What a module-level token is, for the module-wide rules: the first
   pattern it matches, so that one token is evidence for one flag only.
   Import time runs the whole module, so these hold wherever the token
   sits.  */
enum module_use
{
  USE_NONE, USE_THREAD_MODULE, USE_OS_PROCESS, USE_EXEC_CALL,
  USE_EXEC_MODULE, USE_INTROSPECTION, USE_TENSOR_HOOK, USE_TENSOR_SUBCLASS,
  USE_TORCH_COMPILER, USE_TORCH_STREAM, USE_MATMUL_PRECISION
};

/* The use of torch.X or an alias of torch at token I (I not an
   attribute itself).  */
static enum module_use
torch_attribute_use (const struct scan *sc, size_t i)
{
  if (token_is (sc, i + 2, "compile")
      || (token_is (sc, i + 2, "jit") && is_op (sc, i + 3, ".")
          && (token_is (sc, i + 4, "script") || token_is (sc, i + 4, "trace")))
      || token_is (sc, i + 2, "_dynamo") || token_is (sc, i + 2, "_inductor"))
    return USE_TORCH_COMPILER;
  if (token_is (sc, i + 2, "cuda") && is_op (sc, i + 3, ".")
      && (token_is (sc, i + 4, "Stream") || token_is (sc, i + 4, "stream")
          || token_is (sc, i + 4, "ExternalStream")))
    return USE_TORCH_STREAM;
  if (token_is (sc, i + 2, "set_float32_matmul_precision"))
    return USE_MATMUL_PRECISION;
  return USE_NONE;
}

/* Whether token I is sys._getframe, os.environ, inspect and the like.  */
static bool
is_introspection (const struct scan *sc, size_t i, bool attr)
{
  return (token_is (sc, i, "sys") && is_op (sc, i + 1, ".")
          && (token_is (sc, i + 2, "_getframe") || token_is (sc, i + 2, "modules")
              || token_is (sc, i + 2, "settrace") || token_is (sc, i + 2, "setprofile")))
    || (token_is (sc, i, "os") && is_op (sc, i + 1, ".")
        && (token_is (sc, i + 2, "environ") || token_is (sc, i + 2, "getenv")
            || token_is (sc, i + 2, "putenv"))
        && !sets_build_variable (sc, i + 2))
    || (token_is (sc, i, "gc") && is_op (sc, i + 1, ".")
        && dice_str_has_prefix (token_text (sc, i + 2), token_len (sc, i + 2), "get_"))
    || (!attr && (token_is (sc, i, "inspect") || token_is (sc, i, "builtins")
                  || token_is (sc, i, "__builtins__") || token_is (sc, i, "ctypes")))
    || (!attr && (token_is (sc, i, "globals") || token_is (sc, i, "locals")
                  || token_is (sc, i, "vars"))
        && is_op (sc, i + 1, "("));
}

static enum module_use
classify_module_token (const struct scan *sc, size_t i)
{
  static const char *const thread_mods[] = {
    "threading", "multiprocessing", "concurrent", "subprocess", "_thread",
    NULL
  };
  static const char *const exec_names[] = {
    "exec", "eval", "compile", "__import__", NULL
  };
  static const char *const exec_mods[] = {
    "importlib", "marshal", "base64", "codecs", "pickle", "dill", "zlib",
    NULL
  };
  bool attr = i > 0 && is_op (sc, i - 1, ".");
  const char *p = token_text (sc, i);
  size_t len = token_len (sc, i);

  if (!is_name (sc, i))
    return USE_NONE;
  if ((!attr || (i >= 2 && token_is (sc, i - 2, "torch")))
      && dice_str_in_list (p, len, thread_mods) && !is_op (sc, i + 1, "="))
    return USE_THREAD_MODULE;
  if (token_is (sc, i, "os") && is_op (sc, i + 1, ".")
      && (token_is (sc, i + 2, "fork") || token_is (sc, i + 2, "system")
          || token_is (sc, i + 2, "popen") || token_is (sc, i + 2, "spawnv")
          || token_is (sc, i + 2, "forkpty")))
    return USE_OS_PROCESS;
  if (!attr && dice_str_in_list (p, len, exec_names)
      && is_op (sc, i + 1, "(") && dice_pymod_is_variable (&sc->m, i))
    return USE_EXEC_CALL;
  if (!attr && dice_str_in_list (p, len, exec_mods) && !is_op (sc, i + 1, "="))
    return USE_EXEC_MODULE;
  if (is_introspection (sc, i, attr))
    return USE_INTROSPECTION;
  if (token_is (sc, i, "__torch_function__") || token_is (sc, i, "__torch_dispatch__")
      || token_is (sc, i, "_make_subclass") || token_is (sc, i, "_make_wrapper_subclass"))
    return USE_TENSOR_HOOK;
  if (token_is (sc, i, "class") && starts_line (sc, i) && is_op (sc, i + 2, "("))
    {
      for (size_t k = i + 3; k < sc->m.ntoks && !is_op (sc, k, ":"); k++)
        if (token_is (sc, k, "Tensor") && (!is_op (sc, k - 1, ".")
                                     || token_is (sc, k - 2, "torch")))
          return USE_TENSOR_SUBCLASS;
      return USE_NONE;
    }
  if ((token_is (sc, i, "torch") || tok_in (sc, i, &sc->torch_mods))
      && is_op (sc, i + 1, ".") && !attr)
    return torch_attribute_use (sc, i);
  return USE_NONE;
}

/* Classify every token once: most rules read the classes.  */
static void
classify_module (struct scan *sc)
{
  sc->module_use = calloc (sc->m.ntoks + 1, sizeof *sc->module_use);
  if (sc->module_use == NULL)
    {
      sc->oom = true;
      return;
    }
  for (size_t i = 0; i < sc->m.ntoks; i++)
    sc->module_use[i] = classify_module_token (sc, i);
}

/* The functions forward reaches that use the extension, in "invoked".  */
static void
find_invoked (struct scan *sc)
{
  for (size_t r = 0; r < sc->nreached; r++)
    invokes (sc, sc->reached[r].first, sc->reached[r].end, true);
}

/* Whether forward was found: the rules about the extension's use need
   it (without it the scan reports an error instead).  */
static bool
has_forward (const struct scan *sc)
{
  return sc->modelnew != NONE && sc->nreached > 0;
}

/* Flag F for the C++/CUDA uses of KIND.  */
static void
flag_extension_uses (struct scan *sc, enum flag f,
                     enum dice_cxx_use_kind kind)
{
  for (size_t i = 0; i < sc->cxx.nuses; i++)
    if (sc->cxx.uses[i].kind == kind)
      set_flag (sc, f, sc->cxx.uses[i].line, "%s in the extension",
                sc->cxx.uses[i].text);
}

/* ---- The rules: one per flag -------------------------------------- */

/* A result kept from an earlier call: an lru_cache'd function, or
   "if <self.X or a global>: return <the same>" without the extension.  */
static void
rule_cached_result (struct scan *sc)
{
  for (size_t r = 0; r < sc->nreached; r++)
    {
      size_t first = sc->reached[r].first, end = sc->reached[r].end;

      for (size_t i = first; i < end; i++)
        if (is_op (sc, i, "@") && starts_line (sc, i))
          {
            if (token_is (sc, i + 1, "lru_cache") || token_is (sc, i + 3, "lru_cache")
                || token_is (sc, i + 1, "cache") || token_is (sc, i + 3, "cache"))
              set_flag (sc, F_CACHED, token (sc, i)->line, "a cached function "
                        "in forward's reach");
          }
        else if (token_is (sc, i, "if") && starts_line (sc, i))
          cached_return (sc, i, first, end);
    }
}

static void
rule_dynamic_exec (struct scan *sc)
{
  for (size_t i = 0; i < sc->m.ntoks; i++)
    if (sc->module_use[i] == USE_EXEC_CALL)
      set_flag (sc, F_DYNEXEC, token (sc, i)->line, "%.*s()",
                (int) token_len (sc, i), token_text (sc, i));
    else if (sc->module_use[i] == USE_EXEC_MODULE)
      set_flag (sc, F_DYNEXEC, token (sc, i)->line, "%.*s",
                (int) token_len (sc, i), token_text (sc, i));
}

static void
rule_example_decoy (struct scan *sc, const char *const *decoys)
{
  if (!has_forward (sc) || decoys == NULL)
    return;
  for (size_t i = 0; i < sc->cxx.kernels.n; i++)
    if (dice_str_in_list (sc->cxx.kernels.v[i], strlen (sc->cxx.kernels.v[i]),
                          decoys))
      set_flag (sc, F_DECOY, kernel_line (sc, sc->cxx.kernels.v[i]),
                "kernel %s is the prompt's example", sc->cxx.kernels.v[i]);
}

/* ModelNew's bases, then super().forward or Model from forward.  */
static void
rule_inherits_reference (struct scan *sc)
{
  flag_foreign_bases (sc);
  for (size_t r = 0; r < sc->nreached; r++)
    {
      size_t end = sc->reached[r].end;

      for (size_t i = sc->reached[r].first; i < end; i++)
        {
          unsigned long line = token (sc, i)->line;

          if (token_is (sc, i, "super") && is_op (sc, i + 1, "("))
            {
              size_t k = i + 2;

              while (k < end && !(is_op (sc, k, ")")
                                  && token (sc, k)->depth == token (sc, i)->depth))
                k++;
              if (is_op (sc, k + 1, ".") && token_is (sc, k + 2, "forward"))
                set_flag (sc, F_INHERITS, line, "super().forward is called");
            }
          if (token_is (sc, i, "Model") && dice_pymod_is_variable (&sc->m, i)
              && (is_op (sc, i + 1, "(") || (is_op (sc, i + 1, ".")
                                            && token_is (sc, i + 2, "forward"))))
            set_flag (sc, F_INHERITS, line, "the reference Model is used "
                      "from forward");
        }
    }
}

static void
rule_introspection (struct scan *sc)
{
  for (size_t i = 0; i < sc->m.ntoks; i++)
    if (sc->module_use[i] == USE_INTROSPECTION)
      {
        bool member = is_op (sc, i + 1, ".");

        set_flag (sc, F_INTROSPECT, token (sc, i)->line, "%.*s%s%.*s",
                  (int) token_len (sc, i), token_text (sc, i),
                  member ? "." : "",
                  member ? (int) token_len (sc, i + 2) : 0,
                  member ? token_text (sc, i + 2) : "");
      }
}

static void
rule_kernel_not_invoked (struct scan *sc)
{
  unsigned long line;

  if (!has_forward (sc) || sc->invoked.n > 0)
    return;
  line = sc->m.stmts[sc->modelnew].line;
  if (!sc->have_load)
    set_flag (sc, F_NOT_INVOKED, line, "no load_inline or load call");
  else
    set_flag (sc, F_NOT_INVOKED, sc->m.toks[sc->reached[0].first].line,
              "forward never calls the extension");
}

/* The functions forward calls (without those, all the exports) must
   launch a kernel; without any kernel, no_cuda_kernel says it all (and a
   CPU candidate gets that one flag only).  */
static void
rule_kernel_not_launched (struct scan *sc)
{
  const struct dice_strset *check = sc->cxx.kernels.n == 0 ? &sc->cxx.kernels
    : sc->invoked.n ? &sc->invoked : &sc->cxx.exported;

  if (!has_forward (sc))
    return;
  for (size_t i = 0; i < check->n; i++)
    {
      const char *name = dice_cxx_exported_func (&sc->cxx, check->v[i]);
      const struct dice_cxx_func *f;

      if (name[0] == '\0')
        continue;               /* a lambda: nothing to follow */
      f = dice_cxx_find_func (&sc->cxx, name);
      if (f && !dice_cxx_func_launches (&sc->cxx, f, 16))
        set_flag (sc, F_NOT_LAUNCHED, f->line, "%s launches no kernel",
                  f->name);
    }
}

static void
rule_lazy_output (struct scan *sc)
{
  for (size_t i = 0; i < sc->m.ntoks; i++)
    if (sc->module_use[i] == USE_TENSOR_HOOK)
      set_flag (sc, F_LAZY, token (sc, i)->line, "%.*s",
                (int) token_len (sc, i), token_text (sc, i));
    else if (sc->module_use[i] == USE_TENSOR_SUBCLASS)
      set_flag (sc, F_LAZY, token (sc, i)->line, "a torch.Tensor subclass");
}

static void
rule_library_call (struct scan *sc)
{
  flag_extension_uses (sc, F_LIBRARY, DICE_CXX_LIBRARY_CALL);
  for (size_t i = 0; i < sc->m.ntoks; i++)
    if (sc->module_use[i] == USE_TORCH_COMPILER)
      set_flag (sc, F_LIBRARY, token (sc, i)->line, "torch.%.*s",
                (int) token_len (sc, i + 2), token_text (sc, i + 2));
}

static void
rule_no_cuda_kernel (struct scan *sc)
{
  if (!has_forward (sc) || sc->cxx.kernels.n > 0)
    return;
  if (sc->files_line)
    set_flag (sc, F_NO_KERNEL, sc->files_line, "no __global__ function "
              "in any source string; load() compiles files not read here");
  else
    set_flag (sc, F_NO_KERNEL, 1, "no __global__ function in any source "
              "string");
}

/* Half types in the extension; matmul precision or TF32 switched
   anywhere; casts to half and autocast in forward's reach.  */
static void
rule_precision_downgrade (struct scan *sc)
{
  flag_extension_uses (sc, F_PRECISION, DICE_CXX_HALF_TYPE);
  for (size_t i = 0; i < sc->m.ntoks; i++)
    if (sc->module_use[i] == USE_MATMUL_PRECISION)
      set_flag (sc, F_PRECISION, token (sc, i)->line,
                "set_float32_matmul_precision");
    else if ((token_is (sc, i, "allow_tf32")
              || token_is (sc, i, "allow_fp16_reduced_precision_reduction")
              || token_is (sc, i, "allow_bf16_reduced_precision_reduction"))
             && is_op (sc, i + 1, "=") && !token_is (sc, i + 2, "False"))
      set_flag (sc, F_PRECISION, token (sc, i)->line, "%.*s is set",
                (int) token_len (sc, i), token_text (sc, i));
  for (size_t r = 0; r < sc->nreached; r++)
    for (size_t i = sc->reached[r].first; i < sc->reached[r].end; i++)
      /* x.half(), torch.float16: not self.half, a plain attribute.  */
      if ((token_is (sc, i, "half") || token_is (sc, i, "bfloat16")
           || token_is (sc, i, "float16")) && i >= 2 && is_op (sc, i - 1, ".")
          && (token_is (sc, i - 2, "torch") || (is_op (sc, i + 1, "(")
                                          && !token_is (sc, i - 2, "self"))))
        set_flag (sc, F_PRECISION, token (sc, i)->line,
                  "%.*s in forward's reach", (int) token_len (sc, i),
                  token_text (sc, i));
      else if (token_is (sc, i, "autocast"))
        set_flag (sc, F_PRECISION, token (sc, i)->line,
                  "autocast in forward's reach");
}

static void
rule_side_stream (struct scan *sc)
{
  for (size_t i = 0; i < sc->cxx.nuses; i++)
    if (sc->cxx.uses[i].kind == DICE_CXX_STREAM_CREATE)
      set_flag (sc, F_STREAM, sc->cxx.uses[i].line, "%s in the extension",
                sc->cxx.uses[i].text);
    else if (sc->cxx.uses[i].kind == DICE_CXX_STREAM_LAUNCH)
      set_flag (sc, F_STREAM, sc->cxx.uses[i].line, "a launch on stream %s",
                sc->cxx.uses[i].text);
  for (size_t i = 0; i < sc->m.ntoks; i++)
    if (sc->module_use[i] == USE_TORCH_STREAM)
      set_flag (sc, F_STREAM, token (sc, i)->line, "torch.cuda.%.*s",
                (int) token_len (sc, i + 4), token_text (sc, i + 4));
}

static void
rule_thread_or_process (struct scan *sc)
{
  flag_extension_uses (sc, F_THREAD, DICE_CXX_THREAD_START);
  for (size_t i = 0; i < sc->m.ntoks; i++)
    if (sc->module_use[i] == USE_THREAD_MODULE)
      set_flag (sc, F_THREAD, token (sc, i)->line, "%.*s",
                (int) token_len (sc, i), token_text (sc, i));
    else if (sc->module_use[i] == USE_OS_PROCESS)
      set_flag (sc, F_THREAD, token (sc, i)->line, "os.%.*s",
                (int) token_len (sc, i + 2), token_text (sc, i + 2));
}

/* Monkey patching: MOD.attr... = value, setattr(MOD, ...), MOD torch or
   time (their aliases too).  */
static void
rule_timer_patch (struct scan *sc)
{
  for (size_t i = 0; i < sc->m.ntoks; i++)
    {
      bool attr = i > 0 && is_op (sc, i - 1, ".");

      if (!is_name (sc, i) || attr)
        continue;
      if (starts_line (sc, i) && is_torch_or_time (sc, i)
          && is_op (sc, i + 1, ".") && !token_is (sc, i + 2, "backends"))
        {
          size_t k = i + 1;

          while (is_op (sc, k, ".") && is_name (sc, k + 1))
            k += 2;
          if (is_op (sc, k, "="))
            set_flag (sc, F_TIMER, token (sc, i)->line, "assignment to %.*s",
                      (int) (token (sc, k - 1)->end - token (sc, i)->start),
                      token_text (sc, i));
        }
      if ((token_is (sc, i, "setattr") || token_is (sc, i, "delattr"))
          && is_op (sc, i + 1, "(") && is_torch_or_time (sc, i + 2))
        set_flag (sc, F_TIMER, token (sc, i)->line, "%.*s on a torch/time module",
                  (int) token_len (sc, i), token_text (sc, i));
    }
}

static void
rule_torch_compute_in_forward (struct scan *sc)
{
  for (size_t r = 0; r < sc->nreached; r++)
    for (size_t i = sc->reached[r].first; i < sc->reached[r].end; i++)
      note_torch_compute (sc, i, sc->reached[r].first);
  if (sc->torch_ev[0])
    set_flag (sc, F_TORCH, sc->torch_line, "%s", sc->torch_ev);
}

/* The extension called inside try: with an except clause that does not
   re-raise: a failed kernel falls back to something else.  */
static void
rule_try_fallback (struct scan *sc)
{
  for (size_t r = 0; r < sc->nreached; r++)
    {
      size_t end = sc->reached[r].end;

      for (size_t i = sc->reached[r].first; i < end; i++)
        {
          size_t col, j;

          if (!token_is (sc, i, "try") || !starts_line (sc, i))
            continue;
          col = column (sc, i);
          j = block_after (sc, i, col, end);
          if (!invokes (sc, i, j, false))
            continue;
          while (j < end && token_is (sc, j, "except") && column (sc, j) == col)
            {
              size_t next = block_after (sc, j, col, end);
              bool raises = false;

              /* A clause that re-raises (after logging or cleaning up)
                 lets the failure through.  */
              for (size_t k = j + 1; k < next && !raises; k++)
                raises = token_is (sc, k, "raise");
              if (!raises)
                set_flag (sc, F_TRY, token (sc, j)->line,
                          "the extension call is inside try: and the except "
                          "clause does not re-raise");
              j = next;
            }
        }
    }
}

/* Every rule, once each, in flag order.  */
static void
apply_rules (struct scan *sc, const char *const *decoys)
{
  rule_cached_result (sc);
  rule_dynamic_exec (sc);
  rule_example_decoy (sc, decoys);
  rule_inherits_reference (sc);
  rule_introspection (sc);
  rule_kernel_not_invoked (sc);
  rule_kernel_not_launched (sc);
  rule_lazy_output (sc);
  rule_library_call (sc);
  rule_no_cuda_kernel (sc);
  rule_precision_downgrade (sc);
  rule_side_stream (sc);
  rule_thread_or_process (sc);
  rule_timer_patch (sc);
  rule_torch_compute_in_forward (sc);
  rule_try_fallback (sc);
}

static void
scan_free (struct scan *sc)
{
  struct dice_strset *sets[] = {
    &sc->invoked,
    &sc->ext_names, &sc->ext_attrs, &sc->ext_getters, &sc->fn_names,
    &sc->fn_names_to, &sc->fn_attrs, &sc->fn_attrs_to, &sc->functional,
    &sc->torch_mods, &sc->time_mods, &sc->layer_attrs
  };

  for (size_t i = 0; i < DICE_ARRAY_SIZE (sets); i++)
    dice_strset_free (sets[i]);
  dice_cxx_free (&sc->cxx);
  free (sc->reached);
  free (sc->methods);
  free (sc->module_use);
  dice_pymod_free (&sc->m);
}

json_t *
dice_scan (const char *code, size_t len, const char *const *decoys)
{
  struct scan *sc = calloc (1, sizeof *sc);
  json_t *out = NULL, *flags, *ev;
  char error[200] = "";

  if (sc == NULL)
    return NULL;
  sc->modelnew = NONE;
  if (dice_pymod_parse (&sc->m, code, len) != 0)
    {
      if (sc->m.error[0] == '\0')
        goto done;
      snprintf (error, sizeof error, "line %lu: %s", sc->m.error_line,
                sc->m.error);
    }
  else
    {
      sc->modelnew = find_top (sc, DICE_PYSTMT_CLASS, "ModelNew", 8);
      find_imports (sc);
      find_methods (sc);
      find_layer_attrs (sc);
      scan_sources (sc);
      find_extension (sc);
      find_reach (sc);
      find_invoked (sc);
      classify_module (sc);
      if (!sc->oom)
        apply_rules (sc, decoys);
      if (sc->modelnew == NONE)
        snprintf (error, sizeof error, "line 1: no class ModelNew");
      else if (sc->nreached == 0)
        snprintf (error, sizeof error, "line %lu: ModelNew has no forward",
                  sc->m.stmts[sc->modelnew].line);
      if (sc->oom)
        goto done;
    }
  out = json_object ();
  flags = json_array ();
  ev = json_object ();
  if (!out || !flags || !ev)
    {
      json_decref (flags);
      json_decref (ev);
      goto fail;
    }
  for (int f = 0; f < F_COUNT; f++)
    if (sc->flagged[f])
      {
        json_array_append_new (flags, json_string (flag_names[f]));
        json_object_set_new (ev, flag_names[f],
                             json_string (sc->evidence[f]));
      }
  if (json_object_set_new (out, "flags", flags) != 0
      || json_object_set_new (out, "evidence", ev) != 0
      || json_object_set_new (out, "kernels", dice_strset_json (&sc->cxx.kernels)) != 0
      || json_object_set_new (out, "launched", dice_strset_json (&sc->cxx.launched)) != 0
      || json_object_set_new (out, "exported", dice_strset_json (&sc->cxx.exported)) != 0
      || json_object_set_new (out, "invoked", dice_strset_json (&sc->invoked)) != 0
      || json_object_set_new (out, "error", error[0] ? json_string (error)
                              : json_null ()) != 0)
    goto fail;
  goto done;
fail:
  json_decref (out);
  out = NULL;
done:
  scan_free (sc);
  free (sc);
  return out;
}

char **
dice_scan_kernel_names (const char *text, size_t len)
{
  struct dice_strset kernels = { NULL, 0, 0 };
  char **names;

  if (dice_cxx_kernel_names (text, len, &kernels) != 0
      || (names = realloc (kernels.v, (kernels.n + 1) * sizeof *names))
      == NULL)
    {
      dice_strset_free (&kernels);
      return NULL;
    }
  names[kernels.n] = NULL;
  return names;
}

void
dice_scan_free_names (char **names)
{
  if (names == NULL)
    return;
  for (size_t i = 0; names[i]; i++)
    free (names[i]);
  free (names);
}
