/**
 * @file attenuation.c  Viscoelastic attenuation of a run (the config's attenuation section and the materials'
 * qp, qs): the band, each cell's fitted body, the unrelaxed materials that the whole set-up uses (LTS clusters,
 * partition, discretisation), and the kernel coefficients.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sq_sim_setup.h"

/* A cell's Q (0: not given, elastic) as the fit takes it. */
static double q_of(double q) { return q > 0 ? q : INFINITY; }

int sq_sim_attenuation_band(const sq_config *cfg, sq_atten_band *band) {
  const sq_attenuation_config *ac = &cfg->attenuation;
  const int ierr = sq_atten_band_init(ac->mechanisms, ac->central_frequency, ac->frequency_ratio, band);
  if (ierr) sq_error_more("  (%s line %d, section 'attenuation')", cfg->path, ac->line);
  return ierr;
}

int sq_sim_attenuation_unrelax(const sq_config *cfg, const sq_atten_band *band, const double x[3], int64_t cell,
                               sq_material *m) {
  sq_visco v;
  sq_material u;
  const int ierr = sq_visco_init(band, m, q_of(m->qp), q_of(m->qs), &v, &u);
  if (ierr) {
    sq_error_more("  (mesh cell %lld at (%g, %g, %g): rho %g, lambda %g, mu %g; %s)", (long long)cell, x[0], x[1], x[2],
                  m->rho, m->lambda, m->mu, cfg->path);
    return ierr;
  }
  m->lambda = u.lambda, m->mu = u.mu;
  return SQ_SUCCESS;
}

int sq_sim_attenuation_coefficients(const sq_config *cfg, const sq_mesh *mesh, const sq_material *unrelaxed,
                                    double **coef) {
  sq_atten_band band;
  *coef = NULL;
  SQ_CALL(sq_sim_attenuation_band(cfg, &band));
  const int64_t n = mesh->ncell > 0 ? mesh->ncell : 1;
  double *cf = malloc(sizeof(double) * SQ_ANE_NCOEF * n);
  SQ_CHECK(cf, SQ_ERR_MEMORY, "attenuation: out of memory for %lld cells", (long long)n);
  sq_visco v;
  double last_qp = -1, last_qs = -1; /* the fit of the previous cell's Q, reused while they repeat */
  for (int64_t c = 0; c < mesh->ncell; ++c) {
    const sq_material *m = &unrelaxed[c];
    if (m->qp != last_qp || m->qs != last_qs) {
      const int ierr = sq_visco_init_unrelaxed(&band, m, q_of(m->qp), q_of(m->qs), &v);
      if (ierr) {
        free(cf);
        return ierr;
      }
      last_qp = m->qp, last_qs = m->qs;
    }
    v.lambda_u = m->lambda, v.mu_u = m->mu;
    sq_visco_coefficients(&band, &v, cf + c * SQ_ANE_NCOEF);
  }
  *coef = cf;
  return SQ_SUCCESS;
}

int sq_sim_attenuation_wave(const sq_config *cfg, sq_planewave *pw) {
  sq_atten_band band;
  sq_visco v;
  sq_material u;
  const sq_material *m = &cfg->material_default;
  SQ_CALL(sq_sim_attenuation_band(cfg, &band));
  SQ_CALL(sq_visco_init(&band, m, q_of(m->qp), q_of(m->qs), &v, &u));
  return sq_planewave_attenuate(pw, &band, &v, m->rho);
}

double sq_sim_attenuation_relax_rate(const sq_config *cfg) {
  sq_atten_band band;
  if (!cfg->attenuation.enabled || sq_sim_attenuation_band(cfg, &band)) return 0.0;
  double w = 0.0;
  for (int l = 0; l < band.n; ++l) w = fmax(w, band.omega[l]);
  return w;
}
