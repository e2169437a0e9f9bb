#!/usr/bin/env bash
# tests/bench/device/mpi_gpu.sh: StarPU-MPI with GPU-resident halo data, one MPI rank per GPU
# through the host's Open MPI, on a multi-GPU kind (nvidia-h200-x2 or -x4).
#
# (1) Correctness: tests/configs/lts.yaml (three LTS clusters) with every task on the GPUs
#     (STARPU_NCPU=0: halo packing on the GPU, StarPU-MPI staging the messages through host memory,
#     ghost tiles uploaded when a GPU task reads them).  1 rank on 1 GPU and 2 ranks on 1 GPU each
#     must give the same dofs hash, bit for bit (GPU kernels are deterministic per element and the
#     halo carries exact copies).  The CPU-only hash is printed beside it (GPU and CPU differ in the
#     last bits: FMA, summation order).
# (2) Strong scaling of LTS: SQ_SCALE_CELLS (default 60 60 96 cubes x 6 tets, graded: 2.38 M elements
#     in two LTS clusters, order 4 single precision, SQ_SCALE_TIME 0.02 = 89 sync intervals) on 1, 2, 4
#     ranks with one GPU each (up to the GPUs present; ranks started unbound, so each binds itself to
#     its share of the cores), and on 1 rank with 2 and 4 GPUs; on a one-GPU host, 2 ranks sharing it.
#     GPU workers only, dmda, one perf model for all GPUs (the 1-GPU run calibrates it).  The figure is
#     element updates/s of the time stepping after the first chunk of sync intervals (which uploads the
#     element data to the GPUs), without the outputs and the final copy back of the solution (given in
#     brackets with them); the efficiency is against 1 GPU.  SQ_SCALE_BUDGET (540 s) bounds the whole scaling part;
#     SQ_SCALE_NP / SQ_SCALE_NG choose the rank and GPU counts (default "2 4"), SQ_SCALE_ARGS adds
#     starquake options (e.g. --partition encoded), SQ_SCALE_ORDER the order (4), SQ_SCALE_RUNTIME more
#     runtime keys as key=value words (e.g. "fuse_steps=true fuse_predictor=true").
# Prints a table last.  Needs tests/bench/device/prepare.sh run here and .deps/{starpu,carry} carried.
set -u
. tests/bench/device/env.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
OUTDIR=${OUT:-/tmp/sq-mpi-gpu}
mkdir -p "$OUTDIR"
NGPU=$(nvidia-smi -L | wc -l)
export SQ_NGPU=$NGPU # rank.sh: local rank r uses GPU r mod NGPU
SQ=$CARRY/bin/starquake
MODE=${SQ_MPI_GPU_MODE:-all} # check | scale | all
# each rank sees one GPU (its local rank), or all of them with SQ_ALL_GPUS=1
cat > "$OUTDIR/rank.sh" <<'EOF'
#!/usr/bin/env bash
[ -z "${SQ_ALL_GPUS:-}" ] && export CUDA_VISIBLE_DEVICES=$(( ${OMPI_COMM_WORLD_LOCAL_RANK:-0} % ${SQ_NGPU:-1} ))
[ -n "${STARPU_BUS_STATS_FILE:-}" ] && export STARPU_BUS_STATS_FILE=$STARPU_BUS_STATS_FILE-rank${OMPI_COMM_WORLD_RANK:-0}
exec "$@"
EOF
chmod +x "$OUTDIR/rank.sh"
dofs_hash_of() { awk '/^dofs_hash:/ {print $2}' "$1"/*-summary.txt 2>/dev/null; }
rate_of() { awk '/^element_updates_per_second:/ {print $2}' "$1"/*-summary.txt 2>/dev/null; }
# after the first chunk of sync intervals, which uploads the element data to the GPUs: the time stepping
# alone, and with the outputs, the checks and the final copy back of the solution
steady_of() { awk '/^element_updates_per_second_steady:/ {print $2}' "$1"/*-summary.txt 2>/dev/null; }
after_of() { awk '/^element_updates_per_second_after_first_chunk:/ {print $2}' "$1"/*-summary.txt 2>/dev/null; }
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
  c=$(dofs_hash_of "$OUTDIR/cpu") g1=$(dofs_hash_of "$OUTDIR/g1") g2=$(dofs_hash_of "$OUTDIR/g2") m2=$(dofs_hash_of "$OUTDIR/m2")
  echo "lts.yaml hashes: cpu ${c:-none}  1 rank/1 GPU ${g1:-none}  2 ranks/1 GPU each ${g2:-none}  2 ranks GPU+CPU ${m2:-none}"
  if [ -n "$g1" ] && [ "$g1" = "$g2" ]; then verdict=PASS; else verdict=FAIL; tail -5 "$OUTDIR/g2.log"; fi
  rows+=("| halo on GPUs: 2 ranks x 1 GPU vs 1 rank x 1 GPU (dofs hash) | $g2 vs $g1 | $verdict |")
  grep -h "L2 error" "$OUTDIR"/{cpu,g1,g2,m2}.log | sed 's/^/  /'
fi

if [ "$MODE" != check ]; then
  read -r nx ny nz <<< "${SQ_SCALE_CELLS:-60 60 96}"
  # tests/configs/bench_mpi_gpu_scale.yaml, then SQ_SCALE_RUNTIME's KEY=VALUE pairs as runtime keys
  { sed -e "s/@NX@/$nx/" -e "s/@NY@/$ny/" -e "s/@NZ@/$nz/" -e "s/@ORDER@/${SQ_SCALE_ORDER:-4}/" \
      -e "s/@END_TIME@/${SQ_SCALE_TIME:-0.02}/" -e "s/@TILE@/${SQ_SCALE_TILE:-16384}/" tests/configs/bench_mpi_gpu_scale.yaml
    printf '%s\n' "$(for kv in ${SQ_SCALE_RUNTIME:-}; do echo "  ${kv%%=*}: ${kv#*=}"; done)"
  } > "$OUTDIR/scale.yaml"
  # GPU workers only; one perf model for all the (identical) GPUs, so that the 1-GPU run calibrates the
  # runs on several; ranks are started unbound and bind themselves to their share of the cores
  export STARPU_NCPU=0 STARPU_SCHED=${SQ_SCALE_SCHED:-dmda} STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1
  deadline=$((SECONDS + ${SQ_SCALE_BUDGET:-540}))
  base=${SQ_SCALE_BASE:-} # given: the 1-GPU rate of an earlier call, and the 1-GPU run is skipped
  base_after=${SQ_SCALE_BASE_AFTER:-} # the same for the rate with the outputs
  scale_run() { # label ranks gpus_per_rank dir
    local label=$1 np=$2 ng=$3 dir=$4 log=$OUTDIR/scale-$4.log left=$((deadline - SECONDS))
    if [ "$left" -lt 60 ]; then rows+=("| $label | skipped (device time) | | | |"); return; fi
    local all=
    [ "$ng" -gt 1 ] && all=1
    # with STARPU_BUS_STATS=1 every rank writes its transfer statistics next to the log
    STARPU_BUS_STATS_FILE=$OUTDIR/bus-$dir SQ_ALL_GPUS=$all STARPU_NCUDA=$ng timeout "$left" mpirun -np "$np" --bind-to none "$OUTDIR/rank.sh" "$SQ" \
      "$OUTDIR/scale.yaml" --output "$OUTDIR/$dir" ${SQ_SCALE_ARGS:-} > "$log" 2>&1
    local r a n=$((np * ng)) eff effa total steps all
    r=$(steady_of "$OUTDIR/$dir") a=$(after_of "$OUTDIR/$dir") all=$(rate_of "$OUTDIR/$dir")
    [ -z "$base" ] && base=$r
    [ -z "$base_after" ] && base_after=$a
    eff=$(awk -v r="${r:-0}" -v b="${base:-0}" -v n=$n 'BEGIN {if (b > 0) printf "%.2f", r / (b * n); else print "-"}')
    effa=$(awk -v r="${a:-0}" -v b="${base_after:-0}" -v n=$n 'BEGIN {if (b > 0) printf "%.2f", r / (b * n); else print "-"}')
    total=$(awk '/^done:/ {for (i = 1; i < NF; ++i) if ($i == "total") print $(i + 1)}' "$log")
    steps=$(awk '/^wall_time_steps:/ {print $2}' "$OUTDIR/$dir"/*-summary.txt 2> /dev/null)
    rows+=("| $label | ${r:-failed} (with outputs ${a:-?}, whole run ${all:-?}) | $eff ($effa) | $(dofs_hash_of "$OUTDIR/$dir") | ${steps:-?} s stepping, ${total:-?} total |")
    echo "${rows[-1]}"
    grep -E "^  (mesh|binding|clusters)|imbalance|L2 error|^done" "$log" | head -8 | sed "s/^/  [$label] /"
    [ -n "$r" ] || tail -n 5 "$log"
  }
  [ -n "$base" ] || scale_run "1 rank x 1 GPU" 1 1 s1
  for np in ${SQ_SCALE_NP:-2 4}; do [ "$np" -le "$NGPU" ] && scale_run "$np ranks x 1 GPU" "$np" 1 "s$np"; done
  # one GPU only: two ranks sharing it measure the MPI and binding overhead (ideal efficiency 0.5)
  [ "$NGPU" -eq 1 ] && scale_run "2 ranks sharing 1 GPU" 2 1 shared
  if [ "${SQ_SCALE_ALLGPU:-1}" = 1 ]; then
    for ng in ${SQ_SCALE_NG:-2 4}; do [ "$ng" -le "$NGPU" ] && scale_run "1 rank x $ng GPUs" 1 "$ng" "a$ng"; done
  fi
fi

echo
echo "| run | element updates/s of the time stepping after the first chunk (with the outputs and final copy back; whole run) | verdict / efficiency (with outputs) | hash | time |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
