/** @file qs_kernels.c  The quasi-static element kernels of qs_impl.h in double and single precision. */
#include "sq_qs.h"

const int sq_qs_edge_vertices[6][2] = {{0, 1}, {1, 2}, {0, 2}, {0, 3}, {1, 3}, {2, 3}};

#define SQ_REAL      double
#define SQ_FN(name)  name##_f64
#define SQ_FNM(name) name##_f64_multi
#define SQ_GEO(qm)   ((qm)->geo)
#include "qs_impl.h"
#undef SQ_REAL
#undef SQ_FN
#undef SQ_FNM
#undef SQ_GEO

#define SQ_REAL      float
#define SQ_FN(name)  name##_f32
#define SQ_FNM(name) name##_f32_multi
#define SQ_GEO(qm)   ((qm)->geo32)
#include "qs_impl.h"
#undef SQ_REAL
#undef SQ_FN
#undef SQ_FNM
#undef SQ_GEO

/* Voigt order of the stress and strain: 11, 22, 33, 12, 23, 13. */
static const int qs_voigt[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {1, 2}, {0, 2}};

void sq_qs_elem_p2_strain_f64(const double *geo, const double *xe, double *eps) {
  double g[4][3], G[10][3];
  qs_bary_grad_f64(geo, g);
  for (int q = 0; q < 4; ++q) {
    qs_p2_grad_f64(g, q, G);
    double h[3][3] = {{0}};
    for (int a = 0; a < 10; ++a)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) h[i][j] += xe[3 * a + i] * G[a][j];
    for (int k = 0; k < 6; ++k) {
      const int i = qs_voigt[k][0], j = qs_voigt[k][1];
      eps[6 * q + k] = 0.5 * (h[i][j] + h[j][i]);
    }
  }
}

void sq_qs_elem_p2_stress_forces_f64(const double *geo, const double *sig, double *ye) {
  double g[4][3], G[10][3];
  qs_bary_grad_f64(geo, g);
  const double w = geo[9] / 4;
  for (int k = 0; k < 30; ++k) ye[k] = 0;
  for (int q = 0; q < 4; ++q) {
    qs_p2_grad_f64(g, q, G);
    double s[3][3];
    for (int k = 0; k < 6; ++k) {
      const int i = qs_voigt[k][0], j = qs_voigt[k][1];
      s[i][j] = s[j][i] = w * sig[6 * q + k];
    }
    for (int a = 0; a < 10; ++a)
      for (int i = 0; i < 3; ++i) ye[3 * a + i] += s[i][0] * G[a][0] + s[i][1] * G[a][1] + s[i][2] * G[a][2];
  }
}
