#!/bin/bash
# SCEC TPV101 at production resolution: mesh (Gmsh, h_fault = ${H_FAULT:-250} m), run, plot.
#   configs/tpv101/run.sh [starquake options]      e.g. H_FAULT=500 configs/tpv101/run.sh --tile-size 512
# Writes output/tpv101/ (fault snapshots, on-fault stations in SeisSol and SCEC formats, cplot, energies)
# and output/tpv101/{slip_rate,stations,cplot}.png.  See docs/RUPTURE.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sq=${SQ_BIN:-$here/../../starquake}
if [ ! -s "$here/tpv101.msh" ]; then
  gmsh -3 -setnumber h_fault "${H_FAULT:-250}" -format msh22 -o "$here/tpv101.msh" "$here/tpv101.geo" > "$here/gmsh.log" ||
    { cat "$here/gmsh.log"; exit 1; }
fi
"$sq" "$here/tpv101.yaml" --output output/tpv101 "$@"
plot="$here/../../tools/plot_fault.py"
if /usr/bin/python3 -c 'import matplotlib, h5py' 2>/dev/null; then
  /usr/bin/python3 "$plot" snapshots output/tpv101/tpv101-fault.h5 -o output/tpv101/slip_rate.png
  /usr/bin/python3 "$plot" stations output/tpv101/tpv101 -o output/tpv101/stations.png
  /usr/bin/python3 "$plot" cplot output/tpv101/tpv101-cplot -o output/tpv101/cplot.png
fi
