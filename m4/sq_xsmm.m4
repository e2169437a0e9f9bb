# sq_xsmm.m4 -- libxsmm small dense matrix kernels (Debian: libxsmm-dev), JIT-compiled at run time
# for the host CPU (AVX2, AVX-512) while the rest of the binary stays portable (x86-64-v2).
#
# --with-libxsmm forces it (error when missing), --without-libxsmm turns it off (the element
# kernels then run their products as plain C loops), the default (auto) uses it when it links.
# pkg-config 'libxsmm', else header libxsmm.h + -lxsmm.
# Defines: AM_CONDITIONAL SQ_USE_XSMM, AC_DEFINE SQ_USE_XSMM.
# Substitutes LIBXSMM_CFLAGS, LIBXSMM_LIBS (empty without libxsmm).

AC_DEFUN([SQ_XSMM], [
AC_REQUIRE([PKG_PROG_PKG_CONFIG])
AC_ARG_WITH([libxsmm],
  [AS_HELP_STRING([--with-libxsmm],
    [JIT small-GEMM kernels for the CPU element kernels (default: auto, when libxsmm links); --without-libxsmm: plain C])],
  [], [with_libxsmm=auto])
AC_ARG_VAR([LIBXSMM_CFLAGS], [C compiler flags for libxsmm, overriding pkg-config])
AC_ARG_VAR([LIBXSMM_LIBS], [linker flags for libxsmm, overriding pkg-config])
sq_use_xsmm=no
sq_xsmm_version="no (plain C element products)"
if test "$with_libxsmm" != no; then
  if test -z "$LIBXSMM_CFLAGS$LIBXSMM_LIBS"; then
    if test -n "$PKG_CONFIG" && $PKG_CONFIG --exists libxsmm; then
      LIBXSMM_CFLAGS=`$PKG_CONFIG --cflags libxsmm`
      LIBXSMM_LIBS=`$PKG_CONFIG --libs libxsmm`
      sq_xsmm_found="`$PKG_CONFIG --modversion libxsmm`"
    else
      LIBXSMM_LIBS="-lxsmm -lpthread -lrt -ldl -lm"
      sq_xsmm_found="(no pkg-config)"
    fi
  else
    sq_xsmm_found="(from LIBXSMM_CFLAGS/LIBXSMM_LIBS)"
  fi
  sq_xsmm_save_CPPFLAGS=$CPPFLAGS
  sq_xsmm_save_LIBS=$LIBS
  CPPFLAGS="$CPPFLAGS $LIBXSMM_CFLAGS"
  sq_xsmm_ok=no
  AC_CHECK_HEADER([libxsmm.h], [sq_xsmm_ok=yes], [sq_xsmm_ok=no])
  if test "$sq_xsmm_ok" = yes; then
    # Debian ships libxsmm as a static library that calls BLAS for large sizes:
    # add libxsmmnoblas (its BLAS stubs, so no run-time libblas) when BLAS is missing.
    sq_xsmm_base_LIBS=`echo $LIBXSMM_LIBS`
    sq_xsmm_noblas=`echo " $LIBXSMM_LIBS " | sed "s/ -lxsmm / -lxsmm -lxsmmnoblas /"`
    sq_xsmm_noblas=`echo $sq_xsmm_noblas`
    sq_xsmm_ok=no
    for sq_xsmm_try in "$sq_xsmm_base_LIBS" "$sq_xsmm_noblas" "$sq_xsmm_base_LIBS -lblas"; do
      LIBS="$sq_xsmm_try $sq_xsmm_save_LIBS"
      AC_MSG_CHECKING([whether libxsmm links with $sq_xsmm_try])
      AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <libxsmm.h>]],
        [[libxsmm_init(); (void)libxsmm_dmmdispatch(8, 8, 8, 0, 0, 0, 0, 0, 0, 0); libxsmm_finalize();]])],
        [sq_xsmm_ok=yes], [sq_xsmm_ok=no])
      AC_MSG_RESULT([$sq_xsmm_ok])
      if test "$sq_xsmm_ok" = yes; then
        LIBXSMM_LIBS=`echo $sq_xsmm_try`
        break
      fi
    done
  fi
  CPPFLAGS=$sq_xsmm_save_CPPFLAGS
  LIBS=$sq_xsmm_save_LIBS
  if test "$sq_xsmm_ok" = yes; then
    sq_use_xsmm=yes
    sq_xsmm_version="$sq_xsmm_found ($LIBXSMM_LIBS)"
    AC_DEFINE([SQ_USE_XSMM], [1], [CPU element kernels run their products through libxsmm])
  elif test "$with_libxsmm" = yes; then
    AC_MSG_ERROR([--with-libxsmm: cannot use libxsmm ($LIBXSMM_LIBS): apt-get install libxsmm-dev (or set LIBXSMM_CFLAGS/LIBXSMM_LIBS); see config.log])
  else
    AC_MSG_WARN([libxsmm not found: the CPU element kernels use plain C loops (apt-get install libxsmm-dev)])
    LIBXSMM_CFLAGS=
    LIBXSMM_LIBS=
  fi
fi
AM_CONDITIONAL([SQ_USE_XSMM], [test "$sq_use_xsmm" = yes])
AC_SUBST([LIBXSMM_CFLAGS])
AC_SUBST([LIBXSMM_LIBS])
])
