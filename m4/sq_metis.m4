# sq_metis.m4 -- METIS (header metis.h, -lmetis; no pkg-config file in Debian).
# Substitutes METIS_CFLAGS, METIS_LIBS; sq_metis_idxwidth is IDXTYPEWIDTH (32 or 64).

AC_DEFUN([SQ_METIS], [
AC_ARG_VAR([METIS_CFLAGS], [C compiler flags for METIS])
AC_ARG_VAR([METIS_LIBS], [linker flags for METIS (default: -lmetis)])
test -n "$METIS_LIBS" || METIS_LIBS=-lmetis
sq_metis_save_CPPFLAGS=$CPPFLAGS
sq_metis_save_LIBS=$LIBS
CPPFLAGS="$CPPFLAGS $METIS_CFLAGS"
LIBS="$METIS_LIBS $LIBS"
AC_CHECK_HEADER([metis.h], [],
  [AC_MSG_ERROR([metis.h not found: apt-get install libmetis-dev (or set METIS_CFLAGS)])])
AC_MSG_CHECKING([for METIS_PartGraphKway with $METIS_LIBS])
AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <metis.h>]],
  [[idx_t opts[METIS_NOPTIONS]; return METIS_SetDefaultOptions(opts) != METIS_OK
     || (void *) METIS_PartGraphKway == 0;]])],
  [AC_MSG_RESULT([yes])],
  [AC_MSG_RESULT([no])
   AC_MSG_ERROR([cannot link METIS: apt-get install libmetis-dev (or set METIS_LIBS)])])
AC_COMPUTE_INT([sq_metis_idxwidth], [IDXTYPEWIDTH], [[#include <metis.h>]], [sq_metis_idxwidth=unknown])
CPPFLAGS=$sq_metis_save_CPPFLAGS
LIBS=$sq_metis_save_LIBS
AC_SUBST([METIS_CFLAGS])
AC_SUBST([METIS_LIBS])
])
