#!/usr/bin/env bash
# Issue 23 measurements: tensor-parallel none vs chunked (per-sublayer time, exposed comm, measured
# contention, speed-up) and repeatable validation of ddp, co2 and t3 (chunked tp), REPEATS times.
# Small tables to OUT (default results/overlap_runs/t3); traces stay in RUNS.
set -euo pipefail
OUT=${1:-results/overlap_runs/t3}
RUNS=${RUNS:-$(mktemp -d)}
REPEATS=${REPEATS:-5}
DENSING=${DENSING:-densing}
mkdir -p "$OUT"
$DENSING overlap run "$RUNS" --strategies sync,ddp,co2,tp --tp-overlap none,chunked --workers 2 \
  --repeats "$REPEATS" --steps 100 --profile-skip 30 --profile-active 30 --format csv > "$OUT/summary.csv"
: > "$OUT/sublayers.csv"
for r in $(seq 0 $((REPEATS - 1))); do
  for m in none chunked; do
    $DENSING overlap sublayers "$RUNS/r$r/tp-$m" --format csv | sed "1s/^/repeat,mode,/; 2,\$s/^/$r,$m,/" > "$OUT/.part.csv"
    if [ ! -s "$OUT/sublayers.csv" ]; then cat "$OUT/.part.csv" > "$OUT/sublayers.csv"; else tail -n +2 "$OUT/.part.csv" >> "$OUT/sublayers.csv"; fi
  done
  $DENSING overlap analyze "$RUNS/r$r/sync" --peer-wait --format csv | sed "1s/^/repeat,/; 2,\$s/^/$r,/" > "$OUT/.part.csv"
  if [ "$r" = 0 ]; then cat "$OUT/.part.csv" > "$OUT/peer_wait_sync.csv"; else tail -n +2 "$OUT/.part.csv" >> "$OUT/peer_wait_sync.csv"; fi
done
rm -f "$OUT/.part.csv"
$DENSING overlap validate "$RUNS" --per-repeat --format csv > "$OUT/validate_per_repeat.csv"
$DENSING overlap validate "$RUNS" --format csv > "$OUT/validate_summary.csv"
echo "traces in $RUNS"
