/* t0004-lib-extract: unit tests of finding the candidate in a completion.  */
#include "system.h"

#include "extract.h"
#include "tap.h"

/* The candidate of TEXT as a new string ("" for none) and its method.  */
static char *
found (const char *text, enum dice_extract_method *method)
{
  struct dice_extract x;
  char *code;

  if (!dice_extract_code (text, strlen (text), &x))
    {
      *method = DICE_EXTRACT_NONE;
      ok (x.why != NULL && x.code == NULL, "no candidate comes with a reason");
      return strdup ("");
    }
  *method = x.method;
  code = malloc (x.len + 1);
  memcpy (code, x.code, x.len);
  code[x.len] = '\0';
  return code;
}

static void
check (const char *title, const char *text, const char *want,
       enum dice_extract_method want_method)
{
  enum dice_extract_method method;
  char *code = found (text, &method);

  is_str (code, want, "%s: the code", title);
  is_str (dice_extract_method_name (method),
          dice_extract_method_name (want_method), "%s: the rule", title);
  free (code);
}

static void
test_rules (void)
{
  check ("one python block with prose around it",
         "Here it is:\n\n```python\nimport torch\nclass ModelNew:\n"
         "    pass\n```\n\nThis is fast.\n",
         "import torch\nclass ModelNew:\n    pass\n",
         DICE_EXTRACT_PYTHON_FENCE);
  check ("several blocks: the last python one defining ModelNew wins",
         "```python\nclass ModelNew:\n    first = 1\n```\n"
         "Better:\n```py\nclass ModelNew:\n    second = 2\n```\n"
         "Usage:\n```python\nm = ModelNew()\n```\n",
         "class ModelNew:\n    second = 2\n", DICE_EXTRACT_PYTHON_FENCE);
  check ("a python block beats a later untagged one",
         "```python\nclass ModelNew:\n    a = 1\n```\n"
         "```\nclass ModelNew:\n    b = 2\n```\n",
         "class ModelNew:\n    a = 1\n", DICE_EXTRACT_PYTHON_FENCE);
  check ("a cuda block is skipped for the python one",
         "```cpp\n__global__ void k() {}\n```\n"
         "```python\nclass ModelNew(nn.Module):\n    pass\n```",
         "class ModelNew(nn.Module):\n    pass\n", DICE_EXTRACT_PYTHON_FENCE);
  check ("an untagged block", "Code:\n```\nclass ModelNew:\n    pass\n```\n",
         "class ModelNew:\n    pass\n", DICE_EXTRACT_ANY_FENCE);
  check ("tilde fences and a longer closing run",
         "~~~Python\nModelNew = Model\n~~~~\n", "ModelNew = Model\n",
         DICE_EXTRACT_PYTHON_FENCE);
  check ("a shorter run inside does not close the block",
         "````python\nclass ModelNew:\n    s = '```'\n```\n````\n",
         "class ModelNew:\n    s = '```'\n```\n", DICE_EXTRACT_PYTHON_FENCE);
  check ("an unterminated fence runs to the end",
         "Sure.\n```python\nimport torch\nclass ModelNew:\n    pass\n",
         "import torch\nclass ModelNew:\n    pass\n",
         DICE_EXTRACT_UNTERMINATED);
  check ("a closed block defining ModelNew beats an unterminated one",
         "```python\nclass ModelNew:\n    a = 1\n```\n```python\n"
         "class ModelNew:\n    b = 2\n",
         "class ModelNew:\n    a = 1\n", DICE_EXTRACT_PYTHON_FENCE);
  check ("no fence: the whole text when it defines ModelNew",
         "import torch\n\nclass ModelNew(torch.nn.Module):\n    pass",
         "import torch\n\nclass ModelNew(torch.nn.Module):\n    pass",
         DICE_EXTRACT_WHOLE_TEXT);
  check ("reasoning before </think> is passed over",
         "<think>\n```python\nclass ModelNew:\n    draft = 1\n```\n</think>\n"
         "```python\nclass ModelNew:\n    final = 1\n```\n",
         "class ModelNew:\n    final = 1\n", DICE_EXTRACT_PYTHON_FENCE);
  check ("reasoning is searched when the answer has no candidate",
         "<think>\n```python\nclass ModelNew:\n    draft = 1\n```\n"
         "</think>\nSee above.",
         "class ModelNew:\n    draft = 1\n", DICE_EXTRACT_PYTHON_FENCE);
  check ("CRLF line ends", "```python\r\nclass ModelNew:\r\n    pass\r\n```\r\n",
         "class ModelNew:\r\n    pass\r\n", DICE_EXTRACT_PYTHON_FENCE);
  check ("a fence indented by three spaces",
         "   ```python\nclass ModelNew:\n    pass\n   ```\n",
         "class ModelNew:\n    pass\n", DICE_EXTRACT_PYTHON_FENCE);
}

