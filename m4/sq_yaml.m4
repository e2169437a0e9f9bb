# sq_yaml.m4 -- libyaml (pkg-config yaml-0.1). Substitutes YAML_CFLAGS, YAML_LIBS.

AC_DEFUN([SQ_YAML], [
AC_REQUIRE([PKG_PROG_PKG_CONFIG])
PKG_CHECK_MODULES([YAML], [yaml-0.1], [],
  [AC_MSG_ERROR([libyaml not found: apt-get install libyaml-dev ($YAML_PKG_ERRORS)])])
sq_yaml_version=`$PKG_CONFIG --modversion yaml-0.1`
])
