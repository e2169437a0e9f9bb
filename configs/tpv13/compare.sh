#!/bin/bash
# TPV13 with and without off-fault plasticity: both runs of a variant, then the near-fault receiver
# (receiver 1: 3 km from the centre of the fault toward the free surface, thesis Fig. 8.2) of both.
#   configs/tpv13/compare.sh [short|production|puml] [starquake options]   (short: the default; see run.sh)
#     e.g. H_FAULT=1000 H_FAR=15000 configs/tpv13/compare.sh production   (the runs of docs/tpv13_receiver.png)
# Writes output/<prefix>/ and output/<prefix>-elastic/ (see run.sh), output/<prefix>-receiver1.png and
# prints the peak velocity magnitude of both runs at receiver 1 and the wall time of both runs.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
variant=short
case "${1:-}" in short | production | puml) variant=$1 && shift ;; full) variant=production && shift ;; esac
t0=$(date +%s.%N)
"$here/run.sh" "$variant" --quiet "$@"
t1=$(date +%s.%N)
ELASTIC=1 "$here/run.sh" "$variant" --quiet "$@"
t2=$(date +%s.%N)
case $variant in production) prefix=tpv13 ;; short) prefix=tpv13_short ;; puml) prefix=tpv13_puml ;; *) exit 1 ;; esac
/usr/bin/python3 "$here/../../tools/plot_receivers.py" "output/$prefix/$prefix" --compare "output/$prefix-elastic/$prefix" \
  --receivers 1 --quantities v1 v2 v3 vmag --title "TPV13 receiver 1 (3 km from the fault centre): plastic (solid) vs elastic (dashed)" \
  -o "output/$prefix-receiver1.png"
/usr/bin/python3 - "output/$prefix/$prefix-receiver-00001.dat" "output/$prefix-elastic/$prefix-receiver-00001.dat" << 'PY'
import sys
import numpy as np
for what, path in zip(("plastic", "elastic"), sys.argv[1:]):
    d = np.loadtxt(path, comments=("#", "TITLE", "VARIABLES"))
    vmag = np.sqrt((d[:, 7:10] ** 2).sum(axis=1))
    k = int(vmag.argmax())
    print("%s: peak |v| = %.4f m/s at t = %.3f s" % (what, vmag[k], d[k, 0]))
PY
printf 'wall time: plastic %.1f s, elastic %.1f s (including meshing, outputs and plots)\n' \
  "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)"
