/** @file kernels_f32.c  Single-precision instantiation of kernels_impl.h. */
#include "kernels_entry.h"

#define SQ_MAXB9         (84 * 9)
#define SQ_REAL          float
#define SQ_FN(name)      sq_internal_##name##_f32
#define SQ_XSMM_FUNCTION libxsmm_smmfunction
#define SQ_XSMM_DISPATCH libxsmm_smmdispatch
#include "kernels_impl.h"
