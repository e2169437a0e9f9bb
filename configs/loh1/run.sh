#!/bin/bash
# LOH.1: mesh (Gmsh), estimate, run, and plot the surface receivers.
#   configs/loh1/run.sh [short|production] [starquake options, e.g. --tile-size 512]
#     short       (default) a coarse mesh loh1-short.msh (2 km near the source and receivers, 3 km in the
#                 layer, 10 km far), order 3, the whole 9 s: under a minute on 2 cores
#     production  loh1.yaml as it is: loh1.msh (1 km, 2 km, 6 km), order 4 (docs/VERIFICATION.md)
#   Any configuration key can be changed on the command line: --set equations.end_time=3 (several allowed).
# Prints the memory estimate and run time before the run; killing the script (TERM, INT) passes the
# signal on to starquake, which writes a checkpoint and stops.  Everything it needs is in this
# repository; it downloads nothing.  Delete loh1.msh or loh1-short.msh to mesh again.
# Writes output/loh1/ (receivers, energies, snapshots, checkpoints) and output/loh1/seismograms.png.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scenario_lib.sh"
scenario_size "$@"
shift $SHIFT
scenario_loh_mesh loh1
scenario_run "$sq" "$here/loh1.yaml" "${SCENARIO_OPTS[@]}" "$@"
scenario_plot plot_receivers.py output/loh1/loh1 -o output/loh1/seismograms.png \
  --receivers 1 2 3 7 10 13 --title "LOH.1, starquake ($SIZE size)"
