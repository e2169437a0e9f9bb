/**
 * @file test_sparse_ops.c  The operator lists that the sparse GPU kernels compile in (sq_cuda_ops.h, written at build
 * time by src/cuda/gen_ops.c: K_der,d, K_vol,d, E_j^T and M^-1 E_j) against the reference matrices of src/ref.c as
 * sq_kernel_pack packs them, at every order: every listed entry has the pack's value (bitwise in double precision, and
 * converted to single precision as the single-precision pack), every entry not listed is an exact zero of the pack, the
 * columns come in order with the rows ascending per matrix, the counts agree, and every entry keeps the degree
 * structure the kernels' truncation relies on (K_der,d(l, k) only for deg l < deg k, K_vol,d(l, k) only for deg k < deg
 * l).  A stale or wrong header fails here.
 */
#include <stdlib.h>
#include <string.h>

#include "sq_check.h"
#include "sq_cuda_ops.h"
#include "sq_kernels.h"
#include "sq_ref.h"

/** What a list names: the dense matrices (3 x B x B, column-major, NAN where not listed) and the order of its items. */
typedef struct {
  int nmat, nrow, ncol, col, last_d, last_l, nnz, order_ok;
  double *m; /**< [d][c][r] */
} listed;

static void list_col(listed *s, int k) {
  s->order_ok &= k == s->col + 1;
  s->col = k;
  s->last_d = 0;
  s->last_l = -1;
}

static void list_fma(listed *s, int d, int l, int k, double v) {
  const int inside = k == s->col && k < s->ncol && d >= 0 && d < s->nmat && l >= 0 && l < s->nrow;
  s->order_ok &= inside && (d > s->last_d || (d == s->last_d && l > s->last_l));
  if (!inside) return;
  s->last_d = d;
  s->last_l = l;
  s->m[((size_t)d * s->ncol + k) * s->nrow + l] = v;
  ++s->nnz;
}

#define COL(k)          list_col(s, k);
#define FMA(d, l, k, v) list_fma(s, d, l, k, v);
/** Fill @p s from the list of operator @p op (0 KDER, 1 KVOL, 2 PROJ, 3 LIFT) of @p order; its NNZ count in @p nnz. */
static void read_list(int order, int op, listed *s, int *nnz) {
  switch (order * 4 + op) {
#define SQ_OPS_CASE(O)                                                                                                 \
  case 4 * O: SQ_OPS_O##O##_KDER(COL, FMA) *nnz = SQ_OPS_O##O##_KDER_NNZ; break;                                       \
  case 4 * O + 1: SQ_OPS_O##O##_KVOL(COL, FMA) *nnz = SQ_OPS_O##O##_KVOL_NNZ; break;                                   \
  case 4 * O + 2: SQ_OPS_O##O##_PROJ(COL, FMA) *nnz = SQ_OPS_O##O##_PROJ_NNZ; break;                                   \
  case 4 * O + 3: SQ_OPS_O##O##_LIFT(COL, FMA) *nnz = SQ_OPS_O##O##_LIFT_NNZ; break;
    SQ_OPS_CASE(2)
    SQ_OPS_CASE(3)
    SQ_OPS_CASE(4)
    SQ_OPS_CASE(5)
    SQ_OPS_CASE(6)
    SQ_OPS_CASE(7)
#undef SQ_OPS_CASE
  default: ck_abort_msg("no operator list for order %d", order);
  }
}
#undef COL
#undef FMA

/** Total degree of basis function k (the basis is ordered by degree). */
static int degree(int k) {
  int d = 0;
  while (k >= sq_nbasis(d + 1)) ++d;
  return d;
}

/*
 * Where the pack (sq_kernel_pack, sq_kernels.h) keeps entry (r, c) of matrix d of operator op: K_der,d and K_vol,d
 * B x B each from their slots; E_j^T (r a face-basis index f, c a basis index k) in the 4Bf x B matrix at
 * SQ_PACK_PROJ; M^-1 E_j (r = l, c = f) in the B x 4Bf matrix at SQ_PACK_LIFT.
 */
static size_t pack_at(int op, int B, int Bf, int d, int r, int c) {
  const size_t BB = (size_t)B * B;
  if (op == 2) return SQ_PACK_PROJ * BB + (size_t)d * Bf + r + (size_t)c * 4 * Bf;
  if (op == 3) return SQ_PACK_LIFT * BB + r + ((size_t)d * Bf + c) * B;
  return (size_t)(op ? SQ_PACK_KVOL : SQ_PACK_KDER) * BB + (size_t)d * BB + r + (size_t)c * B;
}

