#!/usr/bin/env bash
# One command for a lent GPU machine: device facts, the GPU test suite, the sanitizer sweep, the
# benchmarks and the profiler counters, each step's log under $OUT/run, packed into $OUT/run.tgz
# (plus summary.txt beside it). Binaries come prebuilt for sm_90a in $BIN.
# Usage: OUT=dir BIN=dir scripts/gpu_session.sh [steps...]   steps: info tests sanitize seeds
#        fuzz ladder ladder-colb cute ncu, and for the tensor-core rungs: fuzz-tensor
#        sanitize-tensor tensor verify-ts rung15 tf32 gemv tune sass profile odd random ncu-tensor
#        smallm-probe skinny thin-k profile-rungs18-19 pad-f32 realign random-seeds narrow narrow-random fill-f32 sanitize-narrow ncu-narrow skinny-pad-f32 pad64 wave-f32 copy-stage sanitize-copy-stage thin-k-pad wave-tail
#        staged-store stream-one-launch 3xtf32 3xtf32-rules 3xtf32-mid 3xtf32-random
#        narrow-f32-mid 3xtf32-cs 3xtf32-cs-random 3xtf32-csra 3xtf32-csra-random realign-quick verify-copies
#        residue residue-random small small-random small-mma tiny-mma host-cost thin-k-mma thin-k-f32 ncu-thin-k-mma narrow8-probe
#        gemv-rows, ncu-tiny, tiny-solo, tiny-m16, tune-seeds, mma-3xtf32, ncu-mma3, narrow-wide, narrow-tiny-k, tiny-wide, naive16, ncu-narrow-elem, read-rate, targets,
#        table-random, write-rate, short-off, split-sum, block, cluster-split, ncu-gemv, tune-mv,
#        ncu-gemv-rows, tune-grid, ncu-narrow-aligned, tiny-frag, tiny-mma-f32, probe, bench-grid, ab and ab-random
#        (this build against $BIN/tilegemm_old), and
#        regress (every fp32 kernel at 4096^3) (default: all)
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/tools/tilegemm}
TESTBIN=${TESTBIN:-build/tests}
OUT=${OUT:-gpu-out}
R="$OUT/run"
mkdir -p "$R"
TG="$(cd "$BIN" && pwd)/tilegemm"
TIMING=${TIMING:---rounds 5 --reps 20 --warmup 5}
# Benchmarks run inside $R with bare output names, so the command recorded in each result file
# names no machine path.
# Timing: interleaved rounds (bench --rounds): the card is power-capped, and a kernel timed alone
# right after another runs at a different clock than the one before it.
bench() { (cd "$R" && "$TG" bench $TIMING "$@"); }
# bench_random NAME KERNELS DTYPE SEED OUTPUT: the issue's random shapes (bench --random 100
# --max-size 8192) of one seed, logged as step NAME. The tune cache follows the environment, so a
# caller prefixes TILEGEMM_TUNE_CACHE=off for the rules alone.
bench_random() {
  run_step "$1" bench --kernels "$2" --dtype "$3" --random 100 --seed "$4" --max-size 8192 \
    --format json --output "$5"
}
STEPS=("$@")
[ ${#STEPS[@]} -eq 0 ] && STEPS=(info tests fuzz fuzz-tensor sanitize sanitize-tensor tensor seeds \
  ladder ladder-colb cute ncu)
# The element-type combinations of the tensor-core rungs: "A/B dtype:C dtype".
TENSOR_TYPES=(${TENSOR_TYPES:-bf16:bf16 bf16:f32 f16:f16 f16:f32 tf32:f32})
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr ' ' '-' )
DAY=$(date -u +%Y-%m-%d)
TAG="${GPU:-unknown}_${DAY}"
summary="$OUT/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }

run_step() {
  local name=$1
  shift
  local t0=$SECONDS
  "$@" >"$R/$name.log" 2>&1
  local rc=$?
  note "step $name: exit $rc, $((SECONDS - t0)) s"
  tar czf "$OUT/run.tgz" -C "$OUT" run  # packed after every step: a cut-off run keeps its logs
  return $rc
}

# each_build FN ARGS...: FN new <this build's tilegemm> ARGS..., then FN old <$BIN/tilegemm_old>
# ARGS... where that exists: the steps that profile this build beside an earlier one.
each_build() {
  local fn=$1 v t
  shift
  for v in new old; do
    t="$TG"
    [ "$v" = old ] && t="$(cd "$BIN" && pwd)/tilegemm_old"
    [ -x "$t" ] && "$fn" "$v" "$t" "$@"
  done
}

# The element-type combinations of the 16-bit families, of the wgmma and mma.sync rungs, and of
# every family.
SIXTEEN_BIT_TYPES="bf16:bf16 bf16:f32 f16:f16 f16:f32"
WGMMA_TYPES="$SIXTEEN_BIT_TYPES tf32:f32"
EVERY_TYPE="f32:f32 $WGMMA_TYPES"
# verify_matrix NAME GLOB "TYPES" "CASES" SHAPE...: tilegemm verify of the kernels GLOB names over
# each "A/B dtype:C dtype" of TYPES, five layout mixes and each "beta pads" of CASES (separated by
# ";"), every run appended to $R/NAME_verify.log; a failing run is named in the summary, and the
# number of passing runs ends it.
verify_matrix() {
  local name=$1 glob=$2 types=$3 cases=$4
  shift 4
  local shapes=() vs=() s t ab c lay la lb lc v beta pad
  for s in "$@"; do shapes+=(--shape "$s"); done
  IFS=';' read -ra vs <<<"$cases"
  for t in $types; do
    ab=${t%%:*} c=${t##*:}
    for lay in "row row row" "col col col" "row col row" "col row col" "row row col"; do
      read -r la lb lc <<<"$lay"
      for v in "${vs[@]}"; do
        read -r beta pad <<<"$v"
        "$TG" verify --kernels "$glob" --dtype "$ab" --dtype-c "$c" --layout-a "$la" \
          --layout-b "$lb" --layout-c "$lc" --beta "$beta" --pad "$pad" "${shapes[@]}" \
          >>"$R/${name}_verify.log" 2>&1 ||
          echo "FAIL $name $t $lay beta $beta pad $pad" | tee -a "$summary"
      done
    done
  done
  grep -c "all passed" "$R/${name}_verify.log" | sed "s/^/$name verify runs passed: /" |
    tee -a "$summary"
}
# sanitize_types NAME "TYPES" "CASES" GLOB: scripts/sanitize.sh under memcheck and racecheck for
# the kernels GLOB names, over each "A/B dtype:C dtype" of TYPES and the "shape pads beta" CASES
# (separated by ";"), logged as step NAME_<A/B dtype>, each run's last line in the summary.
sanitize_types() {
  local name=$1 types=$2 cases=$3 glob=$4 t ab c
  for t in $types; do
    ab=${t%%:*} c=${t##*:}
    run_step "${name}_$ab" env SANITIZE_ARGS="--dtype $ab --dtype-c $c" \
      SANITIZE_TOOLS="memcheck racecheck" SANITIZE_CASES="$cases" scripts/sanitize.sh "$TG" "$glob"
    tail -1 "$R/${name}_$ab.log" | tee -a "$summary"
  done
}
# sanitize_verify LOG TOOL GLOB AB LAYOUT PAD SHAPE...: tilegemm verify of the kernels GLOB names
# under compute-sanitizer TOOL (A/B dtype AB, "la lb lc" LAYOUT, pads PAD, beta 0.5), appended to
# $R/LOG with an "ok" line when clean; a report is named in the summary.
sanitize_verify() {
  local log=$1 tool=$2 glob=$3 ab=$4 lay=$5 pad=$6 la lb lc s shapes=()
  shift 6
  read -r la lb lc <<<"$lay"
  for s in "$@"; do shapes+=(--shape "$s"); done
  compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 "$TG" verify \
    --kernels "$glob" --dtype "$ab" --layout-a "$la" --layout-b "$lb" --layout-c "$lc" \
    --pad "$pad" --beta 0.5 "${shapes[@]}" >>"$R/$log" 2>&1 &&
    echo "ok $tool $ab $lay $pad" >>"$R/$log" ||
    echo "FAIL $log $tool $ab $lay pad $pad" | tee -a "$summary"
}

# family_checks NAME GLOB TYPES FILTER CASES TOOLS SANITIZE_TYPES VERIFY_SHAPES SANITIZE_SHAPES:
# a family's GPU tests (the gtest FILTER), tilegemm verify of the kernels GLOB names in each
# "A/B:C" of TYPES and five layout mixes over the "beta pads" CASES and VERIFY_SHAPES, then each
# sanitizer of TOOLS in each type of SANITIZE_TYPES on SANITIZE_SHAPES in two layout mixes (col
# row col at odd pitches, row col row at the least), logged as NAME; the counts in the summary.
family_checks() {
  local name=$1 glob=$2 types=$3 filter=$4 cases=$5 tools=$6 san_types=$7 tool ab
  local vshapes=() sshapes=()
  read -ra vshapes <<<"$8"
  read -ra sshapes <<<"$9"
  run_step "${name}_tests" "$TESTBIN/tilegemm_gpu_tests" --gtest_filter="$filter"
  tail -3 "$R/${name}_tests.log" | tee -a "$summary"
  verify_matrix "$name" "$glob" "$types" "$cases" "${vshapes[@]}"
  for tool in $tools; do
    for ab in $san_types; do
      sanitize_verify "sanitize_$name.log" "$tool" "$glob" "$ab" "col row col" 1,1,1 \
        "${sshapes[@]}"
      sanitize_verify "sanitize_$name.log" "$tool" "$glob" "$ab" "row col row" 0,0,0 \
        "${sshapes[@]}"
    done
  done
  grep -c "^ok " "$R/sanitize_$name.log" | sed "s/^/sanitize $name runs clean: /" |
    tee -a "$summary"
}

# sanitize_bf16_mixes NAME GLOB SHAPE...: memcheck and racecheck of the kernels GLOB names in bf16
# with pads 1,2,3 and beta 0.5, in three layout mixes, into $R/sanitize_NAME.log; the count of
# clean runs in the summary.
sanitize_bf16_mixes() {
  local name=$1 glob=$2 tool lay
  shift 2
  for tool in memcheck racecheck; do
    for lay in "row col row" "col row col" "row row col"; do
      sanitize_verify "sanitize_$name.log" "$tool" "$glob" bf16 "$lay" 1,2,3 "$@"
    done
  done
  grep -c "^ok " "$R/sanitize_$name.log" | sed "s/^/sanitize $name runs clean: /" |
    tee -a "$summary"
}

# bench_by_layout NAME KERNELS OUT "la lb lc:SHAPE ..."...: a bench of KERNELS (f32, or the dtype
# BENCH_DTYPE names; pads BENCH_PAD, default none) on the shapes of each layout mix, logged as
# step NAME_<layouts> and written to ${TAG}_OUT-<layouts>.json (the caller's environment applies:
# prefix TILEGEMM_TUNE_CACHE=off for the rules alone).
bench_by_layout() {
  local name=$1 kernels=$2 out=$3 lay la lb lc s shapes dtype=${BENCH_DTYPE:-f32}
  shift 3
  for lay in "$@"; do
    read -r la lb lc <<<"${lay%%:*}"
    shapes=()
    for s in ${lay#*:}; do shapes+=(--shape "$s"); done
    run_step "${name}_$la$lb$lc" bench --kernels "$kernels" --dtype "$dtype" --layout-a "$la" \
      --layout-b "$lb" --layout-c "$lc" --pad "${BENCH_PAD:-0,0,0}" "${shapes[@]}" --format json \
      --output "${TAG}_$out-$la$lb$lc.json"
  done
}

# width_grid NAME KERNELS OUT "WIDTHS": KERNELS (f32) by the rules alone on a grid of width x wide
# side (1500, 6000) x K (300, 1200, 5000) in the two read classes (col row col, row col row) at
# 16-byte and odd pitches: steps NAME_<pads>_<layouts>, files ${TAG}_OUT-<pads>-<layouts>.json.
width_grid() {
  local name=$1 kernels=$2 out=$3 grid="" w wide k pad
  for w in $4; do
    for wide in 1500 6000; do
      for k in 300 1200 5000; do grid+=" ${w}x${wide}x$k"; done
    done
  done
  for pad in 0,0,0 1,1,1; do
    BENCH_PAD=$pad TILEGEMM_TUNE_CACHE=off bench_by_layout "${name}_${pad//,/}" "$kernels" \
      "$out-${pad//,/}" "col row col:$grid" "row col row:$grid"
  done
}

# sanitize_split NAME GLOB LAYOUT...: memcheck and racecheck of rung 22's kernels GLOB names (f32)
# in each "la lb lc" LAYOUT at 16-byte and odd pitches, the count of clean runs in the summary,
# then the GPU suite's rung-22 tests (sweep, wave tail, split-K, non-finite inputs) as NAME_tests.
sanitize_split() {
  local name=$1 glob=$2 tool lay pad
  shift 2
  for tool in memcheck racecheck; do
    for lay in "$@"; do
      for pad in 0,0,0 1,2,3; do
        sanitize_verify "sanitize_$name.log" "$tool" "$glob" f32 "$lay" "$pad" 100x200x300 \
          33x1000x77 513x257x129
      done
    done
  done
  grep -c "^ok " "$R/sanitize_$name.log" | sed "s/^/sanitize $name runs clean: /" |
    tee -a "$summary"
  run_step "${name}_tests" "$TESTBIN/tilegemm_gpu_tests" \
    --gtest_filter='*KernelSweep*3xtf32*:*WgmmaWaveTail*:*SplitKResultsAreBitIdentical*:*ThreeTf32*'
  tail -3 "$R/${name}_tests.log" | tee -a "$summary"
}

# each_config CONFIGS FN: for each entry of CONFIGS ("layout-a layout-b layout-c pad:shape shape
# ...", entries separated by ";"), FN ENTRY LAYOUT-A LAYOUT-B LAYOUT-C PAD --shape S ..., ENTRY
# counting from 1.
each_config() {
  local configs=$1 fn=$2 ci=0 cfg la lb lc pad s
  local -a entries shapes
  IFS=';' read -ra entries <<<"$configs"
  for cfg in "${entries[@]}"; do
    ci=$((ci + 1))
    read -r la lb lc pad <<<"${cfg%%:*}"
    shapes=()
    for s in ${cfg#*:}; do shapes+=(--shape "$s"); done
    "$fn" "$ci" "$la" "$lb" "$lc" "$pad" "${shapes[@]}"
  done
}

# random_rules_f32 NAME KERNELS: the issue's random fp32 shapes of seeds 7, 3 and 11, auto by its
# rules alone (no tune cache) beside KERNELS, as steps NAME_random_s<seed> into
# ${TAG}_NAME-random-f32-s<seed>.json.
random_rules_f32() {
  local seed
  for seed in 7 3 11; do
    TILEGEMM_TUNE_CACHE=off bench_random "${1}_random_s$seed" "$2" f32 "$seed" \
      "${TAG}_$1-random-f32-s$seed.json"
  done
}

for step in "${STEPS[@]}"; do
  case $step in
    info)
      run_step info bash -c "nvidia-smi; nvidia-smi -q -d CLOCK,POWER,PERFORMANCE; $TG devices"
      ;;
    tests)
      run_step gpu_tests "$TESTBIN/tilegemm_gpu_tests" --gtest_output=xml:"$R/gpu_tests.xml"
      grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" "$R/gpu_tests.log" | tail -40 | tee -a "$summary"
      ;;
    fuzz)
      run_step fuzz "$TG" verify --kernels "${FUZZ_GLOB:-auto}" --fuzz "${FUZZ_CASES:-300}" --seed 11
      tail -5 "$R/fuzz.log" | tee -a "$summary"
      ;;
    fuzz-tensor)
      # >= 500 random cases per tensor-core instance in each type combination it claims: half the
      # fuzz cases have 16-byte-aligned leading dimensions, which the aligned instances need.
      for t in "${TENSOR_TYPES[@]}"; do
        ab=${t%%:*} c=${t##*:}
        run_step "fuzz_${ab}_${c}" "$TG" verify --kernels "${TENSOR_GLOB:-mma_sync_*},auto" \
          --dtype "$ab" --dtype-c "$c" --fuzz "${TENSOR_FUZZ_CASES:-1200}" --seed 13
        tail -4 "$R/fuzz_${ab}_${c}.log" | tee -a "$summary"
      done
      ;;
    sanitize)
      run_step sanitize scripts/sanitize.sh "$TG" "${SANITIZE_GLOB:-*}"
      tail -3 "$R/sanitize.log" | tee -a "$summary"
      ;;
    sanitize-tensor)
      for t in ${SANITIZE_TYPES:-bf16:bf16 f16:f32 tf32:f32}; do
        ab=${t%%:*} c=${t##*:}
        run_step "sanitize_${ab}_${c}" env SANITIZE_ARGS="--dtype $ab --dtype-c $c" \
          scripts/sanitize.sh "$TG" "${TENSOR_GLOB:-mma_sync_*}"
        tail -2 "$R/sanitize_${ab}_${c}.log" | tee -a "$summary"
      done
      ;;
    tensor)
      # Tensor-core rungs beside cuBLAS in the same types on the same buffers: squares 256..8192
      # and 4095^3, each A/B layout mix at 4096^3.
      for t in "${TENSOR_TYPES[@]}"; do
        ab=${t%%:*} c=${t##*:}
        run_step "bench_${ab}_${c}" bench --kernels "${TENSOR_GLOB:-mma_sync_*},auto" \
          --dtype "$ab" --dtype-c "$c" --size 256:8192:x2 --shape 4095x4095x4095 \
          --format json --output "${TAG}_tensor-${ab}-${c}.json"
      done
      for mix in "row col" "col row" "col col"; do
        read -r la lb <<<"$mix"
        run_step "bench_bf16_${la}_${lb}" bench --kernels "${TENSOR_GLOB:-mma_sync_*},auto" \
          --dtype bf16 --layout-a "$la" --layout-b "$lb" --shape 4096x4096x4096 \
          --format json --output "${TAG}_tensor-bf16-${la}${lb}.json"
      done
      ;;
    seeds)
      # The seeds' sizes, every kernel, beside cuBLAS.
      run_step bench_seeds bench --kernels "${SEEDS_GLOB:-*}" --size 256:4096:x2 \
        --format json --output "${TAG}_seeds.json"
      ;;
    ladder|ladder-colb)
      lb=row
      [ "$step" = ladder-colb ] && lb=col
      run_step "bench_$step" bench --kernels "${LADDER_GLOB:-*}" --layout-b "$lb" \
        --size 256:8192:x2 --shape 4095x4095x4095 --shape 1000x1000x1000 \
        --shape 8192x1024x8192 --shape 4096x4096x16384 --shape 16x4096x4096 \
        --format json --output "${TAG}_$step.json"
      ;;
    regress)
      # Every fp32 kernel at 4096^3 beside cuBLAS: the check that a change lost no speed.
      run_step bench_regress bench --kernels "${REGRESS_GLOB:-*},auto" --shape 4096x4096x4096 \
        --format json --output "${TAG}_f32-4096.json"
      ;;
    cute)
      run_step bench_cute bench --kernels 'cute_*' --shape 1024x1024x1024 \
        --shape 4095x4095x4095 --shape 4096x4096x4096 --shape 8192x8192x8192 \
        --format json --output "${TAG}_cute.json"
      ;;
    ncu)
      # Shared-memory bank conflicts and the basic counters of every kernel at 4096^3.
      run_step ncu ncu --clock-control none --metrics \
