#!/usr/bin/env bash
# tests/bench/device/run.sh: the one command for the GPU host, run from the repository root after
# tests/bench/device/prepare.sh was run here and .deps/starpu and .deps/carry were carried along (or after
# tests/bench/device/build.sh built the tree there):
# measures the GPU's ceilings, runs tests/unit/test_cuda, the proxy benchmarks (GTS order 6, a sweep
# over sizes, orders and precisions, the CPU codelets, CPU+GPU schedulers), writes full logs to
# $OUT (or /tmp/sq-device) and prints a summary table last.
# SQ_DEVICE_MODE=quick runs only the peaks, the test and one proxy point; SQ_DEVICE_MODE=short adds
# the order-6 kernels at 512k elements and the 64k-element sweep (about 2 minutes);
# SQ_DEVICE_MODE=plasticity runs only test_cuda_plasticity (with its throughput; about 1 minute);
# SQ_DEVICE_MODE=tests runs the peaks, the GPU tests, test_gpu_memory.sh and test_blowup.sh only;
# SQ_DEVICE_MODE=small adds the 4k-element cluster against 512k (orders 2-7 SP, whole-step tasks on 2
# CUDA workers per GPU, one step per task and SQ_SMALL_STEPS_PER_TASK (16) steps per task; order 4 also on
# 1 and 4 workers, and as separate tasks), the same kernels launched back to back without StarPU
# (kernel-chain), and prints the ratios; SQ_SMALL_PREC=double for double precision;
# SQ_DEVICE_MODE=hetero runs test_cuda, tests/bench/device/restart_gpu.sh, the CPU codelets and the heterogeneous CPU+GPU table: a
# calibration pass of the perf models (dmdas, STARPU_CALIBRATE=1), then GPU alone, CPU alone and
# both with dmda, dmdas, eager and lws placing every task (SQ_CPU_SHARE=-1), for one CPU worker of nproc - 2 threads (runtime.cpu_task_threads)
# and for one-thread workers, SQ_HETERO_REPEAT (2) times, and the median's ratio to CPU alone + GPU alone;
# SQ_HETERO_ELEMS / SQ_HETERO_TILE (64k / 1024) size the heterogeneous problem, SQ_HETERO_STEPS (60) its timed steps;
# SQ_DEVICE_SKIP_TESTS=1 leaves out the GPU tests (a repeat call);
# SQ_DEVICE_DEADLINE (default 540 s) bounds the whole script.
set -u
. tests/bench/device/env.sh
BIN=$CARRY/bin
LOG=${OUT:-/tmp/sq-device}
mkdir -p "$LOG"
T0=$(date +%s)
DEADLINE=${SQ_DEVICE_DEADLINE:-540} # seconds for the whole script: the device tool stops a command at 600
stamp() { echo "[$(($(date +%s) - T0)) s] $*"; }
# limit SECONDS: the smaller of SECONDS and what is left before the deadline (at least 1)
limit() {
  local left=$((DEADLINE - ($(date +%s) - T0)))
  [ "$left" -lt "$1" ] && echo $((left > 1 ? left : 1)) || echo "$1"
}

