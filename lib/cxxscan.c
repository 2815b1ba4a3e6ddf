/* cxxscan.c: the facts of C++/CUDA source strings (see cxxscan.h).  The
   scanner is token-level on purpose: candidates are fragments that never
   see a preprocessor, and a rule that needs more than tokens is a rule
   an honest candidate trips.  */
#include "system.h"

#include <stdarg.h>

#include "cxxscan.h"

static void
add_name (struct dice_cxx *x, struct dice_strset *s, const char *p,
          size_t len, bool unique)
{
  if (dice_strset_add (s, p, len, unique) != 0)
    x->oom = true;
}

static void note_use (struct dice_cxx *x, enum dice_cxx_use_kind kind,
                      unsigned long line, const char *fmt, ...)
  DICE_PRINTF (4, 5);

static void
note_use (struct dice_cxx *x, enum dice_cxx_use_kind kind,
          unsigned long line, const char *fmt, ...)
{
  struct dice_cxx_use *bigger = realloc (x->uses, (x->nuses + 1)
                                         * sizeof *bigger), *u;
  va_list ap;

  if (bigger == NULL)
    {
      x->oom = true;
      return;
    }
  x->uses = bigger;
  u = &x->uses[x->nuses++];
  u->kind = kind;
  u->line = line;
  va_start (ap, fmt);
  vsnprintf (u->text, sizeof u->text, fmt, ap);
  va_end (ap);
}

enum ckind
{ C_IDENT, C_STR, C_OP, C_NUM };

struct ctok
{
  enum ckind kind;
  const char *p;
  size_t len;
  unsigned long line;           /* within the text, from 0 */
};

struct dice_cxx_toks
{
  struct ctok *v;
  size_t n, cap;
};

static bool
is_ident_start (int c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool
dice_cxx_ident_char (int c)
{
  return is_ident_start (c) || (c >= '0' && c <= '9');
}

/* Cut TEXT into C tokens, leaving out comments, preprocessor lines and
   character literals.  Returns -1 when memory ran out.  */
static int
c_tokenize (const char *s, size_t len, struct dice_cxx_toks *out)
{
  size_t i = 0;
  unsigned long line = 0;
  bool line_start = true;

  out->n = 0;
  while (i < len)
    {
      struct ctok t;
      char c = s[i];

      if (c == '\n')
        {
          line++;
          i++;
          line_start = true;
          continue;
        }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'
          || c == '\\')
        {
          i++;
          continue;
        }
      if (c == '#' && line_start)
        {
          /* A preprocessor line, continuations included.  */
          while (i < len && s[i] != '\n')
            {
              if (s[i] == '\\' && i + 1 < len && s[i + 1] == '\n')
                {
                  line++;
                  i++;
                }
              i++;
            }
          continue;
        }
      line_start = false;
      if (c == '/' && i + 1 < len && s[i + 1] == '/')
        {
          while (i < len && s[i] != '\n')
            i++;
          continue;
        }
      if (c == '/' && i + 1 < len && s[i + 1] == '*')
        {
          i += 2;
          while (i < len && !(s[i] == '*' && i + 1 < len && s[i + 1] == '/'))
            line += s[i++] == '\n';
          i += 2;
          continue;
        }
      t.line = line;
      t.p = s + i;
      if (c == '"')
        {
          /* Up to the closing quote or the end of the line.  */
          size_t j = i + 1;

          while (j < len && s[j] != '"' && s[j] != '\n')
            j += s[j] == '\\' && j + 1 < len ? 2 : 1;
          t.kind = C_STR;
          t.p = s + i + 1;
          t.len = (j < len ? j : len) - i - 1;
          if (t.len > len)
            t.len = 0;
          i = j < len && s[j] == '"' ? j + 1 : j;
        }
      else if (c == '\'')
        {
          /* A character literal, or prose's apostrophe: skip at most a
             few bytes either way.  */
          size_t j = i + 1;

          while (j < len && j < i + 5 && s[j] != '\'' && s[j] != '\n')
            j += s[j] == '\\' ? 2 : 1;
          i = j < len && s[j] == '\'' ? j + 1 : i + 1;
          continue;
        }
      else if (is_ident_start ((unsigned char) c))
        {
          size_t j = i;

          while (j < len && dice_cxx_ident_char ((unsigned char) s[j]))
            j++;
          t.kind = C_IDENT;
          t.len = j - i;
          i = j;
        }
      else if (c >= '0' && c <= '9')
        {
          size_t j = i;

          while (j < len && (dice_cxx_ident_char ((unsigned char) s[j])
                             || s[j] == '.'))
            j++;
          t.kind = C_NUM;
          t.len = j - i;
          i = j;
        }
      else
        {
          t.kind = C_OP;
          t.len = 1;
          if (len - i >= 3 && (memcmp (s + i, "<<<", 3) == 0
                               || memcmp (s + i, ">>>", 3) == 0))
            t.len = 3;
          else if (len - i >= 2 && (memcmp (s + i, "::", 2) == 0
                                    || memcmp (s + i, "->", 2) == 0))
            t.len = 2;
          i += t.len;
        }
      if (out->n == out->cap)
        {
          size_t cap = out->cap ? 2 * out->cap : 256;
          struct ctok *bigger = realloc (out->v, cap * sizeof *bigger);

          if (bigger == NULL)
            return -1;
          out->v = bigger;
          out->cap = cap;
        }
      out->v[out->n++] = t;
    }
  return 0;
}

