"""What the harness may say about foreign text: secret values redacted,
exceptions as one short line.

Which environment names count as secret is C's rule (lib/secrets.c, the
one list); the job carries it as "secret_patterns", and this module keeps
no list of its own.  C scrubs the environment before the harness runs;
this is a second line in case it did not.
"""

_secrets = []


def secret_name(name, patterns):
    """Whether the variable NAME may hold a secret under PATTERNS
    ({"words": [...], "prefixes": [...]}, compared case-insensitively):
    a name that contains one of the words or starts with one of the
    prefixes."""
    upper = name.upper()
    words = patterns.get("words") or []
    prefixes = patterns.get("prefixes") or []
    return any(isinstance(w, str) and w and w.upper() in upper for w in words) \
        or any(isinstance(p, str) and p and upper.startswith(p.upper())
               for p in prefixes)


def remember_secrets(environ, patterns):
    """Never echo the values of ENVIRON's secret variables in a result.
    PATTERNS is the job's secret_patterns; without it (an old job) no
    variable counts as secret."""
    if not isinstance(patterns, dict):
        return
    for name, value in environ.items():
        if len(value) >= 4 and secret_name(name, patterns):
            _secrets.append(value)


def clean(text):
    for value in _secrets:
        text = text.replace(value, "[redacted]")
    return text


def one_line(exc):
    """EXC as `Type: first line of its message`, at most 300 characters."""
    text = str(exc).strip()
    first = text.splitlines()[0] if text else ""
    line = type(exc).__name__ + (": " + first if first else "")
    return clean(line)[:300]