START_TEST(lists_equal_the_pack) {
  static const char *names[4] = {"KDER", "KVOL", "PROJ", "LIFT"};
  for (int order = SQ_ORDER_MIN; order <= SQ_ORDER_MAX; ++order) {
    sq_ref *ref = NULL;
    void *p64 = NULL, *p32 = NULL;
    size_t bytes;
    EXPECT_EQ(sq_ref_create(order, &ref), SQ_SUCCESS);
    EXPECT_EQ(sq_kernel_pack(ref, SQ_F64, &p64, &bytes), SQ_SUCCESS);
    EXPECT_EQ(sq_kernel_pack(ref, SQ_F32, &p32, &bytes), SQ_SUCCESS);
    const int B = ref->nbasis, Bf = ref->nface_basis;
    for (int op = 0; op < 4; ++op) {
      const int nmat = op < 2 ? 3 : 4, nrow = op == 2 ? Bf : B, ncol = op == 3 ? Bf : B;
      const size_t count = (size_t)nmat * nrow * ncol;
      listed s = {nmat, nrow, ncol, -1, 0, -1, 0, 1, malloc(sizeof(double) * count)};
      EXPECT(s.m);
      for (size_t i = 0; i < count; ++i) s.m[i] = NAN;
      int nnz = -1;
      read_list(order, op, &s, &nnz);
      EXPECT_MSG(s.order_ok && s.col == ncol - 1, "order %d %s: columns or rows out of order", order, names[op]);
      EXPECT_MSG(s.nnz == nnz, "order %d %s: %d entries listed, NNZ says %d", order, names[op], s.nnz, nnz);
      int pack_nnz = 0;
      for (int d = 0; d < nmat; ++d)
        for (int k = 0; k < ncol; ++k)
          for (int l = 0; l < nrow; ++l) {
            const size_t at = pack_at(op, B, Bf, d, l, k);
            const double want = ((const double *)p64)[at], got = s.m[((size_t)d * ncol + k) * nrow + l];
            const float want32 = ((const float *)p32)[at];
            pack_nnz += want != 0.0;
            if (isnan(got)) {
              EXPECT_MSG(want == 0.0, "order %d %s_%d(%d, %d) = %a is not listed", order, names[op], d, l, k, want);
              continue;
            }
            EXPECT_MSG(got == want && got != 0.0, "order %d %s_%d(%d, %d): listed %a, the pack holds %a", order,
                       names[op], d, l, k, got, want);
            EXPECT_MSG((float)got == want32, "order %d %s_%d(%d, %d): single precision %a, the pack holds %a", order,
                       names[op], d, l, k, (double)(float)got, (double)want32);
            EXPECT_MSG(op >= 2 || (op == 0 ? degree(l) < degree(k) : degree(k) < degree(l)),
                       "order %d %s_%d(%d, %d) breaks the degree structure", order, names[op], d, l, k);
          }
      EXPECT_EQ(pack_nnz, nnz);
      free(s.m);
    }
    free(p64);
    free(p32);
    sq_ref_destroy(ref);
  }
}
END_TEST

/* The order-6 counts per matrix that docs/GPU.md quotes ("Sparsity of the operators"). */
START_TEST(order6_counts) {
  int count[3] = {0, 0, 0};
#define COL(k)
#define FMA(d, l, k, v) ++count[d];
  SQ_OPS_O6_KDER(COL, FMA)
#undef COL
#undef FMA
  EXPECT_EQ(count[0], 294);
  EXPECT_EQ(count[1], 672);
  EXPECT_EQ(count[2], 742);
  int face[4] = {0, 0, 0, 0};
#define COL(k)
#define FMA(j, f, k, v) ++face[j];
  SQ_OPS_O6_PROJ(COL, FMA)
#undef COL
#undef FMA
  EXPECT_EQ(face[0], 192);
  EXPECT_EQ(face[1], 196);
  EXPECT_EQ(face[2], 804);
  EXPECT_EQ(face[3], 672);
}
END_TEST

int main(void) {
  const TTest *tests[] = {lists_equal_the_pack, order6_counts, NULL};
  return sq_test_run(sq_test_suite("sparse_ops", 60, tests), 1);
}
