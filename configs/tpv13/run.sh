#!/bin/bash
# SCEC TPV13 (60-degree dipping normal fault, linear slip weakening, off-fault plasticity): mesh, run, plot.
#   configs/tpv13/run.sh [full|short|puml] [starquake options]
#     full  (default) tpv13.yaml: Gmsh mesh tpv13.msh (h_fault = ${H_FAULT:-500} m, h_far = ${H_FAR:-10000} m;
#                     delete tpv13.msh to mesh again with other sizes), order 4, 8 s
#     short           tpv13_short.yaml: coarse tpv13-coarse.msh (h_fault 3 km, h_far 15 km), order 3, 1 s;
#                     a smoke test of a few seconds on 2 cores
#     puml            tpv13_puml.yaml: SeisSol's PUMGen mesh ../shared/meshes/tpv13_training.puml.h5
#   ELASTIC=1 runs the same configuration without its plasticity section (and without the ep_*/eta
#   output fields) into output/<prefix>-elastic/, for comparisons (configs/tpv13/compare.sh).
# Writes output/<prefix>/ (fault snapshots and stations, cplot, receivers, wavefield with plastic strain,
# energies) and, with matplotlib, slip_rate.png, stations.png, cplot.png there.  See docs/RUPTURE.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sq=${SQ_BIN:-$here/../../starquake}
variant=full
case "${1:-}" in full | short | puml) variant=$1 && shift ;; esac
mesh() { # OUT.msh H_FAULT H_FAR
  [ -s "$1" ] && return 0
  gmsh -3 -setnumber h_fault "$2" -setnumber h_far "$3" -format msh22 -o "$1" "$here/tpv13.geo" > "$here/gmsh.log" ||
    { cat "$here/gmsh.log"; exit 1; }
}
case $variant in
  full) mesh "$here/tpv13.msh" "${H_FAULT:-500}" "${H_FAR:-10000}" && cfg=$here/tpv13.yaml ;;
  short) mesh "$here/tpv13-coarse.msh" 3000 15000 && cfg=$here/tpv13_short.yaml ;;
  puml) cfg=$here/tpv13_puml.yaml ;;
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
"$sq" "$cfg" --output "$out" "$@"
plot="$here/../../tools/plot_fault.py"
if /usr/bin/python3 -c 'import matplotlib, h5py' 2> /dev/null; then
  /usr/bin/python3 "$plot" snapshots "$out/$prefix-fault.h5" -o "$out/slip_rate.png"
  /usr/bin/python3 "$plot" stations "$out/$prefix" -o "$out/stations.png"
  /usr/bin/python3 "$plot" cplot "$out/$prefix-cplot" -o "$out/cplot.png"
fi
