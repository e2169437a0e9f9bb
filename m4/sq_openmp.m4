# sq_openmp.m4 -- OpenMP for the set-up loops of src/ (element operators, projection, error norms),
# which run before the time stepping, outside StarPU's tasks.  --disable-openmp builds them serial.
# Substitutes OPENMP_CFLAGS (empty when disabled or unsupported).

AC_DEFUN([SQ_OPENMP], [
AC_OPENMP
sq_openmp_desc="no"
AS_IF([test "x$enable_openmp" != xno && test -n "$OPENMP_CFLAGS"], [sq_openmp_desc="yes ($OPENMP_CFLAGS)"])
])