static void
test_none (void)
{
  struct dice_extract x;

  check ("no block and no ModelNew", "I do not know.", "", DICE_EXTRACT_NONE);
  ok (!dice_extract_code ("I do not know.", 14, &x)
      && strstr (x.why, "no code block") != NULL, "reason: %s", x.why);
  check ("blocks, none defining ModelNew",
         "```python\nclass Model:\n    pass\n```\n", "", DICE_EXTRACT_NONE);
  ok (!dice_extract_code ("```python\nx = 1\n```\n", 18, &x)
      && strcmp (x.why, "no code block defines ModelNew") == 0,
      "reason: %s", x.why);
  check ("prose mentioning ModelNew is not code, fenced elsewhere",
         "Define class ModelNew below.\n```python\nx = 1\n```\n", "",
         DICE_EXTRACT_NONE);
  check ("ModelNewer is another name", "class ModelNewer:\n    pass\n", "",
         DICE_EXTRACT_NONE);
  check ("an indented class is not top level",
         "def f():\n    class ModelNew:\n        pass\n", "",
         DICE_EXTRACT_NONE);
  check ("a comparison is not a definition", "ModelNew == 3\n", "",
         DICE_EXTRACT_NONE);
  check ("inline ```code``` is not a fence",
         "Use ```x``` here.\nclass ModelNew:\n    pass\n",
         "Use ```x``` here.\nclass ModelNew:\n    pass\n",
         DICE_EXTRACT_WHOLE_TEXT);
  ok (!dice_extract_code ("", 0, &x) && strcmp (x.why, "empty completion") == 0,
      "an empty completion: %s", x.why);
  check ("an empty block", "```python\n```\n", "", DICE_EXTRACT_NONE);
}

static void
test_lengths (void)
{
  static const char text[] = "```python\nclass ModelNew:\n    pass\n```\nXYZ";
  struct dice_extract x;

  /* The text need not be NUL-terminated: stop at LEN.  */
  ok (dice_extract_code (text, sizeof text - 4, &x) && x.len == 25,
      "LEN bounds the search");
  ok (dice_extract_defines_modelnew ("class ModelNew", 14),
      "a definition at the very end");
  ok (!dice_extract_defines_modelnew ("class ModelNew", 13),
      "LEN cuts the name");
}

/* The body of the first block of TEXT, or "(none)".  */
static char *
first_block (const char *text, struct dice_fenced_block *b)
{
  char *body;

  if (!dice_fenced_block_find (text, text + strlen (text), b))
    return strdup ("(none)");
  body = malloc (b->end - b->body + 1);
  memcpy (body, b->body, b->end - b->body);
  body[b->end - b->body] = '\0';
  return body;
}

static void
test_blocks (void)
{
  struct dice_fenced_block b;
  char *body;
  static const char two[] = "```cuda\nA\n```\ntext\n~~~\nB\n~~~\n";

  body = first_block ("1. The kernel:\n\n    ```cuda\n    __global__ k;\n"
                      "    ```\nAfter.\n", &b);
  is_str (body, "    __global__ k;\n", "a block in a list item");
  ok (b.indent == 4 && b.closed && b.lang_len == 4
      && strncmp (b.lang, "cuda", 4) == 0 && strcmp (b.next, "After.\n") == 0,
      "its indentation, language, and what follows");
  free (body);
  body = first_block ("```python\ns = '''\n    ```\n'''\n```\n", &b);
  is_str (body, "s = '''\n    ```\n'''\n",
          "a fence indented four spaces more does not close the block");
  free (body);
  body = first_block ("````\n```\n````\n", &b);
  is_str (body, "```\n", "a shorter run does not close a longer one");
  free (body);
  body = first_block ("```\nopen to the end", &b);
  ok (!b.closed && strcmp (body, "open to the end") == 0 && *b.next == '\0',
      "an unclosed block runs to the end");
  free (body);
  body = first_block ("Use ```x``` here.\n", &b);
  is_str (body, "(none)", "inline code is no block");
  free (body);
  ok (dice_fenced_block_find (two, two + sizeof two - 1, &b)
      && dice_fenced_block_find (b.next, two + sizeof two - 1, &b)
      && strncmp (b.body, "B\n", 2) == 0 && b.lang_len == 0,
      "the next block, from NEXT");
  ok (strcmp (dice_extract_answer ("a</think>b</think>c", 19), "c") == 0
      && strcmp (dice_extract_answer ("abc", 3), "abc") == 0,
      "the answer starts after the last </think>");
}

int
main (void)
{
  test_rules ();
  test_none ();
  test_lengths ();
  test_blocks ();
  return done_testing ();
}
