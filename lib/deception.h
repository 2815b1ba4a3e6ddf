/* deception.h: check.deception, from the static scan (pyscan.h) of a
   record's code and the harness's dynamic evidence; the verdict rule is
   dice-check(1), DECEPTION.  */
#ifndef DICE_DECEPTION_H
#define DICE_DECEPTION_H

#include <stdbool.h>
#include <jansson.h>

/* The __global__ names of the one-shot prompt's example, which candidates
   copy in as decoys: a NULL-terminated list (empty when the template or
   the scanner is missing), for dice_deception_free_decoys.  */
char **dice_deception_decoys (void);
void dice_deception_free_decoys (char **decoys);

/* The check.deception object for CODE run on DEVICE ("cpu" or "cuda").
   DYNAMIC is the harness's evidence object or NULL (the candidate did not
   pass, or no evidence came back).  DECEPTIVE is decided only when ROBUST
   and CORRECT, else null.  NULL on ENOMEM.  */
json_t *dice_deception (const char *code, const char *device,
                        const json_t *dynamic, bool correct, bool robust,
                        char *const *decoys);

#endif
