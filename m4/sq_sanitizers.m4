# sq_sanitizers.m4 -- --enable-sanitizers: AddressSanitizer + UndefinedBehaviorSanitizer.
# Adds -fsanitize=address,undefined -fno-omit-frame-pointer to CFLAGS and LDFLAGS.

AC_DEFUN([SQ_SANITIZERS], [
AC_REQUIRE([AC_PROG_CC])
AC_ARG_ENABLE([sanitizers],
  [AS_HELP_STRING([--enable-sanitizers], [build with -fsanitize=address,undefined (default: no)])],
  [], [enable_sanitizers=no])
if test "$enable_sanitizers" = yes; then
  sq_san_flags="-fsanitize=address,undefined -fno-omit-frame-pointer"
  sq_san_save_CFLAGS=$CFLAGS
  sq_san_save_LDFLAGS=$LDFLAGS
  CFLAGS="$CFLAGS $sq_san_flags"
  LDFLAGS="$LDFLAGS $sq_san_flags"
  AC_MSG_CHECKING([whether $CC supports $sq_san_flags])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])], [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([--enable-sanitizers: $CC cannot link with $sq_san_flags (apt-get install gcc: libasan/libubsan)])])
fi
])
