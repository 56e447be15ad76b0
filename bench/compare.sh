#!/usr/bin/env bash
# attnlab bench (CPU) against numpy's softmax(Q Kᵀ/√d + mask) V, alternately on the same shapes,
# printing medians and ratios (numpy time / attnlab time: above 1 means attnlab is faster), each
# tool's quickest round, the rounds attnlab won, and a confidence interval for the per-round ratio.
# Usage: bench/compare.sh [ATTNLAB] [ROUNDS]   (defaults: build/app/attnlab, 5 rounds)
# BASELINE=path/to/older/attnlab adds lines timing that binary's dense path in the same rounds
# (before/after comparisons under the same load).
# Each round runs every shape once per tool (each run itself the median of RUNS timings after a
# warm-up), tools interleaved so that load from other processes hits both alike; the table shows
# the median over rounds. Both use OpenBLAS with the same OPENBLAS_CORETYPE: unless it is set, the
# kernel set attnlab runs with (its choice, or where OpenBLAS 0.3.21 does not recognize the CPU and
# would fall back to SSE3 kernels, SkylakeX or Haswell by what the CPU has: engine/cpu/blas.cpp).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=("${1:-build/app/attnlab}" bench --backend cpu)
ROUNDS=${2:-5}
RUNS=${RUNS:-5}
# Untimed runs before each measurement, for both tools: the first few calls of either pay for
# page faults on fresh buffers and thread start-up, and on this virtual machine a process's first
# 50–100 ms of two-thread work often run at half speed (the same for numpy, and for a bare loop of
# two OpenMP threads calling sgemm; apparently the second virtual CPU coming up to speed), so three
# warm-ups at (1024, 512), ~30 ms, left some measurements in that phase. The table compares the
# steady state.
WARMUP=${WARMUP:-10}
PY=/usr/bin/python3
SHAPES=${SHAPES:-"1024:512 1024:4096 2048:64 4096:64"}
MASKS=${MASKS:-"none causal"}
MODES=${MODES:-"dense streaming"}
BASELINE=${BASELINE:-}
[ -n "$BASELINE" ] && MODES="baseline $MODES"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
  OPENBLAS_CORETYPE=$(ATTNLAB_PLAN_CACHE= "${BENCH[@]}" --n 64 --dk 8 --runs 1 --warmup 0 --format json |
    $PY -c 'import json, re, sys; print(re.search(r"\((\w+) kernels\)", json.load(sys.stdin)["kernels"]).group(1))')
fi
export OPENBLAS_CORETYPE

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench: ${BENCH[*]}${BASELINE:+; baseline: $BASELINE}"
echo "OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE; numpy $($PY -c 'import numpy; print(numpy.__version__)'); $RUNS runs after $WARMUP warm-up per measurement, $ROUNDS rounds"

for ((round = 1; round <= ROUNDS; round++)); do
  for shape in $SHAPES; do
    n=${shape%:*}
    d=${shape#*:}
    for mask in $MASKS; do
      key="${n}_${d}_${mask}"
      $PY bench/numpy_reference.py "$n" "$d" "$mask" "$RUNS" "$WARMUP" |
        $PY -c 'import json,sys; print(json.load(sys.stdin)["total_ms"])' >>"$tmp/numpy_$key"
      for mode in $MODES; do
        flag=()
        [ "$mode" = streaming ] && flag=(--streaming)
        bench=("${BENCH[@]}")
        [ "$mode" = baseline ] && bench=("$BASELINE" "${BENCH[@]:1}")
        "${bench[@]}" --n "$n" --dk "$d" --mask "$mask" --runs "$RUNS" --warmup "$WARMUP" "${flag[@]}" \
          --format json | $PY -c 'import json,sys; print(json.load(sys.stdin)["total_ms"])' >>"$tmp/${mode}_$key"
      done
    done
  done
done

median() { sort -g "$1" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
best() { sort -g "$1" | head -1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2fx", a / b}'; }
# In how many rounds attnlab was at least as fast (the two tools ran one after the other, under the
# same load). The host's speed swings from one process to the next, so one round can read 0.9x and
# the next 1.1x.
won() { paste "$1" "$2" | awk '{won += ($1 / $2 >= 1)} END {printf "%d/%d", won, NR}'; }
# The median of the per-round ratios and a distribution-free confidence interval for it: the k-th
# smallest and k-th largest of the N ratios, with k the largest for which
# 1 - 2 P(Binomial(N, 1/2) < k) >= 95% (k = 1, the whole range, for N <= 8: too few rounds for
# anything narrower; N = 15 gives the 4th smallest to the 4th largest), and the interval's exact
# coverage. An interval that contains 1.00 means these rounds cannot tell the two tools apart.
median_ci() {
  paste "$1" "$2" | awk '{print $1 / $2}' | sort -g | awk '{r[NR] = $1}
    END {
      N = NR; med = (N % 2) ? r[(N + 1) / 2] : (r[N / 2] + r[N / 2 + 1]) / 2
      k = 1; pk = 0.5 ^ N; c = pk  # c = P(B <= k - 1), pk = P(B = k - 1)
      while (k + 1 <= int(N / 2)) {
        next_pk = pk * (N - k + 1) / k
        if (1 - 2 * (c + next_pk) < 0.95) break
        c += next_pk; pk = next_pk; k++
      }
      printf "%.2fx [%.2f, %.2f] %d%%", med, r[k], r[N + 1 - k], int(100 * (1 - 2 * c))
    }'
}
# One line per shape, mask and attnlab mode. "ratio" is numpy's median over attnlab's (above 1:
# attnlab faster); "best" compares each tool's quickest round: other processes on the host only
# ever slow a run down, so the quickest rounds are the ones nearest each tool's own speed.
printf "\n%-5s %-5s %-6s %-9s %9s %10s %7s %12s %7s %5s  %s\n" n d mask mode "numpy ms" "attnlab ms" ratio "best ms" best won \
  "round median [95% CI] coverage"
for shape in $SHAPES; do
  n=${shape%:*}
  d=${shape#*:}
  for mask in $MASKS; do
    key="${n}_${d}_${mask}"
    np=$tmp/numpy_$key
    np_median=$(median "$np")
    np_best=$(best "$np")
    for mode in $MODES; do
      at=$tmp/${mode}_$key
      at_median=$(median "$at")
      at_best=$(best "$at")
      printf "%-5s %-5s %-6s %-9s %9.1f %10.1f %7s %12s %7s %5s  %s\n" "$n" "$d" "$mask" "$mode" "$np_median" "$at_median" \
        "$(ratio "$np_median" "$at_median")" "$(printf "%.1f/%.1f" "$np_best" "$at_best")" "$(ratio "$np_best" "$at_best")" \
        "$(won "$np" "$at")" "$(median_ci "$np" "$at")"
    done
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