static bool
ct_is (const struct dice_cxx_toks *c, size_t i, const char *text)
{
  return i < c->n && c->v[i].len == strlen (text)
    && memcmp (c->v[i].p, text, c->v[i].len) == 0;
}

static bool
ct_ident (const struct dice_cxx_toks *c, size_t i)
{
  return i < c->n && c->v[i].kind == C_IDENT;
}

/* The index of the bracket closing the one at OPEN (or C->n).  */
static size_t
c_close (const struct dice_cxx_toks *c, size_t open)
{
  char o = c->v[open].p[0], cl = o == '(' ? ')' : o == '{' ? '}' : ']';
  int depth = 0;

  for (size_t i = open; i < c->n; i++)
    if (c->v[i].kind == C_OP && c->v[i].len == 1)
      {
        if (c->v[i].p[0] == o)
          depth++;
        else if (c->v[i].p[0] == cl && --depth == 0)
          return i;
      }
  return c->n;
}

/* The kernel names of every __global__ declaration in C.  */
static void
c_kernels (struct dice_cxx *x, const struct dice_cxx_toks *c, struct dice_strset *out)
{
  for (size_t i = 0; i < c->n; i++)
    {
      size_t j;

      if (!ct_is (c, i, "__global__"))
        continue;
      for (j = i + 1; j < c->n && j < i + 40; j++)
        {
          if (ct_is (c, j, "__launch_bounds__") && ct_is (c, j + 1, "("))
            {
              j = c_close (c, j + 1);
              continue;
            }
          if (ct_is (c, j, ";") || ct_is (c, j, "{"))
            break;
          if (ct_is (c, j, "(") && ct_ident (c, j - 1))
            {
              add_name (x, out, c->v[j - 1].p, c->v[j - 1].len, true);
              break;
            }
        }
    }
}

/* Compute that the prompt hands to the candidate's own kernels: at::,
   torch:: and aten functions of this kind are a library doing the
   work.  */
