/* shard.c: which records belong to --shard I/N, as shard.h says.  */
#include "system.h"

#include <ctype.h>
#include <stdint.h>

#include "numarg.h"
#include "record.h"
#include "shard.h"

int
dice_shard_parse (const char *arg, struct dice_shard *shard, char *err,
                  size_t errlen)
{
  unsigned long i, n;
  char *end;

  if (!isdigit ((unsigned char) *arg))
    goto bad;
  errno = 0;
  i = strtoul (arg, &end, 10);
  if (errno || *end != '/' || !isdigit ((unsigned char) end[1]))
    goto bad;
  n = strtoul (end + 1, &end, 10);
  if (errno || *end || n < 1 || n > 1000000 || i < 1 || i > n)
    goto bad;
  shard->index = i;
  shard->count = n;
  return 0;
bad:
  dice_invalid_value (err, errlen, "shard", arg,
                      "I/N, with I from 1 to N and N up to 1000000");
  return -1;
}

/* FNV-1a, 64 bits: stable across machines and runs, unlike the order of
   the input, so every task of an array computes the same split.  */
static uint64_t
fnv1a (uint64_t h, const void *data, size_t len)
{
  const unsigned char *p = data;

  for (size_t i = 0; i < len; i++)
    h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

bool
dice_shard_keeps_key (const struct dice_shard *shard, const char *id,
                      long long index)
{
  char num[32];
  uint64_t h = 14695981039346656037ULL;

  if (shard == NULL || shard->count <= 1)
    return true;
  if (id)
    h = fnv1a (h, id, strlen (id) + 1);
  snprintf (num, sizeof num, "%lld", index);
  h = fnv1a (h, num, strlen (num));
  /* Mix the high bits down: FNV's low bits alone split short keys that
     differ in one last character poorly.  */
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h % shard->count == shard->index - 1;
}

bool
dice_shard_keeps (const struct dice_shard *shard, const json_t *rec)
{
  return dice_shard_keeps_key (shard, dice_record_id (rec),
                               dice_record_sample_index (rec));
}
