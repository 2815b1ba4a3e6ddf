/* t0016-lib-policy: the shared policy of lib/secrets and lib/numarg: one
   secret-name rule, redaction, one-lining, and one wording for refused
   option values.  */
#include "system.h"

#include <math.h>

#include "numarg.h"
#include "secrets.h"
#include "tap.h"

int
main (void)
{
  const char *keys[] = { "sk-abcdef", "xy", NULL };
  char buf[128], what[64], *r;
  size_t len;
  long l;
  double d;
  long long size;

  ok (dice_secret_name ("OPENAI_API_KEY"), "an API key is secret");
  ok (dice_secret_name ("github_token"), "in any case");
  ok (dice_secret_name ("HTTP_COOKIE"), "a cookie is secret");
  ok (dice_secret_name ("AWS_REGION"), "every AWS_ variable is secret");
  ok (dice_secret_name ("HF_HOME") && dice_secret_name ("WANDB_ENTITY"),
      "as are HF_ and WANDB_ ones");
  ok (dice_secret_name ("DB_PASSWORD"), "a password is secret");
  ok (!dice_secret_name ("PATH") && !dice_secret_name ("CUDA_HOME")
      && !dice_secret_name ("TORCH_CUDA_ARCH_LIST"),
      "what compilers and torch read is not");

  r = dice_redact ("key=sk-abcdef; again sk-abcdef.", 31, keys, 3, &len);
  is_str (r, "key=[redacted]; again [redacted].", "every hit redacted");
  is_int ((long long) len, (long long) strlen (r), "length returned");
  free (r);
  r = dice_redact ("xy xy", 5, keys, 2, NULL);
  is_str (r, "xy xy", "a secret shorter than four bytes is left alone");
  free (r);
  r = dice_redact ("sk-abc", 6, keys, 1, NULL);
  is_str (r, "sk-abc", "a prefix of a secret is not one");
  free (r);

  strcpy (buf, "line one\nline\ttwo\r");
  is_str (dice_one_line (buf, 300), "line one line two ", "one line");
  strcpy (buf, "ab\xc3\xa9z");
  is_str (dice_one_line (buf, 3), "ab", "never cut inside a character");

  ok (dice_parse_long ("8", 1, 1024, &l) && l == 8, "an integer in range");
  ok (!dice_parse_long ("0", 1, 1024, &l), "below the range");
  ok (!dice_parse_long ("8x", 1, 1024, &l), "trailing junk");
  ok (!dice_parse_long ("", 1, 1024, &l), "empty");
  ok (!dice_parse_long ("99999999999999999999", 1, LONG_MAX, &l), "overflow");
  ok (dice_parse_double ("0.5", 0, HUGE_VAL, true, &d) && d == 0.5,
      "a number above zero");
  ok (!dice_parse_double ("0", 0, HUGE_VAL, true, &d), "zero is not above zero");
  ok (dice_parse_double ("0", 0, HUGE_VAL, false, &d), "but is at least zero");
  ok (!dice_parse_double ("nan", 0, HUGE_VAL, false, &d), "nan refused");
  ok (!dice_parse_double ("inf", 0, HUGE_VAL, false, &d), "inf refused");
  ok (dice_parse_size ("8G", &size) && size == 8LL << 30, "8G");
  ok (dice_parse_size ("512mb", &size) && size == 512LL << 20, "512mb");
  ok (!dice_parse_size ("-1", &size) && !dice_parse_size ("8Q", &size),
      "bad sizes refused");

  dice_describe_long (what, sizeof what, 1, 1024);
  dice_invalid_value (buf, sizeof buf, "jobs", "0", what);
  is_str (buf, "invalid --jobs '0' (an integer from 1 to 1024)",
          "the one wording for integers");
  dice_describe_double (what, sizeof what, 0, HUGE_VAL, true);
  dice_invalid_value (buf, sizeof buf, "timeout", "x", what);
  is_str (buf, "invalid --timeout 'x' (a number above 0)",
          "and for numbers");
  dice_describe_long (what, sizeof what, 0, LONG_MAX);
  is_str (what, "an integer of at least 0", "an open range");
  done_testing ();
}
