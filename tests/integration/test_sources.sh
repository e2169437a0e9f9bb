#!/bin/bash
# Point sources and receivers through the binary:
#  1. bitwise determinism of the receiver files and the dofs with sources under LTS, over
#     schedulers, worker counts, tile sizes and merged neighbour-cluster tasks;
#  2. every bad input stops the run with a message naming the file and line: receivers outside the
#     mesh (all of them listed, with the mesh bounding box), a missing time-function file, a bad
#     finite-source line, a source outside the mesh;
#  3. a finite-source file runs, and tools/plot_receivers.py draws the seismograms (when matplotlib
#     is installed).
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir OUT

# 1. determinism (a shorter run without snapshots or checkpoints)
sed -e 's/^  end_time: 0.45$/  end_time: 0.25/' -e '/^  fields:/d' -e '/^  surface:/d' -e '/^checkpoint:/,/^  interval:/d' \
  "$CONFIGS/sources.yaml" > "$OUT/det.yaml"
sed 's/merge_neighbor_clusters: false/merge_neighbor_clusters: true/' "$OUT/det.yaml" > "$OUT/det_merged.yaml"
"$SQ" "$OUT/det.yaml" --quiet --output "$OUT/ref" || bad "reference run"
ref=$(hash_of "$OUT/ref" src)
grep -q '^clusters: 2' "$OUT/ref/src-summary.txt" && ok "two LTS clusters" || bad "expected two clusters"
n=0
for v in "1 eager 64 det" "2 dmdas 7 det" "2 lws 64 det_merged" "1 prio 7 det_merged" "2 eager 13 det"; do
  set -- $v
  dir="$OUT/r-$1-$2-$3-$4"
  STARPU_NCPU=$1 STARPU_SCHED=$2 "$SQ" "$OUT/$4.yaml" --quiet --tile-size $3 --output "$dir" > /dev/null 2>&1
  same=1
  for f in "$OUT"/ref/src-receiver-*.dat "$OUT/ref/src-energy.csv"; do cmp -s "$f" "$dir/$(basename "$f")" || same=0; done
  [ "$(hash_of "$dir" src)" = "$ref" ] || same=0
  [ $same -eq 1 ] && n=$((n + 1)) || bad "ncpu=$1 sched=$2 tile=$3 ${4#det}: receivers or dofs differ"
done
[ $n -eq 5 ] && ok "5 runs: receiver files, energies and dofs ($ref) bitwise identical"
# the source moved the solution (the comparison above can fail)
awk -F, 'NR > 2 && $2 > 0 { found = 1 } END { exit !found }' "$OUT/ref/src-energy.csv" &&
  ok "the sources put energy in" || bad "no energy from the sources"

# 2. bad inputs: tests/configs/sources_NAME.yaml, copied next to the files it names
fixture() { cp "$CONFIGS/sources_$1.yaml" "$OUT/$1.yaml"; }
expect_error() { # name, fragments...
  local name=$1
  shift
  "$SQ" "$OUT/$name.yaml" --quiet --output "$OUT/o-$name" 2> "$OUT/$name.err" && { bad "$name: run accepted"; return; }
  for frag in "$@"; do
    grep -qF -- "$frag" "$OUT/$name.err" || { bad "$name: message lacks '$frag': $(cat "$OUT/$name.err")"; return; }
  done
  ok "$name: $(grep -c . "$OUT/$name.err") line(s), file and line named"
}
printf '0.5 0.5 0.5\n# a comment\n7 7 7\n' > "$OUT/stations.txt"
fixture outside
expect_error outside "outside.yaml:10: receiver 2 at (1.5, 0.5, 0.5) lies outside the mesh" \
  "outside.yaml:11: receiver 3" "stations.txt:3: receiver 5 at (7, 7, 7)" "3 receivers lie outside in all" \
  "x 0..1, y 0..1, z 0..1"
fixture nostf
expect_error nostf "nostf.yaml:8: sources[0].time_function.file: cannot read" "missing_stf.txt"
printf 'Seismic Moment Tensor\n0 0 1\n0 0 0\n1 0 0\nNumber of subfaults\n1\nx y z strike dip rake area onset\n0.5 0.5 oops 0 90 0 1 0\nsource time function\n0.01 3\nsamples\n0 1 0\n' > "$OUT/bad.fsrm"
fixture badfsrm
expect_error badfsrm "bad.fsrm:8:" "'oops' is not a number"
fixture srcout
expect_error srcout "srcout.yaml:8: source 0 at (0.5, 0.5, 2.5) lies outside the mesh" "spans x 0..1"

# 3. a finite source (two sub-faults) and the plotting tool
printf 'Seismic Moment Tensor\n0 0 1\n0 0 0\n1 0 0\nNumber of subfaults\n2\nx y z strike dip rake area onset\n0.4 0.5 0.5 0 90 0 0.01 0\n0.6 0.5 0.5 0 90 0 0.01 0.01\nsource time function\n0.01 4\nsamples\n0 50 50 0\n0 50 50 0\n' > "$OUT/fault.fsrm"
fixture finite
"$SQ" "$OUT/finite.yaml" --quiet --output "$OUT/ff" && [ -s "$OUT/ff/ff-receiver-00001.dat" ] &&
  ok "finite-source file runs" || bad "finite-source run"
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  /usr/bin/python3 "$SRC/tools/plot_receivers.py" "$OUT/ref/src" -o "$OUT/seis.png" --quantities v1 v2 v3 > /dev/null &&
    [ -s "$OUT/seis.png" ] && ok "plot_receivers.py drew $OUT/seis.png" || bad "plot_receivers.py"
else
  echo "skip plot_receivers.py (python3-matplotlib missing)"
fi
report sources
