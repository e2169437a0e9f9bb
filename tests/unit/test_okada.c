/** @file test_okada.c  Check suite for the Okada (1992) half-space dislocation (src/okada.c): published check
 * values, the free surface, equilibrium, the jump across the fault, and the point-source limit. */
#include "sq_check.h"
#include <math.h>

#include "sq_okada.h"

#define PI 3.14159265358979323846

/* Half a unit of the fourth significant digit of a published value (and the O(e^2) rest of a limit). */
static double half_unit(double v) { return 0.5 * pow(10, floor(log10(fabs(v))) - 3) * 1.05; }

/* The top edge's centre of a fault whose centre is at (0, 0, -depth_c). */
static void centre_at(sq_okada_fault *f, double depth_c) {
  const double a = f->strike_deg * PI / 180, d = f->dip_deg * PI / 180, w = f->width / 2;
  f->x = -w * cos(d) * cos(a), f->y = w * cos(d) * sin(a), f->depth = depth_c - w * sin(d);
}

/* Okada (1985), Table 2, case 2 (finite source, nu = 0.25: alpha = 2/3): x = 2, y = 3 at the surface, the
   rectangle 0 <= xi <= 3, 0 <= eta <= 2 up dip from the reference point at depth 4, dip 70; per unit slip. */
START_TEST(published_finite) {
  static const double expect[3][3] = {{-8.689e-3, -4.298e-3, -2.747e-3}, /* strike slip */
                                      {-4.682e-3, -3.527e-2, -3.564e-2}, /* dip slip */
                                      {-2.660e-4, 1.056e-2, 3.214e-3}};  /* tensile */
  for (int k = 0; k < 3; ++k) {
    double d[3] = {0, 0, 0}, u[3];
    d[k] = 1;
    ck_assert_int_eq(sq_okada_dc3d(2.0 / 3, 2, 3, 0, 4, 70, 0, 3, 0, 2, d[0], d[1], d[2], u), 0);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(u[i], expect[k][i], half_unit(expect[k][i]));
  }
}
END_TEST

/* Okada (1985), Table 2, case 1 (point source of unit potency at depth 4, dip 70, observed at x = 2, y = 3,
   z = 0): a square of side 2e centred on the point with slip 1 / (2e)^2 tends to it as e -> 0 (error O(e^2)). */
START_TEST(point_source_limit) {
  static const double expect[3][3] = {
      {-9.447e-4, -1.023e-3, -7.420e-4}, {-1.172e-3, -2.082e-3, -2.532e-3}, {-3.572e-4, 3.531e-4, -2.007e-4}};
  for (int k = 0; k < 3; ++k) {
    double u[3][3];
    for (int level = 0; level < 3; ++level) {
      const double e = 0.04 / (1 << level), s = 1 / (4 * e * e);
      double d[3] = {0, 0, 0};
      d[k] = s;
      ck_assert_int_eq(sq_okada_dc3d(2.0 / 3, 2, 3, 0, 4, 70, -e, e, -e, e, d[0], d[1], d[2], u[level]), 0);
    }
    for (int i = 0; i < 3; ++i) {
      /* second order: the differences between levels fall by 4 */
      const double d1 = u[1][i] - u[0][i], d2 = u[2][i] - u[1][i];
      EXPECT_MSG(fabs(d2) < 0.3 * fabs(d1) + 1e-14, "point source %d component %d: %g then %g", k, i, d1, d2);
      EXPECT_NEAR(u[2][i], expect[k][i], half_unit(expect[k][i]));
    }
  }
  /* far field: the displacement of a finite fault decays as r^-2, homogeneous of degree -2 in the distance to
     the source when everything but the fault is scaled */
  sq_okada_fault f = {
      .strike_deg = 30, .dip_deg = 45, .rake_deg = 60, .length = 20, .width = 20, .slip = 1, .opening = 0.2};
  const double dir[3] = {0.6, -0.3, 0};
  for (int level = 0; level < 2; ++level) {
    const double r = 1e5 * (1 << level);
    double x1[3] = {dir[0] * r, dir[1] * r, 0}, x2[3] = {2 * x1[0], 2 * x1[1], 0}, u1[3], u2[3];
    centre_at(&f, r / 50);
    ck_assert_int_eq(sq_okada_displacement(&f, 3e10, 3e10, x1, u1), 0);
    centre_at(&f, 2 * r / 50);
    ck_assert_int_eq(sq_okada_displacement(&f, 3e10, 3e10, x2, u2), 0);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(4 * u2[i], u1[i], 1e-6 * (fabs(u1[0]) + fabs(u1[1]) + fabs(u1[2])));
  }
}
END_TEST

