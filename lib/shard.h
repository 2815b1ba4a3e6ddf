/* shard.h: --shard I/N, a stable split of a stage's records over N tasks
   (a SLURM array, make -j): record (id, sample.index) belongs to shard
   1 + hash mod N, so the N outputs are disjoint and together complete
   whatever the order of the input, and `cat` merges them.  */
#ifndef DICE_SHARD_H
#define DICE_SHARD_H

#include "system.h"

#include <jansson.h>

struct dice_shard
{
  unsigned long index;          /* 1..count */
  unsigned long count;          /* 0: no sharding */
};

/* ARG, "I/N" with 1 <= I <= N, into *SHARD.  Returns 0, or -1 (and words
   the refusal into ERR: "invalid --shard 'ARG' (I/N, ...)").  */
int dice_shard_parse (const char *arg, struct dice_shard *shard, char *err,
                      size_t errlen);

/* Whether the record of ID and sample INDEX (-1: none) is in SHARD; every
   record is when SHARD is unset.  A record without an id is keyed by its
   sample index alone.  */
bool dice_shard_keeps_key (const struct dice_shard *shard, const char *id,
                           long long index);

/* The same for a record.  */
bool dice_shard_keeps (const struct dice_shard *shard, const json_t *rec);

#endif