{
  date -u
  uname -a
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,power.limit --format=csv 2>&1
  nproc
  echo "carried libraries the host lacks (linked from $CARRY/uselib): ${SQ_HOST_MISSING_LIBS:-none}"
  for b in "$BIN"/*; do ldd "$b" | grep "not found" | sed "s|^|$(basename "$b"): |"; done
} > "$LOG/env.txt" 2>&1
cat "$LOG/env.txt"

MODE=${SQ_DEVICE_MODE:-full}
TEST_RC=- RUPTURE_RC=- PLASTICITY_RC=- GPUMEM_RC=- BLOWUP_RC=-
SKIP_TESTS=${SQ_DEVICE_SKIP_TESTS:-0}
# the order-6 target point runs on 2 CUDA workers (streams) per GPU (STARPU_NWORKER_PER_CUDA overrides), as tests/bench/device/ab.sh does
O6_STREAMS=${STARPU_NWORKER_PER_CUDA:-2}
# CPU workers beside the GPU: one worker whose tasks each run an OpenMP team on all cores but the two
# that drive the GPU and submit (runtime.cpu_task_threads)
CPU_TEAM=$(( $(nproc) - 2 ))
if [ "$MODE" != plasticity ]; then
stamp "peaks"
timeout "$(limit 60)" "$BIN/sq-peak" > "$LOG/peaks.txt" 2>&1
cat "$LOG/peaks.txt"
SP=$(sed -n 's/^PEAK sp_gflops=\([0-9]*\).*/\1/p' "$LOG/peaks.txt")
if [ -n "$SP" ]; then
  export SQ_PEAK_SP_GFLOPS=$SP
  export SQ_PEAK_DP_GFLOPS=$(sed -n 's/.*dp_gflops=\([0-9]*\).*/\1/p' "$LOG/peaks.txt")
  export SQ_PEAK_GBS=$(sed -n 's/.*copy_gbs=\([0-9]*\).*/\1/p' "$LOG/peaks.txt")
  export SQ_PEAK_SOURCE="measured by sq-peak in this run"
fi

[ "$SKIP_TESTS" = 1 ] || {
stamp "test_cuda"
timeout "$(limit 240)" "$BIN/test_cuda" > "$LOG/test_cuda.log" 2>&1
TEST_RC=$?
tail -n 5 "$LOG/test_cuda.log"

# the CUDA rupture kernel against the CPU, per fault quantity, and its throughput (tests/meshes/fault.msh)
stamp "test_cuda_rupture"
SQ_SRCDIR=$ROOT SQ_RUPTURE_BENCH=1 timeout "$(limit 180)" "$BIN/test_cuda_rupture" > "$LOG/test_cuda_rupture.log" 2>&1
RUPTURE_RC=$?
tail -n 3 "$LOG/test_cuda_rupture.log"
}
fi

# the CUDA plasticity kernel against the CPU body, per quantity, a GPU-only run with plasticity, and the
# kernel's throughput
if [ "$SKIP_TESTS" != 1 ]; then
stamp "test_cuda_plasticity"
SQ_PLASTICITY_BENCH=1 timeout "$(limit 150)" "$BIN/test_cuda_plasticity" > "$LOG/test_cuda_plasticity.log" 2>&1
PLASTICITY_RC=$?
tail -n 3 "$LOG/test_cuda_plasticity.log"

# the GPU memory check (a problem that does not fit stops before stepping) and blow-up detection
stamp "test_gpu_memory.sh, test_blowup.sh"
SQ_BIN=$BIN/starquake timeout "$(limit 120)" bash tests/integration/test_gpu_memory.sh > "$LOG/test_gpu_memory.log" 2>&1
GPUMEM_RC=$?
SQ_BIN=$BIN/starquake STARPU_NCUDA=1 timeout "$(limit 120)" bash tests/integration/test_blowup.sh > "$LOG/test_blowup.log" 2>&1
BLOWUP_RC=$?
tail -n 2 "$LOG/test_gpu_memory.log" "$LOG/test_blowup.log"
fi

proxy() { # proxy LOGNAME TIMEOUT ARGS...
  local name=$1 limit=$2
  shift 2
  stamp "proxy $*"
  echo "## starquake-proxy $*" >> "$LOG/$name"
  timeout "$(limit "$limit")" "$BIN/starquake-proxy" "$@" >> "$LOG/$name" 2>&1 || echo "## exit $? (timeout 124)" >> "$LOG/$name"
}

if [ "$MODE" = plasticity ] || [ "$MODE" = tests ]; then
  :
elif [ "$MODE" = hetero ]; then
  stamp "restart of a CPU checkpoint on the GPU"
  OUT=$LOG/restart_gpu timeout "$(limit 120)" bash tests/bench/device/restart_gpu.sh > "$LOG/restart_gpu.log" 2>&1
  grep -E "PASS|FAIL" "$LOG/restart_gpu.log"
  proxy cpu.log 60 16k 3 all,ader,local,neighbor 6 double cpu
  # every point with StarPU's task profiling (the proxy has it on for "both" only), so that the
  # single-kind rates the ratio divides by are measured the same way
  export SQ_PROXY_PROFILING=1
  # the schedulers place every task (not the default split of runtime/hybrid.c: tests/bench/device/hybrid.sh)
  export SQ_CPU_SHARE=-1
  HN=${SQ_HETERO_ELEMS:-64k} HT=${SQ_HETERO_TILE:-1024} HS=${SQ_HETERO_STEPS:-60} HSC=$(( (${SQ_HETERO_STEPS:-60} + 7) / 8 ))
  # CPU workers beside the GPU: one worker of CPU_TEAM threads, or one single-thread worker per core
  mkdir -p "$STARPU_HOME/fat"
  # the schedulers need calibrated models: one pass per CPU-worker layout that runs tasks on both kinds
  # of worker (each layout keeps its own StarPU home: the two CPU task durations differ)
  STARPU_HOME=$STARPU_HOME/fat STARPU_NCPU=1 SQ_CPU_TASK_THREADS=$CPU_TEAM STARPU_SCHED=dmdas STARPU_CALIBRATE=1 \
    proxy hetero_calibration.log 120 $HN 20 all 6 single both $HT
  STARPU_SCHED=dmdas STARPU_CALIBRATE=1 proxy hetero_calibration.log 120 $HN 12 all 6 single both $HT
  for r in $(seq "${SQ_HETERO_REPEAT:-2}"); do
    proxy hetero.log 40 $HN $HS all 6 single gpu $HT
    proxy hetero.log 60 $HN $HSC all 6 single cpu $HT
    STARPU_NCPU=1 SQ_CPU_TASK_THREADS=$(nproc) proxy hetero.log 60 $HN $HSC all 6 single cpu $HT
    for s in dmda dmdas eager lws; do
      STARPU_HOME=$STARPU_HOME/fat STARPU_NCPU=1 SQ_CPU_TASK_THREADS=$CPU_TEAM STARPU_SCHED=$s \
        proxy hetero.log 60 $HN $HS all 6 single both $HT
    done
    for s in dmda dmdas eager lws; do
      STARPU_SCHED=$s proxy hetero.log 60 $HN $HS all 6 single both $HT
    done
  done
  # the ratio: each configuration's median against the sum of the best CPU-alone and the GPU-alone medians
  awk '/^RESULT/ {for (i = 2; i <= NF; ++i) {split($i, kv, "="); v[kv[1]] = kv[2]}
       key = v["workers"] " " v["ncpu"] "x" v["cpu_task_threads"] (v["workers"] == "both" ? " " v["sched"] : "");
       if (!(key in cnt)) order[++n] = key;
       val[key, ++cnt[key]] = v["upd_per_s"]}
       function median(k,   m, i, j, t, a) {m = cnt[k]; for (i = 1; i <= m; ++i) a[i] = val[k, i] + 0;
         for (i = 1; i <= m; ++i) for (j = i + 1; j <= m; ++j) if (a[j] < a[i]) {t = a[i]; a[i] = a[j]; a[j] = t}
         return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2}
       END {for (i = 1; i <= n; ++i) {r = median(order[i]);
              if (order[i] ~ /^cpu/ && r > cpu) {cpu = r; cpukey = order[i]}
              if (order[i] ~ /^gpu/) gpu = r}
            ref = cpu + gpu;
            printf "HETERO cpu alone (best: %s workers x threads) %.4e, gpu alone %.4e, sum %.4e\n", cpukey, cpu, gpu, ref;
            for (i = 1; i <= n; ++i) if (order[i] ~ /^both/)
              printf "HETERO %s (CPU workers x threads, scheduler) median of %d %.4e ratio_to_sum %.3f (target >= 0.9)\n",
                order[i], cnt[order[i]], median(order[i]), median(order[i]) / ref}' \
    "$LOG/hetero.log" > "$LOG/hetero_ratio.txt"
  cat "$LOG/hetero_ratio.txt"
