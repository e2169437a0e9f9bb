# sq_warnings.m4 -- compiler warnings for our own code (Makefile.am: AM_CFLAGS = $(SQ_WARN_CFLAGS)).
# --enable-werror adds -Werror. Substitutes SQ_WARN_CFLAGS.

AC_DEFUN([SQ_WARNINGS], [
AC_ARG_ENABLE([werror],
  [AS_HELP_STRING([--enable-werror], [treat compiler warnings as errors (default: no)])],
  [], [enable_werror=no])
SQ_WARN_CFLAGS="-Wall -Wextra -Wno-unused-parameter"
test "$enable_werror" = yes && SQ_WARN_CFLAGS="$SQ_WARN_CFLAGS -Werror"
AC_SUBST([SQ_WARN_CFLAGS])
])
