#!/usr/bin/env bash
# tools/build-starpu.sh PREFIX
#
# Build StarPU 1.3.10 from Debian's own source package, with the CUDA-13 patch,
# and install it (shared libraries only, stripped, no docs/examples/tests) into PREFIX.
#
# Why not Debian's libstarpu-dev: it has no CUDA and hard-codes STARPU_MAXCPUS 4
# (see shared/device/README.md).
#
# Idempotent: does nothing when PREFIX/lib/pkgconfig/starpu-1.3.pc exists and the
# stamp PREFIX/.sq-starpu-stamp holds the same configuration hash (this script,
# the patch, CUDA yes/no and the nvcc version).
#
# Environment:
#   SQ_STARPU_CUDA=auto|yes|no   build with CUDA (default auto: when nvcc is found)
#   CUDA_HOME=DIR                CUDA toolkit root (default: from nvcc on PATH, else /usr/local/cuda)
#   SQ_JOBS=N                    parallel make jobs (default: nproc)
set -euo pipefail

msg() { printf '[build-starpu] %s\n' "$*"; }
die() { printf '[build-starpu] ERROR: %s\n' "$*" >&2; exit 1; }

[ $# -eq 1 ] || { echo "usage: $0 PREFIX" >&2; exit 2; }

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
mkdir -p "$1" || die "cannot create prefix $1"
PREFIX=$(cd "$1" && pwd)
STARPU_VERSION=1.3.10
BUILD_ROOT=$ROOT/.deps/build
SRC_PARENT=$BUILD_ROOT/starpu-src
OBJ_DIR=$BUILD_ROOT/starpu-obj
STAMP=$PREFIX/.sq-starpu-stamp
JOBS=${SQ_JOBS:-$(nproc)}

# --- patch: the shared copy when present, else the committed copy in tools/ ---
PATCH=$ROOT/../shared/device/starpu-1.3.10-cuda13.patch
[ -f "$PATCH" ] || PATCH=$SCRIPT_DIR/starpu-1.3.10-cuda13.patch
[ -f "$PATCH" ] || die "patch not found (looked in ../shared/device/ and tools/)"
PATCH=$(cd "$(dirname "$PATCH")" && pwd)/$(basename "$PATCH")

# --- CUDA: auto-detect nvcc ---
WANT_CUDA=${SQ_STARPU_CUDA:-auto}
CUDA_DIR=
if [ "$WANT_CUDA" != no ]; then
  if [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/nvcc" ]; then
    CUDA_DIR=$CUDA_HOME
  elif command -v nvcc >/dev/null 2>&1; then
    CUDA_DIR=$(cd "$(dirname "$(command -v nvcc)")/.." && pwd)
  elif [ -x /usr/local/cuda/bin/nvcc ]; then
    CUDA_DIR=/usr/local/cuda
  fi
  if [ -z "$CUDA_DIR" ] && [ "$WANT_CUDA" = yes ]; then
    die "SQ_STARPU_CUDA=yes but nvcc was not found (PATH, CUDA_HOME, /usr/local/cuda)"
  fi
fi
if [ -n "$CUDA_DIR" ]; then
  NVCC_VERSION=$("$CUDA_DIR/bin/nvcc" --version | tail -n 1)
  CUDA_DESC="yes ($CUDA_DIR, $NVCC_VERSION)"
else
  NVCC_VERSION=none
  CUDA_DESC=no
fi

# --- configuration hash: rebuild when any input changes ---
HASH=$( { cat "${BASH_SOURCE[0]}" "$PATCH"; echo "cuda=$CUDA_DIR $NVCC_VERSION"; } | sha256sum | cut -c1-16)

if [ -f "$PREFIX/lib/pkgconfig/starpu-1.3.pc" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$HASH" ]; then
  msg "StarPU $STARPU_VERSION already installed in $PREFIX (config $HASH, CUDA: $CUDA_DESC); nothing to do"
  exit 0
fi

msg "building StarPU $STARPU_VERSION into $PREFIX (config $HASH)"
msg "CUDA: $CUDA_DESC"
msg "patch: $PATCH"
msg "build dir: $BUILD_ROOT"

# --- prerequisites (quickstart installs them; here we only check) ---
need() { command -v "$1" >/dev/null 2>&1 || die "'$1' not found: apt-get install $2"; }
need apt-get apt
need dpkg-source dpkg-dev
need patch patch
need make build-essential
need gcc build-essential
need pkg-config pkg-config
need mpicc "libopenmpi-dev openmpi-bin"
pkg-config --exists hwloc || die "hwloc not found by pkg-config: apt-get install libhwloc-dev"

mkdir -p "$BUILD_ROOT"

# --- source: Debian's starpu source package, cached under .deps/build ---
find_src() { [ -d "$SRC_PARENT" ] && find "$SRC_PARENT" -mindepth 1 -maxdepth 1 -type d -name "starpu-${STARPU_VERSION}*" | sort | head -n 1 || true; }
SRC=$(find_src)
if [ -z "$SRC" ] || [ ! -x "$SRC/configure" ]; then
  # enable deb-src entries if none are configured yet
  if ! grep -Eqs '^(Types:.*deb-src|deb-src[[:space:]])' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; then
    [ "$(id -u)" -eq 0 ] || die "no deb-src entries in apt sources and not root; run as root, or add deb-src lines and 'apt-get update' yourself"
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      msg "enabling deb-src: /etc/apt/sources.list.d/debian-src.sources (deb822)"
      sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > /etc/apt/sources.list.d/debian-src.sources
    elif grep -Eqs '^deb[[:space:]]' /etc/apt/sources.list; then
      msg "enabling deb-src: /etc/apt/sources.list.d/debian-src.list (classic)"
      sed -n 's/^deb\([[:space:]]\)/deb-src\1/p' /etc/apt/sources.list > /etc/apt/sources.list.d/debian-src.list
    else
      die "cannot find Debian apt sources (/etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list) to derive deb-src from"
    fi
    msg "apt-get update"
    apt-get update -q >"$BUILD_ROOT/apt-update.log" 2>&1 || { tail -n 20 "$BUILD_ROOT/apt-update.log" >&2; die "apt-get update failed (log: $BUILD_ROOT/apt-update.log)"; }
  fi
  msg "apt-get source starpu"
  rm -rf "$SRC_PARENT"
  mkdir -p "$SRC_PARENT"
  (cd "$SRC_PARENT" && apt-get source -q starpu) >"$BUILD_ROOT/apt-source.log" 2>&1 \
    || { tail -n 20 "$BUILD_ROOT/apt-source.log" >&2; die "apt-get source starpu failed (log: $BUILD_ROOT/apt-source.log)"; }
  SRC=$(find_src)
  [ -n "$SRC" ] && [ -x "$SRC/configure" ] \
    || die "apt-get source did not give a starpu-$STARPU_VERSION tree in $SRC_PARENT (this script needs Debian bookworm's starpu $STARPU_VERSION)"
fi
msg "source: $SRC"

# --- CUDA-13 patch (applied once; marker records which patch) ---
PATCH_SUM=$(sha256sum "$PATCH" | cut -c1-16)
if [ "$(cat "$SRC/.sq-patched" 2>/dev/null)" != "$PATCH_SUM" ]; then
  [ -f "$SRC/.sq-patched" ] && die "$SRC carries a different patch; remove $SRC_PARENT and retry"
  msg "applying $(basename "$PATCH")"
  (cd "$SRC" && patch -p1 --forward < "$PATCH") || die "patch did not apply to $SRC"
  echo "$PATCH_SUM" > "$SRC/.sq-patched"
fi

# --- configure (always from a clean object dir: inputs changed if we got here) ---
rm -rf "$OBJ_DIR"
mkdir -p "$OBJ_DIR"
CONF_ARGS=(--prefix="$PREFIX"
  --enable-mpi --disable-opencl --disable-build-doc --disable-build-examples --disable-build-tests
  --disable-fortran --disable-starpufft --disable-socl --disable-opengl-render
  --enable-maxcpus=128 --enable-maxcudadev=8 --disable-static)
if [ -n "$CUDA_DIR" ]; then
  # LDFLAGS rpath: libstarpu finds libcudart/libcublas by itself, without LD_LIBRARY_PATH
  CONF_ARGS+=(--enable-cuda --with-cuda-dir="$CUDA_DIR" ac_cv_lib_cusparse_cusparseCreate=no
    LDFLAGS="-Wl,-rpath,$CUDA_DIR/lib64")
  # configure runs a test program linked to libcudart
  export LD_LIBRARY_PATH=$CUDA_DIR/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
else
  CONF_ARGS+=(--disable-cuda)
fi
CONF_ARGS+=(CFLAGS="-O2 -Wno-deprecated-declarations")

run_logged() { # name, command...
  local name=$1; shift
  local log=$BUILD_ROOT/starpu-$name.log
  msg "$name (log: $log)"
  if ! (cd "$OBJ_DIR" && "$@") >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    die "StarPU $name failed; full log: $log"
  fi
}
T0=$(date +%s)
run_logged configure "$SRC/configure" "${CONF_ARGS[@]}"
run_logged make make -j"$JOBS"

# --- install: only wipe the prefix when it is our own cache under .deps ---
case "$PREFIX/" in
  "$ROOT/.deps/"?*) rm -rf "$PREFIX"; mkdir -p "$PREFIX" ;;
esac
run_logged install make install-strip
# keep the install slim: libtool archives and docs are not needed
find "$PREFIX/lib" -name '*.la' -delete
rm -rf "$PREFIX/share/doc" "$PREFIX/share/man" "$PREFIX/share/info"

[ -f "$PREFIX/lib/pkgconfig/starpu-1.3.pc" ] || die "install did not produce $PREFIX/lib/pkgconfig/starpu-1.3.pc"
if [ -n "$CUDA_DIR" ]; then
  grep -q '^#define STARPU_USE_CUDA 1' "$PREFIX/include/starpu/1.3/starpu_config.h" \
    || die "StarPU was built without CUDA although nvcc was found; see $BUILD_ROOT/starpu-configure.log"
fi
echo "$HASH" > "$STAMP"
msg "done in $(( $(date +%s) - T0 )) s; installed size $(du -sh "$PREFIX" | cut -f1) in $PREFIX"