elif [ "$MODE" = small ]; then
  # a 4k-element cluster against the large-cluster rate (target >= 60 %), GTS "all", GPU only,
  # single precision (SQ_SMALL_PREC), orders 2-7: 512k elements in tiles of 262144 (the better of separate ader and local
  # tasks and the fused predictor: the large-cluster rate), and 4 374 elements in one tile of 8192 as
  # whole-step tasks (runtime.fuse_steps), one step per task and SQ_SMALL_STEPS_PER_TASK per task
  # (runtime.steps_per_task), all on 2 CUDA workers (streams) per GPU; then order 4 with 1 and 4 streams
  # and with separate tasks per kernel; last the kernels alone (kernel-chain: no StarPU, the bound)
  SPT=${SQ_SMALL_STEPS_PER_TASK:-16} PREC=${SQ_SMALL_PREC:-single}
  for o in 2 3 4 5 6 7; do
    echo "## streams=2" >> "$LOG/small.log"
    STARPU_NWORKER_PER_CUDA=2 proxy small.log 100 512k 0 all $o $PREC gpu
    echo "## streams=2 fused-predictor" >> "$LOG/small.log"
    STARPU_NWORKER_PER_CUDA=2 SQ_FUSE_PREDICTOR=1 proxy small.log 100 512k 0 all $o $PREC gpu
    echo "## streams=2 whole-steps" >> "$LOG/small.log"
    STARPU_NWORKER_PER_CUDA=2 SQ_FUSE_STEPS=1 SQ_PROXY_SECONDS=1.0 proxy small.log 40 4k 0 all $o $PREC gpu 8192
    echo "## streams=2 whole-steps steps-per-task=$SPT" >> "$LOG/small.log"
    STARPU_NWORKER_PER_CUDA=2 SQ_FUSE_STEPS=1 SQ_STEPS_PER_TASK=$SPT SQ_PROXY_SECONDS=1.0 \
      proxy small.log 40 4k 0 all $o $PREC gpu 8192
  done
  for nw in 1 4; do
    echo "## streams=$nw whole-steps" >> "$LOG/small.log"
    STARPU_NWORKER_PER_CUDA=$nw SQ_FUSE_STEPS=1 SQ_PROXY_SECONDS=1.0 proxy small.log 40 4k 0 all 4 $PREC gpu 8192
  done
  echo "## streams=2 separate-tasks" >> "$LOG/small.log"
  STARPU_NWORKER_PER_CUDA=2 SQ_PROXY_SECONDS=1.0 proxy small.log 40 4k 0 all 4 $PREC gpu 8192
  awk '/^## streams=/ {how = substr($0, 4)}
       /^RESULT/ {for (i = 2; i <= NF; ++i) {split($i, kv, "="); v[kv[1]] = kv[2]}
       if (v["elems"] + 0 > 100000) { if (v["upd_per_s"] + 0 > big[v["order"]] + 0) big[v["order"]] = v["upd_per_s"] } else {
         r = big[v["order"]] > 0 ? v["upd_per_s"] / big[v["order"]] : 0
         printf "SMALL %s order %s elems %s tile %s %s upd/s %.3e large %.3e ratio_to_large %.2f (target >= 0.6)\n",
           v["prec"], v["order"], v["elems"], v["tile"], how, v["upd_per_s"], big[v["order"]], r } }' "$LOG/small.log" > "$LOG/small_ratio.txt"
  if [ -x "$BIN/kernel-chain" ]; then
    SQ_KC_SECONDS=0.2 timeout "$(limit 120)" "$BIN/kernel-chain" 4k,512k 2-7 "$PREC" > "$LOG/kernel_chain.log" 2>&1
    grep '^RATIO' "$LOG/kernel_chain.log" | sed 's/^RATIO/CHAIN (kernels back to back, no StarPU)/' >> "$LOG/small_ratio.txt"
  fi
  cat "$LOG/small_ratio.txt"
