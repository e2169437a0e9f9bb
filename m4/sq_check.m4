# sq_check.m4 -- Check unit-test framework (pkg-config check). Substitutes CHECK_CFLAGS, CHECK_LIBS.

AC_DEFUN([SQ_CHECK], [
AC_REQUIRE([PKG_PROG_PKG_CONFIG])
PKG_CHECK_MODULES([CHECK], [check >= 0.9.10], [],
  [AC_MSG_ERROR([Check (unit tests) not found: apt-get install check ($CHECK_PKG_ERRORS)])])
sq_check_version=`$PKG_CONFIG --modversion check`
])
