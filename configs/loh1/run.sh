#!/bin/bash
# LOH.1 at modest resolution: mesh (Gmsh), run, and plot the 20 surface receivers.
#   configs/loh1/run.sh [starquake options, e.g. --tile-size 512]
# Writes output/loh1/ (receivers, energies, snapshots, checkpoints) and output/loh1/seismograms.png.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sq=${SQ_BIN:-$here/../../starquake}
if [ ! -s "$here/loh1.msh" ]; then
  gmsh -3 -format msh41 -o "$here/loh1.msh" "$here/loh1.geo" > "$here/gmsh.log" || { cat "$here/gmsh.log"; exit 1; }
fi
"$sq" "$here/loh1.yaml" "$@"
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  /usr/bin/python3 "$here/../../tools/plot_receivers.py" output/loh1/loh1 -o output/loh1/seismograms.png \
    --receivers 1 2 3 7 10 13 --title "LOH.1, starquake (modest resolution)"
fi