static const sq_okada_fault oblique = {.x = 100,
                                       .y = -50,
                                       .depth = 500,
                                       .strike_deg = 35,
                                       .dip_deg = 55,
                                       .rake_deg = 70,
                                       .length = 3000,
                                       .width = 2000,
                                       .slip = 2,
                                       .opening = 0.5};
static const double lam = 4e10, mu = 3e10;

static void stress(const double g[3][3], double s[3][3]) {
  const double div = g[0][0] + g[1][1] + g[2][2];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) s[i][j] = mu * (g[i][j] + g[j][i]) + (i == j ? lam * div : 0);
}

/* (a) The traction on z = 0 vanishes (gradient by finite differences), for several faults, one reaching the
   surface, one vertical and one horizontal. */
START_TEST(free_surface) {
  sq_okada_fault faults[4] = {oblique, oblique, oblique, oblique};
  faults[1].depth = 0, faults[2].dip_deg = 90, faults[3].dip_deg = 0, faults[3].depth = 800;
  for (int k = 0; k < 4; ++k)
    for (int p = 0; p < 12; ++p) {
      const double x[3] = {100 + 3000 * cos(0.7 * p) * (1 + 0.1 * p), -50 + 2500 * sin(0.7 * p), 0};
      double u[3], g[3][3], s[3][3];
      ck_assert_int_eq(sq_okada_displacement_gradient(&faults[k], lam, mu, x, u, g), 0);
      stress(g, s);
      const double scale = fabs(s[0][0]) + fabs(s[1][1]) + fabs(s[0][1]);
      ck_assert(scale > 0);
      for (int i = 0; i < 3; ++i)
        EXPECT_MSG(fabs(s[i][2]) < 1e-7 * scale, "fault %d point %d: sigma_%dz = %g (scale %g)", k, p, i, s[i][2],
                   scale);
    }
}
END_TEST

/* (b) Navier's equation (lambda + mu) grad div u + mu lap u = 0 at interior points: second differences. */
START_TEST(equilibrium) {
  const double h = 0.5;
  for (int p = 0; p < 10; ++p) {
    const double x[3] = {100 + 2500 * cos(1.1 * p), -50 + 3000 * sin(1.3 * p), -200 - 400 * p};
    double hess[3][3][3]; /* hess[i][j][k] = d2 u_i / dx_j dx_k */
    for (int j = 0; j < 3; ++j)
      for (int k = j; k < 3; ++k) {
        double v[4][3];
        for (int m = 0; m < 4; ++m) {
          double y[3] = {x[0], x[1], x[2]};
          y[j] += (m & 1 ? 1 : -1) * h;
          y[k] += (m & 2 ? 1 : -1) * h;
          ck_assert_int_eq(sq_okada_displacement(&oblique, lam, mu, y, v[m]), 0);
        }
        double u0[3], up[3], um[3];
        if (j == k) {
          double y[3] = {x[0], x[1], x[2]};
          ck_assert_int_eq(sq_okada_displacement(&oblique, lam, mu, y, u0), 0);
          y[j] += h;
          ck_assert_int_eq(sq_okada_displacement(&oblique, lam, mu, y, up), 0);
          y[j] -= 2 * h;
          ck_assert_int_eq(sq_okada_displacement(&oblique, lam, mu, y, um), 0);
        }
        for (int i = 0; i < 3; ++i)
          hess[i][j][k] = hess[i][k][j] =
              j == k ? (up[i] - 2 * u0[i] + um[i]) / (h * h) : (v[3][i] - v[1][i] - v[2][i] + v[0][i]) / (4 * h * h);
      }
    for (int i = 0; i < 3; ++i) {
      double r = 0, scale = 0;
      for (int j = 0; j < 3; ++j) {
        r += (lam + mu) * hess[j][j][i] + mu * hess[i][j][j];
        scale += (lam + mu) * fabs(hess[j][j][i]) + mu * fabs(hess[i][j][j]);
      }
      EXPECT_MSG(fabs(r) < 1e-4 * scale, "point %d component %d: residual %g, scale %g", p, i, r, scale);
    }
  }
}
END_TEST