l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,gpu__time_duration.sum \
        --csv "$TG" bench --kernels "${NCU_GLOB:-*}" --shape 4096x4096x4096 --warmup 0 --reps 1
      ;;
    verify-ts)
      # The TMA-store epilogue is taken only with beta = 0 and N * element size a multiple of 16:
      # shapes that take it (and odd M, K, tiles past M in a cluster) in every C layout and type.
      shapes=()
      for s in 1000x1000x1000 129x136x72 1x8x8 257x264x1000 4096x4096x4096 4000x1024x64 \
        127x8x1025 8x256x64 1025x512x33; do shapes+=(--shape "$s"); done
      for t in bf16:bf16 bf16:f32 f16:f16 f16:f32 tf32:f32; do
        ab=${t%%:*} c=${t##*:}
        for lay in "row row row" "row col col" "col row row" "col col col"; do
          read -r la lb lc <<<"$lay"
          # tf32 wgmma takes every mix but A column-major with B row-major
          [ "$ab" = tf32 ] && [ "$la$lb" = colrow ] && { la=row; lb=col; }
          run_step "verify_ts_${ab}_${c}_${la}${lb}${lc}" "$TG" verify --kernels "${TS_GLOB:-wgmma_*}" \
            --dtype "$ab" --dtype-c "$c" --layout-a "$la" --layout-b "$lb" --layout-c "$lc" \
            --beta 0 "${shapes[@]}"
          tail -1 "$R/verify_ts_${ab}_${c}_${la}${lb}${lc}.log" | tee -a "$summary"
        done
      done
      ;;
    rung15)
      # The Hopper rungs beside cuBLAS in every type combination: squares 256..8192 and the two
      # shapes beyond squares of the targets; each A/B layout mix at 4096^3 and 8192^3 for bf16 and
      # f16; tf32 with K-major A and B (A row-major, B column-major), which its wgmma needs.
      for t in "${TENSOR_TYPES[@]}"; do
        ab=${t%%:*} c=${t##*:}
        lb=row
        [ "$ab" = tf32 ] && lb=col
        run_step "bench15_${ab}_${c}" bench --kernels "${W15_GLOB:-wgmma*},auto" --dtype "$ab" \
          --dtype-c "$c" --layout-b "$lb" --size 256:8192:x2 --shape 8192x1024x8192 \
          --shape 4096x4096x16384 --format json --output "${TAG}_w15-${ab}-${c}.json"
      done
      for ab in bf16 f16; do
        for mix in "row col" "col row" "col col"; do
          read -r la lb <<<"$mix"
          run_step "bench15_${ab}_${la}${lb}" bench --kernels "${W15_GLOB:-wgmma*},auto" \
            --dtype "$ab" --layout-a "$la" --layout-b "$lb" --shape 4096x4096x4096 \
            --shape 8192x8192x8192 --format json --output "${TAG}_w15-${ab}-${la}${lb}.json"
        done
      done
      ;;
    tf32)
      # tf32 wgmma in each A/B layout mix beside cuBLAS: M/N-major A through registers, N-major B
      # through the mirrored product. Row-major A and B (the default) over the target shapes; the
      # other mixes at 4096^3 and 8192^3, C row- and column-major.
      run_step bench_tf32_rowrow bench --kernels "${TF32_GLOB:-wgmma_tf32*,mma_sync_tf32*},auto" \
        --dtype tf32 --size 256:8192:x2 --shape 8192x1024x8192 --shape 4096x4096x16384 \
        --format json --output "${TAG}_tf32-rowrow.json"
      for lay in "col col row" "row col row" "col row row" "row row col" "col col col"; do
        read -r la lb lc <<<"$lay"
        run_step "bench_tf32_${la}${lb}${lc}" bench \
          --kernels "${TF32_GLOB:-wgmma_tf32*,mma_sync_tf32*},auto" --dtype tf32 \
          --layout-a "$la" --layout-b "$lb" --layout-c "$lc" --shape 4096x4096x4096 \
          --shape 8192x8192x8192 --format json --output "${TAG}_tf32-${la}${lb}${lc}.json"
      done
      ;;
    gemv)
      # Matrix-vector products (rung 17): verified in every type, layout mix and odd alignment,
      # then timed beside cuBLAS and auto; the card's copy bandwidth measured alongside (the floor).
      verify_matrix gemv 'gemv,auto' "$EVERY_TYPE" "0.5 0,0,0;0.5 1,3,2" 1x8192x4096 4096x1x8192 \
        1x1x1 1x1000x17 17x1x1000 4095x1x4097 1x4095x4097 1x7x100000 100000x1x7 \
        1x1x65536 64x1x262144 1x3x5
      run_step gemv_copy_bw python3 -c "
