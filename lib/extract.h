/* extract.h: find the candidate module in a model's completion.  Models
   answer with prose, reasoning and several code blocks; the checker needs
   the one Python module that defines ModelNew, so the choice is made once,
   here, in a documented order (dice-sample(1), EXTRACTION).  */
#ifndef DICE_EXTRACT_H
#define DICE_EXTRACT_H

#include "system.h"

/* How the candidate was found, in the order the rules are tried.  */
enum dice_extract_method
{
  DICE_EXTRACT_NONE = 0,
  DICE_EXTRACT_PYTHON_FENCE,    /* a ```python (or py) block */
  DICE_EXTRACT_ANY_FENCE,       /* a block with another or no language */
  DICE_EXTRACT_UNTERMINATED,    /* a fence never closed: up to the end */
  DICE_EXTRACT_WHOLE_TEXT       /* no fence at all: the text is the code */
};

struct dice_extract
{
  enum dice_extract_method method;
  const char *code;             /* into the text; NULL when none */
  size_t len;
  const char *why;              /* static: why there is none */
};

/* Find the candidate in TEXT (LEN bytes, need not be NUL-terminated).
   Text up to the last "</think>" is reasoning and is searched only when
   what follows it has no candidate.  Blocks are those of
   dice_fenced_block_find.  Rules, first match wins; within a rule the
   LAST block that defines ModelNew wins (models revise):
     1. a fenced block tagged python or py;
     2. a fenced block with any other tag or none;
     3. an opening fence never closed, taken to the end of the text;
     4. no fence at all, and the whole text defines ModelNew.
   A module "defines ModelNew" when a line starts with "class ModelNew"
   or "ModelNew =".  Returns true with X->code and X->len set, or false
   with X->why saying what was missing.  */
bool dice_extract_code (const char *text, size_t len, struct dice_extract *x);

/* Whether the LEN bytes at CODE define ModelNew, as above.  */
bool dice_extract_defines_modelnew (const char *code, size_t len);

/* A fenced code block.  A fence is a run of three or more backticks or
   tildes; the opening one may be indented any amount (models put blocks
   in list items) and may carry an info string, whose first word is the
   language; the closing one is a run of the same character at least as
   long with nothing after it, indented at most three spaces more than
   the opening one.  An opening fence never closed runs to the end;
   "```code```" on one line is inline code, not a fence.  */
struct dice_fenced_block
{
  const char *body, *end;       /* the content lines [BODY, END) */
  const char *next;             /* the text after the closing fence */
  size_t indent;                /* the opening fence's indentation */
  const char *lang;             /* the language, LANG_LEN bytes */
  size_t lang_len;
  bool closed;
};

/* The first fenced block in [P, END) into *B; false when there is none.
   The next one is searched for from B->next.  */
bool dice_fenced_block_find (const char *p, const char *end,
                             struct dice_fenced_block *b);

/* Where a completion's answer starts: after its last "</think>" (what
   comes before is reasoning), else at TEXT.  */
const char *dice_extract_answer (const char *text, size_t len);

/* The method's name for messages and records: "python-fence" ...  */
const char *dice_extract_method_name (enum dice_extract_method method);

#endif
