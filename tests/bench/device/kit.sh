#!/usr/bin/env bash
# tests/bench/device/kit.sh [DEST]: here, on the development machine, make what tests/bench/device/build.sh
# needs to build the CUDA tree on the GPU host (16 cores, CUDA, gcc, Open MPI and serial HDF5, but none of
# StarPU's hwloc, libyaml, METIS, Lua, netCDF, FFTW, Check, libxsmm or parallel HDF5), into DEST (default
# .deps/kit, which the device tool carries beside .deps/starpu):
#   src.tar.xz      the working tree as it is: the files of HEAD with their uncommitted changes and the
#                   untracked files git does not ignore, plus the autotools output (configure, Makefile.in,
#                   aclocal.m4, build-aux/: the host has no autotools) and .commit (`git describe --dirty`,
#                   what `starquake --version` prints)
#   sysroot.tar.xz  the -dev packages the build needs (apt-get download, dpkg -x: headers, pkg-config files,
#                   link names, libxsmm's and Check's static libraries, pkgconf for a host without
#                   pkg-config) and, under their sonames beside them, the shared libraries that this tree's
#                   programs load (tests/bench/device/libs.sh: `ldd starquake starquake-proxy`, plus
#                   SQ_KIT_EXTRA_LIBS, default libsubunit.so.0 for the Check tests); the link names point
#                   at those, and link names of libraries nobody loads are dropped
# Needs a built tree (CPU-only is enough: the libraries are the same, CUDA's aside).  The .debs are kept in
# .deps/kit-debs.  Prints the sizes; what travels must stay under 64 MiB with .deps/starpu.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$ROOT"
. tests/bench/device/libs.sh
DEST=$(realpath -m "${1:-.deps/kit}")
DEBS=.deps/kit-debs
PKGS="libyaml-dev libmetis-dev libhwloc-dev liblua5.4-dev libnetcdf-dev libfftw3-dev check libsubunit-dev
  libhdf5-openmpi-dev libopenmpi-dev libxsmm-dev pkgconf-bin libpkgconf3"
for f in starquake starquake-proxy configure Makefile.in aclocal.m4 build-aux; do
  [ -e "$f" ] || { echo "kit.sh: no $f here: ./autogen.sh, ./configure and make first" >&2; exit 1; }
done
stale=$(find configure.ac m4 -newer configure -name '*.m4' -o -newer configure -name configure.ac)
stale+=$(find . -name '*.am' -newer Makefile.in -not -path './.deps/*')
[ -z "$stale" ] || { echo "kit.sh: configure or Makefile.in is older than $stale: run ./autogen.sh" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$DEST"

# the source: tracked (as in the working tree) and untracked-not-ignored files, and the autotools output
git describe --always --dirty --abbrev=12 > "$T/.commit"
{
  git ls-files -co --exclude-standard | while IFS= read -r f; do [ -f "$f" ] && echo "$f"; done
  echo configure; echo Makefile.in; echo aclocal.m4; echo build-aux
  [ -f config.h.in ] && echo config.h.in
} > "$T/files"
tar -cf "$T/src.tar" -T "$T/files"
tar -rf "$T/src.tar" -C "$T" .commit
xz -T"${SQ_JOBS:-2}" -6 -c "$T/src.tar" > "$T/src.tar.xz"
mv "$T/src.tar.xz" "$DEST/src.tar.xz"

# the sysroot: the -dev packages, pruned
mkdir -p "$DEBS"
# shellcheck disable=SC2086
(cd "$DEBS" && for p in $PKGS; do ls "${p}"_*.deb > /dev/null 2>&1 || apt-get download -q "$p"; done)
S=$T/sysroot
mkdir -p "$S"
for p in $PKGS; do dpkg -x "$(ls "$DEBS/${p}"_*.deb | tail -n 1)" "$S"; done
rm -rf "$S/usr/share/doc" "$S/usr/share/man" "$S/usr/share/lintian" "$S/usr/share/info"
find "$S/usr/bin" -mindepth 1 -not -name pkgconf -delete
find "$S" -name '*.a' -not -name 'libxsmm.a' -not -name 'libxsmmnoblas.a' -not -name 'libcheck_pic.a' -delete
find "$S" \( -name '*.mod' -o -name '*.f90' -o -name '*.f' \) -exec rm -f {} +
# the shared libraries the programs load, under their sonames, in the multiarch folder
LIBDIR=$S/usr/lib/x86_64-linux-gnu
sq_libs_collect "$LIBDIR" starquake starquake-proxy
cache=$(ldconfig -p)
for n in ${SQ_KIT_EXTRA_LIBS:-libsubunit.so.0}; do
  p=$(awk -v n="$n" '$1 == n && /x86-64/ {print $NF; exit}' <<< "$cache")
  [ -n "$p" ] || { echo "kit.sh: $n is not installed here" >&2; exit 1; }
  cp -L "$p" "$LIBDIR/$n"
  sq_libs_collect "$LIBDIR" "$p"
done
# the link names (libfoo.so -> libfoo.so.1.2.3 of the runtime package, not carried) point at the sonames
find "$S" -type l -name '*.so' | while IFS= read -r l; do
  [ -e "$l" ] && continue
  sys=/${l#"$S"/}
  soname=$(objdump -p "$(realpath "$sys")" 2> /dev/null | awk '$1 == "SONAME" {print $2}')
  if [ -n "$soname" ] && [ -f "$LIBDIR/$soname" ]; then
    ln -sfn "$(realpath --relative-to="$(dirname "$l")" "$LIBDIR/$soname")" "$l"
  else
    rm -f "$l"
  fi
done
find "$S" -xtype l -delete
tar -C "$T" -cf - sysroot | xz -T"${SQ_JOBS:-2}" -6 > "$T/sysroot.tar.xz"
mv "$T/sysroot.tar.xz" "$DEST/sysroot.tar.xz"
cp tests/bench/device/build.sh "$DEST/"
du -b "$DEST"/* | awk '{printf "kit.sh: %-40s %6.1f MiB\n", $2, $1 / 1048576}'
du -cbL "$DEST" .deps/starpu | tail -n 1 | awk '{printf "kit.sh: with .deps/starpu %.1f MiB (limit 64 MiB with the working tree)\n", $1 / 1048576}'
echo "kit.sh: on the GPU host: carry [\".deps/starpu\", \".deps/kit\"], command \"bash tests/bench/device/build.sh\""
