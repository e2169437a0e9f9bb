/** @file kernels_f64.c  Double-precision instantiation of kernels_impl.h. */
#include "kernels_entry.h"

#define SQ_MAXB9         (84 * 9)
#define SQ_REAL          double
#define SQ_FN(name)      sq_internal_##name##_f64
#define SQ_XSMM_FUNCTION libxsmm_dmmfunction
#define SQ_XSMM_DISPATCH libxsmm_dmmdispatch
#include "kernels_impl.h"
