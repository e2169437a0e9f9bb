#!/bin/bash
# `starquake postseismic` under mpirun: 2 and 3 ranks (plain loops) and 2 ranks with StarPU tasks against one
# process, on a small box with a buried strike-slip patch over a Maxwell layer (the elastic solve at t = 0 and 4
# viscoelastic steps): the station series and the surface snapshots equal one rank's within 1e-8 of the largest
# displacement (the same algorithm on the same operator; only the order of the sums over ranks differs, which
# moves the converged field by round-off, measured 5e-15); rank 0 alone prints progress and writes the series;
# more ranks than cells is refused with one message.  The runs solve four steps together (postseismic.multistep's
# default); 2 ranks solving one step at a time (multistep 1) give one process's series too.
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir OUT
cd "$OUT" || exit 99
allow_mpirun
MPIRUN=${MPIRUN:-mpirun}
command -v "$MPIRUN" > /dev/null || { echo "mpirun not found: install openmpi-bin (./quickstart does)"; exit 1; }
# ranks share 2 cores: let a waiting rank yield to the others, and one StarPU worker a rank
export OMPI_MCA_mpi_yield_when_idle=1 STARPU_NCPU=1
CMP="$PY $SRC/tests/integration/qs_mpi_compare.py"
BOUND=1e-8

printf '# x y depth strike dip length width strike_slip dip_slip\n0 0 0.5 0 90 2 1 1 0\n' > slip.txt
printf 'A 0.5 0.5\nB 1.0 -0.5\nC -1.25 0.25\n' > stations.txt
cat > ps.yaml << 'YAML'
mesh:
  type: box
  box:
    cells: [8, 8, 4]
    lo: [-2, -2, -2]
    hi: [2, 2, 0]
    boundary: {xmin: absorbing, xmax: absorbing, ymin: absorbing, ymax: absorbing, zmin: absorbing, zmax: free_surface}
    fault: {lo: [0, -1, -1.5], hi: [0, 1, -0.5]}
materials:
  default: {rho: 1, lambda: 1, mu: 1}
output: {directory: out, prefix: ps}
postseismic:
  slip_file: slip.txt
  stations: stations.txt
  dt: 0.5 s
  end_time: 2 s
  snapshot_interval: 1 s
  viscosity:
    default: elastic
    layers:
      - {z_top: -1.25, z_bottom: -10, eta: 1}
YAML

"$SQ" postseismic ps.yaml --serial --output one > one.out 2> one.err || { bad "one process: $(tail -3 one.err)"; report test_qs_mpi; exit; }
for np in 2 3; do
  if timeout 300 "$MPIRUN" -np $np "$SQ" postseismic ps.yaml --serial --output np$np > np$np.out 2> np$np.err; then
    d=$($CMP one np$np ps $BOUND) && ok "np=$np (plain loops) = one process: $d" || bad "np=$np: $d"
    grep -q "postseismic: $np MPI ranks, .* cells each (METIS)" np$np.err && [ "$(grep -c 'step 4/4' np$np.err)" = 1 ] &&
      [ "$(grep -c '^[0-9]' np$np/ps-gps-A.csv)" = 5 ] && ok "np=$np: rank 0 alone reports and writes the series" ||
      bad "np=$np: progress or series: $(head -3 np$np.err)"
  else
    bad "np=$np failed: $(tail -3 np$np.err)"
  fi
done
# StarPU tasks on every rank (two steps)
if timeout 300 "$MPIRUN" -np 2 "$SQ" postseismic ps.yaml --set postseismic.end_time='1 s' --output tasks > tasks.out 2> tasks.err; then
  d=$($CMP one tasks ps $BOUND --rows 3) && ok "np=2 with StarPU tasks = one process: $d" || bad "np=2 tasks: $d"
else
  bad "np=2 tasks failed: $(tail -3 tasks.err)"
fi
# one step at a time (postseismic.multistep: 1) on 2 ranks, plain loops and tasks: one process's series
for how in serial tasks; do
  opt=--serial rows=""
  [ $how = tasks ] && opt="--set postseismic.end_time=1s" rows="--rows 3"
  # shellcheck disable=SC2086
  if timeout 300 "$MPIRUN" -np 2 "$SQ" postseismic ps.yaml $opt --set postseismic.multistep=1 --output ms1$how \
    > ms1$how.out 2> ms1$how.err; then
    # shellcheck disable=SC2086
    d=$($CMP one ms1$how ps $BOUND $rows) && ok "np=2, multistep 1 ($how) = one process: $d" || bad "np=2 multistep 1 ($how): $d"
  else
    bad "np=2 multistep 1 ($how) failed: $(tail -3 ms1$how.err)"
  fi
done
# SIGINT to one rank only: the ranks agree after each step, both stop after the same one with the series complete
"$MPIRUN" -np 2 "$SQ" postseismic ps.yaml --serial --set postseismic.dt='0.01 s' --set postseismic.end_time='20 s' \
  --output stop > stop.out 2> stop.err &
mp=$!
for _ in $(seq 600); do
  [ -f stop/ps-gps-A.csv ] && [ "$(grep -c '^[0-9]' stop/ps-gps-A.csv)" -ge 3 ] && break
  sleep 0.1
done
kids=$(for st in /proc/[0-9]*/stat; do # the ranks: mpirun's children (no procps needed)
  read -r pid _ _ ppid _ < "$st" 2> /dev/null && [ "$ppid" = "$mp" ] && echo "$pid"
done | sort -n | tail -1)
[ -n "$kids" ] && kill -INT "$kids"
wait $mp
rc=$?
steps=$(sed -n 's/.*stopped at .* after \([0-9]*\) steps.*/\1/p' stop.out)
rows=$(grep -c '^[0-9]' stop/ps-gps-A.csv)
if [ "$rc" -ne 0 ] && [ -n "$steps" ] && [ "$steps" -lt 2000 ] && [ "$rows" = $((steps + 1)) ]; then
  ok "np=2, SIGINT to one rank: both stopped after step $steps, $rows rows"
else
  bad "np=2 SIGINT to one rank: rc $rc, steps ${steps:-none}, rows $rows: $(tail -2 stop.err)"
fi
# more ranks than cells: one message, naming the mesh and the largest rank count
cat > two.msh << 'MSH'
$MeshFormat
2.2 0 8
$EndMeshFormat
$Nodes
5
1 0 0 0
2 1 0 0
3 0 1 0
4 0 0 -1
5 0 0 1
$EndNodes
$Elements
8
1 2 2 105 1 1 2 4
2 2 2 105 1 2 3 4
3 2 2 105 1 1 3 4
4 2 2 105 1 1 2 5
5 2 2 105 1 2 3 5
6 2 2 105 1 1 3 5
7 4 2 1 1 1 2 3 4
8 4 2 1 1 1 3 2 5
$EndElements
MSH
sed -e 's/  type: box/  type: gmsh\n  file: two.msh/' -e '/^  box:/,/^    fault:/d' ps.yaml > two.yaml
if timeout 120 "$MPIRUN" -np 3 "$SQ" postseismic two.yaml --serial --output two > two.out 2>&1; then bad "3 ranks, 2 cells: accepted"
else
  n=$(grep -c "two.yaml: 3 MPI ranks for the mesh two.msh of 2 cells; starquake postseismic needs at least one cell per rank (run with at most 2 ranks)" two.out)
  [ "$n" = 1 ] && ok "3 ranks for 2 cells: refused with one message" || bad "3 ranks, 2 cells: $n messages: $(head -3 two.out)"
fi
report test_qs_mpi
