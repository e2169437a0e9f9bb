/**
 * @file plasticity_both.h  plasticity_impl.h instantiated for double (`*_f64`) and float (`*_f32`);
 * included once by the CPU dispatch (plasticity.c) and once by the CUDA kernel (plasticity_cuda.cu).
 */
#define SQ_REAL     double
#define SQ_FN(name) sq_internal_##name##_f64
#define SQ_SQRT(x)  sqrt(x)
#include "plasticity_impl.h"
#undef SQ_REAL
#undef SQ_FN
#undef SQ_SQRT
#define SQ_REAL     float
#define SQ_FN(name) sq_internal_##name##_f32
#define SQ_SQRT(x)  sqrtf(x)
#include "plasticity_impl.h"
#undef SQ_REAL
#undef SQ_FN
#undef SQ_SQRT