/* (c) The jump of u across the fault plane is the slip vector inside the rectangle, zero outside it. */
START_TEST(jump) {
  sq_okada_fault faults[3] = {oblique, oblique, oblique};
  faults[1].dip_deg = 90, faults[2].depth = 0, faults[2].rake_deg = -150;
  for (int k = 0; k < 3; ++k) {
    const sq_okada_fault *f = &faults[k];
    double n[3], sv[3];
    sq_okada_normal(f, n);
    sq_okada_slip_vector(f, sv);
    const double a = f->strike_deg * PI / 180, dr = f->dip_deg * PI / 180;
    const double s[3] = {sin(a), cos(a), 0}, dd[3] = {cos(a) * cos(dr), -sin(a) * cos(dr), -sin(dr)};
    /* the normal is orthogonal to the strike and to the down-dip direction, upwards, unit */
    EXPECT_NEAR(n[0] * s[0] + n[1] * s[1], 0, 1e-14);
    EXPECT_NEAR(n[0] * dd[0] + n[1] * dd[1] + n[2] * dd[2], 0, 1e-14);
    EXPECT_NEAR(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1, 1e-14);
    for (int p = 0; p < 9; ++p) {
      /* along-strike and down-dip fractions; |.| > 0.5 is outside */
      const double fs = -0.45 + 0.45 * (p % 3) + (p == 8 ? 0.3 : 0), fd = 0.1 + 0.35 * (p / 3) + (p == 7 ? 0.5 : 0);
      const int inside = fabs(fs) < 0.5 && fd < 1;
      double c[3], xp[3], xm[3], up[3], um[3];
      for (int i = 0; i < 3; ++i) c[i] = (i == 0 ? f->x : i == 1 ? f->y : -f->depth) + fs * f->length * s[i];
      for (int i = 0; i < 3; ++i) c[i] += fd * f->width * dd[i];
      const double eps = 1e-6;
      for (int i = 0; i < 3; ++i) xp[i] = c[i] + eps * n[i], xm[i] = c[i] - eps * n[i];
      ck_assert_int_eq(sq_okada_displacement(f, lam, mu, xp, up), 0);
      ck_assert_int_eq(sq_okada_displacement(f, lam, mu, xm, um), 0);
      for (int i = 0; i < 3; ++i)
        EXPECT_MSG(fabs(up[i] - um[i] - (inside ? sv[i] : 0)) < 1e-6, "fault %d point %d: jump_%d %g, slip %g", k, p, i,
                   up[i] - um[i], inside ? sv[i] : 0);
    }
  }
}
END_TEST

/* On the lines that extend the edges (beyond the corners, in the fault plane) the closed form has removable
   singularities (R + xi -> 0, R + eta -> 0, theta and I4 switching branches): the value there is finite and
   continuous with its neighbourhood. */
