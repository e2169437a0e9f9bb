/**
 * @file gen_ops.c  `sq-gen-ops`: writes sq_cuda_ops.h, the non-zeros of the reference operators that the sparse GPU
 * kernels (src/cuda/cuda_sparse.cuh) compile in, for every order SQ_ORDER_MIN..SQ_ORDER_MAX.  Run by make; the header
 * lives in the build tree only, so that it always follows src/ref.c (whose round-off cleanup makes the patterns
 * exact).
 *
 *   sq-gen-ops > sq_cuda_ops.h
 *
 * For each order O and operator X it defines the X-macro list
 *
 *   #define SQ_OPS_O<O>_<X>(COL, FMA) COL(0) FMA(d, l, 0, v) ... COL(1) ...
 *
 * over the columns k in order: COL(k) opens column k, then FMA(d, l, k, v) names each non-zero entry (l, k) of
 * matrix d, rows ascending within each d, v the entry of sq_kernel_pack's double-precision pack as a hexadecimal
 * floating literal (exact; a single-precision kernel converts it as the pack does).  X is
 * - KDER: K_der,d (d = 0..2, B x B; SQ_PACK_KDER + d), the Cauchy-Kovalevski derivative operators, non-zero only for
 *   deg l < deg k;
 * - KVOL: K_vol,d (d = 0..2, B x B; SQ_PACK_KVOL + d), the volume operators, non-zero only for deg k < deg l;
 * - PROJ: E_j^T (j = 0..3, Bf x B; SQ_PACK_PROJ), the projection onto face j's basis;
 * - LIFT: M^-1 E_j (j = 0..3, B x Bf; SQ_PACK_LIFT), the lift from face j (F^-_j = E_j E_j^T, sq_ref.h).
 * SQ_OPS_O<O>_<X>_NNZ counts the entries.  tests/unit/test_sparse_ops.c checks the lists against the pack.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sq_kernels.h"
#include "sq_ref.h"

/**
 * The operators: X names the list, nmat matrices of nrow x ncol, entry (r, c) of matrix d at
 * pack[slot * B * B + d * dstride + r * rstride + c * cstride] with the strides in units of B (b) or of Bf (f) as
 * sq_kernel_pack lays them out.
 */
typedef struct {
  const char *name;
  int slot, nmat;
} op_info;
static const op_info ops[] = {
    {"KDER", SQ_PACK_KDER, 3}, {"KVOL", SQ_PACK_KVOL, 3}, {"PROJ", SQ_PACK_PROJ, 4}, {"LIFT", SQ_PACK_LIFT, 4}};

/** Rows and columns of operator @p o, and the offset of its entry (r, c) of matrix d in the pack. */
static void op_shape(int o, int B, int Bf, int *nrow, int *ncol) {
  *nrow = o == 2 ? Bf : B;
  *ncol = o == 3 ? Bf : B;
}
static size_t op_at(int o, int B, int Bf, int d, int r, int c) {
  const size_t BB = (size_t)B * B, base = (size_t)ops[o].slot * BB;
  switch (o) {
  case 2: /* [E_1^T; ..; E_4^T]: 4 Bf x B, E_d^T(f, k) */ return base + (size_t)d * Bf + r + (size_t)c * 4 * Bf;
  case 3: /* [M^-1 E_1 .. M^-1 E_4]: B x 4 Bf, (M^-1 E_d)(l, f) */ return base + r + ((size_t)d * Bf + c) * B;
  default: /* B x B per matrix */ return base + (size_t)d * BB + r + (size_t)c * B;
  }
}

static int write_order(int order) {
  sq_ref *ref = NULL;
  void *packv = NULL;
  size_t bytes = 0;
  if (sq_ref_create(order, &ref) || sq_kernel_pack(ref, SQ_F64, &packv, &bytes)) {
    fprintf(stderr, "sq-gen-ops: the reference data of order %d could not be built\n", order);
    sq_ref_destroy(ref);
    return 1;
  }
  const double *pack = packv;
  const int B = ref->nbasis, Bf = ref->nface_basis;
  for (int o = 0; o < (int)(sizeof ops / sizeof ops[0]); ++o) {
    int nnz = 0, nrow, ncol;
    op_shape(o, B, Bf, &nrow, &ncol);
    printf("#define SQ_OPS_O%d_%s(COL, FMA)", order, ops[o].name);
    for (int c = 0; c < ncol; ++c) {
      printf(" \\\n  COL(%d)", c);
      for (int d = 0; d < ops[o].nmat; ++d)
        for (int r = 0; r < nrow; ++r) {
          const double v = pack[op_at(o, B, Bf, d, r, c)];
          if (v == 0.0) continue;
          printf(" FMA(%d, %d, %d, %a)", d, r, c, v);
          ++nnz;
        }
    }
    printf("\n#define SQ_OPS_O%d_%s_NNZ %d\n", order, ops[o].name, nnz);
  }
  free(packv);
  sq_ref_destroy(ref);
  return 0;
}

int main(void) {
  printf("/* sq_cuda_ops.h: written by sq-gen-ops (src/cuda/gen_ops.c) from src/ref.c; do not edit. */\n");
  printf("#ifndef SQ_CUDA_OPS_H\n#define SQ_CUDA_OPS_H\n");
  for (int order = SQ_ORDER_MIN; order <= SQ_ORDER_MAX; ++order)
    if (write_order(order)) return 1;
  printf("#endif\n");
  return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
