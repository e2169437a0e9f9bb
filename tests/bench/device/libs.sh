# shellcheck shell=bash
# tests/bench/device/libs.sh: sourced; the shared libraries that carried binaries need on a host that lacks
# some of them.
#   sq_libs_collect DEST BIN...  copies every library that `ldd BIN` resolves into DEST, under its soname,
#                                except the C library's own (libc, libm, libpthread, libdl, librt, libutil,
#                                libresolv, the loader), the NVIDIA driver's (libcuda), and those under the
#                                folders of SQ_LIBS_SKIP (colon-separated; default StarPU's prefix
#                                .deps/starpu and /usr/local/cuda, which travel or exist there anyway);
#                                fails when ldd finds a library nowhere
#   sq_libs_link LIBDIR LINKDIR  links into LINKDIR (emptied first) those libraries of LIBDIR that the host's
#                                `ldconfig -p` lacks, and prints their names; LINKDIR then goes on
#                                LD_LIBRARY_PATH, so that the host's own libraries are used wherever it has them
sq_libs_collect() {
  local dest=$1 bin deps line name path skip d keep
  shift
  mkdir -p "$dest"
  for bin in "$@"; do
    deps=$(ldd "$bin") || { echo "sq_libs_collect: ldd $bin failed" >&2; return 1; }
    if grep -q "not found" <<< "$deps"; then
      echo "sq_libs_collect: $bin needs libraries that are nowhere here:" >&2
      grep "not found" <<< "$deps" >&2
      return 1
    fi
    while read -r line; do
      name=${line%% *}
      path=$(sed -n 's/.* => \(\/[^ ]*\) (0x.*/\1/p' <<< "$line")
      [ -n "$path" ] || continue
      case $name in
        libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | libutil.so.* | libresolv.so.* | \
          libanl.so.* | libmvec.so.* | ld-linux*.so.* | libcuda.so.* | libnvidia-*) continue ;;
      esac
      keep=1
      skip=${SQ_LIBS_SKIP:-$(pwd)/.deps/starpu:/usr/local/cuda}
      for d in ${skip//:/ }; do
        d=$(realpath -m "$d")
        case $(realpath -m "$path") in "$d"/*) keep=0 ;; esac
      done
      [ "$keep" = 1 ] && [ ! -e "$dest/$name" ] && cp -L "$path" "$dest/$name"
    done <<< "$deps"
  done
  return 0
}

sq_libs_link() {
  local libdir=$1 linkdir=$2 cache l n
  cache=$(ldconfig -p 2> /dev/null)
  rm -rf "$linkdir"
  mkdir -p "$linkdir"
  for l in "$libdir"/lib*.so.*; do
    [ -e "$l" ] || continue
    n=${l##*/}
    # ldconfig -p lines: "\tlibfoo.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libfoo.so.1"
    if ! awk -v n="$n" '$1 == n && /x86-64/ {found = 1} END {exit !found}' <<< "$cache"; then
      ln -s "$(realpath "$l")" "$linkdir/$n"
      echo "$n"
    fi
  done
  return 0
}