START_TEST(edge_extensions) {
  sq_okada_fault faults[3] = {oblique, oblique, oblique};
  faults[1].dip_deg = 90, faults[2].depth = 0;
  for (int k = 0; k < 3; ++k) {
    const sq_okada_fault *f = &faults[k];
    const double a = f->strike_deg * PI / 180, dr = f->dip_deg * PI / 180;
    const double s[3] = {sin(a), cos(a), 0}, dd[3] = {cos(a) * cos(dr), -sin(a) * cos(dr), -sin(dr)};
    /* (along strike, down dip) fractions: beyond the ends along the top and bottom edges' lines, and below the
       bottom along the side edges' lines */
    const double at[6][2] = {{0.8, 0}, {-0.9, 0}, {0.7, 1}, {-1.2, 1}, {0.5, 1.3}, {-0.5, 1.6}};
    for (int p = 0; p < 6; ++p) {
      if (k == 2 && at[p][1] == 0) continue; /* a top edge at the surface has no extension below it */
      double c[3], u0[3];
      for (int i = 0; i < 3; ++i)
        c[i] = (i == 0 ? f->x : i == 1 ? f->y : -f->depth) + at[p][0] * f->length * s[i] + at[p][1] * f->width * dd[i];
      ck_assert_int_eq(sq_okada_displacement(f, lam, mu, c, u0), 0);
      const double scale = fabs(u0[0]) + fabs(u0[1]) + fabs(u0[2]);
      ck_assert(scale > 0 && isfinite(scale));
      for (int m = 0; m < 6; ++m) {
        const double dir[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
        double y[3], u[3];
        for (int i = 0; i < 3; ++i) y[i] = c[i] + 1e-4 * dir[m][i];
        if (y[2] > 0) continue;
        ck_assert_int_eq(sq_okada_displacement(f, lam, mu, y, u), 0);
        for (int i = 0; i < 3; ++i)
          EXPECT_MSG(fabs(u[i] - u0[i]) < 1e-6 * scale,
                     "fault %d line point %d, offset %d: u_%d %.12g on the line, %.12g "
                     "beside it",
                     k, p, m, i, u0[i], u[i]);
      }
    }
  }
  /* exactly on the lines (q = 0 and eta = 0 or xi = 0 in exact arithmetic): a vertical fault, Okada's frame */
  const double pts[3][3] = {{-1, 0, -4}, {4.5, 0, -2}, {1.5 - 1.5, 0, -5}};
  for (int p = 0; p < 3; ++p) {
    double u0[3];
    ck_assert_int_eq(sq_okada_dc3d(2.0 / 3, pts[p][0], pts[p][1], pts[p][2], 4, 90, 0, 3, 0, 2, 1, 1, 1, u0), 0);
    for (int m = 0; m < 6; ++m) {
      double y[3] = {pts[p][0], pts[p][1], pts[p][2]}, u[3];
      y[m / 2] += m % 2 ? 1e-7 : -1e-7;
      ck_assert_int_eq(sq_okada_dc3d(2.0 / 3, y[0], y[1], y[2], 4, 90, 0, 3, 0, 2, 1, 1, 1, u), 0);
      for (int i = 0; i < 3; ++i)
        EXPECT_MSG(fabs(u[i] - u0[i]) < 1e-6, "line point %d offset %d: u_%d %.12g on the line, %.12g beside it", p, m,
                   i, u0[i], u[i]);
    }
  }
}
END_TEST

/* The slip vector follows strike, dip and rake; points on an edge or above the surface are refused; the strike
   rotates the field. */
START_TEST(conventions) {
  sq_okada_fault f = {.strike_deg = 0, .dip_deg = 90, .rake_deg = 0, .length = 10, .width = 5, .slip = 1, .depth = 1};
  double sv[3], n[3], u[3];
  sq_okada_slip_vector(&f, sv); /* strike north, vertical, left-lateral: the east side moves north */
  sq_okada_normal(&f, n);
  EXPECT_NEAR(sv[1], 1, 1e-14);
  EXPECT_NEAR(sv[0], 0, 1e-14);
  EXPECT_NEAR(n[0], 1, 1e-14);
  f.rake_deg = 90, f.dip_deg = 30; /* thrust dipping east: hanging wall up and west */
  sq_okada_slip_vector(&f, sv);
  EXPECT_NEAR(sv[2], 0.5, 1e-14);
  EXPECT_NEAR(sv[0], -sqrt(3) / 2, 1e-14);
  const double corner[3] = {0, 5, -1}, above[3] = {0, 0, 1};
  ck_assert_int_eq(sq_okada_displacement(&f, 1, 1, corner, u), -1);
  ck_assert_int_eq(sq_okada_displacement(&f, 1, 1, above, u), -1);
  /* rotating the fault and the point about the vertical rotates the displacement */
  sq_okada_fault g = oblique, h = oblique;
  h.strike_deg += 90, h.x = oblique.y, h.y = -oblique.x; /* clockwise by 90 degrees: (x, y) -> (y, -x) */
  const double x[3] = {1200, 700, -300}, xr[3] = {700, -1200, -300};
  double ug[3], uh[3];
  ck_assert_int_eq(sq_okada_displacement(&g, lam, mu, x, ug), 0);
  ck_assert_int_eq(sq_okada_displacement(&h, lam, mu, xr, uh), 0);
  EXPECT_NEAR(uh[0], ug[1], 1e-12);
  EXPECT_NEAR(uh[1], -ug[0], 1e-12);
  EXPECT_NEAR(uh[2], ug[2], 1e-12);
}
END_TEST

/* Additivity: a fault cut into four patches (two along strike, two down dip) gives the whole fault's field. */
START_TEST(superposition) {
  const sq_okada_fault *f = &oblique;
  const double a = f->strike_deg * PI / 180, dr = f->dip_deg * PI / 180;
  const double s[3] = {sin(a), cos(a), 0}, dd[3] = {cos(a) * cos(dr), -sin(a) * cos(dr), -sin(dr)};
  sq_okada_fault part[4];
  for (int k = 0; k < 4; ++k) {
    part[k] = *f;
    part[k].length = f->length / 2, part[k].width = f->width / 2;
    const double fs = k % 2 ? 0.25 : -0.25, fd = k / 2 ? 0.5 : 0; /* the part's top-edge centre */
    part[k].x = f->x + fs * f->length * s[0] + fd * f->width * dd[0];
    part[k].y = f->y + fs * f->length * s[1] + fd * f->width * dd[1];
    part[k].depth = f->depth - fd * f->width * dd[2];
  }
  for (int p = 0; p < 8; ++p) {
    const double x[3] = {-3000 + 900 * p, 2000 - 500 * p, p % 3 ? -150.0 * p : 0};
    double uw[3], us[3];
    ck_assert_int_eq(sq_okada_displacement(f, lam, mu, x, uw), 0);
    ck_assert_int_eq(sq_okada_displacement_sum(part, 4, lam, mu, x, us), 0);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(us[i], uw[i], 1e-12 * (fabs(uw[0]) + fabs(uw[1]) + fabs(uw[2])));
  }
}
END_TEST

int main(void) {
  const TTest *const tests[] = {published_finite, point_source_limit, free_surface, equilibrium, jump,
                                superposition,    edge_extensions,    conventions,  NULL};
  return sq_test_run(sq_test_suite("okada", 60, tests), 1);
}
