#!/usr/bin/env bash
# tests/device/mpi_gpu.sh: StarPU-MPI with GPU-resident halo data (issue 5), one MPI rank per GPU
# through the host's Open MPI, on a multi-GPU kind (nvidia-h200-x2 or -x4).
#
# (1) Correctness: tests/configs/lts.yaml (three LTS clusters) with every task on the GPUs
#     (STARPU_NCPU=0: halo packing on the GPU, StarPU-MPI staging the messages through host memory,
#     ghost tiles uploaded when a GPU task reads them).  1 rank on 1 GPU and 2 ranks on 1 GPU each
#     must give the same dofs hash, bit for bit (GPU kernels are deterministic per element and the
#     halo carries exact copies).  The CPU-only hash is printed beside it (GPU and CPU differ in the
#     last bits: FMA, summation order).
# (2) Strong scaling of LTS: SQ_SCALE_CELLS (default 60 60 96 cubes x 6 tets = 2.07 M elements,
#     graded so LTS finds two clusters, order 4 single precision) on 1, 2, 4 ranks with one GPU each
#     (up to the GPUs present), and on 1 rank with all GPUs; prints element updates/s of the stepping
#     phase and the efficiency against 1 GPU.
# Prints a table last.  Needs tests/device/prepare.sh run here and .deps/{starpu,carry} carried.
set -u
. tests/device/env.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
OUTDIR=${OUT:-/tmp/sq-mpi-gpu}
mkdir -p "$OUTDIR"
NGPU=$(nvidia-smi -L | wc -l)
SQ=$CARRY/bin/starquake
MODE=${SQ_MPI_GPU_MODE:-all} # check | scale | all
# each rank sees one GPU (its local rank), or all of them with SQ_ALL_GPUS=1
cat > "$OUTDIR/rank.sh" <<'EOF'
#!/usr/bin/env bash
[ -z "${SQ_ALL_GPUS:-}" ] && export CUDA_VISIBLE_DEVICES=${OMPI_COMM_WORLD_LOCAL_RANK:-0}
exec "$@"
EOF
chmod +x "$OUTDIR/rank.sh"
hash_of() { awk '/^dofs_hash:/ {print $2}' "$1"/*-summary.txt 2>/dev/null; }
rate_of() { awk '/^element_updates_per_second:/ {print $2}' "$1"/*-summary.txt 2>/dev/null; }
rows=()

if [ "$MODE" != scale ]; then
  export STARPU_SCHED=dmdas
  STARPU_NCPU=2 STARPU_NCUDA=0 timeout 120 "$SQ" tests/configs/lts.yaml --output "$OUTDIR/cpu" > "$OUTDIR/cpu.log" 2>&1
  STARPU_NCPU=0 STARPU_NCUDA=1 timeout 120 mpirun -np 1 "$OUTDIR/rank.sh" "$SQ" tests/configs/lts.yaml \
    --output "$OUTDIR/g1" > "$OUTDIR/g1.log" 2>&1
  STARPU_NCPU=0 STARPU_NCUDA=1 timeout 120 mpirun -np 2 "$OUTDIR/rank.sh" "$SQ" tests/configs/lts.yaml \
    --output "$OUTDIR/g2" > "$OUTDIR/g2.log" 2>&1
  STARPU_NCPU=1 STARPU_NCUDA=1 timeout 120 mpirun -np 2 "$OUTDIR/rank.sh" "$SQ" tests/configs/lts.yaml \
    --output "$OUTDIR/m2" > "$OUTDIR/m2.log" 2>&1
  c=$(hash_of "$OUTDIR/cpu") g1=$(hash_of "$OUTDIR/g1") g2=$(hash_of "$OUTDIR/g2") m2=$(hash_of "$OUTDIR/m2")
  echo "lts.yaml hashes: cpu ${c:-none}  1 rank/1 GPU ${g1:-none}  2 ranks/1 GPU each ${g2:-none}  2 ranks GPU+CPU ${m2:-none}"
  if [ -n "$g1" ] && [ "$g1" = "$g2" ]; then verdict=PASS; else verdict=FAIL; tail -5 "$OUTDIR/g2.log"; fi
  rows+=("| halo on GPUs: 2 ranks x 1 GPU vs 1 rank x 1 GPU (dofs hash) | $g2 vs $g1 | $verdict |")
  grep -h "L2 error" "$OUTDIR"/{cpu,g1,g2,m2}.log | sed 's/^/  /'
fi

if [ "$MODE" != check ]; then
  read -r nx ny nz <<< "${SQ_SCALE_CELLS:-60 60 96}"
  cat > "$OUTDIR/scale.yaml" <<EOF
mesh:
  type: box
  box:
    cells: [$nx, $ny, $nz]
    hi: [1.0, 1.0, 1.6]
    refine: [{lo: [0.45, 0.0, 0.0], hi: [0.5, 1.0, 1.6], factor: 4}]
materials:
  default: {rho: 1.0, lambda: 2.0, mu: 1.0}
initial_condition:
  type: planewave
  wave_vector: [6.283185307179586, 6.283185307179586, 0.0]
  modes:
    - {type: p, amplitude: 1.0, direction: 1}
equations:
  order: 4
  precision: single
  end_time: ${SQ_SCALE_TIME:-0.004}
  lts: {rate: 2}
output:
  prefix: scale
runtime:
  tile_size: ${SQ_SCALE_TILE:-16384}
EOF
  export STARPU_NCPU=0 STARPU_SCHED=${SQ_SCALE_SCHED:-dmda}
  base=
  for np in 1 2 4; do
    [ "$np" -le "$NGPU" ] || continue
    log=$OUTDIR/scale-np$np.log
    STARPU_NCUDA=1 timeout 280 mpirun -np $np --bind-to none "$OUTDIR/rank.sh" "$SQ" "$OUTDIR/scale.yaml" \
      --output "$OUTDIR/s$np" > "$log" 2>&1
    r=$(rate_of "$OUTDIR/s$np")
    [ -z "$base" ] && base=$r
    eff=$(awk -v r="${r:-0}" -v b="${base:-0}" -v n=$np 'BEGIN {if (b > 0) printf "%.2f", r / (b * n); else print "-"}')
    rows+=("| $np rank(s) x 1 GPU | ${r:-failed} | efficiency $eff | hash $(hash_of "$OUTDIR/s$np") |")
    grep -E "^  mesh|clusters|^done|rank .* imbalance|work imbalance" "$log" | head -6 | sed "s/^/  [np $np] /"
  done
  if [ "$NGPU" -gt 1 ] && [ "${SQ_SCALE_ALLGPU:-1}" = 1 ]; then
    log=$OUTDIR/scale-1x$NGPU.log
    SQ_ALL_GPUS=1 STARPU_NCUDA=$NGPU timeout 280 mpirun -np 1 "$OUTDIR/rank.sh" "$SQ" "$OUTDIR/scale.yaml" \
      --output "$OUTDIR/sall" > "$log" 2>&1
    r=$(rate_of "$OUTDIR/sall")
    eff=$(awk -v r="${r:-0}" -v b="${base:-0}" -v n=$NGPU 'BEGIN {if (b > 0) printf "%.2f", r / (b * n); else print "-"}')
    rows+=("| 1 rank x $NGPU GPUs | ${r:-failed} | efficiency $eff | hash $(hash_of "$OUTDIR/sall") |")
  fi
fi

echo
echo "| run | figure | verdict / efficiency | |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
