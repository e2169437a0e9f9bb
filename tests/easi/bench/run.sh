#!/bin/bash
# The time of the easi evaluation of docs/EASI.md: the material (at 115200 cells) and fault models (at the
# fault's quadrature points) of one kind (function: !FunctionMap, lua: !LuaMap, asagi: !ASAGI grids) with
# 1 and 2 OpenMP threads, each the best (wall time) of REPEAT runs (default 3), with the CPU time of that run
# (all threads).
#   tests/easi/bench/run.sh [function lua asagi]   (from the build folder, ./starquake there)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sq=${SQ_BIN:-./starquake}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cp "$here"/*.yaml "$T/"
w=$here/../write_grid.py
box="-12000 12000 -6000 6000 -12000 0"
python3 "$w" "$T/rho.nc" rho 97 49 49 $box "2600 + 0.01 * x - 0.02 * z"
python3 "$w" "$T/mu.nc" mu 97 49 49 $box "3.0e10 + 1e5 * y - 1e6 * z"
python3 "$w" "$T/lambda.nc" lambda 97 49 49 $box "3.2e10 + 1e5 * x - 1e6 * z"
python3 "$w" "$T/mu_s.nc" mu_s 97 49 49 $box "0.677 + 1e-6 * x"
python3 "$w" "$T/d_c.nc" d_c 97 49 49 $box "0.4 - 1e-5 * z"
python3 "$w" "$T/s_yy.nc" s_yy 97 49 49 $box "-120e6 + 1e3 * z"
python3 "$w" "$T/s_xy.nc" s_xy 97 49 49 $box "70e6 + 10 * x"
for kind in "${@:-function lua asagi}"; do
  for k in $kind; do
    sed -e "s|material_function.yaml|material_$k.yaml|" -e "s|fault_function.yaml|fault_$k.yaml|" "$T/box.yaml" > "$T/b.yaml"
    for n in 1 2; do
      best_m="" best_f=""
      for r in $(seq "${REPEAT:-3}"); do
        OMP_NUM_THREADS=$n "$sq" "$T/b.yaml" --verbose --output "$T/o" > "$T/log" 2>&1 || { tail -5 "$T/log"; exit 1; }
        m=$(sed -n 's/.*materials of \([0-9]*\) cells evaluated in \([0-9.]*\) s.*threads, \([0-9.]*\) s CPU.*/\2 \1 \3/p' "$T/log")
        f=$(sed -n 's/.*fault values of \([0-9]*\) points evaluated in \([0-9.]*\) s.*threads, \([0-9.]*\) s CPU.*/\2 \1 \3/p' "$T/log")
        best_m=$(printf '%s\n%s\n' "$best_m" "$m" | sed '/^$/d' | sort -g | head -1)
        best_f=$(printf '%s\n%s\n' "$best_f" "$f" | sed '/^$/d' | sort -g | head -1)
      done
      echo "$best_m" | awk -v k="$k" -v n="$n" '{printf "%-8s %d thread(s): materials %7d cells  %.3f s  %6.2f us per cell  (CPU %.3f s)\n", k, n, $2, $1, 1e6 * $1 / $2, $3}'
      echo "$best_f" | awk -v k="$k" -v n="$n" '{printf "%-8s %d thread(s): fault     %7d points %.3f s  %6.2f us per point (CPU %.3f s)\n", k, n, $2, $1, 1e6 * $1 / $2, $3}'
    done
  done
done
