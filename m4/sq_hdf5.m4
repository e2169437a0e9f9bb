# sq_hdf5.m4 -- HDF5 (serial for now).
#
# Order: HDF5_CFLAGS/HDF5_LIBS from the environment, pkg-config 'hdf5',
# 'h5cc -show', then Debian's serial layout (/usr/include/hdf5/serial, -lhdf5_serial).
# Substitutes HDF5_CFLAGS, HDF5_LIBS; sets sq_hdf5_desc for the summary.

AC_DEFUN([SQ_HDF5_TRY], [
sq_hdf5_save_CPPFLAGS=$CPPFLAGS
sq_hdf5_save_LIBS=$LIBS
CPPFLAGS="$CPPFLAGS $HDF5_CFLAGS"
LIBS="$HDF5_LIBS $LIBS"
AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <hdf5.h>]], [[return H5open() < 0;]])],
  [sq_hdf5_ok=yes], [sq_hdf5_ok=no])
CPPFLAGS=$sq_hdf5_save_CPPFLAGS
LIBS=$sq_hdf5_save_LIBS
])

AC_DEFUN([SQ_HDF5], [
AC_REQUIRE([PKG_PROG_PKG_CONFIG])
AC_ARG_VAR([HDF5_CFLAGS], [C compiler flags for HDF5, overriding pkg-config])
AC_ARG_VAR([HDF5_LIBS], [linker flags for HDF5, overriding pkg-config])
AC_ARG_VAR([H5CC], [HDF5 compiler wrapper, used when pkg-config has no 'hdf5'])
sq_hdf5_ok=no
AC_MSG_CHECKING([for HDF5])
if test -n "$HDF5_CFLAGS$HDF5_LIBS"; then
  test -n "$HDF5_LIBS" || HDF5_LIBS=-lhdf5
  SQ_HDF5_TRY
  sq_hdf5_desc="from HDF5_CFLAGS/HDF5_LIBS"
fi
if test "$sq_hdf5_ok" = no && test -n "$PKG_CONFIG" && $PKG_CONFIG --exists hdf5; then
  HDF5_CFLAGS=`$PKG_CONFIG --cflags hdf5`
  HDF5_LIBS=`$PKG_CONFIG --libs hdf5`
  SQ_HDF5_TRY
  sq_hdf5_desc="pkg-config hdf5 `$PKG_CONFIG --modversion hdf5`"
fi
if test "$sq_hdf5_ok" = no; then
  test -n "$H5CC" || H5CC=`command -v h5cc 2>/dev/null`
  if test -n "$H5CC" && sq_hdf5_show=`$H5CC -show 2>/dev/null`; then
    HDF5_CFLAGS=
    HDF5_LIBS=
    set dummy $sq_hdf5_show; shift; shift   # drop the compiler name
    for sq_hdf5_arg; do
      case "$sq_hdf5_arg" in
        -I*|-D*) HDF5_CFLAGS="$HDF5_CFLAGS $sq_hdf5_arg" ;;
        -L*|-l*|*.a|*.so|-Wl,*|-pthread) HDF5_LIBS="$HDF5_LIBS $sq_hdf5_arg" ;;
      esac
    done
    SQ_HDF5_TRY
    sq_hdf5_desc="$H5CC -show"
  fi
fi
if test "$sq_hdf5_ok" = no && test -f /usr/include/hdf5/serial/hdf5.h; then
  HDF5_CFLAGS=-I/usr/include/hdf5/serial
  HDF5_LIBS=-lhdf5_serial
  SQ_HDF5_TRY
  sq_hdf5_desc="Debian serial layout"
fi
AC_MSG_RESULT([$sq_hdf5_ok])
if test "$sq_hdf5_ok" = no; then
  AC_MSG_ERROR([HDF5 not found: apt-get install libhdf5-dev (or set HDF5_CFLAGS/HDF5_LIBS)])
fi
AC_SUBST([HDF5_CFLAGS])
AC_SUBST([HDF5_LIBS])
])
