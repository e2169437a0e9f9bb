/**
 * @file attenuation.c  Viscoelastic attenuation of a run (the config's attenuation section and the materials'
 * qp, qs): the band, each cell's fitted body, the unrelaxed materials the discretisation is built with, and
 * the memory variables of the discretisation.
 */
#include <math.h>
#include <stdlib.h>

#include "sq_sim_setup.h"

int sq_sim_attenuation_materials(const sq_config *cfg, const sq_mesh *mesh, const sq_material *cell_material,
                                 sq_material **unrelaxed, double **coef) {
  const sq_attenuation_config *ac = &cfg->attenuation;
  sq_atten_band band;
  *unrelaxed = NULL;
  *coef = NULL;
  int ierr = sq_atten_band_init(ac->mechanisms, ac->central_frequency, ac->frequency_ratio, &band);
  if (ierr) {
    sq_error_more("  (%s line %d, section 'attenuation')", cfg->path, ac->line);
    return ierr;
  }
  const int64_t n = mesh->ncell > 0 ? mesh->ncell : 1;
  sq_material *u = malloc(sizeof(sq_material) * n);
  double *cf = malloc(sizeof(double) * SQ_ANE_NCOEF * n);
  SQ_CHECK(u && cf, SQ_ERR_MEMORY, "attenuation: out of memory for %lld cells", (long long)n);
  for (int64_t c = 0; c < mesh->ncell && !ierr; ++c) {
    const sq_material *m = &cell_material[c];
    const double qp = m->qp > 0 ? m->qp : INFINITY, qs = m->qs > 0 ? m->qs : INFINITY;
    sq_visco v;
    ierr = sq_visco_init(&band, m, qp, qs, &v, &u[c]);
    if (ierr) {
      const double *x = &mesh->centroid[3 * c];
      sq_error_more("  (mesh cell %lld at (%g, %g, %g): rho %g, lambda %g, mu %g; %s)",
                    (long long)sq_mesh_global_cell(mesh, c), x[0], x[1], x[2], m->rho, m->lambda, m->mu, cfg->path);
      break;
    }
    u[c].qp = m->qp, u[c].qs = m->qs;
    sq_visco_coefficients(&band, &v, cf + c * SQ_ANE_NCOEF);
  }
  if (ierr) {
    free(u);
    free(cf);
    return ierr;
  }
  *unrelaxed = u;
  *coef = cf;
  return SQ_SUCCESS;
}

int sq_sim_attenuation_wave(const sq_config *cfg, sq_planewave *pw) {
  const sq_attenuation_config *ac = &cfg->attenuation;
  sq_atten_band band;
  sq_visco v;
  sq_material u;
  const sq_material *m = &cfg->material_default;
  SQ_CALL(sq_atten_band_init(ac->mechanisms, ac->central_frequency, ac->frequency_ratio, &band));
  SQ_CALL(sq_visco_init(&band, m, m->qp > 0 ? m->qp : INFINITY, m->qs > 0 ? m->qs : INFINITY, &v, &u));
  return sq_planewave_attenuate(pw, &band, &v, m->rho);
}
