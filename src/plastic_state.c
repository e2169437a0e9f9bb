/** @file plastic_state.c  Per-element plasticity data of a discretisation and the serial correction step. */
#include "sq_plastic_state.h"
#include "sq_kernels.h"
#include "sq_locate.h"
#include "sq_ref.h"

#include <stdlib.h>
#include <string.h>

int sq_plastic_state_create(const sq_disc *disc, sq_plastic_state **out) {
  *out = NULL;
  sq_plastic_state *ps;
  SQ_CALL(SQ_CALLOC(ps, 1));
  *out = ps;
  const int64_t n = disc->nelem, rows = n > 0 ? n : 1;
  ps->nelem = n;
  ps->precision = disc->opt.precision;
  SQ_CALL(sq_plasticity_ref_create(disc->opt.order, &ps->ref));
  ps->stress_row_bytes = (size_t)6 * ps->ref->nbasis * sq_real_size(ps->precision);
  SQ_CALL(sq_calloc_aligned(&ps->initial_stress, (size_t)rows, ps->stress_row_bytes));
  SQ_CALL(SQ_CALLOC(ps->params, 3 * rows));
  SQ_CALL(SQ_CALLOC(ps->mu, rows));
  SQ_CALL(SQ_CALLOC(ps->strain, SQ_PLASTIC_STRAIN_COLS * rows));
  SQ_CALL(SQ_CALLOC(ps->yielded, rows));
  for (int64_t e = 0; e < n; ++e) ps->mu[e] = disc->material[disc->cell_of[e]].mu;
  const size_t bb = (size_t)ps->ref->nbasis * ps->ref->nbasis, rs = sq_real_size(ps->precision);
  ps->ref_pack_bytes = 2 * bb * rs;
  ps->ref_pack = calloc(1, ps->ref_pack_bytes);
  SQ_CHECK(ps->ref_pack, SQ_ERR_MEMORY, "out of memory");
  if (ps->precision == SQ_F64) {
    memcpy(ps->ref_pack, ps->ref->V, bb * rs);
    memcpy((char *)ps->ref_pack + bb * rs, ps->ref->Vinv, bb * rs);
  } else {
    memcpy(ps->ref_pack, ps->ref->V_f32, bb * rs);
    memcpy((char *)ps->ref_pack + bb * rs, ps->ref->Vinv_f32, bb * rs);
  }
  return SQ_SUCCESS;
}

void sq_plastic_state_destroy(sq_plastic_state *ps) {
  if (!ps) return;
  sq_plasticity_ref_destroy(ps->ref);
  SQ_FREE(ps->initial_stress);
  SQ_FREE(ps->params);
  SQ_FREE(ps->mu);
  SQ_FREE(ps->strain);
  SQ_FREE(ps->yielded);
  free(ps->ref_pack);
  SQ_FREE(ps);
}

size_t sq_plastic_state_bytes(const sq_plastic_state *ps) {
  if (!ps) return 0;
  return (size_t)ps->nelem * (ps->stress_row_bytes + (3 + 1 + SQ_PLASTIC_STRAIN_COLS) * sizeof(double) + 1);
}

void *sq_plastic_state_stress(const sq_plastic_state *ps, int64_t e) {
  return (char *)ps->initial_stress + (size_t)e * ps->stress_row_bytes;
}

void sq_plastic_state_node_points(const sq_plastic_state *ps, const sq_disc *disc, int64_t e, double *xyz) {
  for (int i = 0; i < ps->ref->nbasis; ++i)
    sq_mesh_ref_to_phys(disc->mesh, disc->cell_of[e], ps->ref->node + 3 * i, xyz + 3 * i);
}

void sq_plastic_state_stress_at(const sq_plastic_state *ps, int64_t e, const double xi[3], double stress[6]) {
  const int B = ps->ref->nbasis;
  double psi[84], nodal[84]; /* B <= 84 (order 7, SQ_ORDER_MAX) */
  sq_basis_eval(ps->ref->order, xi, psi);
  const void *row = sq_plastic_state_stress(ps, e);
  for (int p = 0; p < 6; ++p) {
    for (int i = 0; i < B; ++i) {
      double s[6];
      sq_plasticity_stress_get(ps->precision, B, row, i, s);
      nodal[i] = s[p];
    }
    double sum = 0.0;
    for (int k = 0; k < B; ++k) {
      double mode = 0.0;
      for (int i = 0; i < B; ++i) mode += ps->ref->Vinv[k + i * B] * nodal[i];
      sum += psi[k] * mode;
    }
    stress[p] = sum;
  }
}

int64_t sq_plastic_state_block(sq_precision prec, int order, double psi0, const void *ref_pack, int64_t n, void *dofs,
                               const void *initial_stress, const double *params, const double *mu, double dt,
                               double *strain, uint8_t *yielded) {
  /* a view of the reference data on the packed matrices: only the working precision's pair is read */
  const int B = sq_nbasis(order);
  const size_t bb = (size_t)B * B;
  sq_plasticity_ref view = {.order = order, .nbasis = B, .psi0 = psi0};
  if (prec == SQ_F64) {
    view.V = (double *)ref_pack;
    view.Vinv = (double *)ref_pack + bb;
  } else {
    view.V_f32 = (float *)ref_pack;
    view.Vinv_f32 = (float *)ref_pack + bb;
  }
  return sq_plasticity_tile(prec, &view, n, dofs, initial_stress, params, mu, dt, strain, yielded);
}

int64_t sq_plastic_state_step_serial(sq_plastic_state *ps, sq_disc *disc, double dt) {
  int64_t count = 0;
  for (int t = 0; t < disc->ntile; ++t) {
    const sq_tile *tl = &disc->tile[t];
    if (tl->layer == SQ_LAYER_GHOST) continue;
    const int64_t b = tl->begin, n = tl->end - b;
    void *dofs = sq_disc_elem_ptr(disc, disc->dofs, b);
    /* with attenuation, as the plasticity_ane codelet: the correction leaves theta_l = phi_l + C_u^-1 sigma alone */
    if (disc->ane)
      sq_kernel_ane_shift(ps->precision, disc->opt.order, disc->nmech, n, sq_disc_ane_coef_ptr(disc, b), dofs, 1,
                          sq_disc_ane_ptr(disc, b));
    count += sq_plastic_state_block(ps->precision, disc->opt.order, ps->ref->psi0, ps->ref_pack, n, dofs,
                                    sq_plastic_state_stress(ps, b), ps->params + 3 * b, ps->mu + b, dt,
                                    ps->strain + SQ_PLASTIC_STRAIN_COLS * b, ps->yielded + b);
    if (disc->ane)
      sq_kernel_ane_shift(ps->precision, disc->opt.order, disc->nmech, n, sq_disc_ane_coef_ptr(disc, b), dofs, -1,
                          sq_disc_ane_ptr(disc, b));
  }
  ps->yield_updates += count;
  return count;
}