static const char *const compute_functions[] = {
  "matmul", "mm", "bmm", "addmm", "addmv", "addbmm", "baddbmm", "mv",
  "dot", "einsum", "tensordot", "linear", "bilinear", "conv1d", "conv2d",
  "conv3d", "convolution", "conv_transpose1d", "conv_transpose2d",
  "conv_transpose3d", "cudnn_convolution", "relu", "relu_", "gelu",
  "silu", "sigmoid", "tanh", "softmax", "log_softmax", "layer_norm",
  "batch_norm", "group_norm", "instance_norm", "rms_norm", "sum", "mean",
  "prod", "exp", "log", "sqrt", "rsqrt", "pow", "add", "sub", "mul", "div",
  "addcmul", "clamp", "max_pool1d", "max_pool2d", "max_pool3d",
  "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool2d",
  "adaptive_max_pool2d", "scaled_dot_product_attention", "dropout",
  "embedding", "lstm", "gru", "norm", "var", "std", "cumsum", "topk",
  "sort", "argmax", "argmin", "amax", "amin", "max", "min", "hardtanh",
  "leaky_relu", "elu", "selu", "softplus", "mish", "hardswish",
  "hardsigmoid", "logsumexp", "cross_entropy", "mse_loss", "nll_loss",
  "cosine_similarity", "pairwise_distance", "cdist", "triu", "tril",
  "where", "abs", "neg", "sign", "erf", NULL
};

/* Tensor methods that compute, called on a tensor in C++.  */
static const char *const compute_methods[] = {
  "matmul", "mm", "bmm", "addmm", "baddbmm", "mv", "relu", "relu_",
  "softmax", "log_softmax", "sigmoid", "tanh", "gelu", "exp", "sum",
  "mean", "conv2d", NULL
};

static const char *const half_types[] = {
  "__half", "__half2", "half", "half2", "__nv_bfloat16", "__nv_bfloat162",
  "__float2half", "__float2half_rn", "__float2bfloat16", "kHalf",
  "kFloat16", "kBFloat16", NULL
};

static struct dice_cxx_func *
find_func (const struct dice_cxx *x, const char *p, size_t len)
{
  for (size_t i = 0; i < x->nfuncs; i++)
    if (strlen (x->funcs[i].name) == len
        && memcmp (x->funcs[i].name, p, len) == 0)
      return &x->funcs[i];
  return NULL;
}

static struct dice_cxx_func *
add_func (struct dice_cxx *x, const char *p, size_t len, unsigned long line)
{
  struct dice_cxx_func *f = find_func (x, p, len), *bigger;

  if (f)
    return f;
  bigger = realloc (x->funcs, (x->nfuncs + 1) * sizeof *bigger);
  if (bigger == NULL)
    {
      x->oom = true;
      return NULL;
    }
  x->funcs = bigger;
  f = &x->funcs[x->nfuncs];
  memset (f, 0, sizeof *f);
  f->name = strndup (p, len);
  f->line = line;
  if (f->name == NULL)
    {
      x->oom = true;
      return NULL;
    }
  x->nfuncs++;
  return f;
}

static void
add_export (struct dice_cxx *x, const struct ctok *name, const struct ctok *func)
{
  struct dice_cxx_export *bigger = realloc (x->exports, (x->nexports + 1)
                                   * sizeof *bigger);

  if (bigger == NULL)
    {
      x->oom = true;
      return;
    }
  x->exports = bigger;
  bigger[x->nexports].name = strndup (name->p, name->len);
  bigger[x->nexports].func = func ? strndup (func->p, func->len)
    : strdup ("");
  if (!bigger[x->nexports].name || !bigger[x->nexports].func)
    {
      free (bigger[x->nexports].name);
      free (bigger[x->nexports].func);
      x->oom = true;
      return;
    }
  x->nexports++;
  add_name (x, &x->exported, name->p, name->len, true);
}

/* The text of tokens [A, B) squeezed together, for evidence.  */
static void
c_text (const struct dice_cxx_toks *c, size_t a, size_t b, char *buf, size_t size)
{
  size_t n = 0;

  buf[0] = '\0';
  for (size_t i = a; i < b && n + 1 < size; i++)
    {
      size_t k = c->v[i].len < size - n - 1 ? c->v[i].len : size - n - 1;

      memcpy (buf + n, c->v[i].p, k);
      n += k;
      buf[n] = '\0';
    }
}

/* The function whose body opens with the brace at I: ')' (then
   qualifiers) before it.  NULL when the brace opens something else.  */
