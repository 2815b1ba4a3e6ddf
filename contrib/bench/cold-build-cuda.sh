#!/bin/sh
# cold-build-cuda.sh: the cold-build figure on a GPU machine: plain
# load_inline against dice on the bundled CUDA solutions (or CANDIDATES).
# Usage: contrib/bench/cold-build-cuda.sh [CANDIDATES...]
# Needs a Python with a CUDA torch (DICE_PYTHON, default python3), nvcc and
# ninja.  Builds for the GPU's own architecture only (TORCH_CUDA_ARCH_LIST,
# when unset), the same for both sides.  Prints what cold-build.py prints.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
DICE_PYTHON=${DICE_PYTHON:-python3}
export DICE_PYTHON
if [ -z "${TORCH_CUDA_ARCH_LIST:-}" ]; then
	TORCH_CUDA_ARCH_LIST=$("$DICE_PYTHON" -c 'import torch; print("%d.%d" % torch.cuda.get_device_capability())')
	export TORCH_CUDA_ARCH_LIST
fi
MAX_JOBS=${MAX_JOBS:-$(nproc)}
export MAX_JOBS
if [ $# -eq 0 ]; then
	set -- "$here"/share/dice/examples/cuda/level*/*.py
fi
echo "machine: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)," \
	"$(nproc) cores, torch $("$DICE_PYTHON" -c 'import torch; print(torch.__version__)')," \
	"arch $TORCH_CUDA_ARCH_LIST"
exec "$DICE_PYTHON" "$here/contrib/bench/cold-build.py" --device cuda "$@"
