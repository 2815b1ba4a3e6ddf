/* pylex.c: a Python tokenizer in the manner of CPython 3.12's.  Error
   messages use CPython's words so that a user who runs the module through
   Python sees the same complaint.  */
#include "system.h"

#include <stdarg.h>

#include "hexdigits.h"
#include "pylex.h"

/* Nested f-strings deeper than this are refused rather than recursed into
   (CPython's own limit is lower).  */
#define MAX_FSTRING_NESTING 32

static int fail (struct dice_pylex *lx, unsigned long line,
                 const char *fmt, ...) DICE_PRINTF (3, 4);

static int
fail (struct dice_pylex *lx, unsigned long line, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (lx->error, sizeof lx->error, fmt, ap);
  va_end (ap);
  lx->error_line = line;
  return -1;
}

void
dice_pylex_init (struct dice_pylex *lx, const char *src, size_t len)
{
  memset (lx, 0, sizeof *lx);
  lx->src = src;
  lx->len = len;
  lx->line = 1;
  lx->at_line_start = true;
}

const char *
dice_pytok_kind_name (enum dice_pytok_kind kind)
{
  static const char *const names[] = {
    "END", "NAME", "NUMBER", "STRING", "OP", "COMMENT", "NEWLINE", "NL",
    "INDENT", "DEDENT"
  };

  return (size_t) kind < DICE_ARRAY_SIZE (names) ? names[kind] : "?";
}

bool
dice_pytok_is (const char *src, const struct dice_pytok *tok,
               const char *text)
{
  size_t n = strlen (text);

  return tok->end - tok->start == n && memcmp (src + tok->start, text, n) == 0;
}

static bool
is_name_start (unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'
    || c >= 0x80;
}

static bool
is_name_char (unsigned char c)
{
  return is_name_start (c) || (c >= '0' && c <= '9');
}

static bool
is_digit (unsigned char c)
{
  return c >= '0' && c <= '9';
}

/* The length of the line break at P (1 or 2 for "\r\n"), or 0.  */
static size_t
newline_at (const struct dice_pylex *lx, size_t p)
{
  if (p >= lx->len)
    return 0;
  if (lx->src[p] == '\n')
    return 1;
  if (lx->src[p] == '\r')
    return p + 1 < lx->len && lx->src[p + 1] == '\n' ? 2 : 1;
  return 0;
}

/* The DICE_PYSTR_* flags of the N letters at S if they form a string
   prefix (r, u, b, f, br, rb, fr, rf in any case), else -1.  */
static int
string_prefix (const char *s, size_t n)
{
  unsigned flags = 0;

  if (n < 1 || n > 2)
    return -1;
  for (size_t i = 0; i < n; i++)
    {
      unsigned f;

      switch (s[i])
        {
        case 'r': case 'R': f = DICE_PYSTR_RAW; break;
        case 'b': case 'B': f = DICE_PYSTR_BYTES; break;
        case 'f': case 'F': f = DICE_PYSTR_FSTRING; break;
        case 'u': case 'U': f = DICE_PYSTR_UNICODE; break;
        default: return -1;
        }
      if (flags & f)
        return -1;
      flags |= f;
    }
  if (n == 2 && !(flags & DICE_PYSTR_RAW))
    return -1;                  /* bu, fb, uf... are not prefixes */
  if (flags & DICE_PYSTR_UNICODE && n > 1)
    return -1;                  /* ur was Python 2 only */
  return (int) flags;
}

static int scan_string (struct dice_pylex *lx, size_t *pos,
                        unsigned long *line, unsigned flags, int nesting);

/* Scan the replacement field of an f-string whose '{' is at *POS, up to and
   including its closing '}': an expression (which may hold strings of any
   quote, as Python 3.12 allows, and brackets), then an optional format
   spec (text with nested fields).  */
