/** @file qs_kernels.c  The quasi-static element kernels of qs_impl.h in double and single precision. */
#include "sq_qs.h"

const int sq_qs_edge_vertices[6][2] = {{0, 1}, {1, 2}, {0, 2}, {0, 3}, {1, 3}, {2, 3}};

#define SQ_REAL     double
#define SQ_FN(name) name##_f64
#define SQ_GEO(qm)  ((qm)->geo)
#include "qs_impl.h"
#undef SQ_REAL
#undef SQ_FN
#undef SQ_GEO

#define SQ_REAL     float
#define SQ_FN(name) name##_f32
#define SQ_GEO(qm)  ((qm)->geo32)
#include "qs_impl.h"
#undef SQ_REAL
#undef SQ_FN
#undef SQ_GEO