elif [ "$MODE" = quick ]; then
  STARPU_NWORKER_PER_CUDA=$O6_STREAMS proxy proxy_o6.log 120 512k 0 all 6 single gpu
elif [ "$MODE" = short ]; then
  STARPU_NWORKER_PER_CUDA=$O6_STREAMS proxy proxy_o6.log 90 512k 0 all,ader,local,neighbor,predict 6 single gpu
  SQ_PROXY_SECONDS=0.25 proxy sweep.log 90 64k 0 all 2-7 single,double gpu
else
  # target: GTS, order 6, single precision, >= 512k elements, GPU only; each kernel alone too
  STARPU_NWORKER_PER_CUDA=$O6_STREAMS proxy proxy_o6.log 120 512k,1M 0 all,ader,local,neighbor,predict 6 single gpu
  # sweep: sizes x orders x precisions, whole GTS step (one call per size: a timeout keeps the rest)
  for n in 1k 8k 64k 512k; do
    SQ_PROXY_SECONDS=0.25 proxy sweep.log 100 $n 0 all 2-7 single,double gpu
  done
  # CPU codelets, order 6 double, all host cores
  proxy cpu.log 45 16k 3 all,ader,local,neighbor 6 double cpu
  # heterogeneous CPU + GPU: schedulers on the same problem, GPU alone for reference; one CPU worker of
  # CPU_TEAM threads (SQ_DEVICE_MODE=hetero calibrates and repeats)
  proxy hetero.log 30 64k 3 all 6 single gpu 1024
  for s in dmda dmdas eager lws; do
    STARPU_SCHED=$s STARPU_NCPU=1 SQ_CPU_TASK_THREADS=$CPU_TEAM proxy hetero.log 40 64k 3 all 6 single both 1024
  done
fi