static int
scan_fstring_field (struct dice_pylex *lx, size_t *pos, unsigned long *line,
                    int nesting)
{
  const char *s = lx->src;
  size_t p = *pos + 1;
  int depth = 0;
  bool in_spec = false;
  unsigned long start_line = *line;

  if (nesting > MAX_FSTRING_NESTING)
    return fail (lx, *line, "too many nested f-strings");
  for (;;)
    {
      size_t nl;
      unsigned char c;

      if (p >= lx->len)
        return fail (lx, start_line, "f-string: expecting '}'");
      c = s[p];
      if ((nl = newline_at (lx, p)))
        {
          (*line)++;
          p += nl;
          continue;
        }
      if (in_spec)
        {
          /* Format spec: literal text with nested fields.  */
          if (c == '{')
            {
              if (scan_fstring_field (lx, &p, line, nesting + 1) != 0)
                return -1;
              continue;
            }
          p++;
          if (c == '}')
            break;
          continue;
        }
      if (c == '\'' || c == '"')
        {
          if (scan_string (lx, &p, line, 0, nesting + 1) != 0)
            return -1;
          continue;
        }
      if (is_name_start (c))
        {
          size_t q = p;
          int flags;

          while (q < lx->len && is_name_char (s[q]))
            q++;
          if (q < lx->len && (s[q] == '\'' || s[q] == '"')
              && (flags = string_prefix (s + p, q - p)) >= 0)
            {
              p = q;
              if (scan_string (lx, &p, line, flags, nesting + 1) != 0)
                return -1;
              continue;
            }
          p = q;
          continue;
        }
      p++;
      if (c == '(' || c == '[' || c == '{')
        depth++;
      else if ((c == ')' || c == ']' || c == '}') && depth > 0)
        depth--;
      else if (c == '}')
        break;
      else if (c == ':' && depth == 0)
        in_spec = true;
    }
  *pos = p;
  return 0;
}

/* Scan the string literal whose opening quote is at *POS (its prefix,
   with FLAGS, already read), leaving *POS after the closing quote and
   *LINE on the line of the closing quote.  */
static int
scan_string (struct dice_pylex *lx, size_t *pos, unsigned long *line,
             unsigned flags, int nesting)
{
  const char *s = lx->src;
  size_t p = *pos;
  char q = s[p];
  bool triple = p + 2 < lx->len && s[p + 1] == q && s[p + 2] == q;
  unsigned long start_line = *line;

  p += triple ? 3 : 1;
  for (;;)
    {
      size_t nl;
      char c;

      if (p >= lx->len)
        {
          if (triple)
            return fail (lx, start_line, "unterminated triple-quoted string "
                         "literal (detected at line %lu)", *line);
          return fail (lx, start_line, "unterminated string literal "
                       "(detected at line %lu)", *line);
        }
      c = s[p];
      if (c == '\\')
        {
          /* Even in a raw string a backslash keeps the next quote from
             ending the literal.  In an f-string, "\{" still opens a
             field.  */
          p++;
          if ((nl = newline_at (lx, p)))
            {
              (*line)++;
              p += nl;
            }
          else if (p < lx->len
                   && !(flags & DICE_PYSTR_FSTRING && (s[p] == '{'
                                                        || s[p] == '}')))
            p++;
          continue;
        }
      if (c == q)
        {
          if (!triple)
            {
              p++;
              break;
            }
          if (p + 2 < lx->len && s[p + 1] == q && s[p + 2] == q)
            {
              p += 3;
              break;
            }
          p++;
          continue;
        }
      if ((nl = newline_at (lx, p)))
        {
          if (!triple)
            return fail (lx, start_line, "unterminated string literal "
                         "(detected at line %lu)", *line);
          (*line)++;
          p += nl;
          continue;
        }
      if (flags & DICE_PYSTR_FSTRING && c == '{')
        {
          if (p + 1 < lx->len && s[p + 1] == '{')
            p += 2;
          else if (scan_fstring_field (lx, &p, line, nesting) != 0)
            return -1;
          continue;
        }
      p++;
    }
  *pos = p;
  return 0;
}

/* The end of the number starting at P: integers in any base, decimals,
   exponents, imaginary suffixes, digits grouped with '_'.  A malformed
   number ends where it stops making sense; CPython would reject it.  */
