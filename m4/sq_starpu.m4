# sq_starpu.m4 -- StarPU 1.3 (pkg-config modules starpu-1.3 and starpumpi-1.3).
#
# --with-starpu=PREFIX puts PREFIX/lib/pkgconfig first on PKG_CONFIG_PATH
# (./quickstart and tools/build-starpu.sh use PREFIX=.deps/starpu).
# Substitutes:
#   STARPU_CFLAGS    -I flags + -Wno-deprecated-declarations (StarPU's headers pull in
#                    deprecated cusparse declarations)
#   STARPU_CPPFLAGS  the -I flags only (for nvcc, which rejects gcc warning flags)
#   STARPU_LIBS      -L/-l flags + -Wl,-rpath,LIBDIR (no LD_LIBRARY_PATH needed at run time)
#   STARPU_MPI_CFLAGS, STARPU_MPI_LIBS   same for starpumpi-1.3 (includes STARPU_LIBS)
#   STARPU_PREFIX, STARPU_VERSION
# Sets sq_starpu_cuda=yes|no: whether this StarPU was built with CUDA workers.

AC_DEFUN([SQ_STARPU], [
AC_REQUIRE([PKG_PROG_PKG_CONFIG])
AC_ARG_WITH([starpu],
  [AS_HELP_STRING([--with-starpu=PREFIX],
    [StarPU 1.3 installation prefix (build one with tools/build-starpu.sh PREFIX; default: search PKG_CONFIG_PATH)])],
  [], [with_starpu=check])
case "$with_starpu" in
  no) AC_MSG_ERROR([StarPU is required; --without-starpu is not supported]) ;;
  yes|check) ;;
  *)
    if test ! -f "$with_starpu/lib/pkgconfig/starpu-1.3.pc"; then
      AC_MSG_ERROR([--with-starpu=$with_starpu: no $with_starpu/lib/pkgconfig/starpu-1.3.pc there.
Build StarPU 1.3.10 into it with: tools/build-starpu.sh $with_starpu (or run ./quickstart)])
    fi
    PKG_CONFIG_PATH="$with_starpu/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    export PKG_CONFIG_PATH
    ;;
esac
PKG_CHECK_MODULES([STARPU], [starpu-1.3 >= 1.3.10], [],
  [AC_MSG_ERROR([StarPU 1.3 (pkg-config module starpu-1.3) not found: $STARPU_PKG_ERRORS
Build it with 'tools/build-starpu.sh .deps/starpu' and pass --with-starpu=$PWD/.deps/starpu
(Debian's libstarpu-dev works for CPU-only builds, but has no CUDA and at most 4 CPU workers)])])
PKG_CHECK_MODULES([STARPU_MPI], [starpumpi-1.3 >= 1.3.10], [],
  [AC_MSG_ERROR([StarPU-MPI (pkg-config module starpumpi-1.3) not found: $STARPU_MPI_PKG_ERRORS
Rebuild StarPU with --enable-mpi (tools/build-starpu.sh does)])])
STARPU_VERSION=`$PKG_CONFIG --modversion starpu-1.3`
STARPU_PREFIX=`$PKG_CONFIG --variable=prefix starpu-1.3`
sq_starpu_libdir=`$PKG_CONFIG --variable=libdir starpu-1.3`
STARPU_CPPFLAGS=`$PKG_CONFIG --cflags-only-I starpu-1.3`
STARPU_CFLAGS="$STARPU_CFLAGS -Wno-deprecated-declarations"
STARPU_MPI_CFLAGS="$STARPU_MPI_CFLAGS -Wno-deprecated-declarations"
case "$sq_starpu_libdir" in
  /usr/lib|/usr/lib64|/usr/lib/*-linux-gnu|"") ;;
  *)
    STARPU_LIBS="$STARPU_LIBS -Wl,-rpath,$sq_starpu_libdir"
    STARPU_MPI_LIBS="$STARPU_MPI_LIBS -Wl,-rpath,$sq_starpu_libdir"
    ;;
esac

sq_starpu_save_CPPFLAGS=$CPPFLAGS
sq_starpu_save_LIBS=$LIBS
CPPFLAGS="$CPPFLAGS $STARPU_CFLAGS"
LIBS="$STARPU_LIBS $LIBS"
AC_MSG_CHECKING([whether a StarPU program links])
AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <starpu.h>]], [[return starpu_init(0);]])],
  [AC_MSG_RESULT([yes])],
  [AC_MSG_RESULT([no])
   AC_MSG_ERROR([cannot build a program with StarPU from $STARPU_PREFIX (STARPU_CFLAGS=$STARPU_CFLAGS STARPU_LIBS=$STARPU_LIBS); see config.log])])
AC_MSG_CHECKING([whether StarPU has CUDA workers])
AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <starpu.h>
#ifndef STARPU_USE_CUDA
#error no CUDA
#endif]], [])], [sq_starpu_cuda=yes], [sq_starpu_cuda=no])
AC_MSG_RESULT([$sq_starpu_cuda])
AC_COMPUTE_INT([sq_starpu_maxcpus], [STARPU_MAXCPUS], [[#include <starpu.h>]], [sq_starpu_maxcpus=unknown])
AC_COMPUTE_INT([sq_starpu_nmaxbufs], [STARPU_NMAXBUFS], [[#include <starpu.h>]], [sq_starpu_nmaxbufs=unknown])
CPPFLAGS=$sq_starpu_save_CPPFLAGS
LIBS=$sq_starpu_save_LIBS
if test "$sq_starpu_maxcpus" != unknown && test "$sq_starpu_maxcpus" -lt 16; then
  AC_MSG_WARN([StarPU in $STARPU_PREFIX allows only $sq_starpu_maxcpus CPU workers; build your own with tools/build-starpu.sh])
fi
AC_SUBST([STARPU_CPPFLAGS])
AC_SUBST([STARPU_PREFIX])
AC_SUBST([STARPU_VERSION])
])
