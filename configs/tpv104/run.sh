#!/bin/bash
# SCEC TPV104 at production resolution: mesh (Gmsh, h_fault = ${H_FAULT:-250} m), run, plot.
#   configs/tpv104/run.sh [starquake options]      e.g. H_FAULT=500 configs/tpv104/run.sh --tile-size 512
# Writes output/tpv104/ (fault snapshots, on-fault stations in SeisSol and SCEC formats, cplot, energies)
# and output/tpv104/{slip_rate,stations,cplot}.png.  See docs/RUPTURE.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sq=${SQ_BIN:-$here/../../starquake}
if [ ! -s "$here/tpv104.msh" ]; then
  gmsh -3 -setnumber h_fault "${H_FAULT:-250}" -format msh22 -o "$here/tpv104.msh" "$here/tpv104.geo" > "$here/gmsh.log" ||
    { cat "$here/gmsh.log"; exit 1; }
fi
"$sq" "$here/tpv104.yaml" --output output/tpv104 "$@"
plot="$here/../../tools/plot_fault.py"
if /usr/bin/python3 -c 'import matplotlib, h5py' 2>/dev/null; then
  /usr/bin/python3 "$plot" snapshots output/tpv104/tpv104-fault.h5 -o output/tpv104/slip_rate.png
  /usr/bin/python3 "$plot" stations output/tpv104/tpv104 -o output/tpv104/stations.png
  /usr/bin/python3 "$plot" cplot output/tpv104/tpv104-cplot -o output/tpv104/cplot.png
fi
