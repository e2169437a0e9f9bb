#!/bin/bash
# configs/postseismic/run.sh [OUTPUT_DIR]: the dynamic rupture of postseismic.yaml, then its 10 years of
# post-seismic relaxation on the same mesh, then the plots (docs/POSTSEISMIC.md).  About 1.5 minutes on 2 cores.
#   e.g. SQ_BIN=./starquake configs/postseismic/run.sh ps-out
set -e
here=$(cd "$(dirname "$0")" && pwd)
sq=${SQ_BIN:-$(command -v starquake || echo "$here/../../starquake")}
out=$(mkdir -p "${1:-postseismic-output}" && cd "${1:-postseismic-output}" && pwd)
"$sq" run "$here/postseismic.yaml" --output "$out"
"$sq" postseismic "$here/postseismic.yaml" --output "$out" --set "postseismic.rupture.fault_output=$out/ps-fault.h5"
# plots: matplotlib and h5py (Debian python3-matplotlib, python3-h5py), else gnuplot for the stations, else none
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if "$py" -c 'import matplotlib, h5py' 2> /dev/null; then
  "$py" "$here/../../tools/plot_postseismic.py" "$out" ps "$out/ps"
elif command -v gnuplot > /dev/null; then
  cols=""
  for f in "$out"/ps-gps-*.csv; do
    cols="$cols${cols:+, }'$f' skip 3 using 2:3 with lines title '$(basename "$f" .csv)'"
  done
  gnuplot -e "set datafile separator ','; set terminal png size 900,500; set output '$out/ps-gps.png'; \
    set xlabel 'years'; set ylabel 'u_east (m)'; plot $cols"
  echo "wrote $out/ps-gps.png (gnuplot: east displacement of the stations; the surface map needs matplotlib)"
else
  echo "no plots: neither python3 with matplotlib and h5py nor gnuplot is installed; the outputs are in $out"
  echo "(station series: ps-gps-NAME.csv; surface snapshots: ps-surface.xdmf for ParaView)"
fi
