/* jsonpick.c: a validating JSON scanner that records where a few values
   are.  Recursive descent over the text; nothing is allocated.  */
#include "system.h"

#include <math.h>

#include "hexdigits.h"
#include "jsonpick.h"

enum
{
  MAX_DEPTH = 64,
  MAX_KEYS = 64,
  MAX_PICKS = 32,
  MAX_SEGMENTS = 8
};

/* A pick's path cut at its dots, so each key is compared with one
   segment only.  */
struct path
{
  const char *segment[MAX_SEGMENTS];
  size_t len[MAX_SEGMENTS];
  int n;
};

struct scan
{
  const char *p, *end;
  struct dice_pick *picks;
  struct path paths[MAX_PICKS];
  size_t npicks;
  int depth;
  bool spaced;                  /* whitespace was skipped between tokens */
};

typedef unsigned long pick_set;    /* a bit for each pick */

static void
skip_space (struct scan *s)
{
  const char *start = s->p;

  while (s->p < s->end
         && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
    s->p++;
  s->spaced |= s->p != start;
}


/* Read 4 hex digits after "\u" at P; -1 if they are not there.  */
static long
unicode_escape (const char *p, const char *end)
{
  if (end - p < 2 || p[0] != '\\' || p[1] != 'u')
    return -1;
  return dice_hex_digits (p + 2, (size_t) (end - p - 2), 4);
}

/* The length of the valid UTF-8 sequence at P (first byte >= 0x80), or
   0: no overlong forms, no surrogates, nothing above U+10FFFF.  */
static int
utf8_length (const unsigned char *p, const unsigned char *end)
{
  unsigned char c = p[0];
  int n;
  unsigned long v;

  if (c >= 0xc2 && c <= 0xdf)
    n = 2, v = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef)
    n = 3, v = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4)
    n = 4, v = c & 0x07;
  else
    return 0;
  if (end - p < n)
    return 0;
  for (int i = 1; i < n; i++)
    {
      if ((p[i] & 0xc0) != 0x80)
        return 0;
      v = (v << 6) | (p[i] & 0x3f);
    }
  if ((n == 3 && (v < 0x800 || (v >= 0xd800 && v <= 0xdfff)))
      || (n == 4 && (v < 0x10000 || v > 0x10ffff)))
    return 0;
  return n;
}

/* Scan a string at S->p (on its opening quote).  *START and *LEN get its
   characters; *ESCAPED whether any was escaped.  */
static bool
scan_string (struct scan *s, const char **start, size_t *len, bool *escaped)
{
  const char *p = s->p + 1;

  *escaped = false;
  *start = p;
  while (p < s->end && *p != '"')
    {
      unsigned char c = *p;

      if (c < 0x20)
        return false;
      if (c == '\\')
        {
          *escaped = true;
          if (p + 1 >= s->end)
            return false;
          switch (p[1])
            {
            case '"': case '\\': case '/': case 'b': case 'f': case 'n':
            case 'r': case 't':
              p += 2;
              break;
            case 'u':
              {
                long u = unicode_escape (p, s->end);

                /* Jansson refuses \u0000 and unpaired surrogates.  */
                if (u <= 0 || (u >= 0xdc00 && u <= 0xdfff))
                  return false;
                p += 6;
                if (u >= 0xd800 && u <= 0xdbff)
                  {
                    long low = unicode_escape (p, s->end);

                    if (low < 0xdc00 || low > 0xdfff)
                      return false;
                    p += 6;
                  }
              }
              break;
            default:
              return false;
            }
        }
      else if (c < 0x80)
        p++;
      else
        {
          int n = utf8_length ((const unsigned char *) p,
                               (const unsigned char *) s->end);

          if (n == 0)
            return false;
          p += n;
        }
    }
  if (p >= s->end)
    return false;
  *len = (size_t) (p - *start);
  s->p = p + 1;
  return true;
}

static bool
is_digit (char c)
{
  return c >= '0' && c <= '9';
}

/* Scan a number; *REAL says whether it has a fraction or an exponent.
   Integers of more than 18 digits and reals that overflow are refused,
   as Jansson refuses them ("too big", "overflow").  */
static bool
scan_number (struct scan *s, bool *real)
{
  const char *p = s->p, *digits;

  *real = false;
  if (p < s->end && *p == '-')
    p++;
  digits = p;
  if (p < s->end && *p == '0')
    p++;
  else if (p < s->end && is_digit (*p))
    while (p < s->end && is_digit (*p))
      p++;
  else
    return false;
  if (p < s->end && *p == '.')
    {
      *real = true;
      if (++p >= s->end || !is_digit (*p))
        return false;
      while (p < s->end && is_digit (*p))
        p++;
    }
  if (p < s->end && (*p == 'e' || *p == 'E'))
    {
      *real = true;
      p++;
      if (p < s->end && (*p == '+' || *p == '-'))
        p++;
      if (p >= s->end || !is_digit (*p))
        return false;
      while (p < s->end && is_digit (*p))
        p++;
    }
  if (!*real && p - digits > 18)
    return false;
  /* The text ends at a delimiter, so strtod stops where we did.  */
  if (*real && (p >= s->end || !isfinite (strtod (s->p, NULL))))
    return false;
  s->p = p;
  return true;
}

static bool
scan_literal (struct scan *s, const char *word)
{
  size_t n = strlen (word);

  if ((size_t) (s->end - s->p) < n || memcmp (s->p, word, n) != 0)
    return false;
  s->p += n;
  return true;
}

static bool scan_value (struct scan *s, pick_set active, int level,
                        struct dice_pick *pick);

/* Enter the object or array whose opening bracket is at S->p; false when
   it nests too deep.  *EMPTY says whether CLOSE follows at once (then it
   is read and the container left).  */