static struct dice_cxx_func *
function_opened_at (struct dice_cxx *x, const struct dice_cxx_toks *c, size_t i,
                    unsigned long line)
{
  size_t k = i;

  while (k > 0 && (ct_is (c, k - 1, "const") || ct_is (c, k - 1, "noexcept")
                   || ct_is (c, k - 1, "override")))
    k--;
  if (k > 0 && ct_is (c, k - 1, ")"))
    {
      int d = 0;
      size_t open = k - 1;

      for (;; open--)
        {
          if (ct_is (c, open, ")"))
            d++;
          else if (ct_is (c, open, "(") && --d == 0)
            break;
          if (open == 0)
            break;
        }
      if (d == 0 && open > 0 && ct_ident (c, open - 1))
        return add_func (x, c->v[open - 1].p, c->v[open - 1].len,
                         line + c->v[open - 1].line);
    }
  return NULL;
}

/* A launch NAME<<<grid, block, shared, stream>>> at I, inside host
   function CUR (or NULL): the kernel launched, and the stream when it is
   not the current one.  */
static void
note_triple_chevron (struct dice_cxx *x, const struct dice_cxx_toks *c, size_t i,
                     unsigned long at, struct dice_cxx_func *cur)
{
  size_t k = i, end, commas = 0, last = i + 1;
  int d = 0;

  /* name<T, U><<<...>>>: step back over template arguments.  */
  if (k > 0 && ct_is (c, k - 1, ">"))
    {
      int tdepth = 0;

      while (k > 0)
        {
          k--;
          if (ct_is (c, k, ">"))
            tdepth++;
          else if (ct_is (c, k, "<") && --tdepth == 0)
            break;
        }
    }
  if (k > 0 && ct_ident (c, k - 1))
    add_name (x, &x->launched, c->v[k - 1].p, c->v[k - 1].len,
             true);
  if (cur)
    cur->launches = true;
  for (end = i + 1; end < c->n && !ct_is (c, end, ">>>"); end++)
    {
      if (ct_is (c, end, "(") || ct_is (c, end, "["))
        d++;
      else if (ct_is (c, end, ")") || ct_is (c, end, "]"))
        d--;
      else if (d == 0 && ct_is (c, end, ","))
        {
          commas++;
          last = end + 1;
        }
    }
  if (commas >= 3 && end > last
      && !(end - last == 1 && (ct_is (c, last, "0")
                               || ct_is (c, last, "nullptr")
                               || ct_is (c, last, "NULL")
                               || ct_is (c, last, "stream")))
      && !ct_is (c, last, "at") && !ct_is (c, last, "c10"))
    {
      char buf[64];

      c_text (c, last, end, buf, sizeof buf);
      /* A variable holding the current stream is fine too.  */
      if (end - last == 1 && ct_ident (c, last))
        for (size_t d2 = 0; d2 < last; d2++)
          if (c->v[d2].len == c->v[last].len
              && memcmp (c->v[d2].p, c->v[last].p, c->v[d2].len) == 0
              && (ct_is (c, d2 + 1, "=") || ct_is (c, d2 + 1, "(")
                  || ct_is (c, d2 + 1, "{")))
            c_text (c, d2 + 2, d2 + 10 < last ? d2 + 10 : last, buf,
                    sizeof buf);
      if (strstr (buf, "Current") == NULL
          && strstr (buf, "current") == NULL
          && strstr (buf, "Default") == NULL)
        note_use (x, DICE_CXX_STREAM_LAUNCH, at, "%s", buf);
    }
}

/* Identifier I, inside host function CUR (or NULL): runtime launches,
   calls, library calls, threads, streams, half types and exports.  */