static size_t
scan_number (const struct dice_pylex *lx, size_t p)
{
  const char *s = lx->src;

  if (s[p] == '0' && p + 1 < lx->len
      && strchr ("xXoObB", s[p + 1]) && s[p + 1] != '\0')
    {
      p += 2;
      while (p < lx->len && (is_name_char (s[p])))
        p++;
      return p;
    }
  while (p < lx->len && (is_digit (s[p]) || s[p] == '_'))
    p++;
  if (p < lx->len && s[p] == '.')
    {
      p++;
      while (p < lx->len && (is_digit (s[p]) || s[p] == '_'))
        p++;
    }
  if (p < lx->len && (s[p] == 'e' || s[p] == 'E'))
    {
      size_t q = p + 1;

      if (q < lx->len && (s[q] == '+' || s[q] == '-'))
        q++;
      if (q < lx->len && is_digit (s[q]))
        {
          p = q;
          while (p < lx->len && (is_digit (s[p]) || s[p] == '_'))
            p++;
        }
    }
  if (p < lx->len && (s[p] == 'j' || s[p] == 'J'))
    p++;
  return p;
}

/* The length of the operator at P, or 0 if there is none.  */
static size_t
operator_length (const struct dice_pylex *lx, size_t p)
{
  static const char *const three[] = { "**=", "//=", ">>=", "<<=", "..." };
  static const char *const two[] = {
    "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "->", ":=", "+=", "-=",
    "*=", "/=", "%=", "&=", "|=", "^=", "@="
  };
  size_t left = lx->len - p;
  const char *s = lx->src + p;

  if (left >= 3)
    for (size_t i = 0; i < DICE_ARRAY_SIZE (three); i++)
      if (memcmp (s, three[i], 3) == 0)
        return 3;
  if (left >= 2)
    for (size_t i = 0; i < DICE_ARRAY_SIZE (two); i++)
      if (memcmp (s, two[i], 2) == 0)
        return 2;
  return *s && strchr ("()[]{}:,;.+-*/%&|^~<>=@!", *s) ? 1 : 0;
}

static int
emit (struct dice_pylex *lx, struct dice_pytok *tok,
      enum dice_pytok_kind kind, size_t start, size_t end)
{
  tok->kind = kind;
  tok->start = start;
  tok->end = end;
  tok->line = lx->line;
  tok->end_line = lx->line;
  tok->depth = lx->depth;
  tok->flags = 0;
  tok->prefix_len = 0;
  tok->quote_len = 0;
  return 1;
}

/* At the start of a logical line: measure its indentation and queue
   INDENT or DEDENTs.  Returns 1 with *TOK set when a token is due, 0 when
   none is, -1 for a bad dedent.  */
static int
indentation (struct dice_pylex *lx, struct dice_pytok *tok)
{
  const char *s = lx->src;
  size_t p = lx->pos;
  unsigned col = 0;
  unsigned top;

  lx->at_line_start = false;
  while (p < lx->len)
    {
      if (s[p] == ' ')
        col++;
      else if (s[p] == '\t')
        col = (col / 8 + 1) * 8;
      else if (s[p] == '\f')
        col = 0;
      else
        break;
      p++;
    }
  /* Blank and comment-only lines do not count; neither does the end.  */
  if (p >= lx->len || s[p] == '#' || newline_at (lx, p))
    return 0;
  top = lx->indents[lx->nindents];
  if (col > top)
    {
      if (lx->nindents == DICE_PYLEX_MAX_INDENT)
        return fail (lx, lx->line, "too many levels of indentation");
      lx->indents[++lx->nindents] = col;
      emit (lx, tok, DICE_PYTOK_INDENT, lx->pos, p);
      lx->pos = p;
      return 1;
    }
  lx->pos = p;
  if (col == top)
    return 0;
  while (lx->nindents > 0 && lx->indents[lx->nindents] > col)
    {
      lx->nindents--;
      lx->pending_dedents++;
    }
  if (lx->indents[lx->nindents] != col)
    return fail (lx, lx->line, "unindent does not match any outer "
                 "indentation level");
  lx->pending_dedents--;
  return emit (lx, tok, DICE_PYTOK_DEDENT, p, p);
}

/* Emit the STRING token [START, END) whose opening quote is at QUOTE and
   whose last byte is on line LINE.  */
