/* template.h: prompt templates, plain text with {{variable}} slots.
   The variables are a fixed, documented set (dice-prompt(1)); a template
   naming any other is rejected when it is loaded, with its file and line.  */
#ifndef DICE_TEMPLATE_H
#define DICE_TEMPLATE_H

#include "system.h"

struct dice_template_part
{
  bool is_variable;
  const char *start;            /* into the template's text */
  size_t len;
};

struct dice_template
{
  char *name;                   /* NAME, or the file's base name less .tmpl */
  char *path;                   /* the file it was read from */
  char *text;
  struct dice_template_part *parts;
  size_t nparts;
  bool infill;                  /* uses {{prefix}}, {{suffix}} or {{names}} */
  /* After a failed load: what went wrong, and where (line 0: no line).  */
  char error[256];
  unsigned long error_line;
};

/* Load SPEC: a path if it contains '/', else the template NAME.tmpl in
   PROMPTDIR.  Returns 0, or -1 with T->error (and T->path, T->error_line
   where known) saying why; dice_template_free releases T either way.  */
int dice_template_load (struct dice_template *t, const char *spec,
                        const char *promptdir);

void dice_template_free (struct dice_template *t);

/* Supplies the value of a variable, or NULL when the record lacks it.  */
typedef const char *dice_template_lookup (const char *variable, void *ctx);

/* Render T with values from LOOKUP into a new string the caller frees.
   Returns NULL if a variable has no value (then *MISSING names it) or
   memory ran out (*MISSING NULL).  */
char *dice_template_render (const struct dice_template *t,
                            dice_template_lookup *lookup, void *ctx,
                            const char **missing);

/* Whether NAME is one of the documented template variables.  */
bool dice_template_known_variable (const char *name);

#endif