static void
note_identifier (struct dice_cxx *x, const struct dice_cxx_toks *c, size_t i,
                 unsigned long at, struct dice_cxx_func *cur)
{
  const struct ctok *t = &c->v[i];

  if ((ct_is (c, i, "cudaLaunchKernel") || ct_is (c, i, "cuLaunchKernel")
       || ct_is (c, i, "cudaLaunchCooperativeKernel")
       || ct_is (c, i, "cudaLaunchKernelEx"))
      && ct_is (c, i + 1, "("))
    {
      /* The runtime's launch calls: the kernel is the first
         argument, perhaps behind a cast.  */
      size_t k = i + 2;

      while (k < c->n && (ct_is (c, k, "(") || ct_is (c, k, ")")
                          || ct_is (c, k, "void") || ct_is (c, k, "*")
                          || ct_is (c, k, "const") || ct_is (c, k, "&")
                          || ct_is (c, k, "reinterpret_cast")
                          || ct_is (c, k, "<") || ct_is (c, k, ">")))
        k++;
      if (ct_ident (c, k) && !ct_is (c, i, "cudaLaunchKernelEx"))
        add_name (x, &x->launched, c->v[k].p, c->v[k].len, true);
      if (cur)
        cur->launches = true;
    }
  if (cur && ct_is (c, i + 1, "(") && !(i > 0 && ct_is (c, i - 1, ".")))
    add_name (x, &cur->callees, t->p, t->len, true);
  if (dice_str_has_prefix (t->p, t->len, "cublas")
      || dice_str_has_prefix (t->p, t->len, "cudnn")
      || dice_str_has_prefix (t->p, t->len, "cutlass")
      || dice_str_has_prefix (t->p, t->len, "cusparse")
      || dice_str_has_prefix (t->p, t->len, "cublasLt"))
    {
      if (ct_is (c, i + 1, "(") || ct_is (c, i + 1, "::"))
        note_use (x, DICE_CXX_LIBRARY_CALL, at, "%.*s",
                  (int) t->len, t->p);
    }
  else if ((ct_is (c, i, "at") || ct_is (c, i, "torch")
            || ct_is (c, i, "F") || ct_is (c, i, "functional"))
           && ct_is (c, i + 1, "::") && ct_ident (c, i + 2))
    {
      const struct ctok *f = &c->v[i + 2];

      if (ct_is (c, i + 2, "native")
          || (ct_is (c, i + 3, "(")
              && dice_str_in_list (f->p, f->len, compute_functions)))
        note_use (x, DICE_CXX_LIBRARY_CALL, at, "%.*s::%.*s",
                  (int) t->len, t->p, (int) f->len, f->p);
    }
  else if (i > 0 && (ct_is (c, i - 1, ".") || ct_is (c, i - 1, "->"))
           && ct_is (c, i + 1, "(")
           && dice_str_in_list (t->p, t->len, compute_methods))
    note_use (x, DICE_CXX_LIBRARY_CALL, at, "tensor method .%.*s()",
              (int) t->len, t->p);
  else if ((ct_is (c, i, "std") && ct_is (c, i + 1, "::")
            && (ct_is (c, i + 2, "thread") || ct_is (c, i + 2, "async")
                || ct_is (c, i + 2, "jthread")))
           || ((ct_is (c, i, "pthread_create") || ct_is (c, i, "fork"))
               && ct_is (c, i + 1, "(")))
    note_use (x, DICE_CXX_THREAD_START, at, "%.*s", (int) t->len,
              t->p);
  else if (dice_str_has_prefix (t->p, t->len, "cudaStreamCreate")
           || ct_is (c, i, "getStreamFromPool"))
    note_use (x, DICE_CXX_STREAM_CREATE, at, "%.*s", (int) t->len,
              t->p);
  else if (dice_str_in_list (t->p, t->len, half_types)
           && ((t->p[0] == '_' || t->p[0] == 'k')
               /* half and half2 are also variable names ("int half =
                  n / 2"): only as a type, before a declarator or in
                  a cast or template argument.  */
               || ct_is (c, i + 1, "*") || ct_is (c, i + 1, "&")
               || ct_ident (c, i + 1)
               || (i > 0 && ct_is (c, i - 1, "<")
                   && (ct_is (c, i + 1, ">") || ct_is (c, i + 1, ",")))
               || (i > 0 && ct_is (c, i - 1, "(")
                   && ct_is (c, i + 1, ")"))))
    note_use (x, DICE_CXX_HALF_TYPE, at, "%.*s", (int) t->len,
              t->p);
  else if (ct_is (c, i, "def") && i > 0 && ct_is (c, i - 1, ".")
           && ct_is (c, i + 1, "(") && i + 2 < c->n
           && c->v[i + 2].kind == C_STR && ct_is (c, i + 3, ","))
    {
      /* m.def("name", &function, ...) or a lambda.  */
      size_t k = i + 4;
      const struct ctok *fn = NULL;

      while (k < c->n && (ct_is (c, k, "&") || ct_is (c, k, "(")))
        k++;
      /* Qualified names: the last part.  */
      while (ct_ident (c, k) && ct_is (c, k + 1, "::"))
        k += 2;
      if (ct_ident (c, k) && !ct_is (c, k, "torch")
          && !ct_is (c, k, "py"))
        fn = &c->v[k];
      add_export (x, &c->v[i + 2], fn);
    }
}

