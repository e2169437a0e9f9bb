# sq_mpi.m4 -- MPI: the whole project is compiled and linked with mpicc.
#
# SQ_MPI_CC (call before AC_PROG_CC): when the user did not set CC, look for an
#   MPI C wrapper (MPICC, default mpicc) and make it CC; fail when none exists.
# SQ_MPI (call after AC_PROG_CC): check that $CC builds MPI programs. When CC
#   is not a wrapper, take the flags from pkg-config (ompi-c, mpi-c, mpich).
#   Substitutes MPI_CFLAGS, MPI_LIBS (empty when CC is a wrapper) and MPIRUN.

AC_DEFUN([SQ_MPI_CC], [
AC_BEFORE([$0], [AC_PROG_CC])
AC_ARG_VAR([MPICC], [MPI C compiler wrapper used as CC (default: mpicc)])
if test -z "$CC"; then
  AC_PATH_PROGS([MPICC], [mpicc mpicc.openmpi], [])
  if test -z "$MPICC"; then
    AC_MSG_ERROR([mpicc not found: install it with 'apt-get install libopenmpi-dev openmpi-bin' (or set CC/MPICC)])
  fi
  CC=$MPICC
fi
])

AC_DEFUN([SQ_MPI], [
AC_REQUIRE([AC_PROG_CC])
AC_REQUIRE([PKG_PROG_PKG_CONFIG])
AC_ARG_VAR([MPI_CFLAGS], [C compiler flags for MPI (not needed when CC is mpicc)])
AC_ARG_VAR([MPI_LIBS], [linker flags for MPI (not needed when CC is mpicc)])
sq_mpi_save_CFLAGS=$CFLAGS
sq_mpi_save_LIBS=$LIBS
CFLAGS="$CFLAGS $MPI_CFLAGS"
LIBS="$MPI_LIBS $LIBS"
AC_MSG_CHECKING([whether $CC builds MPI programs])
AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]], [[MPI_Init(0, 0); MPI_Finalize();]])],
  [sq_mpi_ok=yes], [sq_mpi_ok=no])
AC_MSG_RESULT([$sq_mpi_ok])
CFLAGS=$sq_mpi_save_CFLAGS
LIBS=$sq_mpi_save_LIBS
if test "$sq_mpi_ok" = no && test -z "$MPI_CFLAGS$MPI_LIBS"; then
  for sq_mpi_pc in ompi-c mpi-c mpich; do
    if test -n "$PKG_CONFIG" && $PKG_CONFIG --exists $sq_mpi_pc; then
      MPI_CFLAGS=`$PKG_CONFIG --cflags $sq_mpi_pc`
      MPI_LIBS=`$PKG_CONFIG --libs $sq_mpi_pc`
      CFLAGS="$CFLAGS $MPI_CFLAGS"
      LIBS="$MPI_LIBS $LIBS"
      AC_MSG_CHECKING([whether $CC builds MPI programs with pkg-config $sq_mpi_pc flags])
      AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]], [[MPI_Init(0, 0); MPI_Finalize();]])],
        [sq_mpi_ok=yes], [sq_mpi_ok=no])
      AC_MSG_RESULT([$sq_mpi_ok])
      CFLAGS=$sq_mpi_save_CFLAGS
      LIBS=$sq_mpi_save_LIBS
      test "$sq_mpi_ok" = yes && break
      MPI_CFLAGS=
      MPI_LIBS=
    fi
  done
fi
if test "$sq_mpi_ok" != yes; then
  AC_MSG_ERROR([$CC cannot build MPI programs: install 'apt-get install libopenmpi-dev openmpi-bin' and use CC=mpicc (the default)])
fi
AC_PATH_PROGS([MPIRUN], [mpirun mpiexec], [])
AC_ARG_VAR([MPIRUN], [MPI launcher used by the MPI tests (default: mpirun)])
if test -z "$MPIRUN"; then
  AC_MSG_WARN([mpirun not found: MPI tests will be skipped (apt-get install openmpi-bin)])
  sq_mpi_version="unknown"
else
  sq_mpi_version=`$MPIRUN --version 2>/dev/null | sed -n '1s/^[[^(]]*(\(.*\)) */\1 /p'`
  test -n "$sq_mpi_version" || sq_mpi_version=`$MPIRUN --version 2>/dev/null | head -n 1`
fi
AC_SUBST([MPI_CFLAGS])
AC_SUBST([MPI_LIBS])
AC_SUBST([MPIRUN])
])
