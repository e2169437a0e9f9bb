#!/bin/bash
# A dynamic-rupture scenario folder configs/NAME/ (NAME.geo, NAME.yaml): mesh it with Gmsh, print the
# run's memory estimate and run time, run it into output/NAME/, and plot output/NAME/{slip_rate,stations,
# cplot}.png.  Called by configs/{tpv5,tpv101,tpv104,tpv105}/run.sh:
#   configs/rupture_scenario.sh configs/NAME [short|production] [starquake options]
#     short       (default) a coarse mesh NAME-short.msh (h_fault 3 km, h_far 15 km, a 30 km box), order 3,
#                 the whole simulated time: a minute or less on 2 cores, for a first look
#     production  NAME.yaml as it is: NAME.msh with h_fault = ${H_FAULT:-250} m, order 4 (TPV5: about 3 GB
#                 and hours on 2 cores; the estimate printed before the run says how much)
#   Any configuration key can be changed on the command line: --set equations.end_time=3 (several allowed).
#   e.g. configs/tpv5/run.sh production --tile-size 4096;  H_FAULT=500 configs/tpv5/run.sh production
# Delete NAME.msh or NAME-short.msh to mesh again.  Killing the script (TERM, INT) passes the signal on to
# starquake, which writes a checkpoint and stops.  Writes fault snapshots, on-fault stations in SeisSol
# and SCEC formats, cplot and energies.  Everything it needs is in this repository; it downloads
# nothing.  See docs/RUPTURE.md.
set -eu
here=$(cd "$1" && pwd)
shift
. "$here/../scenario_lib.sh"
scenario_size "$@"
shift $SHIFT
name=$(basename "$here")
sq=${SQ_BIN:-$here/../../starquake}
if [ "$SIZE" = short ]; then
  scenario_mesh "$here/$name.geo" msh22 "$here/$name-short.msh" -setnumber h_fault 3000 -setnumber h_far 15000 -setnumber Lh 30000 -setnumber Lz 30000
  set -- --set "mesh.file=$name-short.msh" --set equations.order=3 "$@"
else
  scenario_mesh "$here/$name.geo" msh22 "$here/$name.msh" -setnumber h_fault "${H_FAULT:-250}"
fi
scenario_run "$sq" "$here/$name.yaml" --output "output/$name" "$@"
plot="$here/../../tools/plot_fault.py"
if /usr/bin/python3 -c 'import matplotlib, h5py' 2>/dev/null; then
  /usr/bin/python3 "$plot" snapshots "output/$name/$name-fault.h5" -o "output/$name/slip_rate.png"
  /usr/bin/python3 "$plot" stations "output/$name/$name" -o "output/$name/stations.png"
  /usr/bin/python3 "$plot" cplot "output/$name/$name-cplot" -o "output/$name/cplot.png"
fi