int
dice_cxx_scan (struct dice_cxx *x, const char *text, size_t len,
               unsigned long line)
{
  struct dice_cxx_toks *c;
  struct dice_cxx_func *cur = NULL;
  size_t body_end = 0;

  if (x->toks == NULL && (x->toks = calloc (1, sizeof *x->toks)) == NULL)
    {
      x->oom = true;
      return -1;
    }
  c = x->toks;
  if (c_tokenize (text, len, c) != 0)
    x->oom = true;
  else
    c_kernels (x, c, &x->kernels);
  for (size_t i = 0; i < c->n && !x->oom; i++)
    {
      const struct ctok *t = &c->v[i];

      if (cur && i >= body_end)
        cur = NULL;
      if (t->kind == C_OP && t->len == 1 && t->p[0] == '{')
        {
          /* Functions outside any other function only.  */
          if (cur == NULL && (cur = function_opened_at (x, c, i, line)))
            body_end = c_close (c, i);
        }
      else if (ct_is (c, i, "<<<"))
        note_triple_chevron (x, c, i, line + t->line, cur);
      else if (t->kind == C_IDENT)
        note_identifier (x, c, i, line + t->line, cur);
    }
  return x->oom ? -1 : 0;
}

struct dice_cxx_func *
dice_cxx_find_func (const struct dice_cxx *x, const char *name)
{
  return find_func (x, name, strlen (name));
}

bool
dice_cxx_func_launches (const struct dice_cxx *x,
                        const struct dice_cxx_func *f, int depth)
{
  if (f->launches)
    return true;
  if (depth <= 0)
    return false;
  for (size_t i = 0; i < f->callees.n; i++)
    {
      const struct dice_cxx_func *g = dice_cxx_find_func (x, f->callees.v[i]);

      if (g && g != f && dice_cxx_func_launches (x, g, depth - 1))
        return true;
    }
  return false;
}

const char *
dice_cxx_exported_func (const struct dice_cxx *x, const char *name)
{
  for (size_t e = 0; e < x->nexports; e++)
    if (strcmp (x->exports[e].name, name) == 0)
      name = x->exports[e].func;
  return name;
}

void
dice_cxx_free (struct dice_cxx *x)
{
  dice_strset_free (&x->kernels);
  dice_strset_free (&x->launched);
  dice_strset_free (&x->exported);
  for (size_t i = 0; i < x->nfuncs; i++)
    {
      free (x->funcs[i].name);
      dice_strset_free (&x->funcs[i].callees);
    }
  free (x->funcs);
  for (size_t i = 0; i < x->nexports; i++)
    {
      free (x->exports[i].name);
      free (x->exports[i].func);
    }
  free (x->exports);
  free (x->uses);
  if (x->toks)
    free (x->toks->v);
  free (x->toks);
  memset (x, 0, sizeof *x);
}

int
dice_cxx_kernel_names (const char *text, size_t len, struct dice_strset *out)
{
  struct dice_cxx x;
  struct dice_cxx_toks c = { NULL, 0, 0 };
  int rc = -1;

  memset (&x, 0, sizeof x);
  if (c_tokenize (text, len, &c) == 0)
    {
      c_kernels (&x, &c, out);
      rc = x.oom ? -1 : 0;
    }
  free (c.v);
  return rc;
}
