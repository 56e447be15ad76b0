#!/usr/bin/env bash
# `attnlab compute --summary --streaming` on N × D files (read, stream, print: the whole process;
# at 100 000 tokens compute streams without the flag too) against
# `attnlab bench --streaming` on the same problem (its in-process total_ms), alternately, round by
# round: issue 39's goal is compute within 1.35× of the bench at 100 000 causal tokens.
# Usage: bench/compute_vs_bench.sh [ATTNLAB] [ROUNDS]   (defaults: build/app/attnlab, 5)
# N (100000), D (64), MASK (causal); BASELINE=path/to/older/attnlab adds its compute in the same
# rounds. The inputs are N(0, 1) float32 .npy files from numpy (seed 1), made once in a temporary
# folder; the JSON goes to a file there.
set -euo pipefail
cd "$(dirname "$0")/.."
ATTNLAB=$(realpath "${1:-build/app/attnlab}")
ROUNDS=${2:-5}
N=${N:-100000}
D=${D:-64}
MASK=${MASK:-causal}
BASELINE=${BASELINE:+$(realpath "$BASELINE")}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 - "$tmp" "$N" "$D" <<'PY'
import sys
import numpy as np
folder, n, d = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(1)
for name in "QKV":
    np.save(f"{folder}/{name}.npy", rng.standard_normal((n, d)).astype(np.float32))
PY
wall() {  # seconds one command takes, its output to a file
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >"$tmp/out.json" 2>/dev/null
  t1=$(date +%s.%N)
  awk -v a="$t1" -v b="$t0" 'BEGIN {print a - b}'
}
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; n = m = $N, d = $D, mask $MASK; $ROUNDS rounds"
for ((round = 1; round <= ROUNDS; round++)); do
  bench_s=$("$ATTNLAB" bench --backend cpu --n "$N" --dk "$D" --mask "$MASK" --streaming --runs 1 --warmup 0 --format json |
    /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["total_ms"] / 1000)')
  line=$(awk -v r="$round" -v b="$bench_s" 'BEGIN {printf "round %d: bench %.2f s", r, b}')
  for tool in ${BASELINE:+"$BASELINE"} "$ATTNLAB"; do
    s=$(wall "$tool" compute --q "$tmp/Q.npy" --k "$tmp/K.npy" --v "$tmp/V.npy" --mask "$MASK" --summary --streaming --format json)
    label=compute
    [ "$tool" = "$BASELINE" ] && [ -n "$BASELINE" ] && label=baseline
    line+=$(awk -v l="$label" -v s="$s" -v b="$bench_s" 'BEGIN {printf ", %s %.2f s (%.2f×)", l, s, s / b}')
  done
  echo "$line"
done
