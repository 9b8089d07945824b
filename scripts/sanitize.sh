#!/usr/bin/env bash
# Runs every registered kernel under compute-sanitizer (memcheck, racecheck, synccheck, initcheck)
# at a few small awkward shapes and layouts; fails on any report. Needs a GPU.
# Usage: [SANITIZE_ARGS="--dtype bf16"] [SANITIZE_TOOLS="memcheck racecheck"]
#        scripts/sanitize.sh [path/to/tilegemm] [kernel-glob]
set -uo pipefail
TILEGEMM=${1:-./build/tools/tilegemm/tilegemm}
GLOB=${2:-*}
# shape and pads: odd sizes with padded leading dimensions take the scalar edge paths; the
# aligned case (multiples of 4, no padding) takes the 16-byte and cp.async paths.
# 136x72x24 has every leading dimension a multiple of 8: the 16-byte paths of 16-bit types.
# Each case: shape, pads, beta. beta = 0 with N a multiple of 8 takes the TMA-store epilogue of
# the Hopper rungs (rows past M in a cluster's second tile included: 136 = 128 + 8); 40x72x2048
# is one tile against a long K: short TMA boxes and the split-K partial tiles and second pass.
CASES=("1x1x1 0,0,0 0.5" "33x65x17 1,2,3 0.5" "132x68x20 0,0,0 0.5")
[ -n "${SANITIZE_ARGS:-}" ] && CASES+=("136x72x24 0,0,0 0.5" "136x72x24 0,0,0 0" \
  "40x72x2048 0,0,0 0.5")
# SANITIZE_CASES replaces them: "shape pads beta;shape pads beta;..."
[ -n "${SANITIZE_CASES:-}" ] && IFS=';' read -ra CASES <<<"$SANITIZE_CASES"
LAYOUTS=("row row row" "col col col" "row col row" "col row col")
failures=0
runs=0
for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
  for case_ in "${CASES[@]}"; do
    read -r shape pad beta <<<"$case_"
    for lay in "${LAYOUTS[@]}"; do
      read -r la lb lc <<<"$lay"
      log=$(mktemp)
      compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 \
        "$TILEGEMM" verify --kernels "$GLOB" --shape "$shape" --alpha 1.5 --beta "$beta" \
        --layout-a "$la" --layout-b "$lb" --layout-c "$lc" --pad "$pad" --seed 7 \
        ${SANITIZE_ARGS:-} >"$log" 2>&1
      rc=$?
      runs=$((runs + 1))
      if [ $rc -ne 0 ]; then
        failures=$((failures + 1))
        echo "FAIL: $tool $shape pad=$pad layout=$la,$lb,$lc (exit $rc)"
        grep -E "=========|FAILED|error" "$log" | head -30
      else
        summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
        echo "ok:   $tool $shape pad=$pad layout=$la,$lb,$lc  ${summary#========= }"
      fi
      rm -f "$log"
    done
  done
done
echo "sanitize: $runs runs, $failures failed"
[ $failures -eq 0 ]