import torch
x = torch.empty(1 << 30, dtype=torch.uint8, device='cuda'); y = torch.empty_like(x)
for _ in range(3): y.copy_(x)
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
s.record(); [y.copy_(x) for _ in range(20)]; e.record(); torch.cuda.synchronize()
print('device-to-device copy of 1 GiB: %.0f GB/s (read + write)' % (2 * 20 * (1 << 30) / (s.elapsed_time(e) * 1e-3) / 1e9))"
      cat "$R/gemv_copy_bw.log" | tee -a "$summary"
      for ab in f32 bf16; do
        for lay in "row row" "row col" "col row" "col col"; do
          read -r la lb <<<"$lay"
          run_step "bench_gemv_${ab}_${la}${lb}" bench --kernels 'gemv,auto' --dtype "$ab" \
            --layout-a "$la" --layout-b "$lb" --shape 1x8192x8192 --shape 8192x1x8192 \
            --shape 1x16384x16384 --shape 16384x1x16384 --shape 1x4096x4096 --shape 4096x1x4096 \
            --format json --output "${TAG}_gemv-${ab}-${la}${lb}.json"
        done
      done
      ;;
    gemv-rows)
      # gemv by pitch class (perf-notes.md, "gemv's row kernel by shift class" and "gemv's column
      # kernel by shift class"): the GPU suite's gemv tests, tilegemm verify over every type, five
      # layout mixes (the row kernel wherever A, or B^T of an M = 1 product, is K-contiguous, the
      # column kernel elsewhere) at pitches of 16, 8 and 4 bytes and odd ones, beta 0 and 0.5;
      # memcheck and racecheck in bf16 and fp32 at odd pitches, both kernels.
      run_step gemv_rows_tests "$TESTBIN/tilegemm_gpu_tests" \
        --gtest_filter='*KernelSweep*/gemv*:*Gemv*:*Skinny*'
      tail -3 "$R/gemv_rows_tests.log" | tee -a "$summary"
      verify_matrix gemv_rows gemv "$EVERY_TYPE" "0 0,0,0;0.5 1,1,1;0 2,2,2;0.5 4,1,3" \
        4232x1x5355 1x4232x5355 374x1x2209 328x1x996 10x1x127 2x1x470 1x1100x1100 40x1x1100 \
        3000x1x2000 1x7x100000
      for tool in memcheck racecheck; do
        for ab in bf16 f32; do
          sanitize_verify sanitize_gemv_rows.log "$tool" gemv "$ab" "row row row" 1,1,1 \
            374x1x2209 10x1x127 40x1x1100 1x7x1001
          sanitize_verify sanitize_gemv_rows.log "$tool" gemv "$ab" "col col col" 0,1,0 \
            1x4232x535 1x33x1001
          # the shifted column kernel: A column-major at an odd pitch, B^T of a row-major B
          sanitize_verify sanitize_gemv_rows.log "$tool" gemv "$ab" "col row col" 1,0,0 \
            8392x1x1100 1100x1x777 16x1x777
          sanitize_verify sanitize_gemv_rows.log "$tool" gemv "$ab" "row row row" 0,0,0 \
            1x623x4718 1x42x1162
        done
      done
      grep -c "^ok " "$R/sanitize_gemv_rows.log" | sed "s/^/sanitize gemv_rows runs clean: /" |
        tee -a "$summary"
      ;;
    tune)
      # The built-in tune table (data/tune/<device>.json): tilegemm tune over the issues' target
      # shapes and 100 random shapes (seed 7) in bf16 and f32, into a fresh cache directory whose
      # file is then copied to data/tune/ (see docs/tune.md). Screening keeps the slow ladder
      # kernels to one short round.
      # TUNE_TYPES picks the element types; TUNE_SEED_FILE, a cache file from an earlier run of
      # this step (other types), is merged into (a run longer than one command splits this way).
      TT="--rounds 3 --reps 10 --warmup 3 --screen 2"
      mkdir -p "$R/tunecache"
      [ -n "${TUNE_SEED_FILE:-}" ] && cp "$TUNE_SEED_FILE" "$R/tunecache/$GPU.json"
      for ab in ${TUNE_TYPES:-bf16 f32}; do
        run_step "tune_$ab" bash -c "cd '$R' && '$TG' tune --cache-dir tunecache --dtype $ab $TT \
          --size 256:8192:x2 --shape 8192x1024x8192 --shape 4096x4096x16384 \
          --shape 4095x4095x4095 --shape 16x8192x8192 --shape 128x8192x8192 --shape 1x8192x8192 \
          --output '${TAG}_tune-$ab.json'"
        run_step "tune_random_$ab" bash -c "cd '$R' && '$TG' tune --cache-dir tunecache \
          --dtype $ab $TT --random 100 --seed 7 --max-size 8192 \
          --output '${TAG}_tune-random-$ab.json'"
      done
      run_step tune_show "$TG" tune --show --cache-dir "$R/tunecache"
      cp "$R"/tunecache/*.json "$OUT"/ 2>/dev/null
      tail -3 "$R/tune_show.log" | tee -a "$summary"
      ;;
    ncu-gemv-rows)
      # gemv's row kernel at an odd 16-bit pitch (1 x 4003 x 4609 with B column-major: B^T read
      # along K at ld 4609) under Nsight Compute at the card's own clocks and caches, this build
      # and $BIN/tilegemm_old: speed of light, memory, warp states, instruction statistics,
      # occupancy and launch statistics of one timed launch, as text per build (perf-notes.md,
      # "gemv's row kernel realigned against a staged x").
      ncu_gemv_rows() {
        run_step "ncu_gemv_rows_$1" bash -c 'cd "$1" && shift && "$@"' _ "$R" ncu \
          --clock-control none --cache-control none --kernel-name regex:gemv_rows \
          --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats \
          --section MemoryWorkloadAnalysis --section InstructionStats --section Occupancy \
          --section LaunchStats --section SchedulerStats "$2" bench --no-block --kernels gemv \
          --dtype bf16 --layout-a col --layout-b col --layout-c col --shape 1x4003x4609 \
          --rounds 1 --reps 3 --warmup 1
        cp "$R/ncu_gemv_rows_$1.log" "$R/${TAG}_ncu-gemv-rows-$1.txt"
      }
      each_build ncu_gemv_rows
      ;;
    tune-mv)
      # The built-in table's matrix-vector entries (M = 1 or N = 1) measured again after a change
      # to gemv: data/tune/<device>.json copied as this run's tune cache ($R/tunecache, which
      # table-random reads with TABLE_FROM_TUNE=1), then `tilegemm tune` over each such entry's
      # shape, types and layouts (ld = extent, as the random shapes have: the same alignment
      # class), as the tune step does; the cache file comes back beside summary.txt.
      TT="--rounds 3 --reps 10 --warmup 3 --screen 2"
      mkdir -p "$R/tunecache"
      cp "data/tune/$GPU.json" "$R/tunecache/$GPU.json"
      # One line per types and layouts: "dtype dtype_c la lb lc shape...".
      python3 -c 'import json, sys
groups = {}
for e in json.load(open(sys.argv[1]))["entries"]:
    if (e["m"] == 1 or e["n"] == 1) and e["beta_zero"]:
        key = (e["dtype"], e["dtype_c"], e["layout_a"], e["layout_b"], e["layout_c"])
        groups.setdefault(key, []).append("%dx%dx%d" % (e["m"], e["n"], e["k"]))
for key, shapes in sorted(groups.items()):
    print(*key, *shapes)' "data/tune/$GPU.json" >"$R/tune_mv_shapes.txt"
      i=0
      while read -r dt dc la lb lc shapes; do
        i=$((i + 1))
        args=()
        for s in $shapes; do args+=(--shape "$s"); done
        run_step "tune_mv_$i" bash -c 'cd "$1" && shift && "$@"' _ "$R" "$TG" tune \
          --cache-dir tunecache --dtype "$dt" --dtype-c "$dc" --layout-a "$la" --layout-b "$lb" \
          --layout-c "$lc" "${args[@]}" $TT --output "${TAG}_tune-mv-$i.json"
      done <"$R/tune_mv_shapes.txt"
      run_step tune_show "$TG" tune --show --cache-dir "$R/tunecache"
      cp "$R"/tunecache/*.json "$OUT"/ 2>/dev/null
      note "tune-mv: $(wc -l <"$R/tune_mv_shapes.txt") groups of types and layouts; the table now \
$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["entries"]))' \
        "$R/tunecache/$GPU.json") entries"
      ;;
    sass)
      # A tensor-core rung whose SASS shows no HGMMA is on the wrong path: count HGMMA per kernel.
      run_step sass bash -c "cuobjdump -sass '$TG' | awk '/Function :/ {f=\$3} /HGMMA/ {n[f]++} \
        END {for (k in n) print n[k], k}' | sort -k2"
      echo "kernels with HGMMA: $(grep -c . "$R/sass.log")" | tee -a "$summary"
      # Rungs 25, 27, 28 and 29 run mma.sync (HMMA), not wgmma.
      run_step sass_hmma bash -c "cuobjdump -sass '$TG' | awk '/Function :/ {f=\$3} \
        /HMMA/ {n[f]++} END {for (k in n) print n[k], k}' | \
        grep -E 'thin_k_mma|small_mma|tiny_mma|mma_3xtf32_kernel'"
      echo "rung-25 kernels with HMMA: $(grep -c thin_k_mma "$R/sass_hmma.log")" | tee -a "$summary"
      echo "rung-27 kernels with HMMA: $(grep -c small_mma "$R/sass_hmma.log")" | tee -a "$summary"
      echo "rung-28 kernels with HMMA: $(grep -c tiny_mma "$R/sass_hmma.log")" | tee -a "$summary"
      echo "rung-28 fp32 kernels with HMMA: $(grep -c 'tiny_mma.*Tf32Op' "$R/sass_hmma.log")" |
        tee -a "$summary"
      echo "rung-29 kernels with HMMA: $(grep -c mma_3xtf32_kernel "$R/sass_hmma.log")" |
        tee -a "$summary"
      ;;
    profile)
      # tilegemm profile (Nsight Compute through the lab): the seeds' kernels and the best of each
      # fp32 family at 1024^3, the tensor-core rungs at bf16 4096^3, each beside cuBLAS and the
      # analysis model.
      seeds="naive,smem_tiled_t32,smem_tiled_rect_16x32x32,blocktile_128x128x8_8x8"
      seeds+=",vectorized_128x128x8_8x8,bankfree_128x128x8_8x8,warptile_128x128x8_w32x64_t8x8"
      seeds+=",cp_async_128x256x16_w64x64_t8x16_s3_lean_mid,tuned_small_64x64x16_w32x32_t8x4_s3_splitk"
      seeds+=",cute_tiled,cute_pipelined"
      tensor="mma_sync_128x128x32_w64x64_s4,wgmma_128x256x64_s4,wgmma_128x256x64_s4_ts"
      tensor+=",wgmma_128x256x64_s4_c2_ts"
      for fmt in json md; do
        run_step "profile_f32_$fmt" bash -c "cd '$R' && '$TG' profile --kernels '$seeds' \
          --shape 1024x1024x1024 --output '${TAG}_profile-f32-1024.$fmt'"
        run_step "profile_bf16_$fmt" bash -c "cd '$R' && '$TG' profile --kernels '$tensor' \
          --dtype bf16 --shape 4096x4096x4096 --output '${TAG}_profile-bf16-4096.$fmt'"
      done
      ;;
    odd)
      # Odd extents and odd leading dimensions (issue "any shape"): 4095^3 with ld 4095 (rung 16
      # copies A and B to a 16-byte pitch), 4095^3 and 8191^3 with ld 4096 / 8192 (--pad 1,1,1:
      # tensor maps as they are, zero-filled edges), tf32 4095^3 with K-major A and B.
      run_step odd_bf16 bench --kernels 'wgmma*,mma_sync_*anyalign,auto' --dtype bf16 \
        --shape 4095x4095x4095 --format json --output "${TAG}_odd-bf16-ld4095.json"
      run_step odd_bf16_pad bench --kernels 'wgmma*,auto' --dtype bf16 --pad 1,1,1 \
        --shape 4095x4095x4095 --shape 8191x8191x8191 --format json \
        --output "${TAG}_odd-bf16-pad1.json"
      run_step odd_tf32 bench --kernels 'wgmma*,mma_sync_*anyalign,auto' --dtype tf32 \
        --layout-b col --shape 4095x4095x4095 --format json --output "${TAG}_odd-tf32-ld4095.json"
      ;;
    targets)
      # The issue's fixed targets, auto beside cuBLAS in one run: bf16 4095^3 and 8191^3 with ld
      # 4096 / 8192 (--pad 1,1,1), bf16 4095^3 with ld 4095, tf32 4095^3 (B column-major), bf16
      # 16 and 128 x 8192 x 8192 (B column-major): ${TAG}_targets-*.json.
      run_step targets_bf16_pad bench --kernels auto --dtype bf16 --pad 1,1,1 \
        --shape 4095x4095x4095 --shape 8191x8191x8191 --format json \
        --output "${TAG}_targets-bf16-pad1.json"
      run_step targets_bf16_ld4095 bench --kernels auto --dtype bf16 --shape 4095x4095x4095 \
        --format json --output "${TAG}_targets-bf16-ld4095.json"
      run_step targets_tf32 bench --kernels auto --dtype tf32 --layout-b col \
        --shape 4095x4095x4095 --format json --output "${TAG}_targets-tf32-ld4095.json"
      run_step targets_small_m bench --kernels auto --dtype bf16 --layout-b col \
        --shape 16x8192x8192 --shape 128x8192x8192 --format json \
        --output "${TAG}_targets-bf16-small-m.json"
      for t in bf16_pad bf16_ld4095 tf32 small_m; do
        grep -E "^(cublas|auto)" "$R/targets_$t.log" | tee -a "$summary"
      done
      ;;
    random)
      # Shapes nobody picked: bench --random 100 (seed 7, 1..8192 per dimension, random layout
      # mixes), auto beside cuBLAS, fp32 and bf16.
      for ab in f32 bf16; do
        run_step "random_$ab" bench --kernels auto --dtype "$ab" --random "${RANDOM_COUNT:-100}" \
          --seed "${RANDOM_SEED:-7}" --max-size 8192 --format json \
          --output "${TAG}_random-${ab}-s${RANDOM_SEED:-7}.json"
        python3 scripts/random_summary.py --worst 3 "$R/${TAG}_random-${ab}-s${RANDOM_SEED:-7}.json" \
          | tee -a "$summary"
      done
      ;;
    random-seeds)
      # bench --random 100 on seeds 7, 11 and 3 in f32 and bf16, auto beside cuBLAS: by the rules
      # alone (rules) and with the tune cache the `tune` step wrote (tuned; run `tune` first).
      for ab in ${RANDOM_TYPES:-bf16 f32}; do
        for seed in ${RANDOM_SEEDS:-7 11 3}; do
          for mode in rules tuned; do
            out="${TAG}_random-${mode}-${ab}-s$seed.json"
            if [ $mode = rules ]; then
              TILEGEMM_TUNE_CACHE=off bench_random "random_rules_${ab}_s$seed" auto "$ab" "$seed" "$out"
            else
              [ -d "$R/tunecache" ] || continue
              TILEGEMM_TUNE_CACHE=on TILEGEMM_CACHE_DIR="$(cd "$R" && pwd)/tunecache" \
                bench_random "random_tuned_${ab}_s$seed" auto "$ab" "$seed" "$out"
            fi
            python3 scripts/random_summary.py --worst 0 "$R/$out" | tee -a "$summary"
          done
        done
      done
      ;;
    tune-seeds)
      # Rule discovery data: tilegemm tune over the random shapes of each seed of TUNE_SEEDS
      # (default 5 13 21) in each of TUNE_TYPES (default f32), every candidate timed beside cuBLAS
      # into a scratch cache (${TAG}_tune-random-<type>-s<seed>.json), and beside it auto by the
      # rules alone on the same shapes (${TAG}_random-rules-<type>-s<seed>.json); then
      # scripts/tune_gaps.py over both (the rules' shortfalls and the classes a rule could take).
      mkdir -p "$R/tunescratch"
      for ab in ${TUNE_TYPES:-f32}; do
        for seed in ${TUNE_SEEDS:-5 13 21}; do
          run_step "tune_seed_${ab}_s$seed" bash -c "cd '$R' && '$TG' tune --cache-dir tunescratch \
            --dtype $ab --rounds 3 --reps 10 --warmup 3 --screen 2 --random 100 --seed $seed \
            --max-size 8192 --output '${TAG}_tune-random-$ab-s$seed.json'"
          TILEGEMM_TUNE_CACHE=off bench_random "random_rules_${ab}_s$seed" auto "$ab" "$seed" \
            "${TAG}_random-rules-$ab-s$seed.json"
        done
      done
      python3 scripts/tune_gaps.py "$R"/*_tune-random-*-s*.json "$R"/*_random-rules-*-s*.json |
        tee -a "$summary"
      ;;
    tune-grid)
      # Rule-cutting grid for narrow products: tilegemm tune --dry-run (nothing stored) over the
      # narrow side GRID_NARROW against the long side GRID_LONG and K GRID_K, the narrow side as M
      # and as N, in each of GRID_TYPES, GRID_LAYOUTS (A, B, C as r/c letters) and GRID_PADS,
      # every candidate timed beside cuBLAS with the rules' choice named:
      # ${TAG}_tune-grid-<type>-<layouts>-<pad>-<m|n>.json (scripts/grid_summary.py reads them).
      for ab in ${GRID_TYPES:-bf16 f32}; do
        for lay in ${GRID_LAYOUTS:-rcr crc}; do
          la=row; lb=row; lc=row
          [ "${lay:0:1}" = c ] && la=col
          [ "${lay:1:1}" = c ] && lb=col
          [ "${lay:2:1}" = c ] && lc=col
          for pad in ${GRID_PADS:-0,0,0 1,1,1}; do
            for side in m n; do
              dims=(--m "${GRID_NARROW:-2,4,8,16,32,64}" --n "${GRID_LONG:-1024,4096,8192}")
              [ $side = n ] && dims=(--m "${GRID_LONG:-1024,4096,8192}" --n "${GRID_NARROW:-2,4,8,16,32,64}")
              name="tune_grid_${ab}_${lay}_${pad//,/}_$side"
              run_step "$name" bash -c 'cd "$1" && shift && "$@"' _ "$R" "$TG" tune --dry-run \
                --dtype "$ab" --layout-a $la --layout-b $lb --layout-c $lc --pad "$pad" \
                "${dims[@]}" --k "${GRID_K:-64,256,1024,4096}" --rounds 3 --reps 10 --warmup 3 \
                --screen 2 --output "${TAG}_tune-grid-$ab-$lay-${pad//,/}-$side.json"
            done
          done
        done
        python3 scripts/grid_summary.py --dtype "$ab" "$R"/*_tune-grid-"$ab"-*.json |
          tee -a "$summary"
      done
      ;;
    skinny)
      # Small M or N against a large N x K (rung 18 beside the other wgmma tiles, auto and cuBLAS):
      # M = 16..256 at N = K = 8192 and the mirrored shapes, in bf16 and tf32, plus shapes with
      # fewer 64-row tiles than SMs.
      shapes=()
      for s in ${SKINNY_SHAPES:-16x8192x8192 32x8192x8192 64x8192x8192 128x8192x8192 \
        256x8192x8192 8192x16x8192 8192x128x8192 16x4096x8192 128x4096x4096 16x16384x4096 \
        64x8192x2048 64x64x65536 256x256x16384 512x256x8192}; do shapes+=(--shape "$s"); done
      # Verified first: one-tile-high or -wide shapes (short TMA boxes) and few tiles against a
      # long K (split-K), every type and layout mix, beta 0 and 0.5, every wgmma instance, with
      # 16-byte pitches and (for rung 16) odd ones.
      verify_matrix skinny 'wgmma*,auto' "$WGMMA_TYPES" "0 0,0,0;0.5 0,0,0;0.5 1,3,2" \
        7x8192x512 16x300x1000 100x64x256 8192x9x512 77x50x4096 1x1000x700 130x16x128 64x64x64 \
        65x129x200 8x8x8 200x24x1000 31x32x7791 54x226x5623 300x200x2000 129x65x1537 16x4096x8192
      for ab in ${SKINNY_TYPES:-bf16 tf32}; do
        run_step "skinny_$ab" bench --kernels "${SKINNY_GLOB:-wgmma*_ts,wgmma*_64x64x*,wgmma*_64x128x*},auto" \
          --dtype "$ab" "${shapes[@]}" --format json --output "${TAG}_skinny-$ab.json"
        grep -E "^(cublas|auto)" "$R/skinny_$ab.log" | tee -a "$summary"
      done
      ;;
    thin-k)
      # Thin K (rung 19): verified in every type, layout mix and odd alignment, then a K sweep at
      # 4096 x 4096 beside the tile kernels auto took before, and the random shapes' thin-K worst.
      verify_matrix thin_k 'thin_k,auto' "$EVERY_TYPE" "0.5 0,0,0;0.5 1,3,2" 1x1x1 3404x5730x1 \
        1000x1000x7 777x1025x32 4097x300x33 65x129x40 4096x4096x16 1x4097x3 130x17x5
      ksweep=()
      for kk in 1 2 4 8 16 24 32 40 48 64 96; do ksweep+=(--shape "4096x4096x$kk"); done
      run_step thin_k_bf16 bench --kernels \
        'thin_k,wgmma_128x256x64_s4_ts,wgmma_128x128x64_s6_ts,mma_sync_128x128x32_w64x64_s4_anyalign,auto' \
        --dtype bf16 "${ksweep[@]}" --format json --output "${TAG}_thin-k-bf16.json"
      run_step thin_k_f32 bench --kernels \
        'thin_k,cp_async_128x256x8_w64x64_t8x16_s3_lean_mid,tuned_small_64x64x16_w32x32_t8x4_s3_splitk,auto' \
        --dtype f32 "${ksweep[@]}" --format json --output "${TAG}_thin-k-f32.json"
      for ab in bf16 f32; do
        run_step "thin_k_random_$ab" bench --kernels thin_k,auto --dtype "$ab" --layout-a col \
          --layout-b col --layout-c col --pad 1,1,1 --shape 3404x5730x1 --shape 7920x6669x3 \
          --shape 7155x5417x26 --shape 903x2578x6 --shape 4002x1483x37 --format json \
          --output "${TAG}_thin-k-shapes-$ab.json"
      done
      ;;
    profile-rungs18-19)
      # Counters of rungs 18 and 19 beside cuBLAS: the 64x64 one-consumer tile at 16 x 8192 x 8192
      # (what holds the B stream at 3.6 TB/s) and thin_k at 4096 x 4096 x 1 (a write of C).
      run_step profile_skinny bash -c "cd '$R' && '$TG' profile --dtype bf16 --shape 16x8192x8192 \
        --kernels wgmma_64x64x64_s13,wgmma_128x64x64_s8_ts --output '${TAG}_profile-skinny.md'"
      for ab in bf16 f32; do
        run_step "profile_thin_k_$ab" bash -c "cd '$R' && '$TG' profile --dtype $ab \
          --shape 4096x4096x1 --shape 4096x4096x32 --kernels thin_k \
          --output '${TAG}_profile-thin-k-$ab.md'"
      done
      ;;
    pad-f32)
      # rung 9's any-alignment instances on large problems: operands copied to a 16-byte pitch,
      # then the 16-byte twin. Verified in each layout mix with odd leading dimensions, then timed
      # beside the same instances on small problems (no copy) and cuBLAS.
      for lay in "row row row" "col col col" "row col row" "col row col"; do
        read -r la lb lc <<<"$lay"
        "$TG" verify --kernels 'tuned_large*anyalign,auto' --layout-a "$la" --layout-b "$lb" \
          --layout-c "$lc" --pad 1,3,2 --beta 0.5 --shape 1001x1003x1005 --shape 129x4097x67 \
          --shape 2049x131x300 >>"$R/pad_f32_verify.log" 2>&1 || echo "FAIL pad-f32 $lay" | tee -a "$summary"
      done
      grep -c "all passed" "$R/pad_f32_verify.log" | sed 's/^/pad-f32 verify runs passed: /' | tee -a "$summary"
      run_step pad_f32 bench --kernels 'tuned_large*,auto' --layout-a col --layout-b row \
        --layout-c col --pad 1,1,1 --shape 4095x4095x4095 --shape 5948x599x333 \
        --shape 4383x1828x4728 --shape 2744x5527x4425 --format json --output "${TAG}_pad-f32.json"
      ;;
    realign)
      # Rung 20 (the realigning producer): verified in every type, layout mix, beta and pitch
      # (16-byte, odd, C's too), fuzzed, then timed beside rung 16's copy path and cuBLAS on the
      # random shapes, the odd-ld targets and a size ladder of odd pitches, to say which wins where.
      verify_matrix realign 'wgmma*_ra,auto' "$WGMMA_TYPES" "0 0,0,0;0.5 1,3,2;0 1,1,1" 1x1x1 \
        7x9x13 33x65x17 64x64x64 65x129x200 100x64x256 16x300x1000 300x200x2000 129x65x1537 \
        31x32x7791 1000x1000x7 8192x9x512 257x263x129
      for t in $WGMMA_TYPES; do
        ab=${t%%:*} c=${t##*:}
        run_step "realign_fuzz_${ab}_${c}" "$TG" verify --kernels 'wgmma*_ra' --dtype "$ab" \
          --dtype-c "$c" --fuzz "${REALIGN_FUZZ:-600}" --seed 17
        tail -2 "$R/realign_fuzz_${ab}_${c}.log" | tee -a "$summary"
      done
      RA='wgmma_128x128x64_s5_ts_ra,wgmma_64x64x64_s10_ts_ra,wgmma_128x128x64_s6_ts_pad,wgmma_128x64x64_s8_ts_pad,wgmma_128x256x64_s4_ts_pad,mma_sync_128x128x32_w64x64_s4_anyalign,auto'
      for seed in 7 11; do
        bench_random "realign_random_s$seed" "$RA" bf16 "$seed" "${TAG}_realign-random-bf16-s$seed.json"
      done
      ladder=()
      for s in 255x257x263 511x513x517 1023x1025x1029 2047x2049x2053 4095x4095x4095 \
        8191x8191x8191 129x8191x8191 8191x129x8191 33x6000x3000; do ladder+=(--shape "$s"); done
      run_step realign_ladder bench --kernels "$RA" --dtype bf16 "${ladder[@]}" --format json \
        --output "${TAG}_realign-ladder-bf16.json"
      run_step realign_ladder_tf32 bench --kernels \
        'wgmma_tf32_128x128x32_s5_ts_ra,wgmma_tf32_64x64x32_s10_ts_ra,wgmma_tf32_128x128x32_s6_ts_pad,wgmma_tf32_128x64x32_s8_ts_pad,wgmma_tf32_128x256x32_s4_ts_pad,auto' \
        --dtype tf32 --layout-b col "${ladder[@]}" --format json --output "${TAG}_realign-ladder-tf32.json"
      ;;
    narrow)
      # Rung 21 (narrow products, 2..16 columns on the CUDA cores): verified in every type, layout
      # mix, beta and pitch (16-byte, odd, C's too) on shapes that take both of its kernels, their
      # element and 16-byte paths, partial row blocks and split K; then timed beside what auto
      # ran before it, the tensor-core and SIMT tiles and cuBLAS on narrow shapes and on the
      # random shapes of three seeds (every shape a narrow instance takes).
      verify_matrix narrow 'narrow_*,auto' "$EVERY_TYPE" "0.5 0,0,0;0.5 1,3,2;0 1,1,1" 1x1x1 \
        7x8x9 2x27x2492 17x10x314 3x4096x8192 8192x5x4096 2394x3x4182 22x2501x5639 300x3x1000 \
        4097x16x33 16x300x1000 9x7000x700 1000x12x70000
      NARROW_SHAPES=(${NARROW_SHAPES:-2394x3x4182 22x2501x5639 10x5235x6931 2x27x2492 5x10x2437 \
        138x4x797 2222x5x1091 1764x4x135 2x498x820 6x2834x1188 36x15x433 2491x31x3012 \
        4x8192x8192 8x8192x8192 16x8192x8192 8192x2x8192 8192x8x8192 3x16384x16384})
      shapes=()
      for s in "${NARROW_SHAPES[@]}"; do shapes+=(--shape "$s"); done
      for ab in bf16 f32; do
        for pad in 0,0,0 1,1,1; do
          for lay in "row row row" "col col col"; do
            read -r la lb lc <<<"$lay"
            run_step "narrow_${ab}_${la}_pad${pad//,/}" bench --kernels 'narrow_*,auto' --dtype "$ab" \
              --layout-a "$la" --layout-b "$lb" --layout-c "$lc" --pad "$pad" "${shapes[@]}" \
              --format json --output "${TAG}_narrow-${ab}-${la}-pad${pad//,/}.json"
          done
        done
      done
      ;;
    sanitize-narrow)
      # Rung 21 under compute-sanitizer: both kernels, their element and 16-byte paths, a partial
      # row block, split K with its second pass, odd pitches, in fp32 and bf16.
      for tool in memcheck racecheck initcheck; do
        for ab in f32 bf16; do
          for lay in "row row row" "col col col" "row col row" "col row col"; do
            for pad in 0,0,0 1,2,3; do
              sanitize_verify sanitize_narrow.log "$tool" 'narrow_*' "$ab" "$lay" "$pad" 7x8x9 \
                300x3x1000 2x27x2492 4097x16x33 5x600x40
            done
          done
        done
      done
      grep -c "^ok " "$R/sanitize_narrow.log" | sed 's/^/sanitize-narrow runs clean: /' | tee -a "$summary"
      ;;
    ncu-narrow)
      # Rung 21's fixed cost on tiny problems under ncu: warp stalls (instruction fetch among
      # them), instruction counts and launch facts of each width at K = 1 and a short stream.
      for w in 4 8 16; do
        for s in 12x3482x1 5x10x2437; do
          run_step "ncu_narrow_n${w}_$s" ncu --clock-control none --section SpeedOfLight \
            --section WarpStateStats --section LaunchStats --section Occupancy \
            --section InstructionStats --section SchedulerStats -k regex:narrow_rows \
            --launch-skip 2 --launch-count 1 "$TG" bench --kernels "narrow_n$w" --dtype bf16 \
            --layout-a col --layout-b col --layout-c col --shape "$s" --warmup 2 --reps 2 --rounds 1
        done
      done
      ;;
    skinny-pad-f32)
      # Rung 9's skinny tiles on odd pitches (a large B) beside rung 21's widest instance and
      # cuBLAS, verified first in each layout mix. (Copying B to a 16-byte pitch for the 16-byte
      # skinny twin was measured this way and was slower: docs/perf-notes.md, rung 21.)
      verify_matrix skinny_pad 'tuned_skinny_*anyalign*' "f32:f32" "0.5 1,3,2;0 1,1,1" \
        22x2501x5639 2491x31x3012 32x4533x1297 10x5235x6931 16x4096x1024 4096x7x2048
      run_step skinny_pad_f32 bench --kernels 'tuned_skinny_*,narrow_n16,auto' --dtype f32 \
        --layout-a col --layout-b row --layout-c col --pad 1,1,1 --shape 22x2501x5639 \
        --shape 2491x31x3012 --shape 63x2318x3586 --shape 32x4533x1297 --shape 10x5235x6931 \
        --shape 16x8192x8192 --shape 5169x16x1413 --shape 3383x42x6316 --shape 45x7302x1944 \
        --format json --output "${TAG}_skinny-pad-f32.json"
      ;;
    copy-stage)
      # Rung 16's copies in one launch (short lines packed into whole segments) with the GEMM as
      # its programmatic dependent, and rung 15's staged C stores in the widest pieces C allows:
      # verified in every tensor type and layout mix on pitches that give each piece size (and
      # thin K, short lines), then timed beside cuBLAS on the shapes where the copies or the
      # C stores dominated.
      verify_matrix copystage 'wgmma*_pad,wgmma*_ts' "$WGMMA_TYPES" "0 1,3,2;0 0,0,7;0.5 1,1,1" \
        2982x6722x29 17x10x314 257x1002x300 257x1004x300 129x1001x67 22x524x340
      verify_matrix copystage_f32 'tuned_large*anyalign,tuned_skinny_*anyalign*' "f32:f32" \
        "0 1,3,2;0.5 1,1,1" 1001x1003x1005 129x4097x67 2049x131x300 22x2501x5639
      CS='wgmma_128x256x64_s4_ts_pad,wgmma_128x128x64_s6_ts_pad,wgmma_128x64x64_s8_ts_pad,wgmma_64x64x64_s13_pad,mma_sync_128x128x32_w64x64_s4_anyalign,thin_k,auto'
      for lay in "col col col" "col row col" "row row row" "col col row"; do
        read -r la lb lc <<<"$lay"
        run_step "copy_stage_bf16_${la}${lb}${lc}" bench --kernels "$CS" --dtype bf16 \
          --layout-a "$la" --layout-b "$lb" --layout-c "$lc" --shape 2982x6722x29 \
          --shape 7155x5417x26 --shape 17x10x314 --shape 22x524x340 --shape 14x5273x1186 \
          --shape 101x329x4514 --shape 1807x9x5441 --shape 1931x1828x169 --shape 562x75x247 \
          --format json --output "${TAG}_copy-stage-bf16-${la}${lb}${lc}.json"
      done
      ;;
    sanitize-copy-stage)
      # The one-launch copies (short and long lines, both operands), the programmatic dependent
      # launch after them, and the staged C stores in each piece size (ldc 68 bf16: 8 bytes;
      # 1008: 16; 131: 2; 130: 4; fp32 C: 4, 8, 16), beta = 0 (the staged path), under
      # memcheck and racecheck.
      sanitize_types sanitize_copy_stage "bf16:bf16 tf32:f32" \
        "33x65x17 1,2,3 0;70x1001x29 1,3,7 0;70x130x300 1,1,1 0;70x130x300 1,1,0 0" 'wgmma*_pad'
      ;;
    wave-tail)
      # Wave tails on the tensor cores: past W whole waves, the last wave's tiles split over the
      # SMs (and fewer tiles than SMs split where whole tiles leave them idle): verified in every
      # tensor type, layout mix, beta and pitch on tile counts of k SMs + a few (132 SMs: 1 and
      # 12 tiles over one wave of 128x128, 1 over one and two waves of 64x64 tiles, 24 over one
      # of 128x128 with odd extents, 50 tiles of 128x128), timed beside cuBLAS over K (the shapes
      # that split and whole-wave controls), then the 128x128 and 64x64 tiles under memcheck and
      # racecheck.
      verify_matrix wave_tail 'wgmma*' "$WGMMA_TYPES" "0 0,0,0;0.5 1,3,2" 1536x1536x2048 \
        17024x64x2048 8512x64x2048 1537x1500x2100 640x1280x4096
      WT=${WAVE_TAIL_KERNELS:-wgmma_128x256x64_s4_ts,wgmma_128x128x64_s6_ts,wgmma_128x64x64_s8_ts,wgmma_64x64x64_s13,auto}
      WT_SHAPES=(${WAVE_TAIL_SHAPES:-1536x1536x1024 1536x1536x2048 1536x1536x4096 1536x1536x8192 \
        640x1280x12288 1537x1500x4097 2432x896x8192 3000x3000x3000 17024x64x4096 2304x2304x4096 \
        4224x4096x4096 4096x4096x4096 8192x8192x8192})
      shapes=()
      for s in "${WT_SHAPES[@]}"; do shapes+=(--shape "$s"); done
      run_step wave_tail_bf16 bench --kernels "$WT" --dtype bf16 "${shapes[@]}" --format json \
        --output "${TAG}_wave-tail-bf16.json"
      WT32=${WT//wgmma_/wgmma_tf32_}
      run_step wave_tail_tf32 bench --kernels "${WT32//x64_s/x32_s}" --dtype tf32 \
        --layout-b col "${shapes[@]}" --format json --output "${TAG}_wave-tail-tf32.json"
      sanitize_types sanitize_wave_tail "bf16:bf16 tf32:f32" \
        "8512x64x2048 0,0,0 0;8512x64x2048 1,3,2 0.5" 'wgmma*128x128*,wgmma*64x64*s13*'
      ;;
    staged-store)
      # The wgmma epilogue's staged C stores where no TMA store is exact (C's pitch odd, 2 or 4
      # mod 8 elements: element, 4- and 8-byte pieces): verified in every tensor type, layout mix
      # and such pitches of C, then timed beside cuBLAS where the store of C bounds the time (thin
      # K against a large C) and on long K, with C's pitch as the shape gives it (odd) and one
      # more, then under memcheck and racecheck (docs/perf-notes.md, "Staged stores of an odd
      # pitch").
      verify_matrix staged_store 'wgmma*_ts*' "$WGMMA_TYPES" "0 0,0,0;0 1,1,1;0 0,0,2;0 3,1,6" \
        133x65x40 200x131x72 1000x999x64 70x1001x29 7x3001x100 300x257x64
      SS_SHAPES=(${STAGED_STORE_SHAPES:-7155x5417x26 2982x6722x29 4242x6657x39 548x7190x30 \
        863x5519x27 4002x1483x37 1931x1828x169 3913x2569x2405 2999x2999x2999})
      shapes=()
      for s in "${SS_SHAPES[@]}"; do shapes+=(--shape "$s"); done
      for dt in ${STAGED_STORE_TYPES:-bf16 f16}; do
        for pad in 0,0,0 1,1,1; do
          run_step "staged_store_${dt}_$pad" bench \
            --kernels wgmma_128x256x64_s4_ts_pad,wgmma_128x128x64_s6_ts_pad,auto --dtype "$dt" \
            --layout-a col --layout-b row --layout-c col --pad "$pad" "${shapes[@]}" \
            --format json --output "${TAG}_staged-store-$dt-pad${pad//,/}.json"
        done
      done
      sanitize_types sanitize_staged_store "bf16:bf16 f16:f16 tf32:f32" \
        "33x65x17 1,2,3 0;70x1001x29 1,3,7 0;70x130x300 1,1,1 0;7x3001x100 0,0,2 0" \
        'wgmma*128x128*_ts*,wgmma*128x64*_ts*'
      ;;
    stream-one-launch)
      # gemv's and the narrow products' split K added by the last block to arrive (one launch):
      # verified in every type, layout mix, beta and pitch on shapes that split (and ones that do
      # not), under memcheck and racecheck, then timed beside cuBLAS on the random
      # shapes' matrix-vector and narrow rows (launch-bound: host_us is recorded).
      # (33 x 1 x 3350, 64 x 1 x 65536, 1 x 41 x 20000, 128 x 1 x 999, 129 x 1 x 5000: gemv's
      # short columns, several to a warp step.)
      verify_matrix stream_split 'gemv,narrow_*' "$EVERY_TYPE" "0.5 0,0,0;0 1,3,2" 1x1x1 \
        64x1x262144 1x64x262144 8192x1x8192 1x8192x8192 3x2x65536 2x27x2492 4097x16x33 \
        33x1x3350 1x4232x5355 300x3x1000 1x7x100000 64x1x65536 1x41x20000 128x1x999 129x1x5000
      for tool in memcheck racecheck; do
        for ab in f32 bf16; do
          for lay in "row row row" "col col col"; do
            sanitize_verify sanitize_stream.log "$tool" 'gemv,narrow_*' "$ab" "$lay" 1,2,3 \
              64x1x16384 1x64x16384 3x2x8192 300x3x1000 2000x1x2000 33x1x3350 1x41x2000
          done
        done
      done
      grep -c "^ok " "$R/sanitize_stream.log" | sed 's/^/sanitize stream runs clean: /' | tee -a "$summary"
      for ab in bf16 f32; do
        for lay in "col row col" "row col row" "col col row"; do
          read -r la lb lc <<<"$lay"
          run_step "stream_one_launch_${ab}_$la$lb$lc" bench --kernels auto --dtype "$ab" \
            --layout-a "$la" --layout-b "$lb" --layout-c "$lc" --shape 1x16x393 --shape 33x1x3350 \
            --shape 1x4x318 --shape 1x4232x5355 --shape 1x623x4718 --shape 374x1x2209 \
            --shape 1x4003x4609 --shape 2x3042x8153 --shape 14x2x175 --shape 2x498x820 \
            --shape 135x4x476 --shape 64x1x262144 --shape 28x1x4060 --shape 65x1x1933 --format json \
            --output "${TAG}_stream-one-launch-$ab-$la$lb$lc.json"
        done
      done
      ;;
    3xtf32)
      # Rung 22, fp32 as three tf32 products: verified at the fp32 tolerance in every layout mix,
      # with beta and odd pitches and bases, on partial tiles, split K, small M or N and K past
      # a k-tile; memcheck and racecheck; its error beside cuBLAS's and the SIMT tile's as K
      # grows; timed beside cuBLAS: each tile on square and mid shapes, then auto.
      X3='wgmma_3xtf32_*'
      verify_matrix tf32x3 "$X3" "f32:f32" "0 0,0,0;0.5 1,3,2" 1x1x1 33x65x7 100x300x1000 \
        257x129x4097 1000x1000x1000 4095x333x95 37x4100x2000 2048x2048x64 8x8x33
      for tool in memcheck racecheck; do
        for lay in "row row row" "col row col" "row col row"; do
          sanitize_verify sanitize_3xtf32.log "$tool" "$X3" f32 "$lay" 1,2,3 100x200x300 \
            33x1000x77 300x40x2000 513x257x129
        done
      done
      grep -c "^ok " "$R/sanitize_3xtf32.log" | sed 's/^/sanitize 3xtf32 runs clean: /' |
        tee -a "$summary"
      X3ACC='auto,wgmma_3xtf32_128x128x32_s6_ts_p4,tuned_large_128x128x8_w64x32_t8x8_s3'
      run_step x3_accuracy bench --kernels "$X3ACC" \
        --dtype f32 --m 1024 --n 1024 --k 64,1024,16384,131072 --format json \
        --output "${TAG}_3xtf32-accuracy.json"
      run_step x3_square bench --kernels "auto,$X3,tuned_large_128x128x8_w64x32_t8x8_s3" \
        --dtype f32 \
        --shape 512x512x512 --shape 1024x1024x1024 --shape 2048x2048x2048 --shape 4096x4096x4096 \
        --shape 8192x8192x8192 --shape 4095x4095x4095 --shape 1931x1828x169 --shape 169x3579x1383 \
        --shape 35x101x1236 --shape 3383x42x6316 --shape 5948x599x333 --shape 64x4096x4096 \
        --format json --output "${TAG}_3xtf32-square.json"
      ;;
    3xtf32-rules)
      # Where rung 22's rules hand over: thin K (K of 1..64) against thin_k, and a long K over
      # few 128x128 tiles on the 128x64 tile against the 128x128 tile's split-K.
      XK='thin_k,wgmma_3xtf32_128x128x32_s6_ts_p4,wgmma_3xtf32_128x64x32_s8_ts_p4,auto'
      bench_by_layout x3_thin_k "$XK" 3xtf32-thin-k \
        "col col col:4242x6657x39 2982x6722x29 3404x5730x1" "row col col:548x7190x30" \
        "row col row:4002x1483x37 863x5519x27 8129x2242x2 7920x6669x3" "col row col:7155x5417x26" \
        "row row col:330x3978x31" \
        "row row row:1024x512x64 2048x2048x32 4096x4096x16 4096x4096x64 4096x4096x15 4096x4096x8"
      run_step x3_long_k bench --kernels "${XK#thin_k,}" --dtype f32 --shape 1024x1024x1024 \
        --shape 1024x1024x2048 --shape 1024x1024x4096 --shape 1024x1024x8192 \
        --shape 1024x1024x32768 --shape 768x768x16384 --shape 1000x1000x4000 \
        --shape 1100x900x6000 --format json --output "${TAG}_3xtf32-long-k.json"
      ;;
    3xtf32-mid)
      # M N / (M + N) between 48 and 288, M and N past 32, K >= 16 (the random fp32 shapes of
      # seeds 7, 3 and 11 below rung 22's bound): its three tiles beside the CUDA cores' choice
      # (auto under TILEGEMM_FP32_MATH=simt, rules only), to place the bound.
      XM='wgmma_3xtf32_128x128x32_s6_ts_p4,wgmma_3xtf32_128x64x32_s8_ts_p4'
      XM="$XM,wgmma_3xtf32_64x64x32_s13_p4,auto"
      TILEGEMM_FP32_MATH=simt TILEGEMM_TUNE_CACHE=off bench_by_layout x3_mid "$XM" 3xtf32-mid \
        "row col col:53x5574x527 81x350x110 243x3665x647" \
        "col row row:55x3769x33 63x2318x3586 323x2583x525 576x471x161 1876x94x471 5065x262x3829" \
        "col col row:70x220x24 169x3579x1383" "row row row:71x417x30 284x809x509 1025x125x46" \
        "col col col:83x3000x541 101x329x4514 104x795x2044 123x130x42 163x282x46 269x113x322
          562x75x247 2691x131x48" \
        "col row col:131x4188x2207 5312x122x3719" "row row col:139x5420x288 581x431x293" \
        "row col row:2033x330x420"
      ;;
    3xtf32-cs)
      # Rung 22's split inside the kernel (the _cs instances): verified at the fp32 tolerance in
      # every layout mix (copied or read in place), memcheck and racecheck, its error as K grows,
      # the GPU suite's sweep and wave-tail tests of rung 22, then timed on the fp32 shapes with
      # small M or N that the CUDA cores' tiles lose (random seeds 7, 3, 11) and on 16-byte
      # K-major ones (no copy), beside the split beforehand and auto.
      # (Named, not globbed: the element-copy instances, 3xtf32-csra's, also end in _cs.)
      XC='wgmma_3xtf32_64x64x32_s12_p1_cs,wgmma_3xtf32_64x128x32_s8_p1_cs'
      verify_matrix x3cs "$XC" "f32:f32" "0 0,0,0;0.5 1,3,2;0 1,1,1" 1x1x1 33x65x7 100x300x1000 \
        257x129x4097 22x2501x5639 4095x333x95 37x4100x2000 2048x2048x64 8x8x33 64x64x65536
      sanitize_split x3cs "$XC" "row col row" "col row col"
      XCB='wgmma_3xtf32_64x64x32_s12_p1_cs,wgmma_3xtf32_64x128x32_s8_p1_cs'
      run_step x3cs_accuracy bench --kernels "$XCB,wgmma_3xtf32_128x128x32_s6_ts_p4" \
        --dtype f32 --m 1024 --n 1024 --k 64,1024,16384,131072 --format json \
        --output "${TAG}_x3cs-accuracy.json"
      XCB="$XCB,wgmma_3xtf32_64x64x32_s13_p4,auto"
      TILEGEMM_TUNE_CACHE=off bench_by_layout x3cs "$XCB" x3cs \
        "col row col:22x2501x5639 32x4533x1297 131x4188x2207 5312x122x3719 5169x16x1413" \
        "col col row:169x3579x1383 2491x31x3012 8192x64x8192 4096x128x4096" \
        "col row row:63x2318x3586 192x33x7270 1876x94x471" "row row col:10x5235x6931 139x5420x288" \
        "col col col:14x5273x1186 104x795x2044 83x3000x541" \
        "row row row:3383x42x6316" "row col col:53x5574x527 33x3620x321" \
        "row col row:6x2834x1188 22x2500x5640 64x8192x8192 16x4096x4096 128x8192x4096
          256x4096x4096"
      ;;
    3xtf32-cs-random)
      # The random fp32 shapes of three seeds: auto (rules only) beside rung 22's in-kernel split
      # instances, to place the rule that takes them.
      random_rules_f32 x3cs 'auto,wgmma_3xtf32_64x64x32_s12_p1_cs,wgmma_3xtf32_64x128x32_s8_p1_cs'
      ;;
    3xtf32-csra)
      # Rung 22's in-kernel split with a producer of element copies (the _ra_p1_cs instances):
      # verified at the fp32 tolerance in every layout mix with odd pitches and bases, memcheck
      # and racecheck, the GPU suite's rung-22 tests, then timed on the fp32 shapes with small M
      # or N whose long operand no tensor map reads (random seeds 7, 3, 11), beside the in-kernel
      # split on a copy, the CUDA cores' tiles auto took before, and auto.
      XR='wgmma_3xtf32_*_ra_p1_cs'
      verify_matrix x3csra "$XR" "f32:f32" "0 0,0,0;0.5 1,3,2;0 1,1,1" 1x1x1 33x65x7 \
        100x300x1000 257x129x4097 22x2501x5639 4095x333x95 37x4100x2000 8x8x33 64x64x65536
      sanitize_split x3csra "$XR" "row col row" "col row col" "col col row"
      XRB='wgmma_3xtf32_64x64x32_s12_ra_p1_cs,wgmma_3xtf32_64x128x32_s8_ra_p1_cs'
      run_step x3csra_accuracy bench --kernels "$XRB" --dtype f32 --m 1024 --n 1024 \
        --k 64,1024,131072 --pad 1,1,1 --format json --output "${TAG}_x3csra-accuracy.json"
      XRB="$XRB,wgmma_3xtf32_64x64x32_s12_p1_cs,wgmma_3xtf32_64x128x32_s8_p1_cs"
      XRB="$XRB,tuned_skinny_16x64x32_w16x32_t4x4_s4_anyalign_splitk"
      XRB="$XRB,tuned_small_64x64x16_w32x32_t8x4_s3_anyalign_splitk,auto"
      TILEGEMM_TUNE_CACHE=off bench_by_layout x3csra "$XRB" x3csra \
        "col row col:22x2501x5639 32x4533x1297 131x4188x2207 5169x16x1413 5312x122x3719
          45x7302x1944" \
        "col col row:169x3579x1383 2491x31x3012" "col row row:63x2318x3586 192x33x7270" \
        "row row col:10x5235x6931" "col col col:14x5273x1186 104x795x2044 83x3000x541" \
        "row col row:6x2834x1188 22x2501x5639 64x8191x8191 16x4095x4095 128x8191x4095
          40x5574x527" "row row row:5312x122x3719" "row col col:53x5574x527"
      ;;
    3xtf32-csra-random)
      # The random fp32 shapes of three seeds: auto (rules only) beside the in-kernel split
      # instances that read any pitch.
      random_rules_f32 x3csra \
        'auto,wgmma_3xtf32_64x64x32_s12_ra_p1_cs,wgmma_3xtf32_64x128x32_s8_ra_p1_cs'
      ;;
    verify-copies)
      # The launchers that carve the stream workspace for operand copies and partial tiles (rungs
      # 16 and 22): verified in every type and layout mix with odd pitches and beta, split-K
      # shapes among them, and memcheck on both.
      verify_matrix copies 'wgmma*_pad' "$WGMMA_TYPES" "0 0,0,0;0.5 1,3,2;0 1,1,1" 1x1x1 \
        33x65x17 129x65x1537 257x263x129 64x64x65536 31x32x7791
      verify_matrix copies_3xtf32 'wgmma_3xtf32_*' "f32:f32" "0 0,0,0;0.5 1,3,2;0 1,1,1" 1x1x1 \
        33x65x17 129x65x1537 257x263x129 64x64x65536 31x32x7791
      for lay in "row col row" "col row col"; do
        sanitize_verify sanitize_copies.log memcheck 'wgmma*_pad' bf16 "$lay" 1,2,3 100x200x300 \
          64x64x8192
        sanitize_verify sanitize_copies.log memcheck 'wgmma_3xtf32_*' f32 "$lay" 1,2,3 \
          100x200x300 64x64x8192
      done
      grep -c "^ok " "$R/sanitize_copies.log" | sed 's/^/sanitize copies runs clean: /' |
        tee -a "$summary"
      ;;
    realign-quick)
      # Rung 20's realigning producer after a change to it: verified in every type and layout mix
      # with odd pitches, memcheck and racecheck, then timed beside rung 16's copies on the
      # random bf16 shapes of seed 7 and a few odd-pitch shapes.
      verify_matrix realign_quick 'wgmma*_ra' "$WGMMA_TYPES" "0 0,0,0;0.5 1,3,2;0 1,1,1" 1x1x1 \
        7x9x13 33x65x17 65x129x200 16x300x1000 129x65x1537 31x32x7791 257x263x129
      for tool in memcheck racecheck; do
        for lay in "row col row" "col row col"; do
          sanitize_verify sanitize_realign_quick.log "$tool" 'wgmma*_ra' bf16 "$lay" 1,2,3 \
            100x200x300 33x1000x77
        done
      done
      grep -c "^ok " "$R/sanitize_realign_quick.log" | sed 's/^/sanitize realign runs clean: /' |
        tee -a "$summary"
      RA='wgmma_128x128x64_s5_ts_ra,wgmma_64x64x64_s10_ts_ra,wgmma_128x128x64_s6_ts_pad'
      RA="$RA,wgmma_64x64x64_s13_pad,auto"
      bench_random realign_quick_random_s7 "$RA" bf16 7 "${TAG}_realign-quick-random-bf16-s7.json"
      ;;
    residue)
      # Rung 23 (A at any pitch through residue-class tensor maps): verified in every 16-bit type
      # and layout mix with odd pitches (both operands off 16 bytes among them: B copied), split-K
      # and M or K below 8, memcheck and racecheck; then timed beside rung 16's copies and cuBLAS
      # on odd-pitch bf16 shapes of the random seeds and the random shapes of seed 7.
      verify_matrix residue 'wgmma*_rm' "$SIXTEEN_BIT_TYPES" \
        "0 0,0,0;0.5 1,3,2;0 1,1,1;0 3,5,7;0 0,4,0" 1x1x1 7x9x13 5x300x7 33x65x17 65x129x200 \
        16x300x1000 129x65x1537 31x32x7791 257x263x129 1000x37x999
      sanitize_bf16_mixes residue 'wgmma*_rm' 100x200x300 33x1000x77 5x70x9
      RM='wgmma*_rm,wgmma_64x64x64_s13_pad,wgmma_128x64x64_s8_ts_pad,narrow_n8,auto'
      BENCH_DTYPE=bf16 TILEGEMM_TUNE_CACHE=off bench_by_layout residue "$RM" residue-bf16 \
        "col row col:45x7302x1944 22x2501x5639" "row row col:3383x42x6316 10x5235x6931" \
        "col row row:1807x9x5441 2768x18x264 35x5x5919 474x10x365" \
        "col col col:14x5273x1186 2691x131x48" "row col row:89x20x170 16x8191x8191 128x8191x4095" \
        "row row row:2768x18x264 4095x4095x4095 5312x122x3719 17023x63x4095 113x8x127" \
        "col col row:2222x5x1091 2369x7x144"
      bench_random residue_random_s7 "$RM" bf16 7 "${TAG}_residue-random-bf16-s7.json"
      ;;
    small)
      # Rung 24 (small products in one launch): the GPU suite's tests of it (the sweep in every
      # type, one launch, bit-identical splits), verified in every type and layout mix with odd
      # pitches and beta != 0, memcheck and racecheck. small-random: auto by its rules alone
      # (and SMALL_KERNELS beside it) against cuBLAS on the random shapes of the seeds SMALL_SEEDS
      # names (7, 3 and 11), in the types SMALL_TYPES names (bf16 and f32), written to
      # ${TAG}_SMALL_TAG-random-*.json.
      run_step small_tests "$TESTBIN/tilegemm_gpu_tests" \
        --gtest_filter='*KernelSweep*/small_*:*SmallProducts*:*SplitKResultsAreBitIdentical*'
      tail -3 "$R/small_tests.log" | tee -a "$summary"
      verify_matrix small 'small_*' "$EVERY_TYPE" "0 0,0,0;0.5 1,3,2;0 3,5,7" 1x1x1 7x9x13 \
        5x300x7 33x65x2637 65x129x200 300x31x777 129x65x1537 24x28x7791
      sanitize_bf16_mixes small 'small_*' 100x200x300 33x40x4077 5x70x9
      ;;
    small-mma)
      # Rung 27 (16-bit products on mma.sync in one launch at any pitch, K split in the launch):
      # the GPU suite's tests of it (the sweep in its four types, one launch, bit-identical
      # splits), verified in its types and five layout mixes with odd pitches and beta != 0,
      # memcheck and racecheck; then beside auto by its rules alone, rung 13's any-alignment
      # tile and cuBLAS on the random bf16 shapes of seeds 7, 3 and 11
      # (${TAG}_small-mma-random-bf16-s<seed>.json).
      run_step small_mma_tests "$TESTBIN/tilegemm_gpu_tests" \
        --gtest_filter='*KernelSweep*/small_mma*:*SmallProducts*:*SplitKResultsAreBitIdentical*'
      tail -3 "$R/small_mma_tests.log" | tee -a "$summary"
      verify_matrix small_mma 'small_mma_*' "$SIXTEEN_BIT_TYPES" \
        "0 0,0,0;0.5 1,3,2;0 3,5,7" 1x1x1 7x9x13 5x300x7 33x65x2637 65x129x200 300x31x777 \
        129x65x1537 24x28x7791 1876x94x471 3358x503x91
      sanitize_bf16_mixes small_mma 'small_mma_*' 100x200x300 33x40x4077 130x70x9
      for seed in 7 3 11; do
        TILEGEMM_TUNE_CACHE=off bench_random "small_mma_s$seed" \
          "auto,small_mma_*,mma_sync_128x128x32_w64x64_s4_anyalign" bf16 "$seed" \
          "${TAG}_small-mma-random-bf16-s$seed.json"
      done
      ;;
    thin-k-mma)
      # Rung 25 (thin K for 16-bit operands on mma.sync, any pitch, one launch): the GPU suite's
      # sweep of it, verified in its four types and five layout mixes with odd pitches and
      # beta != 0, memcheck and racecheck; then timed beside the paths auto took for thin K
      # before it (thin_k on the CUDA cores, rung 16's copies under the wgmma tiles, mma.sync's
      # any-alignment tile) and cuBLAS: a K sweep at three sizes of C with the odd pitches of
      # column-major operands, a K sweep at 4096^2 with 16-byte pitches beside the aligned wgmma
      # tiles, and the random shapes' thin-K cases in their own layouts.
      run_step thin_k_mma_tests "$TESTBIN/tilegemm_gpu_tests" \
        --gtest_filter='*KernelSweep*/thin_k_mma*:*ThinKMma*'
      tail -3 "$R/thin_k_mma_tests.log" | tee -a "$summary"
      verify_matrix thin_k_mma 'thin_k_mma_*' "$SIXTEEN_BIT_TYPES" \
        "0.5 0,0,0;0.5 1,3,2;0 1,1,1;0 3,5,7" 1x1x1 7x9x13 1000x1000x7 777x1025x32 4097x300x33 \
        65x129x40 130x17x64 863x5519x27 129x255x48 3404x573x16
      sanitize_bf16_mixes thin_k_mma 'thin_k_mma_*' 100x200x30 333x129x64 5x70x9
      TKM='thin_k_mma_*,thin_k,wgmma_128x256x64_s4_ts_pad,wgmma_128x128x64_s6_ts_pad,mma_sync_128x128x32_w64x64_s4_anyalign,auto'
      for mn in "2982 6722" "865 1799" "330 3978"; do
        read -r m n <<<"$mn"
        run_step "thin_k_mma_pad_${m}x$n" bench --kernels "$TKM" --dtype bf16 --layout-a col \
          --layout-b col --layout-c col --m "$m" --n "$n" --k 4,8,12,16,20,24,32,40,48,64 \
          --format json --output "${TAG}_thin-k-mma-pad-bf16-${m}x$n.json"
      done
      run_step thin_k_mma_aligned bench --kernels \
        'thin_k_mma_*,thin_k,wgmma_128x256x64_s4_ts,wgmma_128x128x64_s6_ts,auto' \
        --dtype bf16 --m 4096 --n 4096 --k 8,16,24,32,48,64 --format json \
        --output "${TAG}_thin-k-mma-aligned-bf16.json"
      TILEGEMM_TUNE_CACHE=off BENCH_DTYPE=bf16 bench_by_layout thin_k_mma "$TKM" thin-k-mma-shapes \
        "col col col:2691x131x48 104x6044x12 2982x6722x29 4242x6657x39" \
        "row row col:902x1781x13 865x1799x20 5817x1111x13 330x3978x31" \
        "col row col:7155x5417x26 500x947x10" "col col row:35x6945x26" \
        "row col row:863x5519x27 4002x1483x37 3092x7833x10" "col row row:4200x969x16" \
        "row col col:501x1842x23 548x7190x30"
      run_step thin_k_mma_c_f32 bench --kernels "$TKM" --dtype bf16 --dtype-c f32 \
        --layout-a col --layout-b col --layout-c col --shape 2982x6722x8 --shape 2982x6722x29 \
        --shape 4242x6657x39 --format json --output "${TAG}_thin-k-mma-bf16-f32.json"
      for seed in 7 3 11; do
        TILEGEMM_TUNE_CACHE=off bench_random "thin_k_mma_random_s$seed" \
          'auto,thin_k_mma_*' bf16 "$seed" \
          "${TAG}_thin-k-mma-random-bf16-s$seed.json"
      done
      ;;
    thin-k-f32)
      # Rung 25's strip walk for fp32 and tf32 (three tf32 products, K up to 32): verified in
      # both types and five layout mixes with odd pitches and beta != 0, memcheck and racecheck;
      # then timed beside rung 22's 128x128 tile, thin_k, auto and cuBLAS on thin-K shapes at odd
      # and at 16-byte pitches.
      verify_matrix thin_k_f32 thin_k_mma_16x512 "f32:f32 tf32:f32" \
        "0.5 0,0,0;0.5 1,3,2;0 1,1,1;0 3,5,7" 1x1x1 7x9x13 1000x1000x7 777x1025x32 4097x300x31 \
        65x129x17 130x17x24 863x5519x27 3404x573x16
      for tool in memcheck racecheck; do
        for lay in "row col row" "col row col"; do
          sanitize_verify sanitize_thin_k_f32.log "$tool" thin_k_mma_16x512 f32 "$lay" 1,3,2 \
            333x1029x30 100x700x9
        done
      done
      grep -c "^ok " "$R/sanitize_thin_k_f32.log" | sed "s/^/sanitize thin_k_f32 runs clean: /" |
        tee -a "$summary"
      TILEGEMM_TUNE_CACHE=off BENCH_DTYPE=f32 bench_by_layout thin_k_f32 \
        'thin_k_mma_16x512,thin_k,wgmma_3xtf32_128x128x32_s6_ts_p4,auto' thin-k-f32 \
        "col row col:7155x5417x26 2982x6722x8" "col col col:2982x6722x29 4242x6657x32 2982x6722x16" \
        "row col row:863x5519x27 3092x7833x10" "col row row:4200x969x16" \
        "row row row:4096x4096x8 4096x4096x16 4096x4096x32 2048x2048x16 1024x2048x16 8192x8192x16 3000x3000x8"
      ;;
    ncu-thin-k-mma)
      # Rung 25 beside rung 19 (thin_k) under ncu at 4096^2 x 8 (16-byte pitches) and on the odd
      # pitches of 2982 x 6722 x 29 (column-major): throughput, memory, warp stalls, occupancy.
      for kn in thin_k_mma_64x128:thin_k_mma_kernel thin_k_mma_16x512:thin_k_strip_kernel \
        thin_k:thin_k_kernel; do
        for sl in "4096x4096x8 row" "2982x6722x29 col"; do
          read -r shape lay <<<"$sl"
          run_step "ncu_${kn%%:*}_$shape" ncu --section SpeedOfLight --section MemoryWorkloadAnalysis \
            --section WarpStateStats --section LaunchStats --section Occupancy \
            --section SchedulerStats --section SourceCounters -k "regex:${kn#*:}" --launch-skip 2 \
            --launch-count 1 \
            "$TG" bench --kernels "${kn%%:*}" --dtype bf16 --layout-a "$lay" --layout-b "$lay" \
            --layout-c "$lay" --shape "$shape" --warmup 2 --reps 2 --rounds 1
        done
      done
      ;;
    write-rate)
      # tools/write_rate: the rate at which one write of a 16-bit C reaches memory, by the pieces a
      # block writes (rung 25's 64 x 128 tile and wider ones) and C's pitch (odd, 16-byte, padded).
      for s in "2982 6722 2982" "2984 6722 2984" "2982 6722 2990" "7155 5417 7155" \
        "7160 5417 7160" "3092 7833 3092"; do
        read -r m n ld <<<"$s"
        run_step "write_rate_${m}x${n}_$ld" "${WRITE_RATE_BIN:-build/tools/write_rate/tilegemm_write_rate}" \
          "$m" "$n" "$ld"
        cp "$R/write_rate_${m}x${n}_$ld.log" "$R/${TAG}_write-rate-${m}x${n}-ld$ld.txt"
      done
      ;;
    tiny-wide)
      # bf16 products of 9..32 columns over half a wave to a wave of 32x32 tiles with K of
      # 700..3500 (rung 28's whole K per block; auto took it only up to 8 columns before this
      # step's run) beside auto by its rules and cuBLAS, at natural and odd pitches:
      # ${TAG}_tiny-wide-<pads>-<layouts>.json.
      for pad in 0,0,0 1,1,1; do
        BENCH_PAD=$pad BENCH_DTYPE=bf16 TILEGEMM_TUNE_CACHE=off bench_by_layout "tiny_wide_${pad//,/}" \
          'auto,tiny_mma_32x32' "tiny-wide-${pad//,/}" \
          "row col row:12x2834x1188 16x3000x2000 24x2500x1500 32x4000x800 10x2200x3000 20x3500x1000" \
          "col col row:2222x12x1091 3000x16x1500 4100x24x1800 2900x32x2500 2500x10x3500 3500x20x700"
      done
      ;;
    ncu-narrow-elem)
      # Rung 21's column kernel at an odd 16-bit pitch (element loads) under Nsight Compute, this
      # build against $BIN/tilegemm_old: speed of light, memory, warp states, occupancy of the
      # kernel's third launch (after verification and warm-up), as text per build.
      ncu_narrow_elem() {
        run_step "ncu_narrow_elem_$1" bash -c 'cd "$1" && shift && "$@"' _ "$R" ncu \
          --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
          --section Occupancy --section LaunchStats --section SchedulerStats \
          -k regex:narrow_cols --launch-skip 2 --launch-count 1 "$2" bench --no-block \
          --kernels narrow_n4 --dtype bf16 --layout-a col --layout-b col --layout-c row \
          --shape 4100x2x1800 --rounds 1 --reps 3 --warmup 1
        cp "$R/ncu_narrow_elem_$1.log" "$R/${TAG}_ncu-narrow-elem-$1.txt"
      }
      each_build ncu_narrow_elem
      ;;
    ncu-tiny)
      # Seed 7's bf16 rows within 1-9% of cuBLAS (launch-bound tiny products, perf-notes.md,
      # "Where the tiny rows' time goes") under Nsight Compute: each kernel's duration on the GPU,
      # grid, block, registers, shared memory and cluster, for NCU_TINY_KERNELS (default auto) and
      # cuBLAS, every launch of a short bench (the reference and poison launches included, named),
      # as CSV per layout mix. At the card's own clocks and caches, as the bench runs (ncu's
      # defaults, base clocks and flushed caches, hid rung 28's extra cycles there: perf-notes.md,
      # "The tiny rows at the bench's clocks").
      for cfg in "row col col:58x9x67 16x103x1440" "col col col:436x2x22" \
        "col col row:35x6945x26" "row col row:5x204x22 860x438x5 12x47x77"; do
        read -r la lb lc <<<"${cfg%%:*}"
        shapes=()
        for s in ${cfg#*:}; do shapes+=(--shape "$s"); done
        run_step "ncu_tiny_$la$lb$lc" bash -c 'cd "$1" && shift && "$@"' _ "$R" ncu --csv \
          --clock-control none --cache-control none \
          --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,launch__cluster_dim_x,launch__cluster_dim_y,sm__cycles_active.max \
          "$TG" bench --no-block --kernels "${NCU_TINY_KERNELS:-auto}" --dtype bf16 --layout-a "$la" \
          --layout-b "$lb" --layout-c "$lc" "${shapes[@]}" --rounds 1 --reps 3 --warmup 1
        cp "$R/ncu_tiny_$la$lb$lc.log" "$R/${TAG}_ncu-tiny-$la$lb$lc.txt"
      done
      ;;
    ncu-narrow-aligned)
      # bf16 narrow products at 16-byte pitches, where auto stays below cuBLAS (perf-notes.md,
      # "Narrow products by grid": rung 18's tile, on rung 16's transposed copy or in place) under
      # Nsight Compute at the card's own clocks and caches: per launch (ours, the copy included,
      # and cuBLAS's) duration, grid, block, cluster, DRAM bytes and throughput, and the SMs'
      # active cycles (slowest and mean), as CSV per layout mix.
      for cfg in "row col col:1024x32x4096 1024x64x2048" "col row col:8192x32x8192 8192x16x2048" \
        "row col row:8192x16x8192 8192x48x2048"; do
        read -r la lb lc <<<"${cfg%%:*}"
        shapes=()
        for s in ${cfg#*:}; do shapes+=(--shape "$s"); done
        run_step "ncu_narrow_aligned_$la$lb$lc" bash -c 'cd "$1" && shift && "$@"' _ "$R" ncu \
          --csv --clock-control none --cache-control none \
          --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__cluster_dim_x,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_active.max,sm__cycles_active.avg \
          "$TG" bench --no-block --kernels auto --dtype bf16 --layout-a "$la" --layout-b "$lb" \
          --layout-c "$lc" "${shapes[@]}" --rounds 1 --reps 3 --warmup 1
        cp "$R/ncu_narrow_aligned_$la$lb$lc.log" "$R/${TAG}_ncu-narrow-aligned-$la$lb$lc.txt"
      done
      ;;
    ncu-gemv)
      # gemv's column kernel on seed 7's 1 x 623 x 4718 (B row-major: B^T is a column-major A of
      # 623 rows) at its odd pitch and at ld 624, both types, under Nsight Compute at the card's
      # own clocks and caches: per launch (ours and cuBLAS's) duration, grid, block, registers,
      # DRAM bytes, L2 sectors read for L1, L1 requests and sectors of global loads, instructions
      # and the slowest SM's active cycles, as CSV per type and pitch; this build and
      # $BIN/tilegemm_old where it exists.
      ncu_gemv() {
        local dt pad
        for dt in f32 bf16; do
          for pad in 0,0,0 0,1,0; do
            run_step "ncu_gemv_${1}_${dt}_${pad//,/}" bash -c 'cd "$1" && shift && "$@"' _ "$R" \
              ncu --csv --clock-control none --cache-control none \
              --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__cluster_dim_x,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed.sum,sm__cycles_active.max \
              "$2" bench --no-block --kernels "${NCU_GEMV_KERNELS:-gemv}" --dtype "$dt" \
              --layout-a row --layout-b row --layout-c row --pad "$pad" --shape 1x623x4718 \
              --rounds 1 --reps 3 --warmup 1
            cp "$R/ncu_gemv_${1}_${dt}_${pad//,/}.log" "$R/${TAG}_ncu-gemv-${1}-${dt}-${pad//,/}.txt"
          done
        done
      }
      each_build ncu_gemv
      ;;
    read-rate)
      # tools/read_rate: one read of a 128 MiB buffer (the B of bf16 16 x 8192 x 8192) by blocks
      # per SM and 16-byte loads in flight per thread, beside a device-to-device copy: the floor
      # of the issue's small-M targets, which the `targets` step benches beside cuBLAS.
      run_step read_rate "${READ_RATE_BIN:-build/tools/read_rate/tilegemm_read_rate}"
      cp "$R/read_rate.log" "$R/${TAG}_read-rate.txt"
      ;;
    table-random)
      # auto as a user gets it (the built-in tune table for this GPU consulted before the rules)
      # on the random shapes of seeds 7, 3 and 11 (or TABLE_SEEDS), bf16 and f32, into
      # ${TAG}_TABLE_TAG-random-*.
      # TABLE_FROM_TUNE=1: the table the `tune` step of this run just measured instead (as the
      # user's cache, $R/tunecache), for a build whose registry the built-in table predates.
      # TABLE_RULES=1: also the rules alone (no table), into ${TAG}_TABLE_TAG-rules-random-*.
      cache_dir=""
      [ -n "${TABLE_FROM_TUNE:-}" ] && cache_dir="$(cd "$R" && pwd)/tunecache"
      for dt in bf16 f32; do
        for seed in ${TABLE_SEEDS:-7 3 11}; do
          TILEGEMM_CACHE_DIR="$cache_dir" bench_random "table_${dt}_s$seed" auto "$dt" "$seed" \
            "${TAG}_${TABLE_TAG:-table}-random-$dt-s$seed.json"
          [ -n "${TABLE_RULES:-}" ] && TILEGEMM_TUNE_CACHE=off bench_random \
            "rules_${dt}_s$seed" auto "$dt" "$seed" \
            "${TAG}_${TABLE_TAG:-table}-rules-random-$dt-s$seed.json"
        done
      done
      ;;
    probe)
      # Every candidate kernel beside cuBLAS (tune --dry-run, screened at 3x, nothing stored) on
      # PROBE_CONFIGS (each_config's entries) in PROBE_DTYPE (default bf16): which kernel, if any,
      # reaches the rows below the bars.
      probe_entry() {
        local ci=$1 la=$2 lb=$3 lc=$4 pad=$5
        shift 5
        run_step "probe_c$ci" bash -c 'cd "$1" && shift && "$@"' _ "$R" "$TG" tune --dry-run \
          --screen 3 --rounds 3 --reps 20 --warmup 5 --dtype "${PROBE_DTYPE:-bf16}" \
          --layout-a "$la" --layout-b "$lb" --layout-c "$lc" --pad "$pad" "$@" \
          --output "${TAG}_probe-c$ci-$la$lb$lc.json"
      }
      each_config "${PROBE_CONFIGS:-row row row 0,0,0:1x623x4718}" probe_entry
      ;;
    bench-grid)
      # GRID_KERNELS (bf16 unless GRID_DTYPE; auto by its rules alone) beside cuBLAS on
      # GRID_CONFIGS (each_config's entries), into ${TAG}_GRID_TAG-c<entry>-<layouts>-<pads>.json:
      # the grids that bound a rule.
      grid_entry() {
        local ci=$1 la=$2 lb=$3 lc=$4 pad=$5
        shift 5
        TILEGEMM_TUNE_CACHE=off run_step "grid_c$ci" bash -c 'cd "$1" && shift && "$@"' _ "$R" \
          "$TG" bench $TIMING --kernels "${GRID_KERNELS:-auto}" --dtype "${GRID_DTYPE:-bf16}" \
          --layout-a "$la" --layout-b "$lb" --layout-c "$lc" --pad "$pad" "$@" \
          --format json --output "${TAG}_${GRID_TAG:-grid}-c$ci-$la$lb$lc-${pad//,/}.json"
      }
      each_config "${GRID_CONFIGS:-row row row 1,1,1:1x623x4718}" grid_entry
      ;;
    short-off)
      # bf16 products with M or N of at most 64 where only the short operand has no tensor map
      # (odd pitch) and the long one is 1.5 to 33 MB: rung 23's residue maps (one launch) beside
      # rung 16's copies under rung 18's and the 128x64 tile, and auto: where kResidue64's bound
      # on the long operand should lie.
      SO='auto,wgmma_64x64x64_s11_rm,wgmma_64x128x64_s8_rm,wgmma_64x64x64_s13_pad,wgmma_128x64x64_s8_ts_pad'
      BENCH_DTYPE=bf16 TILEGEMM_TUNE_CACHE=off bench_by_layout short-off "$SO" short-off-bf16 \
        "row row row:2768x18x264 4000x18x264 2000x9x800 5000x18x600 3000x60x2048 16000x33x1024" \
        "col col row:18x2768x264 9x2000x800 18x5000x600 36x7673x1728 33x16000x1024"
      ;;
    narrow8-probe)
      # bf16 products with 5..8 columns against a long K and odd pitches (the random seeds' worst
      # narrow cases): rung 21's narrow_n8 beside rung 23's residue maps, rung 16's copies under
      # rung 18's tile and mma.sync's any-alignment tile: which path such shapes should take.
      NP='narrow_n8,wgmma_64x64x64_s11_rm,wgmma_64x64x64_s13_pad,mma_sync_128x128x32_w64x64_s4_anyalign,auto'
      TILEGEMM_TUNE_CACHE=off BENCH_DTYPE=bf16 bench_by_layout narrow8 "$NP" narrow8-probe \
        "row row row:2537x8x5058" "col row row:569x7x5669 4338x7x7846 35x5x5919 226x6x6750" \
        "row col row:6x2834x1188" "col col row:2222x5x1091 5x30x7193" "row row col:6x130x4693"
      ;;
    small-random)
      for dt in ${SMALL_TYPES:-bf16 f32}; do
        for seed in ${SMALL_SEEDS:-7 3 11}; do
          TILEGEMM_TUNE_CACHE=off bench_random "small_${dt}_s$seed" \
            "${SMALL_KERNELS:-auto,small_*}" \
            "$dt" "$seed" "${TAG}_${SMALL_TAG:-small}-random-$dt-s$seed.json"
        done
      done
      ;;
    host-cost)
      # The host time of one gemm() call beside an empty kernel's launch (tools/host_cost): how
      # much of a launch-bound call is the launch itself and how much the library's own work.
      run_step host_cost "${HOST_COST_BIN:-build/tools/host_cost/tilegemm_host_cost}"
      tee -a "$summary" <"$R/host_cost.log"
      ;;
    residue-random)
      # bf16 auto (rules alone) on the random shapes of three seeds.
      for seed in 7 3 11; do
        TILEGEMM_TUNE_CACHE=off bench_random "residue_rules_s$seed" auto bf16 "$seed" \
          "${TAG}_residue-rules-random-bf16-s$seed.json"
      done
      ;;
    narrow-f32-mid)
      # fp32 products with M or N of 5..16 against a long other side (random seeds 7, 3, 11):
      # rung 21's narrow products beside the CUDA cores' skinny tile that auto takes there.
      XN='narrow_n8,narrow_n16,auto'
      TILEGEMM_TUNE_CACHE=off bench_by_layout narrow_f32 "$XN" narrow-f32-mid \
        "row col row:6x2834x1188 6x7043x176 5x3291x47" "row row col:10x5235x6931" \
        "col col col:14x5273x1186 375x5x2054" "col row col:5169x16x1413 8x5x1283" \
        "col row row:1807x9x5441 474x10x365 35x5x5919" "col col row:2222x5x1091 2369x7x144"
      ;;
    3xtf32-random)
      # The random fp32 shapes of three seeds with auto's default math (three tf32 products
      # where they pay), then on the CUDA cores alone (TILEGEMM_FP32_MATH=simt).
      for seed in 7 3 11; do
        TILEGEMM_TUNE_CACHE=off bench_random "x3_random_s$seed" auto f32 "$seed" \
          "${TAG}_3xtf32-random-f32-s$seed.json"
      done
      for seed in 7 3 11; do
        TILEGEMM_FP32_MATH=simt TILEGEMM_TUNE_CACHE=off bench_random "simt_random_s$seed" auto \
          f32 "$seed" "${TAG}_simt-random-f32-s$seed.json"
      done
      ;;
    thin-k-pad)
      # Thin K (1..64) on odd pitches: rung 19's CUDA-core thin_k beside rung 16's copies under
      # the 128-row wgmma tiles and mma.sync's any-alignment tile, at three sizes of C: where the
      # rule should hand thin K from thin_k to the copies.
      TK='thin_k,wgmma_128x256x64_s4_ts_pad,wgmma_128x128x64_s6_ts_pad,wgmma_128x64x64_s8_ts_pad,mma_sync_128x128x32_w64x64_s4_anyalign'
      for mn in "2982 6722" "865 1799" "330 3978"; do
        read -r m n <<<"$mn"
        run_step "thin_k_pad_${m}x$n" bench --kernels "$TK" --dtype bf16 --layout-a col \
          --layout-b col --layout-c col --m "$m" --n "$n" --k 1,2,4,6,8,10,12,16,20,24,32,48,64 \
          --format json --output "${TAG}_thin-k-pad-bf16-${m}x$n.json"
      done
      ;;
    pad64)
      # Rung 16's copies under rung 18's one-consumer 64x64 tile (small M or N, odd pitches):
      # verified in every tensor type and layout mix, then timed beside the 128-row padded tiles,
      # the narrow products, mma.sync's any-alignment tile and cuBLAS on narrow-ish shapes and on
      # the random shapes of three seeds.
      verify_matrix pad64 'wgmma*64x64*_pad' "$WGMMA_TYPES" "0.5 1,3,2;0 1,1,1" 22x2501x5639 \
        2491x31x3012 36x15x433 77x50x4096 8192x9x512 16x300x1000 200x24x1000 31x32x7791
      P64='wgmma_64x64x64_s13_pad,wgmma_128x64x64_s8_ts_pad,wgmma_128x128x64_s6_ts_pad,narrow_n4,narrow_n8,mma_sync_128x128x32_w64x64_s4_anyalign,auto'
      run_step pad64_bf16 bench --kernels "$P64" --dtype bf16 --layout-a col --layout-b row \
        --layout-c col --pad 1,1,1 --shape 22x2501x5639 --shape 2491x31x3012 --shape 36x15x433 \
        --shape 10x5235x6931 --shape 5169x16x1413 --shape 63x2318x3586 --shape 16x8192x8192 \
        --shape 128x8192x8192 --shape 250x3000x3000 --shape 29x9x7054 --format json \
        --output "${TAG}_pad64-bf16.json"
      for seed in ${RANDOM_SEEDS:-7 11 3}; do
        TILEGEMM_TUNE_CACHE=off bench_random "pad64_random_s$seed" "$P64" bf16 "$seed" \
          "${TAG}_pad64-random-bf16-s$seed.json"
      done
      ;;
    wave-f32)
      # fp32 between one and four waves of 128x256 tiles: rung 8's lean 128x256 instances, rung
      # 9's 128x256 and 128x128 tiles and cuBLAS, K short and long, both B layouts (which tile
      # the wave rule should take there).
      wave=()
      for mn in ${WAVE_MN:-1536x2048 2048x2048 2560x1536 3000x2600 3912x2568 1480x3800 4096x2304 \
        2744x5528 3500x3500 4500x2900 2200x4700 1800x5200 5000x1800 3300x4100 2600x2600 6000x2300}; do
        for k in 640 2400; do wave+=(--shape "${mn}x$k"); done
      done
      for lb in row col; do
        run_step "wave_f32_$lb" bench --kernels \
          'tuned_large_128x128x8_w64x32_t8x8_s3,tuned_large_128x256x8_w64x64_t8x16_s3,cp_async_128x256x16_w64x64_t8x16_s3_lean_mid,cp_async_128x256x8_w64x64_t8x16_s3_lean_mid,auto' \
          --dtype f32 --layout-b "$lb" "${wave[@]}" --format json --output "${TAG}_wave-f32-b$lb.json"
      done
      ;;
    narrow-random)
      # The random shapes of three seeds with every narrow instance beside auto (rules only) and
      # the instances auto took for them before rung 21 and the longk split policy.
      declare -A BEFORE=([bf16]='wgmma_128x64x64_s8_ts_pad,wgmma_64x64x64_s13,mma_sync_128x128x32_w64x64_s4_anyalign'
        [f32]='tuned_skinny_16x64x32_w16x32_t4x4_s4_anyalign_splitk,tuned_small_64x64x16_w32x32_t8x4_s3_anyalign_splitk,tuned_longk_*')
      for ab in ${RANDOM_TYPES:-bf16 f32}; do
        for seed in ${RANDOM_SEEDS:-7 11 3}; do
          TILEGEMM_TUNE_CACHE=off bench_random "narrow_random_${ab}_s$seed" \
            "narrow_*,${BEFORE[$ab]},auto" "$ab" "$seed" "${TAG}_narrow-random-${ab}-s$seed.json"
        done
      done
      ;;
    fill-f32)
      # The longk tile's wave-filling split policy (rung 9) beside the unsplit 128x128 tile, the
      # small split-K tile and cuBLAS, on shapes with fewer 128x128 tiles than two waves, with
      # 16-byte and odd pitches.
      fill=()
      for s in ${FILL_SHAPES:-1536x1536x1536 1024x1024x1024 2112x1504x6004 365x4393x2315 \
        1580x423x1195 5065x262x3829 131x4188x2207 169x3579x1383 243x3665x647 5312x122x3719 \
        2048x1024x4096 1000x3000x3000}; do fill+=(--shape "$s"); done
      for pad in 0,0,0 1,1,1; do
        run_step "fill_f32_pad${pad//,/}" bench --kernels \
          'tuned_large_128x128*,tuned_longk_*,tuned_small_64x64x16*splitk,auto' --dtype f32 \
          --layout-b col --pad "$pad" "${fill[@]}" --format json \
          --output "${TAG}_fill-f32-pad${pad//,/}.json"
      done
      verify_matrix fill 'tuned_longk_*' "f32:f32" "0.5 0,0,0;0.5 1,3,2;0 1,1,1" 1536x1536x1536 \
        365x4393x2315 131x4188x2207 300x300x9000 129x4097x600
      ;;
    smallm-probe)
      # Small M or N against a large N x K: what cuBLAS launches (kernel names, grids, every
      # launch of one call) and the DRAM rate and stalls of ours beside it.
      SM_SHAPES=(${SM_SHAPES:-16x8192x8192 128x8192x8192 8192x16x8192 16384x16x4096})
      for s in "${SM_SHAPES[@]}"; do
        run_step "smallm_profile_$s" bash -c "cd '$R' && '$TG' profile --dtype bf16 --shape $s \
          --kernels '${SM_KERNELS:-wgmma_128x64x64_s8_ts,wgmma_128x128x64_s6_ts}' \
          --output '${TAG}_smallm-profile-$s.md'"
        run_step "smallm_cublas_launches_$s" ncu --csv --metrics \
          gpu__time_duration.sum,launch__grid_size,launch__block_size,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed \
          "$TG" bench --kernels wgmma_128x64x64_s8_ts --dtype bf16 --shape "$s" --rounds 1 --reps 1 --warmup 0
      done
      ;;
    block)
      # The timer's blocking kernel (bench's default, as nvbench's cold measurement) against
      # --no-block, on the issue's random shapes (auto by its rules, seeds 7, 11 and 3, bf16 and
      # f32), alternating BLOCK_REPS times (default 2): the timer's tests, then per seed and mode
      # the summary, and scripts/ab_summary.py with --no-block as "old".
      run_step timer_tests "$TESTBIN/tilegemm_gpu_tests" --gtest_filter='TimerTest.*'
      grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$R/timer_tests.log" | tee -a "$summary"
      for rep in $(seq "${BLOCK_REPS:-2}"); do
        for mode in new old; do
          flags=(); [ $mode = old ] && flags=(--no-block)
          for ab in bf16 f32; do for seed in 7 11 3; do
            TILEGEMM_TUNE_CACHE=off run_step "block_${mode}_${rep}_${ab}_s$seed" bench \
              --kernels auto --dtype "$ab" --random 100 --seed "$seed" --max-size 8192 \
              "${flags[@]}" --format json --output "${TAG}_block_rs_${mode}_${rep}_${ab}_s$seed.json"
          done; done
        done
      done
      python3 scripts/random_summary.py --worst 6 "$R"/${TAG}_block_rs_*_1_*.json | tee -a "$summary"
      for ab in bf16 f32; do
        python3 scripts/ab_summary.py "$R"/${TAG}_block_rs_*_${ab}_*.json | tail -2 | tee -a "$summary"
      done
      ;;
    split-sum)
      # Split K summed in the kernel (wgmma): each split instance's plan (tilegemm analyze) and
      # its time beside cuBLAS on few tiles over a long K, bf16 row,col,row, from a few splits to
      # past the in-kernel bound (perf-notes.md, "Split K summed in the kernel"); as the ab step
      # with AB_KERNELS and AB_CONFIGS set to these, against an earlier build.
      for probe in "wgmma_64x64x64_s13:64x64x2048 64x64x4096 64x64x7680" \
                   "wgmma_64x128x64_s9:64x128x1024 64x128x2048 64x128x3840" \
                   "wgmma_128x128x64_s6_ts:256x256x1024 128x128x2048 128x128x3840" \
                   "wgmma_128x256x64_s4_ts:128x256x1024 256x512x1024 128x256x1792"; do
        kn=${probe%%:*}
        shapes=()
        for s in ${probe#*:}; do
          shapes+=(--shape "$s")
          "$TG" analyze --kernel "$kn" --dtype bf16 --layout-a row --layout-b col --layout-c row \
            --shape "$s" | grep "Plan on" | tee -a "$summary"
        done
        run_step "split_sum_$kn" bench --kernels "$kn" \
          --dtype bf16 --layout-a row --layout-b col --layout-c row "${shapes[@]}" --format json \
          --output "${TAG}_split-sum-$kn.json"
      done
      ;;
    ab)
      # This build ($BIN/tilegemm) against an earlier one ($BIN/tilegemm_old), alternating,
      # AB_REPS times (default 3), each time every entry of AB_CONFIGS ("layout-a layout-b
      # layout-c pad:shape shape ...", separated by ";") for AB_KERNELS in each of AB_TYPES, three
      # interleaved rounds a bench: the A/B of perf-notes' kernel changes (the narrow second pass
      # and one-wave split ran as AB_KERNELS='narrow_*' over the narrow step's shapes).
      # AB_KERNELS_<type> (AB_KERNELS_f32, AB_KERNELS_bf16, ...) names that type's kernels where
      # one glob cannot: bench refuses a glob that matches no kernel of its type.
      old_tg="$(cd "$BIN" && pwd)/tilegemm_old"
      if [ ! -x "$old_tg" ]; then
        note "step ab: no $BIN/tilegemm_old to compare with"
        continue
      fi
      # Files named by the entry's place in AB_CONFIGS too: two entries of the same layouts and
      # pads wrote one file, the second over the first.
      ab_entry() {
        local ci=$1 la=$2 lb=$3 lc=$4 pad=$5 name kernels_of_type="AB_KERNELS_$ab"
        shift 5
        name="ab_${v}_${rep}_${ab}_$la$lb${lc}_${pad//,/}_c$ci"
        run_step "$name" bash -c 'cd "$1" && shift && "$@"' _ "$R" "$T" bench --rounds 3 \
          --reps 20 --warmup 5 --kernels "${!kernels_of_type:-${AB_KERNELS:-narrow_*}}" \
          --dtype "$ab" --layout-a "$la" --layout-b "$lb" --layout-c "$lc" --pad "$pad" "$@" \
          --format json --output "${TAG}_$name.json"
      }
      for rep in $(seq "${AB_REPS:-3}"); do
        for v in old new; do
          T="$TG"
          [ $v = old ] && T="$old_tg"
          for ab in ${AB_TYPES:-bf16 f32}; do
            each_config "${AB_CONFIGS:-col row row 0,0,0:2x3042x8153 35x5x5919}" ab_entry
          done
        done
      done
      # Per shape the medians of each build and new over old, also over cuBLAS in the same run.
      python3 scripts/ab_summary.py --worst 3 "$R"/"${TAG}"_ab_*.json | tee -a "$summary"
      ;;
    tiny-mma)
      # Rung 28 (tiny 16-bit products on mma.sync, K split over one block's warps, and past
      # K = 512 over a cluster's blocks): the GPU suite's tests of it (the sweep in its four
      # types, one launch, bit-identical reruns, the cluster where it fits), verified in its types
      # and five layout mixes at odd pitches with beta != 0 (K past 512 included), memcheck,
      # racecheck and synccheck; then beside auto by its rules alone, rungs 24, 27 and 21 and
      # cuBLAS on TINY_SHAPES (tiny products of K past 512, two layout mixes, 16-byte and odd
      # pitches: ${TAG}_tiny-mma-<rep>-shapes-<layouts>-<pads>.json) and on the random bf16 shapes
      # of TINY_SEEDS (default 7 3 11 5 13 21 17 29 41), TINY_REPS times (default 2):
      # ${TAG}_tiny-mma-<rep>-random-bf16-s<seed>.json.
      family_checks tiny_mma 'tiny_mma_*' "$SIXTEEN_BIT_TYPES" \
        '*KernelSweep*/tiny_mma*:*SmallProducts*:*ShortSplitKIsOneCluster*' \
        "0 0,0,0;0.5 1,3,2;0 3,5,7" "memcheck racecheck synccheck" bf16 \
        "1x1x1 7x9x13 5x300x7 33x65x2637 65x129x200 300x31x777 129x65x1537 24x28x7791 89x20x170 \
        2768x18x264" "100x200x300 33x40x4077 130x70x9"
      tiny_shapes=()
      for s in ${TINY_SHAPES:-16x103x1440 24x28x2637 65x25x1311 64x64x1024 64x64x2048 32x32x4096 \
        8x8x8000 40x70x2000 33x65x2637 17x174x3167 129x65x1537 96x96x3000 101x65x4514 \
        55x134x4684 20x300x700 100x100x600 300x31x777 35x5x5919 226x6x6750 2x2187x1000 \
        300x8x2000 12x600x3000 200x150x800 160x160x1500 569x7x5669 29x9x7054 29x9x4999 \
        2768x18x600 2000x9x800 128x256x2048 250x250x1000}; do
        tiny_shapes+=(--shape "$s")
      done
      for rep in $(seq "${TINY_REPS:-2}"); do
        for lay in "row col row" "col row row"; do
          read -r la lb lc <<<"$lay"
          for pad in 0,0,0 1,1,1; do
            TILEGEMM_TUNE_CACHE=off run_step "tiny_mma_${rep}_$la$lb${lc}_${pad//,/}" \
              bash -c 'cd "$1" && shift && "$@"' _ "$R" "$TG" bench --rounds 3 --reps 20 \
              --warmup 5 --kernels "auto,tiny_mma_32x32,small_32x32x32,small_mma_64x64,narrow_*" \
              --dtype bf16 --layout-a "$la" --layout-b "$lb" --layout-c "$lc" --pad "$pad" \
              "${tiny_shapes[@]}" --format json \
              --output "${TAG}_tiny-mma-${rep}-shapes-$la$lb$lc-${pad//,/}.json"
          done
        done
        for seed in ${TINY_SEEDS:-7 3 11 5 13 21 17 29 41}; do
          TILEGEMM_TUNE_CACHE=off run_step "tiny_mma_${rep}_s$seed" \
            bash -c 'cd "$1" && shift && "$@"' _ "$R" "$TG" bench --rounds 3 --reps 20 \
            --warmup 5 --kernels "auto,tiny_mma_32x32,small_32x32x32,small_mma_64x64" \
            --dtype bf16 --random 100 --seed "$seed" --max-size 8192 --format json \
            --output "${TAG}_tiny-mma-${rep}-random-bf16-s$seed.json"
        done
      done
      ;;
    tiny-mma-f32)
      # Rung 28 in fp32 (three tf32 products): the GPU suite's tests of it (the sweep, one launch,
      # the cluster split, Inf/NaN and the largest finite), verified in five layout mixes at
      # 16-byte, odd and 8-byte pitches with beta != 0 (K of 1..6001: one warp, eight warps, a
      # cluster), memcheck, racecheck and synccheck.
      family_checks tiny_mma_f32 'tiny_mma_*' "f32:f32" \
        '*KernelSweep*/tiny_mma*:*TinyProducts*:*ShortSplitKIsOneCluster*:*ThreeTf32*' \
        "0 0,0,0;0.5 1,3,2;0 2,2,2" "memcheck racecheck synccheck" f32 \
        "1x1x1 7x9x13 5x300x7 33x65x2637 65x129x200 300x31x777 129x65x1537 24x28x6001 89x20x170 \
        2560x11x231 7x2465x216" "100x200x300 33x40x4077 130x70x9"
      ;;
    tiny-solo)
      # Rung 28's one warp a tile (K <= 32; perf-notes.md, "Rung 28's one warp a tile"): the GPU
      # suite's rung 28 tests, tilegemm verify in its four types and five layout mixes at 16-byte
      # and odd pitches with beta 0 and 0.5 (K of 1..33 over few and many tiles), memcheck and
      # racecheck in bf16.
      family_checks tiny_solo 'tiny_mma_*' "$SIXTEEN_BIT_TYPES" \
        '*KernelSweep*/tiny_mma*:*SmallProducts*:*TinyProducts*' "0 0,0,0;0.5 1,3,2" \
        "memcheck racecheck" bf16 \
        "1x1x1 7x9x13 860x438x5 6174x8x12 35x6945x26 123x3900x2 4337x2x18 504x700x32 40x70x33" \
        "860x438x5 33x40x31 7x9x13"
      ;;
    tiny-m16)
      # Rung 28's 16-row tiles where C (as a row-major C) has at most 16 rows, and 16-column ones
      # where it has more rows and at most 16 columns (perf-notes.md, "Rung 28's 16-row tiles"):
      # the GPU suite's rung 28 tests, tilegemm verify in its four types and five layout mixes (M
      # or N of at most 16 in both C layouts) at 16-byte and odd pitches with beta 0 and 0.5 (one
      # warp, eight warps and a cluster), memcheck, racecheck and synccheck in bf16.
      family_checks tiny_m16 'tiny_mma_*' "$SIXTEEN_BIT_TYPES" \
        '*KernelSweep*/tiny_mma*:*SmallProducts*:*TinyProducts*:*ShortSplitKIsOneCluster*' \
        "0 0,0,0;0.5 1,3,2" "memcheck racecheck synccheck" bf16 \
        "12x47x77 58x9x67 16x103x1440 9x58x67 16x16x600 5x300x2000 1x1x1 16x33x64 3x5000x40 \
        15x900x700 17x40x70 7x9x13 40x12x77 103x16x1440 700x9x300 100x16x20" \
        "12x47x77 16x103x1440 9x58x67 40x12x77 103x16x1440"
      ;;
    tiny-frag)
      # Rung 28's 16 x 8 tile (`tiny_mma_16x8`, one warp over K up to 128; perf-notes.md, "Rung
      # 28's 16 x 8 tile"): the GPU suite's rung 28 tests, tilegemm verify in its four types and
      # five layout mixes at 16-byte and odd pitches with beta 0 and 0.5 (K of 1..128, tiles cut
      # by M and N), memcheck, racecheck and synccheck in bf16; then beside auto (the rules
      # alone), rung 28's 32 x 32 kernel and cuBLAS on FRAG_SHAPES in three layout mixes and both
      # pitch classes, and on the random bf16 shapes of FRAG_SEEDS (default 7 3 11 5 13 21),
      # FRAG_REPS times (default 2): ${TAG}_tiny-frag-<rep>-*.json.
      family_checks tiny_frag 'tiny_mma_16x8' "$SIXTEEN_BIT_TYPES" \
        '*KernelSweep*/tiny_mma*:*TinyProducts*:*SmallProducts*' "0 0,0,0;0.5 1,3,2" \
        "memcheck racecheck synccheck" bf16 \
        "12x47x77 58x9x67 1x1x1 7x9x13 16x8x16 33x17x128 300x70x97 9x58x67 1000x40x100 5x900x120" \
        "12x47x77 9x58x67 300x70x97"
      frag_shapes=()
      for s in ${FRAG_SHAPES:-12x47x77 58x9x67 9x58x67 40x12x77 16x103x100 17x40x70 40x70x33 \
        5x500x65 300x200x100 100x100x128 64x64x64 200x30x50 1000x40x100 35x6945x26 436x2x22 \
        5x204x22 2x2187x64 128x128x96 20x300x120 1x623x100}; do
        frag_shapes+=(--shape "$s")
      done
      for rep in $(seq "${FRAG_REPS:-2}"); do
        for lay in "row col row" "row col col" "col row row"; do
          read -r la lb lc <<<"$lay"
          for pad in 0,0,0 1,1,1; do
            TILEGEMM_TUNE_CACHE=off run_step "tiny_frag_${rep}_$la$lb${lc}_${pad//,/}" \
              bash -c 'cd "$1" && shift && "$@"' _ "$R" "$TG" bench --rounds 3 --reps 20 \
              --warmup 5 --kernels "auto,tiny_mma_32x32,tiny_mma_16x8" --dtype bf16 \
              --layout-a "$la" --layout-b "$lb" --layout-c "$lc" --pad "$pad" \
              "${frag_shapes[@]}" --format json \
              --output "${TAG}_tiny-frag-${rep}-shapes-$la$lb$lc-${pad//,/}.json"
          done
        done
        for seed in ${FRAG_SEEDS:-7 3 11 5 13 21}; do
          TILEGEMM_TUNE_CACHE=off run_step "tiny_frag_${rep}_s$seed" \
            bash -c 'cd "$1" && shift && "$@"' _ "$R" "$TG" bench --rounds 3 --reps 20 \
            --warmup 5 --kernels "auto,tiny_mma_16x8" --dtype bf16 --random 100 --seed "$seed" \
            --max-size 8192 --format json --output "${TAG}_tiny-frag-${rep}-random-bf16-s$seed.json"
        done
      done
      ;;
    ab-random)
      # This build against $BIN/tilegemm_old on the issue's random shapes: auto by its rules
      # alone (tune cache off), bench --random 100 of each seed of AB_SEEDS (default 7 11 3 and
      # the held-out 5 13 21) in each of AB_TYPES, the builds alternating AB_REPS times (default
      # 2); summarised per shape by scripts/ab_summary.py.
      old_tg="$(cd "$BIN" && pwd)/tilegemm_old"
      if [ ! -x "$old_tg" ]; then
        note "step ab-random: no $BIN/tilegemm_old to compare with"
        continue
      fi
      for rep in $(seq "${AB_REPS:-2}"); do
        for v in old new; do
          T="$TG"
          [ $v = old ] && T="$old_tg"
          for ab in ${AB_TYPES:-bf16 f32}; do
            for seed in ${AB_SEEDS:-7 11 3 5 13 21}; do
              TILEGEMM_TUNE_CACHE=off run_step "rs_${v}_${rep}_${ab}_s$seed" \
                bash -c 'cd "$1" && shift && "$@"' _ "$R" "$T" bench --rounds 3 --reps 20 \
                --warmup 5 --kernels auto --dtype "$ab" --random 100 --seed "$seed" \
                --max-size 8192 --format json --output "${TAG}_rs_${v}_${rep}_${ab}_s$seed.json"
            done
          done
        done
      done
      python3 scripts/ab_summary.py --worst 6 "$R"/"${TAG}"_rs_*.json | tail -14 | tee -a "$summary"
      python3 scripts/ab_seed_counts.py "$R"/"${TAG}"_rs_*.json | tee -a "$summary"
      ;;
    cluster-split)
      # Split K in a thread-block cluster (rung 24, gemv's short columns and 32-row blocks;
      # perf-notes.md, "Split K in a cluster", "Rung 17's row blocks"): tilegemm verify over
      # every type, five layout mixes, beta 0 and 0.5 at odd and 16-byte pitches, on shapes that
      # take the cluster and shapes that do not; memcheck, racecheck and synccheck in bf16 and
      # fp32.
      verify_matrix cluster_split 'gemv,small_32x32x32,small_64x64x32' "$EVERY_TYPE" \
        "0 0,0,0;0.5 1,2,3" 16x103x1440 65x25x1311 148x8x1989 1x4x5018 16x1x3000 8x1x1616 \
        340x1x240 623x1x4718 3000x1x2000 8392x1x1100 320x640x8192
      for tool in memcheck racecheck synccheck; do
        for ab in bf16 f32; do
          sanitize_verify sanitize_cluster_split.log "$tool" 'gemv,small_32x32x32,small_64x64x32' \
            "$ab" "col row col" 1,1,1 16x103x1440 65x25x1311 1x4x5018 16x1x3000 623x1x4718
        done
      done
      grep -c "^ok " "$R/sanitize_cluster_split.log" |
        sed "s/^/sanitize cluster_split runs clean: /" | tee -a "$summary"
      ;;
    mma-3xtf32)
      # Rung 29, fp32 as three tf32 products on mma.sync for a narrow C (perf-notes.md, "Rung
      # 29"): the GPU suite's sweep of it and the non-finite test; tilegemm verify in fp32, five
      # layout mixes, 16-byte, 4-byte and odd pitches, beta 0 and 0.5 (both orientations, one and
      # two column tiles, split and whole K); memcheck, racecheck and synccheck; then its two
      # tiles (M3_KERNELS: others too) beside auto by its rules and cuBLAS on the random seeds'
      # fp32 rows in and around its class (7..161 columns, in their layouts:
      # ${TAG}_mma3-seeds-<layouts>.json) and a
      # grid of width x wide side x K at 16-byte and odd pitches
      # (${TAG}_mma3-grid-<pads>-<layouts>.json).
      family_checks mma3 'mma_3xtf32_*' "f32:f32" \
        '*KernelSweep*/mma_3xtf32*:*ThreeTf32*' "0 0,0,0;0.5 1,3,2;0 2,2,2" \
        "memcheck racecheck synccheck" f32 \
        "4096x40x1000 33x4096x1000 5169x64x1413 32x4533x1297 22x2501x5639 300x31x777 129x25x70 \
        64x3000x300 2000x17x3 1x1x1 100x128x129 7x100x5000 3000x90x2000" \
        "1169x40x413 32x453x1297 300x31x777 129x25x70 90x500x700"
      XM=${M3_KERNELS:-auto,mma_3xtf32_128x32,mma_3xtf32_64x64}
      TILEGEMM_TUNE_CACHE=off bench_by_layout mma3_seeds "$XM" mma3-seeds \
        "col row col:32x4533x1297 22x2501x5639 6685x33x6294 31x1026x3739 1733x31x375 \
        33x3620x321" "row col col:3697x39x282 33x3620x321 161x2632x10" \
        "col col row:2491x31x3012 2369x7x144" "col col col:14x5273x1186 2691x131x48" \
        "col row row:63x2318x3586 17x174x3167 1876x94x471" \
        "row row row:19x5195x4782 5891x29x4519 192x33x7270" "row row col:10x5235x6931"
      width_grid mma3_grid "$XM" mma3-grid "${M3_WIDTHS:-17 24 32 40 48 64 96 128}"
      ;;
    ncu-mma3)
      # Rung 29 under Nsight Compute at the card's own clocks and caches: speed of light, warp
      # states (the stall reasons), compute and memory workload, occupancy and launch statistics
      # of one timed launch of NCU_M3_KERNELS (default mma_3xtf32_128x32) on a long-K row and a
      # shorter one whose wide operand (23.5 MB) stays in the L2, both at odd pitches
      # (perf-notes.md, "Rung 29").
      for cfg in "row row row:19x5195x4782" "col row col:32x4533x1297"; do
        read -r la lb lc <<<"${cfg%%:*}"
        run_step "ncu_mma3_$la$lb$lc" bash -c 'cd "$1" && shift && "$@"' _ "$R" ncu \
          --clock-control none --cache-control none --kernel-name regex:mma_3xtf32 \
          --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats \
          --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section Occupancy \
          --section LaunchStats --section SchedulerStats "$TG" bench --no-block \
          --kernels "${NCU_M3_KERNELS:-mma_3xtf32_128x32}" --dtype f32 --layout-a "$la" \
          --layout-b "$lb" --layout-c "$lc" --shape "${cfg#*:}" --rounds 1 --reps 3 --warmup 1
        cp "$R/ncu_mma3_$la$lb$lc.log" "$R/${TAG}_ncu-mma3-$la$lb$lc.txt"
      done
      ;;
    narrow-wide)
      # Rung 21's element path with columns in flight (perf-notes.md, "Rung 21's element path"):
      # the GPU suite's narrow tests (the sweep, both read classes, the split in one launch);
      # tilegemm verify in every type, five layout mixes, 16-byte, 4-byte and odd pitches, beta 0
      # and 0.5; memcheck and racecheck in bf16 and fp32; then narrow_n8 and _n16 beside auto by
      # its rules and cuBLAS (NW_KERNELS: an experiment build's kernels too, as in perf-notes.md's
      # "Rung 21 past 16 columns") on fp32 products of 5..40 columns (NW_WIDTHS): the random
      # seeds' rows in their layouts (${TAG}_narrow-wide-seeds-<layouts>.json) and a grid of
      # width x wide side x K in the two read classes at 16-byte and odd pitches
      # (${TAG}_narrow-wide-grid-<pads>-<layouts>.json; the runs of 2026-11-28 named them
      # <layouts>-<pads>).
      family_checks narrow_wide 'narrow_*' "$EVERY_TYPE" \
        '*KernelSweep*/narrow*:*Narrow*:*StreamSplitK*' "0 0,0,0;0.5 1,3,2;0 2,2,2" \
        "memcheck racecheck" "bf16 f32" \
        "4096x7x1000 3x4096x1000 5169x16x1413 32x4533x1297 10x523x6931 300x31x777 129x25x70 \
        35x5x5919 2000x32x3 1x1x1" "1169x16x413 32x453x1297 300x31x777 129x25x70"
      XN=${NW_KERNELS:-auto,narrow_n8,narrow_n16}
      TILEGEMM_TUNE_CACHE=off bench_by_layout narrow_wide_seeds "$XN" narrow-wide-seeds \
        "col row col:32x4533x1297 5169x16x1413 22x2501x5639 1733x31x375 6685x33x6294 \
        31x1026x3739" "row row col:10x5235x6931 7135x8x56" \
        "row col row:6x7043x176 6x2834x1188" "col col row:2491x31x3012 2222x5x1091 2369x7x144" \
        "col col col:14x5273x1186 375x5x2054" \
        "col row row:1807x9x5441 17x174x3167 35x5x5919 63x2318x3586" \
        "row row row:19x5195x4782 5891x29x4519"
      width_grid narrow_wide_grid "$XN" narrow-wide-grid "${NW_WIDTHS:-6 12 16 20 24 32 40}"
      # bf16 products of 2..8 columns past half a wave of 32x32 tiles with K past 1024 (rung 28's
      # whole K, whose rule stopped at K = 1024 before this step's run: perf-notes.md, "Rung 28's
      # whole K past K = 1024") beside auto and rung 21.
      BENCH_DTYPE=bf16 TILEGEMM_TUNE_CACHE=off bench_by_layout narrow_wide_tiny \
        'auto,tiny_mma_32x32,narrow_n8' narrow-wide-tiny \
        "row col row:6x2834x1188 2x2187x1500 7x4000x2000 8x3000x1400 3x2500x3000 5x2200x1100" \
        "col col row:2222x5x1091 3000x5x1025 4100x2x1800 2900x8x2500 2500x6x1300"
      ;;
    naive16)
      # Rung 1 in 16-bit types (perf-notes.md, "Rung 1 in 16-bit types"): the GPU suite's sweep of
      # it, tilegemm verify in every 16-bit type, five layout mixes, odd pitches and beta != 0;
      # then beside auto by its rules, gemv, rungs 24 and 28 and cuBLAS on tiny bf16 products and
      # vectors of a short K in five layout mixes: ${TAG}_naive16-<layouts>.json.
      run_step naive16_tests "$TESTBIN/tilegemm_gpu_tests" --gtest_filter='*KernelSweep*/naive*'
      tail -3 "$R/naive16_tests.log" | tee -a "$summary"
      verify_matrix naive16 'naive' "$SIXTEEN_BIT_TYPES" \
        "0 0,0,0;0.5 1,3,2" 1x1x1 5x3x2 1287x1x3 436x2x22 300x200x50 33x65x700
      N16="1287x1x3 436x2x22 5x204x22 52x1x2 4x144x2 12x3482x1 1210x28x2 10x725x2 22x72x4 \
        8x44x7 106x5x2 1x7574x1 1x15x11 500x1x6 58x9x67 12x47x77 64x35x6 28x56x3"
      BENCH_DTYPE=bf16 TILEGEMM_TUNE_CACHE=off bench_by_layout naive16 \
        'auto,naive,gemv,tiny_mma_32x32,small_32x32x32' naive16 "row col row:$N16" \
        "col row col:$N16" "col col col:$N16" "row row row:$N16" "col col row:$N16"
      ;;
    narrow-tiny-k)
      # The same class (bf16, 2..8 columns, 67..132 tiles of 32x32) at K of 3000..8000: how far
      # rung 28's whole K per block stays ahead of rung 21 and cuBLAS.
      BENCH_DTYPE=bf16 TILEGEMM_TUNE_CACHE=off bench_by_layout narrow_tiny_k \
        'auto,tiny_mma_32x32,narrow_n8' narrow-tiny-k \
        "row col row:6x2834x3000 2x2187x4000 5x3000x6000 8x2500x8000 4x4000x3500" \
        "col col row:2222x5x3000 4100x2x4000 2900x8x5000 2500x6x8000 3000x3x3000"
      ;;
    ncu-tensor)
      # The tensor-core rungs and cuBLAS's kernel at 4096^3 bf16 under ncu: speed of light,
      # tensor-pipe activity, warp stalls, memory traffic. Each profiled launch is the second
      # timed one (verification and warm-up skipped). Details as text, metrics as raw CSV.
      for k in ${NCU_TENSOR_KERNELS:-wgmma_128x256x64_s4}; do
        for who in "$k:regex:wgmma_kernel|mma_sync" "cublas:regex:nvjet|sm90_xmma|cutlass"; do
          name=${who%%:*}; filt=${who#*:}
          [ "$name" = cublas ] && [ -e "$R/ncu_cublas.log" ] && continue
          run_step "ncu_$name" ncu --clock-control none --print-units base --set full \
            --metrics sm__pipe_tensor_op_hgmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_hgmma.sum \
            -k "$filt" --launch-skip 3 --launch-count 1 \
            "$TG" bench --kernels "$k" --dtype bf16 --shape 4096x4096x4096 --warmup 2 --reps 3
          run_step "ncu_${name}_raw" ncu --clock-control none --print-units base --csv --page raw \
            --metrics gpu__time_duration.sum,sm__pipe_tensor_op_hgmma_cycles_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,sm__maximum_warps_per_active_cycle_pct,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__cycles_active.avg,sm__cycles_elapsed.avg.per_second \
            -k "$filt" --launch-skip 3 --launch-count 1 \
            "$TG" bench --kernels "$k" --dtype bf16 --shape 4096x4096x4096 --warmup 2 --reps 3
        done
      done
      ;;
    *)
      note "unknown step $step"
      ;;
  esac
done
tar czf "$OUT/run.tgz" -C "$OUT" run
note "packed $OUT/run.tgz"
