# sq_xsmm.m4 -- libxsmm small dense matrix kernels (Debian: libxsmm-dev).
# pkg-config 'libxsmm', else header libxsmm.h + -lxsmm.
# Substitutes LIBXSMM_CFLAGS, LIBXSMM_LIBS.

AC_DEFUN([SQ_XSMM], [
AC_REQUIRE([PKG_PROG_PKG_CONFIG])
AC_ARG_VAR([LIBXSMM_CFLAGS], [C compiler flags for libxsmm, overriding pkg-config])
AC_ARG_VAR([LIBXSMM_LIBS], [linker flags for libxsmm, overriding pkg-config])
if test -z "$LIBXSMM_CFLAGS$LIBXSMM_LIBS"; then
  if test -n "$PKG_CONFIG" && $PKG_CONFIG --exists libxsmm; then
    LIBXSMM_CFLAGS=`$PKG_CONFIG --cflags libxsmm`
    LIBXSMM_LIBS=`$PKG_CONFIG --libs libxsmm`
    sq_xsmm_version=`$PKG_CONFIG --modversion libxsmm`
  else
    LIBXSMM_LIBS="-lxsmm -lpthread -lrt -ldl -lm"
    sq_xsmm_version="(no pkg-config)"
  fi
else
  sq_xsmm_version="(from LIBXSMM_CFLAGS/LIBXSMM_LIBS)"
fi
sq_xsmm_save_CPPFLAGS=$CPPFLAGS
sq_xsmm_save_LIBS=$LIBS
CPPFLAGS="$CPPFLAGS $LIBXSMM_CFLAGS"
LIBS="$LIBXSMM_LIBS $LIBS"
AC_CHECK_HEADER([libxsmm.h], [],
  [AC_MSG_ERROR([libxsmm.h not found: apt-get install libxsmm-dev (or set LIBXSMM_CFLAGS)])])
# Debian ships libxsmm as a static library that calls BLAS for large sizes:
# add libxsmmnoblas (its BLAS stubs, so no run-time libblas) when BLAS is missing.
sq_xsmm_base_LIBS=$LIBXSMM_LIBS
sq_xsmm_noblas=`echo " $LIBXSMM_LIBS " | sed "s/ -lxsmm / -lxsmm -lxsmmnoblas /"`
sq_xsmm_noblas=`echo $sq_xsmm_noblas`
sq_xsmm_ok=no
sq_xsmm_base_LIBS=`echo $sq_xsmm_base_LIBS`
for sq_xsmm_try in "$sq_xsmm_base_LIBS" "$sq_xsmm_noblas" "$sq_xsmm_base_LIBS -lblas"; do
  LIBS="$sq_xsmm_try $sq_xsmm_save_LIBS"
  AC_MSG_CHECKING([whether libxsmm links with $sq_xsmm_try])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <libxsmm.h>]], [[libxsmm_init(); libxsmm_finalize();]])],
    [sq_xsmm_ok=yes], [sq_xsmm_ok=no])
  AC_MSG_RESULT([$sq_xsmm_ok])
  if test "$sq_xsmm_ok" = yes; then
    LIBXSMM_LIBS=`echo $sq_xsmm_try`
    break
  fi
done
if test "$sq_xsmm_ok" != yes; then
  AC_MSG_ERROR([cannot link libxsmm ($sq_xsmm_base_LIBS): apt-get install libxsmm-dev (or set LIBXSMM_LIBS)])
fi
CPPFLAGS=$sq_xsmm_save_CPPFLAGS
LIBS=$sq_xsmm_save_LIBS
AC_SUBST([LIBXSMM_CFLAGS])
AC_SUBST([LIBXSMM_LIBS])
])