stamp "done"
{
  echo "== summary ($(date -u +%Y-%m-%dT%H:%MZ), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1))"
  grep PEAK "$LOG/peaks.txt" 2>/dev/null
  if [ "$MODE" != plasticity ]; then
  echo "test_cuda: exit $TEST_RC ($(grep -c 'rel L2' "$LOG/test_cuda.log") comparisons; worst f64 $(grep 'f64  rel L2' "$LOG/test_cuda.log" | awk '{print $(NF)}' | sort -g | tail -n 1), worst f32 $(grep 'f32  rel L2' "$LOG/test_cuda.log" | awk '{print $(NF)}' | sort -g | tail -n 1))"
  grep "bus bytes" "$LOG/test_cuda.log" | head -n 4
  echo "test_cuda_rupture: exit $RUPTURE_RC; worst relative error kernel f64 $(grep '^RUPTURE_ERRORS kernel .* f64' "$LOG/test_cuda_rupture.log" | tr -s ' ' '\n' | grep -E '^[0-9.]+e[-+][0-9]+$' | sort -g | tail -n 1), run f64 $(grep '^RUPTURE_ERRORS run .* f64' "$LOG/test_cuda_rupture.log" | tr -s ' ' '\n' | grep -E '^[0-9.]+e[-+][0-9]+$' | sort -g | tail -n 1), run f32 $(grep '^RUPTURE_ERRORS run .* f32' "$LOG/test_cuda_rupture.log" | tr -s ' ' '\n' | grep -E '^[0-9.]+e[-+][0-9]+$' | sort -g | tail -n 1); faces/s O6 $(sed -n 's/^RUPTURE_THROUGHPUT order=6 prec=\(f[0-9]*\).*gpu_faces_per_s=\([^ ]*\).*/\1 \2/p' "$LOG/test_cuda_rupture.log" | tr '\n' ' ')"
  fi
  echo "test_cuda_plasticity: exit $PLASTICITY_RC; worst relative error kernel f64 $(grep '^PLASTICITY_ERRORS kernel .* f64' "$LOG/test_cuda_plasticity.log" | sed 's/yielded.*//' | tr -s ' ' '\n' | grep -E '^[0-9.]+e[-+][0-9]+$' | sort -g | tail -n 1), kernel f32 $(grep '^PLASTICITY_ERRORS kernel .* f32' "$LOG/test_cuda_plasticity.log" | sed 's/yielded.*//' | tr -s ' ' '\n' | grep -E '^[0-9.]+e[-+][0-9]+$' | sort -g | tail -n 1), run f64 $(grep '^PLASTICITY_ERRORS run .* f64' "$LOG/test_cuda_plasticity.log" | sed 's/yielded.*//' | tr -s ' ' '\n' | grep -E '^[0-9.]+e[-+][0-9]+$' | sort -g | tail -n 1); elements/s O3-O6 $(sed -n 's/^PLASTICITY_THROUGHPUT order=\([3-6]\) prec=\(f[0-9]*\).*gpu_elems_per_s=\([^ ]*\).*/O\1 \2 \3/p' "$LOG/test_cuda_plasticity.log" | tr '\n' ' ')"
  printf "%-8s %-3s %-6s %8s %-4s %-6s %6s %10s %8s %6s %7s %6s %10s %9s\n" kernel O prec elems wrk sched tile "upd/s" GFLOP/s %pk GB/s %bw "bus B/step" "tasks c/g"
  cat "$LOG"/hetero_ratio.txt "$LOG"/small_ratio.txt 2>/dev/null
  grep -hE "PASS|FAIL" "$LOG"/restart_gpu.log 2>/dev/null
  echo "test_gpu_memory.sh: exit $GPUMEM_RC: $(tail -n 1 "$LOG/test_gpu_memory.log")"
  echo "test_blowup.sh: exit $BLOWUP_RC: $(grep -c '^ok' "$LOG/test_blowup.log") of 2 ok"
  cat "$LOG"/proxy_o6.log "$LOG"/sweep.log "$LOG"/cpu.log "$LOG"/hetero.log 2>/dev/null | grep '^RESULT' |
    sed 's/[a-z_]*=//g' | awk '{printf "%-8s %-3s %-6s %8s %-4s %-6s %6s %10.3e %8.1f %6.1f %7.1f %6.1f %10.0f %4s/%-4s\n", $2, $3, $4, $5, $6, $9, $10, $13, $14, $15, $16, $17, $19, $20, $21}'
} > "$LOG/summary.txt"
cat "$LOG/summary.txt"
