#!/bin/bash
# SCEC TPV13 (60-degree dipping normal fault, linear slip weakening, off-fault plasticity): mesh, run, plot.
#   configs/tpv13/run.sh [short|production|puml] [starquake options]
#     short       (default) tpv13_short.yaml: coarse tpv13-coarse.msh (h_fault 3 km, h_far 15 km), order 3,
#                 1 s; a smoke test of a few seconds on 2 cores
#     production  tpv13.yaml: Gmsh mesh tpv13.msh (h_fault = ${H_FAULT:-500} m, h_far = ${H_FAR:-10000} m;
#                 delete tpv13.msh to mesh again with other sizes), order 4, 8 s ("full" is the same)
#     puml        tpv13_puml.yaml on SeisSol's PUMGen mesh tpv13_training.puml.h5, which this repository does
#                 not ship and the script does not download: get tpv13/tpv13_training.puml.h5 of
#                 https://github.com/SeisSol/Training and put it in configs/tpv13/, or set TPV13_PUML_MESH=PATH
#   Any configuration key can be changed on the command line: --set equations.end_time=3 (several allowed).
#   The memory estimate and run time are printed before the run; killing the script (TERM, INT) passes the
#   signal on to starquake, which writes a checkpoint and stops.
#   ELASTIC=1 runs the same configuration without its plasticity section (and without the ep_*/eta
#   output fields) into output/<prefix>-elastic/, for comparisons (configs/tpv13/compare.sh).
# Writes output/<prefix>/ (fault snapshots and stations, cplot, receivers, wavefield with plastic strain,
# energies) and, with matplotlib, slip_rate.png, stations.png, cplot.png there.  See docs/RUPTURE.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sq=${SQ_BIN:-$here/../../starquake}
. "$here/../scenario_lib.sh"
variant=short
case "${1:-}" in short | production | puml) variant=$1 && shift ;; full) variant=production && shift ;; esac
SIZE=$variant
case $variant in
  # (each mesh is named on its case label's line: a config whose mesh is missing points to that label)
  production) scenario_mesh "$here/tpv13.geo" msh22 "$here/tpv13.msh" -setnumber h_fault "${H_FAULT:-500}" \
    -setnumber h_far "${H_FAR:-10000}" && cfg=$here/tpv13.yaml ;;
  short) scenario_mesh "$here/tpv13.geo" msh22 "$here/tpv13-coarse.msh" -setnumber h_fault 3000 -setnumber h_far 15000 &&
    cfg=$here/tpv13_short.yaml ;;
  puml)
    cfg=$here/tpv13_puml.yaml
    puml=${TPV13_PUML_MESH:-$here/tpv13_training.puml.h5}
    if [ ! -s "$puml" ]; then
      echo "${0##*/} puml: the mesh $puml is not there.  It is not part of this repository and is not" >&2
      echo "downloaded: get tpv13/tpv13_training.puml.h5 of https://github.com/SeisSol/Training (BSD-3-Clause)," >&2
      echo "put it in $here/ or set TPV13_PUML_MESH=PATH, and run again." >&2
      exit 1
    fi
    set -- --set "mesh.file=$(cd "$(dirname "$puml")" && pwd)/$(basename "$puml")" "$@"
    ;;
esac
prefix=$(sed -n 's/^  prefix: //p' "$cfg")
out=output/$prefix
if [ "${ELASTIC:-0}" = 1 ]; then # the same run, elastic: drop the plasticity section and its output fields
  out=output/$prefix-elastic
  mkdir -p "$out"
  sed -e '/^plasticity:/,/^receivers:/{/^receivers:/!d}' -e 's/, ep_xx, ep_yy, ep_zz, ep_xy, ep_yz, ep_xz, eta//' \
    -e "s|^  file: \([^/].*\)|  file: $here/\1|" "$cfg" > "$out/$prefix-elastic.yaml"
  cfg=$out/$prefix-elastic.yaml
fi
scenario_run "$sq" "$cfg" --output "$out" "$@"
plot="$here/../../tools/plot_fault.py"
if /usr/bin/python3 -c 'import matplotlib, h5py' 2> /dev/null; then
  /usr/bin/python3 "$plot" snapshots "$out/$prefix-fault.h5" -o "$out/slip_rate.png"
  /usr/bin/python3 "$plot" stations "$out/$prefix" -o "$out/stations.png"
  /usr/bin/python3 "$plot" cplot "$out/$prefix-cplot" -o "$out/cplot.png"
fi
