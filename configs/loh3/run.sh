#!/bin/bash
# LOH.3: mesh (Gmsh, LOH.1's geometry), estimate, run, and plot the surface receivers beside LOH.1's.
#   configs/loh3/run.sh [short|production] [starquake options, e.g. --tile-size 512]
#     short       (default) the coarse mesh of LOH.1's short size (loh3-short.msh: 2 km near the source and
#                 receivers, 3 km in the layer, 10 km far), order 3, the whole 9 s
#     production  loh3.yaml as it is: loh3.msh (1 km, 2 km, 6 km), order 4
#   Any configuration key can be changed on the command line: --set equations.end_time=3 (several allowed).
# When output/loh1 has no receivers yet, configs/loh1/run.sh runs first, at the same size.  Writes
# output/loh3/ (receivers, energies, snapshots, checkpoints) and output/loh3/seismograms.png: LOH.3 solid,
# LOH.1 dashed.  Killing the script (TERM, INT) passes the signal on to starquake, which writes a checkpoint
# and stops.  Everything it needs is in this repository; it downloads nothing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scenario_lib.sh"
scenario_size "$@"
shift $SHIFT
if [ ! -s output/loh1/loh1-receiver-00001.dat ]; then
  echo "${0##*/}: running LOH.1 ($SIZE size) first, for the comparison"
  "$here/../loh1/run.sh" "$SIZE" "$@"
fi
scenario_loh_mesh loh3
scenario_run "$sq" "$here/loh3.yaml" "${SCENARIO_OPTS[@]}" "$@"
scenario_plot plot_receivers.py output/loh3/loh3 -o output/loh3/seismograms.png \
  --receivers 1 2 3 7 10 13 --compare output/loh1/loh1 --title "LOH.3 (solid) and LOH.1 (dashed), starquake ($SIZE size)"
