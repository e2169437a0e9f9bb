# tests/bench/device/env.sh: sourced by the GPU-host scripts (run from the repository root): the carried
# StarPU and libraries on the library path (the serial-HDF5 fallback only where the host lacks it),
# ROOT and CARRY, and a StarPU home for the perf models.  The scripts then set their own workers.
ROOT=$(pwd)
CARRY=$ROOT/.deps/carry
export LD_LIBRARY_PATH=$ROOT/.deps/starpu/lib:$CARRY/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
ldd "$CARRY/bin/starquake" | grep -q "not found" && export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$CARRY/lib-fallback
export STARPU_HOME=${STARPU_HOME:-/tmp/sq-starpu-home} STARPU_SILENT=1
mkdir -p "$STARPU_HOME"
