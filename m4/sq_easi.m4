# sq_easi.m4 -- the libraries of the easi reader (easi/): Lua 5.4 (pkg-config lua5.4) for !LuaMap and
# netCDF (pkg-config netcdf) for !ASAGI grids.  Substitutes LUA_CFLAGS, LUA_LIBS, NETCDF_CFLAGS, NETCDF_LIBS.

AC_DEFUN([SQ_EASI], [
AC_REQUIRE([PKG_PROG_PKG_CONFIG])
PKG_CHECK_MODULES([LUA], [lua5.4], [],
  [AC_MSG_ERROR([Lua 5.4 not found (easi models' !LuaMap): apt-get install liblua5.4-dev ($LUA_PKG_ERRORS)])])
PKG_CHECK_MODULES([NETCDF], [netcdf], [],
  [AC_MSG_ERROR([netCDF not found (easi models' !ASAGI grids): apt-get install libnetcdf-dev ($NETCDF_PKG_ERRORS)])])
sq_lua_version=`$PKG_CONFIG --modversion lua5.4`
sq_netcdf_version=`$PKG_CONFIG --modversion netcdf`
])
