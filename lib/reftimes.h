/* reftimes.h: reference times read from a file (dice-time --ref-times),
   so that a run times only the candidates: KernelBench's baseline JSON
   ({"level1": {"19_ReLU.py": {"mean": ms, ...}}}), or records that
   dice-time wrote (time.ref), keyed by problem ("L1/19_ReLU").  */
#ifndef DICE_REFTIMES_H
#define DICE_REFTIMES_H

#include "system.h"

#include <jansson.h>

#include "strmap.h"

/* Read PATH into *TIMES, a new map of problem key -> the reference's
   stats object (median, mean, iqr, min, max, n), and *DEVICE, a new
   string naming where they were measured (NULL when the file does not
   say).  Returns 0, or -1 with ERR saying why (an unreadable or
   malformed file, or one with no times); *TIMES and *DEVICE are set
   either way, for the caller to free.  */
int dice_reftimes_load (const char *path, struct dice_strmap **times,
                        char **device, char *err, size_t errlen);

/* The reference's stats for REC (by its id, or problem.level, index and
   name) in TIMES, or NULL.  */
const json_t *dice_reftimes_get (const struct dice_strmap *times,
                                 const json_t *rec);

#endif
