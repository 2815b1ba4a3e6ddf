#!/bin/sh
# kb-standins.sh DIR [KERNELBENCH_DIR]: KernelBench's package imports the
# openai and litellm clients (in kernelbench.utils) even where only its
# evaluation or timer is used, which never calls them.  Where $DICE_PYTHON
# lacks them, write empty stand-ins into DIR and print DIR, for
# PYTHONPATH; else print nothing.  With KERNELBENCH_DIR, also make sure
# that its evaluation imports (with the stand-ins): where it does not (a
# requirement such as python-dotenv or pydantic is missing), say which
# and fail, before a benchmark spends minutes on dice's side first.
set -eu
[ $# = 1 ] || [ $# = 2 ] || { echo "usage: $0 DIR [KERNELBENCH_DIR]" >&2; exit 2; }
python=${DICE_PYTHON:-python3}
standins=
if ! "$python" -c 'import openai, litellm' 2>/dev/null; then
	mkdir -p "$1"
	printf 'class OpenAI:\n    pass\n' >"$1/openai.py"
	printf 'def completion(*args, **kwargs):\n    raise RuntimeError("no LLM client in this benchmark")\n' \
		>"$1/litellm.py"
	standins=$1
fi
if [ $# = 2 ]; then
	kb=$2
	if ! err=$(PYTHONPATH="$kb/src:$kb${standins:+:$standins}${PYTHONPATH:+:$PYTHONPATH}" \
		"$python" -c '
try:
    from kernelbench import eval
except ImportError as e:
    if getattr(e, "name", None) not in ("kernelbench",):
        raise
    from src import eval' 2>&1); then
		echo "$0: KernelBench's evaluation does not import with $python:" >&2
		printf '%s\n' "$err" | tail -n 1 >&2
		echo "$0: install its requirements (see $kb/requirements.txt)" >&2
		exit 1
	fi
fi
[ -z "$standins" ] || echo "$standins"
