#!/bin/bash
# On-fault stations of a dipping fault (SCEC TPV13, 60 degrees, on the coarse mesh gmsh makes from
# configs/tpv13/tpv13.geo; 0.5 s at order 2): the stations are named by their distance down the fault
# (SCEC's TPV12/13 convention: the hypocentre station 12 km down-dip, 10.4 km deep, is faultst000dp120),
# each header gives both the down-dip distance and the depth, and tools/plot_fault.py stations draws the
# dominant (dip) slip-rate component by default.  A sixth station 200 m from the hypocentre one (x = 200,
# -2 hm along strike, on the same coarse face or the next): the SeisSol-format headers give the requested
# coordinates, where the values are interpolated, and the two nearby stations record close but different
# series.
set -u
. "${srcdir:-.}/tests/lib.sh"
command -v gmsh > /dev/null || { echo "SKIP: gmsh not found (./quickstart installs it)"; exit 77; }
tempdir T
gmsh -3 -setnumber h_fault 3000 -setnumber h_far 15000 -format msh22 -o "$T/tpv13.msh" \
  "$SRC/configs/tpv13/tpv13.geo" > "$T/gmsh.log" 2>&1 || { cat "$T/gmsh.log"; exit 1; }
sed -e "s|file: tpv13-coarse.msh|file: $T/tpv13.msh|" -e 's/end_time: 1.0/end_time: 0.5/' -e 's/order: 3/order: 2/' \
  -e 's/^    - \[6000, 3750, -6495.19\]$/&\n    - [200, 6000, -10392.30]/' "$SRC/configs/tpv13/tpv13_short.yaml" > "$T/tpv13.yaml"
if run "$T/out" "$T/tpv13.yaml"; then
  names=$(cd "$T/out" && echo tpv13_short-faultst*)
  want="tpv13_short-faultst-002dp120 tpv13_short-faultst-060dp075 tpv13_short-faultst000dp030 tpv13_short-faultst000dp075 tpv13_short-faultst000dp120 tpv13_short-faultst060dp075"
  if [ "$names" = "$want" ]; then ok "station files named by down-dip distance: $names"
  else bad "station files: $names (want $want)"; fi
  f=$T/out/tpv13_short-faultst000dp120
  if grep -q "^# location= 0.0 km along strike, 12.0 km down-dip$" "$f" && grep -q "^# depth= 10.4 km$" "$f"; then
    ok "header of faultst000dp120: $(grep -E '^# (location|depth)=' "$f" | tr '\n' ' ')"
  else bad "header of faultst000dp120: $(head -10 "$f" 2> /dev/null | tr '\n' '|')"; fi
  a=$T/out/tpv13_short-faultreceiver-00003.dat b=$T/out/tpv13_short-faultreceiver-00006.dat
  if grep -qx '# x1 0.0000000000e+00' "$a" && grep -qx '# x2 6.0000000000e+03' "$a" && grep -qx '# x3 -1.0392300000e+04' "$a" &&
    grep -qx '# x1 2.0000000000e+02' "$b"; then ok "fault receiver headers give the requested coordinates"
  else bad "fault receiver headers: $(grep '^# x' "$a" | tr '\n' ' ')"; fi
  # last rows: slip path (column 11) within 20 % of each other, not equal
  if paste <(tail -n 1 "$a") <(tail -n 1 "$b") | awk '{ s = $11; u = $24; exit !(s > 0 && u > 0 && s != u && (s - u) ^ 2 < 0.04 * s * s) }'; then
    ok "stations 200 m apart: slip $(tail -n 1 "$a" | awk '{print $11}') and $(tail -n 1 "$b" | awk '{print $11}') m"
  else bad "stations 200 m apart: $(tail -n 1 "$a" | cut -c 1-80) / $(tail -n 1 "$b" | cut -c 1-80)"; fi
  if $PY -c 'import matplotlib, numpy' 2> /dev/null; then
    if out=$($PY "$SRC/tools/plot_fault.py" stations "$T/out/tpv13_short" -o "$T/st.png" 2>&1) &&
      grep -q "^component v " <<< "$out" && [ -s "$T/st.png" ]; then
      ok "plot_fault.py stations draws the dip component: $(head -1 <<< "$out")"
    else bad "plot_fault.py stations: $out"; fi
  fi
fi
report test_fault_stations
