#!/bin/sh
# kb-standins.sh DIR: KernelBench's package imports the openai and litellm
# clients (in kernelbench.utils) even where only its evaluation or timer
# is used, which never calls them.  Where $DICE_PYTHON lacks them, write
# empty stand-ins into DIR and print DIR, for PYTHONPATH; else print
# nothing.
set -eu
[ $# = 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
if ! "${DICE_PYTHON:-python3}" -c 'import openai, litellm' 2>/dev/null; then
	mkdir -p "$1"
	printf 'class OpenAI:\n    pass\n' >"$1/openai.py"
	printf 'def completion(*args, **kwargs):\n    raise RuntimeError("no LLM client in this benchmark")\n' \
		>"$1/litellm.py"
	echo "$1"
fi
