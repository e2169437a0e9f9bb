# sq_cuda.m4 -- CUDA kernels compiled by nvcc.
#
# --enable-cuda forces CUDA (error when nvcc is missing), --disable-cuda turns it
# off, the default (auto) uses CUDA when nvcc is on PATH or in /usr/local/cuda/bin.
# Defines: AM_CONDITIONAL SQ_USE_CUDA, AC_DEFINE SQ_USE_CUDA.
# Substitutes: NVCC, NVCCFLAGS, CUDA_CFLAGS, CUDA_LIBS (CUDA_LIBS adds -lcudart -lstdc++,
#   which StarPU's pkg-config file omits, and an rpath to the CUDA libraries).
# Needs SQ_STARPU first: CUDA kernels need a StarPU with CUDA workers.

AC_DEFUN([SQ_CUDA], [
AC_ARG_ENABLE([cuda],
  [AS_HELP_STRING([--enable-cuda],
    [build the CUDA kernels (default: auto, when nvcc is found); --disable-cuda turns them off])],
  [], [enable_cuda=auto])
AC_ARG_VAR([NVCC], [CUDA compiler (default: nvcc from PATH, else /usr/local/cuda/bin/nvcc)])
AC_ARG_VAR([NVCCFLAGS], [nvcc flags (default: -O3 -arch=sm_90 -std=c++17 -Xcompiler -Wno-deprecated-declarations)])
AC_ARG_VAR([CUDA_CFLAGS], [C compiler flags for CUDA runtime headers])
AC_ARG_VAR([CUDA_LIBS], [linker flags for the CUDA runtime])
sq_use_cuda=no
case "$enable_cuda" in
  yes|auto)
    if test -z "$NVCC"; then
      AC_PATH_PROG([NVCC], [nvcc], [], [$PATH$PATH_SEPARATOR/usr/local/cuda/bin])
    fi
    if test -n "$NVCC" && test -x "$NVCC"; then
      sq_cuda_dir=`dirname "$NVCC"`
      sq_cuda_dir=`cd "$sq_cuda_dir/.." && pwd`
      AC_MSG_CHECKING([whether $NVCC compiles CUDA code])
      cat > conftest.cu <<_SQEOF
__global__ void sq_conftest_kernel(float *x) { x[[threadIdx.x]] += 1.0f; }
extern "C" void sq_conftest_launch(float *x) { sq_conftest_kernel<<<1, 32>>>(x); }
_SQEOF
      if $NVCC -std=c++17 -c conftest.cu -o conftest.$OBJEXT >&AS_MESSAGE_LOG_FD 2>&1; then
        AC_MSG_RESULT([yes])
        sq_use_cuda=yes
      else
        AC_MSG_RESULT([no])
        test "$enable_cuda" = yes && AC_MSG_ERROR([--enable-cuda: $NVCC cannot compile a trivial kernel; see config.log])
      fi
      rm -f conftest.cu conftest.$OBJEXT
      if test "$sq_use_cuda" = yes && test ! -f "$sq_cuda_dir/lib64/libcudart.so" && test ! -f "$sq_cuda_dir/lib/libcudart.so"; then
        test "$enable_cuda" = yes && AC_MSG_ERROR([--enable-cuda: no libcudart.so in $sq_cuda_dir/lib64])
        AC_MSG_WARN([no libcudart.so in $sq_cuda_dir/lib64: building without CUDA])
        sq_use_cuda=no
      fi
    elif test "$enable_cuda" = yes && test -n "$NVCC"; then
      AC_MSG_ERROR([--enable-cuda: NVCC=$NVCC is not an executable])
    elif test "$enable_cuda" = yes; then
      AC_MSG_ERROR([--enable-cuda: nvcc not found on PATH or in /usr/local/cuda/bin (set NVCC=/path/to/nvcc)])
    fi
    ;;
  no) ;;
  *) AC_MSG_ERROR([bad value '$enable_cuda' for --enable-cuda]) ;;
esac
if test "$sq_use_cuda" = yes && test "$sq_starpu_cuda" != yes; then
  if test "$enable_cuda" = yes; then
    AC_MSG_ERROR([--enable-cuda: StarPU in $STARPU_PREFIX was built without CUDA; rebuild it with tools/build-starpu.sh, or use --disable-cuda])
  fi
  AC_MSG_WARN([nvcc found, but StarPU in $STARPU_PREFIX has no CUDA workers: building without CUDA])
  sq_use_cuda=no
fi
if test "$sq_use_cuda" = yes; then
  if test -d "$sq_cuda_dir/lib64"; then sq_cuda_libdir=$sq_cuda_dir/lib64; else sq_cuda_libdir=$sq_cuda_dir/lib; fi
  test -n "$NVCCFLAGS" || NVCCFLAGS="-O3 -arch=sm_90 -std=c++17 -Xcompiler -Wno-deprecated-declarations"
  test -n "$CUDA_CFLAGS" || CUDA_CFLAGS="-I$sq_cuda_dir/include"
  test -n "$CUDA_LIBS" || CUDA_LIBS="-L$sq_cuda_libdir -Wl,-rpath,$sq_cuda_libdir -lcudart -lstdc++"
  AC_DEFINE([SQ_USE_CUDA], [1], [Define to 1 to build the CUDA kernels and codelet variants])
  sq_cuda_desc="yes ($NVCC, `$NVCC --version | sed -n 's/.*release \([[0-9.]]*\).*/\1/p'`)"
else
  NVCC=
  NVCCFLAGS=
  CUDA_CFLAGS=
  CUDA_LIBS=
  sq_cuda_desc=no
fi
AM_CONDITIONAL([SQ_USE_CUDA], [test "$sq_use_cuda" = yes])
AC_SUBST([NVCC])
AC_SUBST([NVCCFLAGS])
AC_SUBST([CUDA_CFLAGS])
AC_SUBST([CUDA_LIBS])
])