static int
string_token (struct dice_pylex *lx, struct dice_pytok *tok, size_t start,
              size_t quote, size_t end, unsigned long line, unsigned flags)
{
  const char *s = lx->src;

  emit (lx, tok, DICE_PYTOK_STRING, start, end);
  tok->flags = flags;
  tok->prefix_len = (unsigned char) (quote - start);
  tok->quote_len = end - quote >= 6 && s[quote + 1] == s[quote]
    && s[quote + 2] == s[quote] ? 3 : 1;
  if (tok->quote_len == 3)
    tok->flags |= DICE_PYSTR_TRIPLE;
  tok->end_line = line;
  lx->line = line;
  lx->pos = end;
  return 1;
}

/* Skip white space and backslash continuations between tokens: 0, or -1
   for a backslash that continues nothing.  */
static int
skip_blanks (struct dice_pylex *lx)
{
  while (lx->pos < lx->len)
    {
      unsigned char c = lx->src[lx->pos];

      if (c == ' ' || c == '\t' || c == '\f')
        lx->pos++;
      else if (c == '\\')
        {
          size_t nl = newline_at (lx, lx->pos + 1);

          if (nl == 0)
            {
              if (lx->pos + 1 >= lx->len)
                return fail (lx, lx->line, "unexpected EOF while parsing");
              return fail (lx, lx->line, "unexpected character after line "
                           "continuation character");
            }
          lx->pos += 1 + nl;
          lx->line++;
        }
      else
        break;
    }
  return 0;
}

/* The tokens at the end of the source (START): the last line's NEWLINE or
   NL, the DEDENTs that close every block, then END.  */
static int
end_of_source (struct dice_pylex *lx, struct dice_pytok *tok, size_t start)
{
  if (lx->depth > 0)
    return fail (lx, lx->bracket_lines[lx->depth - 1],
                 "'%c' was never closed", lx->brackets[lx->depth - 1]);
  /* An unterminated last line still ends: with NEWLINE, or NL after a
     comment, as CPython's tokenize does; what follows is on the next
     line.  */
  if (lx->line_has_token || lx->last_kind == DICE_PYTOK_COMMENT)
    {
      emit (lx, tok, lx->line_has_token ? DICE_PYTOK_NEWLINE
            : DICE_PYTOK_NL, start, start);
      lx->line_has_token = false;
      lx->line++;
      return 1;
    }
  if (lx->nindents > 0)
    {
      lx->pending_dedents = lx->nindents - 1;
      lx->nindents = 0;
      return emit (lx, tok, DICE_PYTOK_DEDENT, start, start);
    }
  lx->ended = true;
  return emit (lx, tok, DICE_PYTOK_END, start, start);
}

/* A comment, or the newline at START (NL bytes long): NEWLINE where it
   ends a logical line, NL elsewhere.  */
static int
line_end_token (struct dice_pylex *lx, struct dice_pytok *tok, size_t start,
                size_t nl)
{
  const char *s = lx->src;

  if (s[start] == '#')
    {
      size_t p = start;

      while (p < lx->len && s[p] != '\n' && s[p] != '\r')
        p++;
      lx->pos = p;
      return emit (lx, tok, DICE_PYTOK_COMMENT, start, p);
    }
  emit (lx, tok, lx->depth == 0 && lx->line_has_token ? DICE_PYTOK_NEWLINE
        : DICE_PYTOK_NL, start, start + nl);
  lx->pos = start + nl;
  lx->line++;
  if (lx->depth == 0)
    {
      lx->line_has_token = false;
      lx->at_line_start = true;
    }
  return 1;
}

/* A NAME at START, or a string with a prefix (f"...", rb'...').  */
static int
name_token (struct dice_pylex *lx, struct dice_pytok *tok, size_t start)
{
  const char *s = lx->src;
  size_t p = start;
  int flags;

  while (p < lx->len && is_name_char (s[p]))
    p++;
  if (p < lx->len && (s[p] == '\'' || s[p] == '"')
      && (flags = string_prefix (s + start, p - start)) >= 0)
    {
      unsigned long line = lx->line;
      size_t quote = p;

      if (scan_string (lx, &p, &line, flags, 0) != 0)
        return -1;
      return string_token (lx, tok, start, quote, p, line, flags);
    }
  lx->pos = p;
  return emit (lx, tok, DICE_PYTOK_NAME, start, p);
}

/* An operator at START (whose first byte is C), keeping the stack of open
   brackets.  */
