# shellcheck shell=bash disable=SC2034
# tests/bench/device/env.sh: sourced by the GPU-host scripts (run from the repository root): ROOT and CARRY,
# the carried binaries unpacked (.deps/carry/carry.tar.xz from tests/bench/device/prepare.sh into
# .deps/carry/bin and .deps/carry/lib, once per new archive; a tree that tests/bench/device/build.sh built
# there has them already), those carried libraries that the host's `ldconfig -p` lacks linked into
# .deps/carry/uselib (tests/bench/device/libs.sh), the carried StarPU and those on the library path, and a
# StarPU home for the perf models.  SQ_CARRY names another carry folder.  The scripts then set their own
# workers.
ROOT=$(pwd)
CARRY=$(realpath -m "${SQ_CARRY:-$ROOT/.deps/carry}")
. "$ROOT/tests/bench/device/libs.sh"
if [ -f "$CARRY/carry.tar.xz" ] && [ "$CARRY/carry.tar.xz" -nt "$CARRY/.unpacked" ]; then
  rm -rf "${CARRY:?}/bin" "${CARRY:?}/lib"
  tar -xJf "$CARRY/carry.tar.xz" -C "$CARRY" && touch "$CARRY/.unpacked"
fi
SQ_HOST_MISSING_LIBS=$(sq_libs_link "$CARRY/lib" "$CARRY/uselib" | tr '\n' ' ')
export LD_LIBRARY_PATH=$ROOT/.deps/starpu/lib:$CARRY/uselib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export STARPU_HOME=${STARPU_HOME:-/tmp/sq-starpu-home} STARPU_SILENT=1
mkdir -p "$STARPU_HOME"
