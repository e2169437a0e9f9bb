#!/bin/bash
# The production run of a dynamic-rupture scenario folder configs/NAME/ (NAME.geo, NAME.yaml): mesh it
# with Gmsh (h_fault = ${H_FAULT:-250} m) unless NAME.msh exists, run it into output/NAME/, and plot
# output/NAME/{slip_rate,stations,cplot}.png.  Called by configs/{tpv5,tpv101,tpv104}/run.sh:
#   configs/rupture_scenario.sh configs/NAME [starquake options]     e.g. H_FAULT=500 ... --tile-size 4096
# Writes fault snapshots, on-fault stations in SeisSol and SCEC formats, cplot and energies.  See
# docs/RUPTURE.md.
set -eu
here=$(cd "$1" && pwd)
shift
name=$(basename "$here")
sq=${SQ_BIN:-$here/../../starquake}
if [ ! -s "$here/$name.msh" ]; then
  gmsh -3 -setnumber h_fault "${H_FAULT:-250}" -format msh22 -o "$here/$name.msh" "$here/$name.geo" > "$here/gmsh.log" ||
    { cat "$here/gmsh.log"; exit 1; }
fi
"$sq" "$here/$name.yaml" --output "output/$name" "$@"
plot="$here/../../tools/plot_fault.py"
if /usr/bin/python3 -c 'import matplotlib, h5py' 2>/dev/null; then
  /usr/bin/python3 "$plot" snapshots "output/$name/$name-fault.h5" -o "output/$name/slip_rate.png"
  /usr/bin/python3 "$plot" stations "output/$name/$name" -o "output/$name/stations.png"
  /usr/bin/python3 "$plot" cplot "output/$name/$name-cplot" -o "output/$name/cplot.png"
fi