static int
operator_token (struct dice_pylex *lx, struct dice_pytok *tok, size_t start,
                unsigned char c)
{
  size_t n = operator_length (lx, start);

  if (n == 0)
    {
      if (c >= 0x20 && c < 0x7f)
        return fail (lx, lx->line, "invalid character '%c' (U+%04X)", c, c);
      return fail (lx, lx->line, "invalid non-printable character "
                   "U+%04X", c);
    }
  emit (lx, tok, DICE_PYTOK_OP, start, start + n);
  lx->pos = start + n;
  if (n == 1 && strchr ("([{", c))
    {
      if (lx->depth == DICE_PYLEX_MAX_DEPTH)
        return fail (lx, lx->line, "too many nested parentheses");
      lx->brackets[lx->depth] = c;
      lx->bracket_lines[lx->depth] = lx->line;
      lx->depth++;
    }
  else if (n == 1 && strchr (")]}", c))
    {
      char open = c == ')' ? '(' : c == ']' ? '[' : '{';

      if (lx->depth == 0)
        return fail (lx, lx->line, "unmatched '%c'", c);
      if (lx->brackets[lx->depth - 1] != open)
        return fail (lx, lx->line, "closing parenthesis '%c' does not "
                     "match opening parenthesis '%c'", c,
                     lx->brackets[lx->depth - 1]);
      lx->depth--;
      tok->depth = lx->depth;
    }
  return 1;
}

/* The work of dice_pylex_next: pending DEDENTs first, then indentation at
   the start of a logical line, then the token at the current position.  */
static int
next_token (struct dice_pylex *lx, struct dice_pytok *tok)
{
  const char *s = lx->src;
  size_t start, nl;
  unsigned char c;

  if (lx->pending_dedents > 0)
    {
      lx->pending_dedents--;
      return emit (lx, tok, DICE_PYTOK_DEDENT, lx->pos, lx->pos);
    }
  if (lx->at_line_start && lx->depth == 0)
    {
      int got = indentation (lx, tok);

      if (got != 0)
        return got;
    }
  if (skip_blanks (lx) != 0)
    return -1;

  start = lx->pos;
  if (start >= lx->len)
    return end_of_source (lx, tok, start);
  c = s[start];
  if (c == '#' || (nl = newline_at (lx, start)))
    return line_end_token (lx, tok, start, c == '#' ? 0 : nl);

  lx->line_has_token = true;
  if (is_name_start (c))
    return name_token (lx, tok, start);
  if (c == '\'' || c == '"')
    {
      size_t p = start;
      unsigned long line = lx->line;

      if (scan_string (lx, &p, &line, 0, 0) != 0)
        return -1;
      return string_token (lx, tok, start, start, p, line, 0);
    }
  if (is_digit (c)
      || (c == '.' && start + 1 < lx->len && is_digit (s[start + 1])))
    {
      lx->pos = scan_number (lx, start);
      return emit (lx, tok, DICE_PYTOK_NUMBER, start, lx->pos);
    }
  if (c == '\0')
    return fail (lx, lx->line, "source code cannot contain null bytes");
  return operator_token (lx, tok, start, c);
}

int
dice_pylex_next (struct dice_pylex *lx, struct dice_pytok *tok)
{
  int got;

  if (lx->error[0])
    return -1;
  if (lx->ended)
    return 0;
  got = next_token (lx, tok);
  if (got < 0 && !lx->error[0])
    fail (lx, lx->line, "tokenizer error");
  if (got > 0)
    lx->last_kind = tok->kind;
  return got;
}

int
dice_pylex_all (struct dice_pylex *lx, const char *src, size_t len,
                struct dice_pytok **toks, size_t *ntoks)
{
  struct dice_pytok *v = NULL;
  size_t n = 0, cap = 0;

  dice_pylex_init (lx, src, len);
  *toks = NULL;
  *ntoks = 0;
  for (;;)
    {
      int got;

      if (n == cap)
        {
          struct dice_pytok *bigger;

          /* About one token per five bytes of typical Python.  */
          cap = cap ? 2 * cap : len / 5 + 16;
          bigger = realloc (v, cap * sizeof *v);
          if (bigger == NULL)
            {
              free (v);
              errno = ENOMEM;
              return -1;
            }
          v = bigger;
        }
      got = dice_pylex_next (lx, &v[n]);
      if (got < 0)
        {
          free (v);
          return -1;
        }
      if (got == 0)
        break;
      n++;
    }
  *toks = v;
  *ntoks = n;
  return 0;
}

