/* secrets.c: the secret-name rule and redaction, shared by every place that
   hands text or an environment to someone else.  */
#include "system.h"

#include <stdint.h>
#include <strings.h>

#include "secrets.h"

/* A name containing one of these words may hold a secret whatever
   surrounds it (MY_API_KEY, GITHUB_TOKEN, DB_PASSWORD, HTTP_COOKIE).  */
static const char *const secret_words[] = {
  "KEY", "TOKEN", "SECRET", "PASSW", "CREDENTIAL", "AUTH", "COOKIE"
};

/* Whole families of credentials, whatever their last word.  */
static const char *const secret_prefixes[] = {
  "SSH_", "AWS_", "AZURE_", "GCP_", "GOOGLE_", "OPENAI_", "ANTHROPIC_",
  "HF_", "HUGGING", "WANDB_", "DICE_API"
};

static bool
contains_nocase (const char *haystack, const char *needle)
{
  size_t n = strlen (needle);

  for (; *haystack; haystack++)
    if (strncasecmp (haystack, needle, n) == 0)
      return true;
  return false;
}

bool
dice_secret_name (const char *name)
{
  for (size_t i = 0; i < DICE_ARRAY_SIZE (secret_words); i++)
    if (contains_nocase (name, secret_words[i]))
      return true;
  for (size_t i = 0; i < DICE_ARRAY_SIZE (secret_prefixes); i++)
    if (strncasecmp (name, secret_prefixes[i],
                     strlen (secret_prefixes[i])) == 0)
      return true;
  return false;
}

static json_t *
string_array (const char *const *items, size_t n)
{
  json_t *a = json_array ();

  for (size_t i = 0; a && i < n; i++)
    if (json_array_append_new (a, json_string (items[i])) != 0)
      {
        json_decref (a);
        return NULL;
      }
  return a;
}

json_t *
dice_secret_patterns_json (void)
{
  json_t *words = string_array (secret_words, DICE_ARRAY_SIZE (secret_words));
  json_t *prefixes = string_array (secret_prefixes,
                                   DICE_ARRAY_SIZE (secret_prefixes));

  if (words == NULL || prefixes == NULL)
    {
      json_decref (words);
      json_decref (prefixes);
      return NULL;
    }
  return json_pack ("{s:o,s:o}", "words", words, "prefixes", prefixes);
}

char *
dice_redact (const char *text, size_t len, const char *const *secrets,
             size_t nsecrets, size_t *outlen)
{
  static const char mark[] = "[redacted]";
  size_t shortest = SIZE_MAX, cap, o = 0;
  char *out;

  for (size_t k = 0; k < nsecrets; k++)
    if (secrets[k] && strlen (secrets[k]) >= 4 && strlen (secrets[k]) < shortest)
      shortest = strlen (secrets[k]);
  /* Each hit widens the text by at most the mark's length.  */
  cap = len + 1 + (shortest == SIZE_MAX ? 0 : len / shortest * sizeof mark);
  out = malloc (cap);
  if (out == NULL)
    return NULL;
  for (size_t i = 0; i < len;)
    {
      size_t hit = 0;

      for (size_t k = 0; k < nsecrets && hit == 0; k++)
        {
          size_t slen = secrets[k] ? strlen (secrets[k]) : 0;

          if (slen >= 4 && len - i >= slen
              && memcmp (text + i, secrets[k], slen) == 0)
            hit = slen;
        }
      if (hit)
        {
          memcpy (out + o, mark, sizeof mark - 1);
          o += sizeof mark - 1;
          i += hit;
        }
      else
        out[o++] = text[i++];
    }
  out[o] = '\0';
  if (outlen)
    *outlen = o;
  return out;
}

char *
dice_one_line (char *text, size_t max)
{
  size_t n = strlen (text);

  if (n > max)
    {
      n = max;
      /* Back up over continuation bytes so the cut keeps whole
         characters.  */
      while (n > 0 && ((unsigned char) text[n] & 0xC0) == 0x80)
        n--;
      text[n] = '\0';
    }
  for (char *p = text; *p; p++)
    if (*p == '\n' || *p == '\r' || *p == '\t')
      *p = ' ';
  return text;
}
