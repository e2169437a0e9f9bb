# sq_hdf5.m4 -- parallel HDF5 (the MPI-IO build): under MPI every rank writes its own rows of the
# output files (io/h5io.c), so a serial HDF5 is refused rather than silently falling back.
#
# Order: HDF5_CFLAGS/HDF5_LIBS from the environment, pkg-config 'hdf5-openmpi' (Debian's
# libhdf5-openmpi-dev), pkg-config 'hdf5' when it is a parallel build, 'h5pcc -show', then Debian's
# Open MPI layout (/usr/include/hdf5/openmpi, /usr/lib/<triplet>/hdf5/openmpi).  A candidate must
# link and define H5_HAVE_PARALLEL.
# Substitutes HDF5_CFLAGS, HDF5_LIBS; sets sq_hdf5_desc (version, "parallel (MPI-IO)", origin) for
# the summary.

# SQ_HDF5_TRY: sq_hdf5_ok=yes when HDF5_CFLAGS/HDF5_LIBS link; sq_hdf5_parallel=yes when that HDF5
# is a parallel build.
AC_DEFUN([SQ_HDF5_TRY], [
sq_hdf5_save_CPPFLAGS=$CPPFLAGS
sq_hdf5_save_LIBS=$LIBS
CPPFLAGS="$CPPFLAGS $HDF5_CFLAGS"
LIBS="$HDF5_LIBS $LIBS"
AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <hdf5.h>]], [[return H5open() < 0;]])],
  [sq_hdf5_ok=yes], [sq_hdf5_ok=no])
sq_hdf5_parallel=no
if test "$sq_hdf5_ok" = yes; then
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <hdf5.h>
#ifndef H5_HAVE_PARALLEL
#error serial HDF5
#endif]], [[hid_t p = H5Pcreate(H5P_FILE_ACCESS); return H5Pset_fapl_mpio(p, MPI_COMM_WORLD, MPI_INFO_NULL) < 0;]])],
    [sq_hdf5_parallel=yes])
fi
CPPFLAGS=$sq_hdf5_save_CPPFLAGS
LIBS=$sq_hdf5_save_LIBS
])

AC_DEFUN([SQ_HDF5], [
AC_REQUIRE([PKG_PROG_PKG_CONFIG])
AC_ARG_VAR([HDF5_CFLAGS], [C compiler flags for parallel HDF5, overriding pkg-config])
AC_ARG_VAR([HDF5_LIBS], [linker flags for parallel HDF5, overriding pkg-config])
AC_ARG_VAR([H5PCC], [parallel HDF5 compiler wrapper, used when pkg-config has no parallel HDF5])
sq_hdf5_ok=no
sq_hdf5_parallel=no
sq_hdf5_serial_seen=
AC_MSG_CHECKING([for parallel HDF5])
if test -n "$HDF5_CFLAGS$HDF5_LIBS"; then
  test -n "$HDF5_LIBS" || HDF5_LIBS=-lhdf5
  SQ_HDF5_TRY
  sq_hdf5_desc="from HDF5_CFLAGS/HDF5_LIBS"
  if test "$sq_hdf5_parallel" = no; then
    AC_MSG_RESULT([no])
    AC_MSG_ERROR([HDF5_CFLAGS/HDF5_LIBS ($HDF5_CFLAGS $HDF5_LIBS) do not give a parallel (MPI-IO) HDF5: starquake needs the MPI build, e.g. HDF5_CFLAGS=-I/usr/include/hdf5/openmpi HDF5_LIBS="-L/usr/lib/x86_64-linux-gnu/hdf5/openmpi -lhdf5" (apt-get install libhdf5-openmpi-dev)])
  fi
fi
for sq_hdf5_pc in hdf5-openmpi hdf5; do
  test "$sq_hdf5_parallel" = no || break
  test -n "$PKG_CONFIG" && $PKG_CONFIG --exists $sq_hdf5_pc || continue
  HDF5_CFLAGS=`$PKG_CONFIG --cflags $sq_hdf5_pc`
  HDF5_LIBS=`$PKG_CONFIG --libs $sq_hdf5_pc`
  SQ_HDF5_TRY
  sq_hdf5_desc="pkg-config $sq_hdf5_pc"
  test "$sq_hdf5_ok" = yes && test "$sq_hdf5_parallel" = no && sq_hdf5_serial_seen="pkg-config $sq_hdf5_pc"
done
if test "$sq_hdf5_parallel" = no; then
  test -n "$H5PCC" || H5PCC=`command -v h5pcc 2>/dev/null`
  if test -n "$H5PCC" && sq_hdf5_show=`$H5PCC -show 2>/dev/null`; then
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
    sq_hdf5_desc="$H5PCC -show"
  fi
fi
if test "$sq_hdf5_parallel" = no && test -f /usr/include/hdf5/openmpi/hdf5.h; then
  sq_hdf5_triplet=`dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu`
  HDF5_CFLAGS=-I/usr/include/hdf5/openmpi
  HDF5_LIBS="-L/usr/lib/$sq_hdf5_triplet/hdf5/openmpi -lhdf5"
  SQ_HDF5_TRY
  sq_hdf5_desc="Debian Open MPI layout"
fi
AC_MSG_RESULT([$sq_hdf5_parallel])
if test "$sq_hdf5_parallel" = no; then
  if test -n "$sq_hdf5_serial_seen"; then
    AC_MSG_ERROR([only a serial HDF5 was found ($sq_hdf5_serial_seen); starquake writes its files with parallel HDF5 under MPI: apt-get install libhdf5-openmpi-dev (or set HDF5_CFLAGS/HDF5_LIBS to an MPI build)])
  fi
  AC_MSG_ERROR([parallel HDF5 not found: apt-get install libhdf5-openmpi-dev (or set HDF5_CFLAGS/HDF5_LIBS to an MPI build of HDF5)])
fi
# the version, for the summary (read from the headers: no program is run)
sq_hdf5_save_CPPFLAGS=$CPPFLAGS
CPPFLAGS="$CPPFLAGS $HDF5_CFLAGS"
AC_COMPUTE_INT([sq_hdf5_major], [H5_VERS_MAJOR], [[#include <hdf5.h>]], [sq_hdf5_major=?])
AC_COMPUTE_INT([sq_hdf5_minor], [H5_VERS_MINOR], [[#include <hdf5.h>]], [sq_hdf5_minor=?])
AC_COMPUTE_INT([sq_hdf5_release], [H5_VERS_RELEASE], [[#include <hdf5.h>]], [sq_hdf5_release=?])
CPPFLAGS=$sq_hdf5_save_CPPFLAGS
sq_hdf5_desc="$sq_hdf5_major.$sq_hdf5_minor.$sq_hdf5_release parallel (MPI-IO), $sq_hdf5_desc: "`echo $HDF5_LIBS`
AC_SUBST([HDF5_CFLAGS])
AC_SUBST([HDF5_LIBS])
])
