#!/usr/bin/env bash
# Run sync, ddp and co2 with 2 workers, analyse them and check the what-if model; write the small
# tables (not the traces) to OUT.
set -euo pipefail
OUT=${1:-results/overlap_runs}
RUNS=${RUNS:-$(mktemp -d)}
mkdir -p "$OUT"
densing overlap run "$RUNS" --strategies sync,ddp,co2 --workers 2 --format csv > "$OUT/summary.csv"
for s in sync ddp co2; do
  densing overlap analyze "$RUNS/$s" --format csv | sed "1s/^/strategy,/; 2,\$s/^/$s,/" > "$OUT/analyze_$s.csv"
done
densing overlap validate "$RUNS/sync" "$RUNS/ddp" "$RUNS/co2" --format csv | cut -d, -f1-6 > "$OUT/validate.csv"
densing overlap validate "$RUNS/sync" --calibration --format csv > "$OUT/calibration.csv"
densing overlap convergence "$RUNS/ddp" "$RUNS/co2" --format csv | cut -d, -f1,3- > "$OUT/convergence.csv"
echo "traces in $RUNS"
