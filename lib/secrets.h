/* secrets.h: which environment variables count as secrets, and keeping
   their values out of text that leaves a process.  The one list: the
   sandbox scrubs candidates' environments with it, dice-sample scrubs its
   children's, and the Python harness receives it in each job
   (dice_secret_patterns_json) rather than keeping a copy.  */
#ifndef DICE_SECRETS_H
#define DICE_SECRETS_H

#include "system.h"

#include <jansson.h>

/* Whether NAME (a variable's name, no '=') may hold a secret: it contains
   one of the secret words or starts with one of the secret prefixes, in
   any case.  */
bool dice_secret_name (const char *name);

/* {"words": [...], "prefixes": [...]}: the same rule as data, for the
   Python harness.  New reference; NULL when memory runs out.  */
json_t *dice_secret_patterns_json (void);

/* A copy of TEXT (LEN bytes) with every occurrence of each of the NSECRETS
   strings in SECRETS replaced by "[redacted]".  Secrets shorter than four
   bytes are left alone, since they would redact ordinary words.  *OUTLEN,
   when OUTLEN is not NULL, receives the copy's length.  Returns a string
   the caller frees, or NULL when memory runs out.  */
char *dice_redact (const char *text, size_t len, const char *const *secrets,
                   size_t nsecrets, size_t *outlen);

/* TEXT made fit for one line of a message, in place: newlines, carriage
   returns and tabs become spaces, and it is cut at MAX bytes (never inside
   a UTF-8 sequence).  Returns TEXT.  */
char *dice_one_line (char *text, size_t max);

#endif
