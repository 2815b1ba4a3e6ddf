"""dice_harness: the Python half of dice-compile and dice-check.

The C tools run `python -m dice_harness` once per candidate, in a fresh
process and an empty directory, feed it one job as JSON on stdin and read
one JSON result from the file descriptor named by DICE_RESULT_FD.  The
protocol is documented in dice(7), HARNESS PROTOCOL.  Only this package
knows PyTorch; everything about processes, limits and records is C's.
"""

# Part of every build-cache key: bump it whenever a change here would make
# an old cached build wrong (a different way of building or of loading).
HARNESS_VERSION = "1"