static bool
scan_open (struct scan *s, char close, bool *empty)
{
  if (++s->depth > MAX_DEPTH)
    return false;
  s->p++;
  skip_space (s);
  *empty = s->p < s->end && *s->p == close;
  if (*empty)
    {
      s->p++;
      s->depth--;
    }
  return true;
}

/* After a member or an element: 1 at a comma (another follows), 0 at CLOSE
   (the container is left), -1 at anything else.  */
static int
scan_next (struct scan *s, char close)
{
  skip_space (s);
  if (s->p < s->end && *s->p == ',')
    {
      s->p++;
      skip_space (s);
      return 1;
    }
  if (s->p < s->end && *s->p == close)
    {
      s->p++;
      s->depth--;
      return 0;
    }
  return -1;
}

/* Scan an object at nesting LEVEL of the picked paths (0 for the
   record); ACTIVE are the picks whose paths lead through it.  */
static bool
scan_object (struct scan *s, pick_set active, int level)
{
  struct
  {
    const char *start;
    size_t len;
  } keys[MAX_KEYS];
  size_t nkeys = 0;
  bool empty;

  if (!scan_open (s, '}', &empty))
    return false;
  if (empty)
    return true;
  for (;;)
    {
      const char *key;
      size_t key_len;
      bool escaped;
      pick_set below = 0;
      struct dice_pick *pick = NULL;

      if (s->p >= s->end || *s->p != '"'
          || !scan_string (s, &key, &key_len, &escaped))
        return false;
      /* Escaped keys could spell a duplicate in another way: let Jansson
         judge them.  */
      if (escaped || nkeys == MAX_KEYS)
        return false;
      for (size_t i = 0; i < nkeys; i++)
        if (keys[i].len == key_len && memcmp (keys[i].start, key, key_len) == 0)
          return false;
      keys[nkeys].start = key;
      keys[nkeys++].len = key_len;
      for (size_t i = 0; active >> i; i++)
        {
          const struct path *path = &s->paths[i];

          if (!(active >> i & 1) || path->len[level] != key_len
              || memcmp (path->segment[level], key, key_len) != 0)
            continue;
          if (level + 1 == path->n)
            pick = &s->picks[i];
          else
            below |= (pick_set) 1 << i;
        }
      skip_space (s);
      if (s->p >= s->end || *s->p != ':')
        return false;
      s->p++;
      skip_space (s);
      if (!scan_value (s, below, level + 1, pick))
        return false;
      int next = scan_next (s, '}');

      if (next <= 0)
        return next == 0;
    }
}

static bool
scan_array (struct scan *s)
{
  bool empty;

  if (!scan_open (s, ']', &empty))
    return false;
  if (empty)
    return true;
  for (;;)
    {
      if (!scan_value (s, 0, 0, NULL))
        return false;
      int next = scan_next (s, ']');

      if (next <= 0)
        return next == 0;
    }
}

/* Scan the value at S->p; ACTIVE and LEVEL as for scan_object; PICK,
   when not NULL, is filled in.  */
static bool
scan_value (struct scan *s, pick_set active, int level,
            struct dice_pick *pick)
{
  const char *start = s->p;
  enum dice_pick_type type;

  if (s->p >= s->end)
    return false;
  switch (*s->p)
    {
    case '{':
      type = DICE_PICK_OBJECT;
      if (!scan_object (s, active, level))
        return false;
      break;
    case '[':
      type = DICE_PICK_ARRAY;
      if (!scan_array (s))
        return false;
      break;
    case '"':
      {
        size_t len;
        bool escaped;

        if (!scan_string (s, &start, &len, &escaped) || (pick && escaped))
          return false;
        if (pick)
          {
            pick->type = DICE_PICK_STRING;
            pick->start = start;
            pick->len = len;
          }
        return true;
      }
    case 't':
      type = DICE_PICK_TRUE;
      if (!scan_literal (s, "true"))
        return false;
      break;
    case 'f':
      type = DICE_PICK_FALSE;
      if (!scan_literal (s, "false"))
        return false;
      break;
    case 'n':
      type = DICE_PICK_NULL;
      if (!scan_literal (s, "null"))
        return false;
      break;
    default:
      {
        bool real;

        if (!scan_number (s, &real))
          return false;
        type = real ? DICE_PICK_REAL : DICE_PICK_INTEGER;
      }
    }
  if (pick)
    {
      pick->type = type;
      pick->start = start;
      pick->len = (size_t) (s->p - start);
    }
  return true;
}

bool
dice_jsonpick (const char *text, size_t len, struct dice_pick *picks,
               size_t n, bool *compact)
{
  struct scan s = { .p = text, .end = text + len, .picks = picks,
                    .npicks = n };
  pick_set all = 0;

  if (n > MAX_PICKS)
    return false;
  for (size_t i = 0; i < n; i++)
    {
      struct path *path = &s.paths[i];
      const char *p = picks[i].path;

      picks[i].type = DICE_PICK_MISSING;
      for (path->n = 0; path->n < MAX_SEGMENTS; path->n++)
        {
          path->segment[path->n] = p;
          path->len[path->n] = strcspn (p, ".");
          p += path->len[path->n];
          if (*p++ == '\0')
            break;
        }
      if (path->n == MAX_SEGMENTS)
        return false;
      path->n++;
      all |= (pick_set) 1 << i;
    }
  skip_space (&s);
  s.spaced = false;
  if (s.p >= s.end || *s.p != '{' || !scan_object (&s, all, 0))
    return false;
  if (compact)
    *compact = !s.spaced;
  skip_space (&s);
  return s.p == s.end;
}