/* Append the UTF-8 encoding of code point CP at OUT; returns its length.  */
static size_t
put_utf8 (char *out, unsigned long cp)
{
  if (cp < 0x80)
    {
      out[0] = (char) cp;
      return 1;
    }
  if (cp < 0x800)
    {
      out[0] = (char) (0xc0 | (cp >> 6));
      out[1] = (char) (0x80 | (cp & 0x3f));
      return 2;
    }
  if (cp < 0x10000)
    {
      out[0] = (char) (0xe0 | (cp >> 12));
      out[1] = (char) (0x80 | ((cp >> 6) & 0x3f));
      out[2] = (char) (0x80 | (cp & 0x3f));
      return 3;
    }
  out[0] = (char) (0xf0 | (cp >> 18));
  out[1] = (char) (0x80 | ((cp >> 12) & 0x3f));
  out[2] = (char) (0x80 | ((cp >> 6) & 0x3f));
  out[3] = (char) (0x80 | (cp & 0x3f));
  return 4;
}



char *
dice_pystring_value (const char *src, const struct dice_pytok *tok,
                     size_t *len)
{
  const char *s, *end;
  char *out, *o;
  bool raw = tok->flags & DICE_PYSTR_RAW;
  bool bytes = tok->flags & DICE_PYSTR_BYTES;

  if (tok->kind != DICE_PYTOK_STRING || tok->flags & DICE_PYSTR_FSTRING)
    return NULL;
  s = src + tok->start + tok->prefix_len + tok->quote_len;
  end = src + tok->end - tok->quote_len;
  /* No escape or line break makes the value longer than its source.  */
  o = out = malloc ((size_t) (end - s) + 1);
  if (out == NULL)
    return NULL;
  while (s < end)
    {
      if (*s == '\r')
        {
          /* Python reads every line break as "\n".  */
          *o++ = '\n';
          s += s + 1 < end && s[1] == '\n' ? 2 : 1;
          continue;
        }
      if (*s != '\\' || s + 1 >= end)
        {
          *o++ = *s++;
          continue;
        }
      if (raw)
        {
          /* A backslash stays, but shields what follows.  */
          *o++ = *s++;
          if (*s == '\r')
            continue;
          *o++ = *s++;
          continue;
        }
      s++;
      switch (*s)
        {
        case '\n': s++; continue;
        case '\r': s += s + 1 < end && s[1] == '\n' ? 2 : 1; continue;
        case '\\': *o++ = '\\'; break;
        case '\'': *o++ = '\''; break;
        case '"': *o++ = '"'; break;
        case 'a': *o++ = '\a'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'v': *o++ = '\v'; break;
        case '0': case '1': case '2': case '3':
        case '4': case '5': case '6': case '7':
          {
            unsigned v = 0;
            int n = 0;

            while (n < 3 && s < end && *s >= '0' && *s <= '7')
              v = v * 8 + (unsigned) (*s++ - '0'), n++;
            if (bytes)
              *o++ = (char) (v & 0xff);
            else
              o += put_utf8 (o, v);
            continue;
          }
        case 'x':
        case 'u':
        case 'U':
          {
            size_t n = *s == 'x' ? 2 : *s == 'u' ? 4 : 8;
            long v = dice_hex_digits (s + 1, (size_t) (end - s - 1), n);

            /* \u and \U mean nothing in bytes; a bad escape is kept as
               written (CPython rejects it; a tool only reads it).  The
               longest encoding (4 bytes) is shorter than \U and its 8
               digits, and \xhh in a str (at most 2 bytes) shorter than
               its 4 characters.  */
            if (v < 0 || v > 0x10ffff || (bytes && *s != 'x'))
              {
                *o++ = '\\';
                continue;
              }
            if (bytes)
              *o++ = (char) v;
            else
              o += put_utf8 (o, (unsigned long) v);
            s += 1 + n;
            continue;
          }
        default:
          /* Unknown escapes, and \N{...}, keep their backslash.  */
          *o++ = '\\';
          continue;
        }
      s++;
    }
  *o = '\0';
  *len = (size_t) (o - out);
  return out;
}
