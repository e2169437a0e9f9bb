# sq_hwloc.m4 -- hwloc (pkg-config hwloc). Substitutes HWLOC_CFLAGS, HWLOC_LIBS.

AC_DEFUN([SQ_HWLOC], [
AC_REQUIRE([PKG_PROG_PKG_CONFIG])
PKG_CHECK_MODULES([HWLOC], [hwloc], [],
  [AC_MSG_ERROR([hwloc not found: apt-get install libhwloc-dev ($HWLOC_PKG_ERRORS)])])
sq_hwloc_version=`$PKG_CONFIG --modversion hwloc`
])
