#!/usr/bin/env bash
# A PyTorch C++/CUDA extension built by torch.utils.cpp_extension.load,
# which writes a build.ninja and runs `ninja` from PATH, once plainly and
# once with fastcuda linked as `ninja` first on PATH: the nvcc edges are
# split (steps.ninja), the objects equal the plain build's, and where a GPU
# is there both extensions compute the same. Runs where the Python in
# FASTCUDA_TEST_PYTHON (default python3) imports torch; skips with one line
# elsewhere. TORCH_CUDA_ARCH_LIST picks the architectures (default 8.0).
#
# usage: torch_extension.sh FASTCUDA_BINARY [NVCC]
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" torch_extension "$@"
python=${FASTCUDA_TEST_PYTHON:-python3}
if ! "$python" -c "import torch.utils.cpp_extension" 2> /dev/null; then
  echo "torch_extension: skipped, $python cannot import torch"
  rm -rf "$scratch"
  exit 0
fi
export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-8.0}
export CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$NVCC")")}
cd "$scratch"
mkdir -p ext bin plain fast
ln -s "$FASTCUDA" bin/ninja
cat > ext/scale.cu <<'CU'
#include <torch/extension.h>
__global__ void scale_kernel(float* x, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}
torch::Tensor scale_cuda(torch::Tensor x, double factor) {
  torch::Tensor y = x.clone();
  int n = y.numel();
  scale_kernel<<<(n + 255) / 256, 256>>>(y.data_ptr<float>(), static_cast<float>(factor), n);
  return y;
}
CU
cat > ext/ext.cpp <<'CPP'
#include <torch/extension.h>
torch::Tensor scale_cuda(torch::Tensor x, double factor);
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("scale", &scale_cuda, "x * factor"); }
CPP
cat > build.py <<'PY'
import sys, torch
from torch.utils.cpp_extension import load
ext = load("fastcuda_scale", ["ext/ext.cpp", "ext/scale.cu"], build_directory=sys.argv[1], verbose=True)
if torch.cuda.is_available():
    print("result", ext.scale(torch.arange(6.0, device="cuda"), 2.5).tolist())
else:
    print("result no GPU")
PY
"$python" build.py plain > plain.log 2>&1
PATH="$scratch/bin:$PATH" "$python" build.py fast > fast.log 2>&1

builds() { grep -q '^result' plain.log && grep -q '^result' fast.log; }
check "the extension builds plainly and through fastcuda linked as ninja" builds

# cpp_extension runs `ninja -v`: the log shows each step's command, cicc's among them.
split() {
  grep -q '^build .*: CICC ' fast/.fastcuda/steps.ninja && grep -q 'fastcuda step .* -- [^ ]*/cicc ' fast.log &&
    ! grep -q 'nvcc .* -c .*scale\.cu' fast.log
}
check "cpp_extension's nvcc edge was split into steps" split

same_objects() { same_object fast/scale.cuda.o plain/scale.cuda.o && cmp -s <(nm fast/ext.o) <(nm plain/ext.o); }
check "the CUDA object equals the plain build's, the C++ object is there" same_objects

same_results() { [ "$(grep '^result' fast.log)" = "$(grep '^result' plain.log)" ]; }
check "both extensions compute the same ($(grep -m1 '^result' fast.log))" same_results

finish
