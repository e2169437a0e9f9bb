/**
 * @file verify_tp.c  `starquake verify thermal-pressurization`: the spectral thermal-pressurization update of
 * the rupture kernel (src/tp_impl.h) at a point heated at a constant rate tau V from t = 0, against the closed
 * forms of the diffusion problem (Rice 2006, Andrews 2002; sq_tp_closed_form), themselves checked against
 * adaptive quadrature of the convolution integrals (sq_tp_quadrature).  Cases: TPV105's parameters inside and
 * outside the velocity-weakening region, equal diffusivities, and a thin shear zone; the temperature and
 * pore-pressure changes at 12 times from 1 ms to 10 s.  Then the same at 8 to 60 wavenumbers: the error falls
 * with the number of grid points.  Passes when the error at the default grid is below 1% and the convergence
 * study falls by 100x from 8 points to the default grid.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sq_app.h"
#include "sq_friction.h"

enum { NCASE = 4, NTIME = 12, NGRID = 6 };

typedef struct tp_case {
  const char *name;
  double a_th, a_hy, rho_c, lambda, w, tau_v;
} tp_case;

static const tp_case cases[NCASE] = {{"tpv105_inside", 1e-6, 4e-4, 2.7e6, 0.1e6, 0.02, 0.2 * 40e6 * 1.0},
                                     {"tpv105_outside", 1e-6, 1.0004, 2.7e6, 0.1e6, 0.02, 0.6 * 40e6 * 1e-3},
                                     {"equal_diffusivities", 1e-5, 1e-5, 2.7e6, 0.1e6, 0.01, 10e6 * 2.0},
                                     {"thin_zone", 1e-6, 1e-5, 2.7e6, 0.1e6, 1e-4, 30e6 * 0.5}};
static const int grids[NGRID] = {8, 12, 16, 24, 40, SQ_TP_MAX_POINTS};

/* Largest relative error of dT and dp of case @p c with @p n grid points; *@p cf_vs_quad: the largest
 * relative difference between the closed forms and the quadrature. */
static int run_case(const tp_case *c, int n, double dt, double *err, double *cf_vs_quad) {
  sq_friction_params p;
  memset(&p, 0, sizeof(p));
  p.tp_alpha_th = c->a_th, p.tp_alpha_hy = c->a_hy, p.tp_rho_c = c->rho_c, p.tp_lambda = c->lambda;
  p.tp_half_width = c->w, p.tp_T0 = 483.15, p.tp_p0 = 0.0, p.tp_points = n;
  double times[NTIME], T[NTIME], P[NTIME];
  for (int k = 0; k < NTIME; ++k) times[k] = 1e-3 * pow(1e4, k / (double)(NTIME - 1));
  SQ_CALL(sq_tp_constant_heating(&p, c->tau_v, dt, NTIME, times, T, P));
  *err = 0.0, *cf_vs_quad = 0.0;
  for (int k = 0; k < NTIME; ++k) {
    double dT, dp, qT, qp;
    sq_tp_closed_form(c->a_th, c->a_hy, c->rho_c, c->lambda, c->w, c->tau_v, times[k], &dT, &dp);
    sq_tp_quadrature(c->a_th, c->a_hy, c->rho_c, c->lambda, c->w, c->tau_v, times[k], &qT, &qp);
    *err = fmax(*err, fmax(fabs(T[k] - p.tp_T0 - dT) / dT, fabs(P[k] - p.tp_p0 - dp) / dp));
    *cf_vs_quad = fmax(*cf_vs_quad, fmax(fabs(qT - dT) / dT, fabs(qp - dp) / dp));
  }
  return SQ_SUCCESS;
}

int sq_cmd_verify_tp(int argc, char **argv) {
  int json = 0;
  double dt = 1e-3;
  for (int i = 0; i < argc; ++i) {
    if (!strcmp(argv[i], "--help")) return sq_help_print(stdout, "verify thermal-pressurization");
    if (!strcmp(argv[i], "--json")) json = 1;
    else if (!strcmp(argv[i], "--dt") && i + 1 < argc) dt = atof(argv[++i]);
    else
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "verify thermal-pressurization: unknown option '%s'", argv[i]);
  }
  SQ_CHECK(dt > 0, SQ_ERR_INPUT, "verify thermal-pressurization: --dt must be > 0");
  double err[NCASE][NGRID], quad = 0.0, max_err = 0.0, conv[NGRID];
  for (int g = 0; g < NGRID; ++g) {
    conv[g] = 0.0;
    for (int c = 0; c < NCASE; ++c) {
      double q;
      SQ_CALL(run_case(&cases[c], grids[g], dt, &err[c][g], &q));
      conv[g] = fmax(conv[g], err[c][g]);
      quad = fmax(quad, q);
    }
  }
  max_err = conv[NGRID - 1];
  const int pass = max_err < 0.01 && quad < 1e-9 && conv[NGRID - 1] < 0.01 * conv[0];
  if (json) {
    printf("{\"test\": \"thermal-pressurization\", \"grid_points\": %d, \"dt\": %g, \"max_rel_error\": %.6e, "
           "\"closed_form_vs_quadrature\": %.3e, \"cases\": {",
           SQ_TP_MAX_POINTS, dt, max_err, quad);
    for (int c = 0; c < NCASE; ++c) printf("%s\"%s\": %.6e", c ? ", " : "", cases[c].name, err[c][NGRID - 1]);
    printf("}, \"convergence\": [");
    for (int g = 0; g < NGRID; ++g)
      printf("%s{\"grid_points\": %d, \"max_rel_error\": %.6e}", g ? ", " : "", grids[g], conv[g]);
    printf("], \"pass\": %s}\n", pass ? "true" : "false");
  } else {
    printf("thermal pressurization at constant tau V against the closed forms (Rice 2006), dt = %g s\n", dt);
    printf("closed forms against adaptive quadrature of the convolution integrals: %.3e\n", quad);
    printf("%-22s", "case \\ grid points");
    for (int g = 0; g < NGRID; ++g) printf(" %10d", grids[g]);
    printf("\n");
    for (int c = 0; c < NCASE; ++c) {
      printf("%-22s", cases[c].name);
      for (int g = 0; g < NGRID; ++g) printf(" %10.3e", err[c][g]);
      printf("\n");
    }
    printf("max relative error of dT and dp at %d grid points: %.3e: %s\n", SQ_TP_MAX_POINTS, max_err,
           pass ? "PASS" : "FAIL");
  }
  return pass ? SQ_SUCCESS : SQ_ERR_NUMERIC;
}
