#!/bin/bash
# SCEC TPV5 at production resolution: mesh (Gmsh, h_fault = ${H_FAULT:-250} m), run, plot.
#   configs/tpv5/run.sh [starquake options]      e.g. H_FAULT=500 configs/tpv5/run.sh --tile-size 512
# Writes output/tpv5/ (fault snapshots, on-fault stations in SeisSol and SCEC formats, cplot, energies)
# and output/tpv5/{slip_rate,stations,cplot}.png.  See docs/RUPTURE.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sq=${SQ_BIN:-$here/../../starquake}
if [ ! -s "$here/tpv5.msh" ]; then
  gmsh -3 -setnumber h_fault "${H_FAULT:-250}" -format msh22 -o "$here/tpv5.msh" "$here/tpv5.geo" > "$here/gmsh.log" ||
    { cat "$here/gmsh.log"; exit 1; }
fi
"$sq" "$here/tpv5.yaml" --output output/tpv5 "$@"
plot="$here/../../tools/plot_fault.py"
if /usr/bin/python3 -c 'import matplotlib, h5py' 2>/dev/null; then
  /usr/bin/python3 "$plot" snapshots output/tpv5/tpv5-fault.h5 -o output/tpv5/slip_rate.png
  /usr/bin/python3 "$plot" stations output/tpv5/tpv5 -o output/tpv5/stations.png
  /usr/bin/python3 "$plot" cplot output/tpv5/tpv5-cplot -o output/tpv5/cplot.png
fi
