/* extract.c: find the candidate module in a model's completion.  Fences
   follow CommonMark closely enough for what models write (extract.h says
   where they differ: an opening fence may be indented any amount).  */
#include "system.h"

#include <ctype.h>

#include "extract.h"

static bool
is_name_char (char c)
{
  return isalnum ((unsigned char) c) || c == '_';
}

/* The end of the line starting at P (the '\n' or END).  */
static const char *
line_end (const char *p, const char *end)
{
  const char *nl = memchr (p, '\n', end - p);

  return nl ? nl : end;
}

static bool
starts_with (const char *p, const char *end, const char *word)
{
  size_t n = strlen (word);

  return (size_t) (end - p) >= n && memcmp (p, word, n) == 0;
}

bool
dice_extract_defines_modelnew (const char *code, size_t len)
{
  const char *end = code + len;

  for (const char *p = code; p < end; p = line_end (p, end) + 1)
    {
      const char *e = line_end (p, end);

      if (starts_with (p, e, "class ModelNew")
          && (p + 14 == e || !is_name_char (p[14])))
        return true;
      if (starts_with (p, e, "ModelNew"))
        {
          const char *q = p + 8;

          while (q < e && (*q == ' ' || *q == '\t'))
            q++;
          if (q < e && *q == '=' && (q + 1 == e || q[1] != '='))
            return true;
        }
      if (e == end)
        break;
    }
  return false;
}

/* A fence line: its indentation, the run, and for an opening fence its
   first info word.  */
struct fence
{
  size_t indent;
  char ch;
  size_t run;
  const char *lang;
  size_t lang_len;
};

/* Whether the line [P, E) is a fence indented at most MAX_INDENT;
   OPENING allows an info string, else only blanks may follow the run.  */
static bool
parse_fence (const char *p, const char *e, bool opening, size_t max_indent,
             struct fence *f)
{
  size_t indent = 0;
  const char *q;

  while (p < e && (*p == ' ' || *p == '\t'))
    p++, indent++;
  if (indent > max_indent || p == e || (*p != '`' && *p != '~'))
    return false;
  f->indent = indent;
  f->ch = *p;
  for (q = p; q < e && *q == f->ch; q++)
    ;
  f->run = q - p;
  if (f->run < 3)
    return false;
  while (q < e && isspace ((unsigned char) *q))
    q++;
  if (!opening)
    return q == e;
  /* "```code```" on one line is inline code, not a fence.  */
  if (f->ch == '`' && memchr (q, '`', e - q))
    return false;
  f->lang = q;
  while (q < e && !isspace ((unsigned char) *q) && *q != '{')
    q++;
  f->lang_len = q - f->lang;
  return true;
}

bool
dice_fenced_block_find (const char *p, const char *end,
                        struct dice_fenced_block *b)
{
  for (; p < end; p = line_end (p, end) + 1)
    {
      const char *e = line_end (p, end);
      struct fence open, close;
      const char *q;

      if (!parse_fence (p, e, true, (size_t) -1, &open))
        continue;
      b->indent = open.indent;
      b->lang = open.lang;
      b->lang_len = open.lang_len;
      b->body = e < end ? e + 1 : end;
      for (q = b->body; q < end; q = line_end (q, end) + 1)
        {
          const char *qe = line_end (q, end);

          if (parse_fence (q, qe, false, open.indent + 3, &close)
              && close.ch == open.ch && close.run >= open.run)
            break;
        }
      b->closed = q < end;
      b->end = b->closed ? q : end;
      b->next = b->closed && line_end (q, end) < end
        ? line_end (q, end) + 1 : end;
      return true;
    }
  return false;
}

static bool
is_python (const struct dice_fenced_block *b)
{
  return (b->lang_len == 6 && strncasecmp (b->lang, "python", 6) == 0)
    || (b->lang_len == 2 && strncasecmp (b->lang, "py", 2) == 0)
    || (b->lang_len == 7 && strncasecmp (b->lang, "python3", 7) == 0);
}

/* Search [TEXT, END) by the rules of extract.h.  */
static bool
search (const char *text, const char *end, struct dice_extract *x)
{
  struct dice_extract python = { 0 }, other = { 0 }, open_block = { 0 };
  struct dice_fenced_block b;
  bool fenced = false, any_block = false;

  for (const char *p = text; dice_fenced_block_find (p, end, &b); p = b.next)
    {
      fenced = true;
      if (!b.closed)
        {
          if (b.body < end && dice_extract_defines_modelnew (b.body,
                                                             end - b.body))
            open_block = (struct dice_extract) {
              DICE_EXTRACT_UNTERMINATED, b.body, end - b.body, NULL };
          any_block = any_block || b.body < end;
          break;
        }
      any_block = true;
      if (dice_extract_defines_modelnew (b.body, b.end - b.body))
        {
          struct dice_extract *best = is_python (&b) ? &python : &other;

          *best = (struct dice_extract) {
            is_python (&b) ? DICE_EXTRACT_PYTHON_FENCE
              : DICE_EXTRACT_ANY_FENCE, b.body, b.end - b.body, NULL };
        }
    }

  if (python.code)
    *x = python;
  else if (other.code)
    *x = other;
  else if (open_block.code)
    *x = open_block;
  else if (!fenced && dice_extract_defines_modelnew (text, end - text))
    *x = (struct dice_extract) {
      DICE_EXTRACT_WHOLE_TEXT, text, end - text, NULL };
  else
    {
      x->method = DICE_EXTRACT_NONE;
      x->code = NULL;
      x->len = 0;
      x->why = any_block ? "no code block defines ModelNew"
        : fenced ? "only an empty code block"
        : "no code block and no ModelNew in the completion";
      return false;
    }
  return true;
}

/* The last occurrence of NEEDLE in [TEXT, TEXT + LEN), or NULL.  */
static const char *
last_occurrence (const char *text, size_t len, const char *needle)
{
  size_t n = strlen (needle);
  const char *found = NULL;

  for (const char *p = text; (size_t) (text + len - p) >= n; p++)
    {
      p = memchr (p, needle[0], text + len - p);
      if (p == NULL || (size_t) (text + len - p) < n)
        break;
      if (memcmp (p, needle, n) == 0)
        found = p;
    }
  return found;
}

const char *
dice_extract_answer (const char *text, size_t len)
{
  const char *think = last_occurrence (text, len, "</think>");

  return think ? think + strlen ("</think>") : text;
}

bool
dice_extract_code (const char *text, size_t len, struct dice_extract *x)
{
  const char *answer = dice_extract_answer (text, len);

  if (len == 0)
    {
      *x = (struct dice_extract) { DICE_EXTRACT_NONE, NULL, 0,
        "empty completion" };
      return false;
    }
  if (answer != text && search (answer, text + len, x))
    return true;
  return search (text, text + len, x);
}

const char *
dice_extract_method_name (enum dice_extract_method method)
{
  switch (method)
    {
    case DICE_EXTRACT_PYTHON_FENCE:
      return "python-fence";
    case DICE_EXTRACT_ANY_FENCE:
      return "other-fence";
    case DICE_EXTRACT_UNTERMINATED:
      return "unterminated-fence";
    case DICE_EXTRACT_WHOLE_TEXT:
      return "whole-text";
    default:
      return "none";
    }
}
