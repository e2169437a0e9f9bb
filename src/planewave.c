/** @file planewave.c  Analytic plane waves and Gaussian packets in a homogeneous elastic medium. */
#include <math.h>

#include "sq_solver.h"

void sq_planewave_init(sq_planewave *pw, const sq_material *m, const double k[3], int gaussian, double center,
                       double width, int nmode, const sq_wave_kind *kind, const int *direction,
                       const double *amplitude) {
  for (int d = 0; d < 3; ++d) pw->k[d] = k[d];
  pw->gaussian = gaussian;
  pw->center = center;
  pw->width = width;
  pw->nmode = nmode > 8 ? 8 : nmode;
  for (int i = 0; i < pw->nmode; ++i) {
    sq_plane_wave_eigenvector(m, k, kind[i], direction[i], pw->r[i], &pw->speed[i]);
    for (int p = 0; p < 9; ++p) pw->r[i][p] *= amplitude[i];
  }
}

void sq_planewave_eval(const void *ctx, const double x[3], double t, double q[9]) {
  const sq_planewave *pw = ctx;
  const double kn = sqrt(pw->k[0] * pw->k[0] + pw->k[1] * pw->k[1] + pw->k[2] * pw->k[2]);
  const double s0 = (pw->k[0] * x[0] + pw->k[1] * x[1] + pw->k[2] * x[2]) / kn;
  for (int p = 0; p < 9; ++p) q[p] = 0.0;
  for (int i = 0; i < pw->nmode; ++i) {
    const double s = s0 - pw->speed[i] * t;
    const double f = pw->gaussian ? exp(-(s - pw->center) * (s - pw->center) / (pw->width * pw->width)) : sin(kn * s);
    for (int p = 0; p < 9; ++p) q[p] += pw->r[i][p] * f;
  }
}
