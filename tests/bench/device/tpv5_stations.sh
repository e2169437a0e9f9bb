#!/usr/bin/env bash
# tests/bench/device/tpv5_stations.sh: SCEC TPV5 (configs/tpv5/tpv5.yaml, order 4, on the carried 500 m mesh
# configs/tpv5/tpv5.msh: gmsh -3 -setnumber h_fault 500) with its 9 on-fault stations on the GPU alone
# (STARPU_NCPU=0: there is no CPU worker, so the rupture tasks record the stations on the GPU):
#   1. test_cuda_rupture: the station kernel against the CPU's interpolation (same state, after a step) and
#      the station rows of a GPU-only graph run against a CPU-only one;
#   2. the station cost: GPU alone to SQ_END (default 4 s) simulated, without and with the stations,
#      alternately, SQ_REPEAT (default 2) times each; the medians' ratio;
#   3. GPU alone and CPU alone (STARPU_NCUDA=0, every core, 256-element tiles) to SQ_CPU_END (default 0.6 s;
#      the same end time, hence the same sync intervals and steps):
#      the max relative difference between the GPU's and the CPU's station files over their common rows
#      (per column, relative to that column's largest value).
# Carry .deps/starpu, .deps/carry (bin/starquake and bin/test_cuda_rupture built with CUDA, lib/) and
# configs/tpv5/tpv5.msh; SQ_CARRY and SQ_TPV5_MESH name other places for them.  Writes $OUT/tpv5-stations/.
set -u
. tests/bench/device/env.sh
END=${SQ_END:-4.0} CPU_END=${SQ_CPU_END:-0.6} REPEAT=${SQ_REPEAT:-2} TILE=${SQ_TILE:-4096}
DIR=${OUT:-/tmp}/tpv5-stations
mkdir -p "$DIR"
nvidia-smi --query-gpu=name --format=csv,noheader
# 1. the CUDA kernels against the CPU
SQ_SRCDIR=$ROOT STARPU_NCPU=1 timeout 120 "$CARRY/bin/test_cuda_rupture" 2>&1 |
  grep -E "stations O|station rows|Checks|Failure|Assertion" | tail -n 40
# 2. configurations: with the stations, without them (the stations list and its thinning removed)
MESH=$(realpath "${SQ_TPV5_MESH:-$ROOT/configs/tpv5/tpv5.msh}")
sed -e "s|  file: tpv5.msh|  file: $MESH|" -e "s/  end_time: 12.0/  end_time: $END/" configs/tpv5/tpv5.yaml > "$DIR/with.yaml"
sed -e '/  station_interval:/d' -e '/  stations:/,/^output:/{/^output:/!d}' "$DIR/with.yaml" > "$DIR/without.yaml"
sed -e "s/  end_time: $END/  end_time: $CPU_END/" "$DIR/with.yaml" > "$DIR/cpu.yaml"
grep -c '^    - \[' "$DIR/with.yaml" | sed 's/^/stations in the config: /'
# run NAME CONFIG [TILE]: one run; prints its time-stepping seconds (the "done:" line) and keeps the log
run() {
  timeout 200 "$CARRY/bin/starquake" "$2" --tile-size "${3:-$TILE}" --output "$DIR/$1" > "$DIR/$1.log" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || { echo "$1: exit $rc" >&2; tail -n 5 "$DIR/$1.log" >&2; }
  sed -n 's/^done: [0-9]* steps in \([0-9.]*\) s.*/\1/p' "$DIR/$1.log"
}
export STARPU_NCPU=0 STARPU_NCUDA=1
run warm "$DIR/without.yaml" > /dev/null # perf models and CUDA context
with=() without=()
for i in $(seq "$REPEAT"); do
  without+=("$(run "without$i" "$DIR/without.yaml")")
  with+=("$(run "with$i" "$DIR/with.yaml")")
done
grep -E "^done|tasks|rupture" "$DIR/with1.log" | head -n 5
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
mw=$(median "${with[@]}") mo=$(median "${without[@]}")
echo "GPU alone, $END s simulated: without stations ${without[*]} s, with the 9 stations ${with[*]} s"
awk -v a="$mw" -v b="$mo" 'BEGIN { printf "STATION_COST median with %.2f s, without %.2f s: %+.2f %%\n", a, b, 100 * (a / b - 1) }'
ls "$DIR/with1" | grep -c faultreceiver | sed 's/^/GPU station files: /'
# 3. the GPU alone and the CPU alone to the same end time
run gpu "$DIR/cpu.yaml" | sed 's/^/GPU alone, '"$CPU_END"' s simulated: /; s/$/ s/'
unset STARPU_NCPU
export STARPU_NCUDA=0
run cpu "$DIR/cpu.yaml" 256 | sed 's/^/CPU alone, '"$CPU_END"' s simulated: /; s/$/ s/'
python3 - "$DIR/gpu" "$DIR/cpu" <<'EOF'
import glob, os, sys
gpu, cpu = sys.argv[1], sys.argv[2]
def rows(path):
    out = {}
    for line in open(path):
        f = line.split()
        if f and (f[0][0].isdigit() or f[0][0] == '-'):
            out[f[0]] = [float(x) for x in f]
    return out
worst, n = 0.0, 0
for c in sorted(glob.glob(os.path.join(cpu, "*faultreceiver-*.dat"))):
    g = rows(os.path.join(gpu, os.path.basename(c)))
    r = rows(c)
    common = [t for t in r if t in g]
    if len(common) != len(r) or len(r) != len(g):
        print("%s: rows GPU %d, CPU %d, common %d" % (os.path.basename(c), len(g), len(r), len(common)))
    if not common:
        print("no common rows:", os.path.basename(c)); continue
    ncol = len(r[common[0]])
    for k in range(1, ncol):
        scale = max(abs(r[t][k]) for t in common) or 1.0
        d = max(abs(g[t][k] - r[t][k]) for t in common) / scale
        worst = max(worst, d)
    n += 1
    print("%s: %d rows to t = %s, peak slip rate %.4g m/s" % (os.path.basename(c), len(common), common[-1],
          max(abs(r[t][11]) for t in common)))
print("STATIONS_GPU_VS_CPU %d stations, max relative difference %.3e" % (n, worst))
EOF
