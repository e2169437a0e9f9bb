# sq_fftw.m4 -- FFTW 3 (pkg-config fftw3), double precision; the inverse Fourier transform of the viscoelastic
# full-space solution (src/fullspace.c).  Substitutes FFTW_CFLAGS, FFTW_LIBS.

AC_DEFUN([SQ_FFTW], [
AC_REQUIRE([PKG_PROG_PKG_CONFIG])
PKG_CHECK_MODULES([FFTW], [fftw3], [],
  [AC_MSG_ERROR([FFTW 3 not found: apt-get install libfftw3-dev ($FFTW_PKG_ERRORS)])])
sq_fftw_version=`$PKG_CONFIG --modversion fftw3`
])
