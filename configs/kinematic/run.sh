#!/bin/bash
# A kinematic Yoffe patch (configs/kinematic/kinematic.yaml; docs/RUPTURE.md, *Kinematic sources*): estimate,
# run, plot.  The mesh is the built-in box generator's: nothing to mesh or download.
#   configs/kinematic/run.sh [short|production] [starquake options]
#     short       (default) order 3 and 5 s: about a minute on 2 cores
#     production  kinematic.yaml as it is (order 4, 8 s)
#   Any configuration key can be changed on the command line: --set equations.end_time=3 (several allowed).
# Writes output/kinematic/ (fault snapshots, on-fault stations, receivers, energies) and, with matplotlib,
# output/kinematic/stations.png.  Killing the script (TERM, INT) passes the signal on to starquake, which
# writes a checkpoint and stops.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scenario_lib.sh"
scenario_size "$@"
shift $SHIFT
if [ "$SIZE" = short ]; then
  set -- --set equations.order=3 --set equations.end_time=5 "$@"
fi
scenario_run "$sq" "$here/kinematic.yaml" "$@"
scenario_plot plot_fault.py stations output/kinematic/kinematic -o output/kinematic/stations.png
