#!/usr/bin/env bash
# Where the edit loop's critical path goes: the device chains of
# edit_loop.sh's heavy TU phase by phase, from nvcc's own time trace
# (-fdevice-time-trace), for the last architecture alone and for all ARCHS at
# once, without and with --split-compile N for each N in SPLITS (comma-
# separated; sizes take turns within a round). ARCHS at once means one nvcc
# per architecture started together (`nvcc --threads 0` fails with the
# trace), which is how FastCuda's graph runs the chains. chain_phases.py
# prints the phases and the chain's floor on this machine.
# Usage: bench/chain_phases.sh [ARCHS] [SPLITS] [REPEATS]   (default 75,80,86,89,90 4 1)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
archs="${1:-75,80,86,89,90}"; splits="${2:-4}"; repeats="${3:-1}"
cd "$work"
"$bench_dir/make_corpus.sh" corpus 1 80-real heavy
cp corpus/src/tu1.cu tu.cu

traced() {  # NAME SM NVCC_ARGS...: compiles tu.cu for sm_SM, nvcc's trace in NAME.SM.json
  local name="$1" sm="$2"; shift 2
  run_quietly nvcc -c tu.cu -o "$name.$sm.o" -arch "sm_$sm" -fdevice-time-trace "$name.$sm" "$@"
}
at_once() {  # NAME NVCC_ARGS...: one traced nvcc per architecture, all started together
  local name="$1" sm pids=() pid; shift
  for sm in ${archs//,/ }; do traced "$name" "$sm" "$@" & pids+=($!); done
  for pid in "${pids[@]}"; do wait "$pid"; done
}

last="${archs##*,}"
for round in $(seq "$repeats"); do
  traced "alone_1.r$round" "$last"
  at_once "at_once_1.r$round"
  for split in ${splits//,/ }; do
    traced "alone_$split.r$round" "$last" --split-compile "$split"
    at_once "at_once_$split.r$round" --split-compile "$split"
  done
done
echo "chain phases: one heavy TU (CUB instances, 3 kernels unrolled ${HEAVY_UNROLL:-64}), sm $archs;" \
     "split compile 1 and $splits; medians of $repeats round(s), over the architectures at once"
python3 "$bench_dir/chain_phases.py" "$jobs" "$(tr ',' '\n' <<< "$archs" | wc -l)" ./*.json
