/**
 * @file source.c  Source time functions, moment tensors, the discretisation of point sources and the
 * source kernel (thesis eq. 3.21, 3.29-3.35).
 */
#include "sq_source.h"
#include "sq_attenuation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sq_locate.h"

static const double sq_pi = 3.14159265358979323846;

/* 8-point Gauss-Legendre rule on [-1, 1] (nodes, weights). */
static const double gauss8[8][2] = {
    {-0.96028985649753618, 0.10122853629037669}, {-0.79666647741362673, 0.22238103445337434},
    {-0.52553240991632899, 0.31370664587788705}, {-0.18343464249564978, 0.36268378337836177},
    {0.18343464249564978, 0.36268378337836177},  {0.52553240991632899, 0.31370664587788705},
    {0.79666647741362673, 0.22238103445337434},  {0.96028985649753618, 0.10122853629037669}};

/* ---------------------------------------------------------------------------------------------- */
/* Source time functions                                                                          */
/* ---------------------------------------------------------------------------------------------- */

/* First sample index i with time[i] > t (binary search), in [0, n]. */
static int64_t table_upper(const sq_stf *s, double t) {
  int64_t lo = 0, hi = s->nsample;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (s->time[mid] > t) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

static double table_value(const sq_stf *s, double t) {
  if (s->nsample < 2 || t < s->time[0] || t > s->time[s->nsample - 1]) return 0.0;
  int64_t i = table_upper(s, t);
  if (i >= s->nsample) return s->value[s->nsample - 1];
  const double t0 = s->time[i - 1], t1 = s->time[i];
  const double w = (t - t0) / (t1 - t0);
  return s->value[i - 1] + w * (s->value[i] - s->value[i - 1]);
}

/* Integral of the table from time[0] to t (t clamped to the table). */
static double table_cumulative(const sq_stf *s, double t) {
  if (s->nsample < 2 || t <= s->time[0]) return 0.0;
  double sum = 0.0;
  for (int64_t i = 1; i < s->nsample && s->time[i - 1] < t; ++i) {
    const double t0 = s->time[i - 1], t1 = fmin(s->time[i], t);
    const double v1 = t1 < s->time[i] ? table_value(s, t1) : s->value[i];
    sum += 0.5 * (s->value[i - 1] + v1) * (t1 - t0);
  }
  return sum;
}

/* Exact integral of the table over [a, b] (a <= b), summing only the segments met. */
static double table_integral(const sq_stf *s, double a, double b) {
  if (s->nsample < 2) return 0.0;
  a = fmax(a, s->time[0]);
  b = fmin(b, s->time[s->nsample - 1]);
  if (!(b > a)) return 0.0;
  double sum = 0.0;
  for (int64_t i = table_upper(s, a); i < s->nsample; ++i) {
    const double lo = fmax(a, s->time[i - 1]), hi = fmin(b, s->time[i]);
    if (hi > lo) sum += 0.5 * (table_value(s, lo) + table_value(s, hi)) * (hi - lo);
    if (s->time[i] >= b) break;
  }
  return sum;
}

double sq_stf_rate(const sq_stf *s, double t) {
  const double u = t - s->onset;
  switch (s->kind) {
  case SQ_STF_GAUSSIAN: {
    const double z = (u - s->delay) / s->width;
    return exp(-z * z) / (s->width * sqrt(sq_pi));
  }
  case SQ_STF_RICKER: {
    const double a = sq_pi * sq_pi * s->frequency * s->frequency, v = u - s->delay;
    return (1.0 - 2.0 * a * v * v) * exp(-a * v * v);
  }
  case SQ_STF_BRUNE:
  case SQ_STF_LOH1: return u <= 0.0 ? 0.0 : u / (s->period * s->period) * exp(-u / s->period);
  case SQ_STF_TABLE: return table_value(s, u);
  }
  return 0.0;
}

double sq_stf_derivative(const sq_stf *s, double t) {
  const double u = t - s->onset;
  switch (s->kind) {
  case SQ_STF_GAUSSIAN: {
    const double z = (u - s->delay) / s->width;
    return -2.0 * z / s->width * exp(-z * z) / (s->width * sqrt(sq_pi));
  }
  case SQ_STF_RICKER: {
    const double a = sq_pi * sq_pi * s->frequency * s->frequency, v = u - s->delay;
    return 2.0 * a * v * (2.0 * a * v * v - 3.0) * exp(-a * v * v);
  }
  case SQ_STF_BRUNE:
  case SQ_STF_LOH1: return u <= 0.0 ? 0.0 : (1.0 - u / s->period) * exp(-u / s->period) / (s->period * s->period);
  case SQ_STF_TABLE: {
    if (s->nsample < 2 || u < s->time[0] || u >= s->time[s->nsample - 1]) return 0.0;
    const int64_t i = table_upper(s, u);
    return (s->value[i] - s->value[i - 1]) / (s->time[i] - s->time[i - 1]);
  }
  }
  return 0.0;
}

double sq_stf_cumulative(const sq_stf *s, double t) {
  const double u = t - s->onset;
  switch (s->kind) {
  case SQ_STF_GAUSSIAN: return 0.5 * (1.0 + erf((u - s->delay) / s->width));
  case SQ_STF_RICKER: {
    const double a = sq_pi * sq_pi * s->frequency * s->frequency, v = u - s->delay;
    return v * exp(-a * v * v);
  }
  case SQ_STF_BRUNE:
  case SQ_STF_LOH1: return u <= 0.0 ? 0.0 : -expm1(-u / s->period) - u / s->period * exp(-u / s->period);
  case SQ_STF_TABLE: return table_cumulative(s, u);
  }
  return 0.0;
}

double sq_stf_integral(const sq_stf *s, double a, double b) {
  if (s->kind == SQ_STF_TABLE) return table_integral(s, a - s->onset, b - s->onset);
  if (s->kind == SQ_STF_GAUSSIAN) {
    /* erfc on the far side keeps the difference accurate in the tails */
    const double za = (a - s->onset - s->delay) / s->width, zb = (b - s->onset - s->delay) / s->width;
    if (za > 0) return 0.5 * (erfc(za) - erfc(zb));
    if (zb < 0) return 0.5 * (erfc(-zb) - erfc(-za));
    return 0.5 * (erf(zb) - erf(za));
  }
  return sq_stf_cumulative(s, b) - sq_stf_cumulative(s, a);
}

void sq_stf_taylor(const sq_stf *s, double t0, double dt, int order, double *deriv) {
  enum { NSUB = 4, NMAX = SQ_ORDER_MAX };
  double leg[NMAX] = {0};
  /* Legendre coefficients a_j = (2j+1)/2 int_{-1}^{1} s(t(u)) P_j(u) du, t = t0 + dt (u + 1) / 2 */
  for (int sub = 0; sub < NSUB; ++sub)
    for (int q = 0; q < 8; ++q) {
      const double u = -1.0 + (2.0 * sub + 1.0 + gauss8[q][0]) / NSUB, w = gauss8[q][1] / NSUB;
      const double f = sq_stf_rate(s, t0 + 0.5 * dt * (u + 1.0)) * w;
      double p0 = 1.0, p1 = u;
      for (int j = 0; j < order; ++j) {
        const double pj = j == 0 ? p0 : p1;
        leg[j] += 0.5 * (2 * j + 1) * f * pj;
        if (j >= 1) { /* advance: P_{j+1} = ((2j+1) u P_j - j P_{j-1}) / (j+1) */
          const double p2 = ((2 * j + 1) * u * p1 - j * p0) / (j + 1);
          p0 = p1;
          p1 = p2;
        }
      }
    }
  /* P_j as polynomials in v = u + 1 (Taylor coefficients at u = -1, i.e. at t0) */
  double poly[NMAX][NMAX] = {{0}};
  poly[0][0] = 1.0;
  if (order > 1) poly[1][0] = -1.0, poly[1][1] = 1.0;
  for (int n = 1; n + 1 < order; ++n)
    for (int m = 0; m <= n + 1; ++m) {
      const double vp = m > 0 ? poly[n][m - 1] : 0.0;
      poly[n + 1][m] = ((2 * n + 1) * (vp - poly[n][m]) - n * poly[n - 1][m]) / (n + 1);
    }
  double scale = 1.0, fact = 1.0; /* (2/dt)^i and i! */
  for (int i = 0; i < order; ++i) {
    double c = 0.0;
    for (int j = i; j < order; ++j) c += leg[j] * poly[j][i];
    deriv[i] = c * scale * fact;
    scale *= 2.0 / dt;
    fact *= i + 1;
  }
}

/* ---------------------------------------------------------------------------------------------- */
/* Source lists and moment tensors                                                                */
/* ---------------------------------------------------------------------------------------------- */

int sq_source_list_push(sq_source_list *list, const sq_point_source *src) {
  if (list->n == list->cap) {
    const int cap = list->cap ? 2 * list->cap : 16;
    sq_point_source *p = realloc(list->src, (size_t)cap * sizeof(*p));
    SQ_CHECK(p, SQ_ERR_MEMORY, "out of memory storing %d point sources", cap);
    list->src = p;
    list->cap = cap;
  }
  list->src[list->n++] = *src;
  return SQ_SUCCESS;
}

void sq_source_list_clear(sq_source_list *list) {
  for (int i = 0; i < list->n; ++i) {
    free(list->src[i].stf.time);
    free(list->src[i].stf.value);
  }
  free(list->src);
  memset(list, 0, sizeof(*list));
}

void sq_moment_from_sdr(double strike, double dip, double rake, double m0, double moment[6], double normal[3],
                        double slip[3]) {
  const double deg = sq_pi / 180.0;
  const double sf = sin(strike * deg), cf = cos(strike * deg);
  const double sd = sin(dip * deg), cd = cos(dip * deg);
  const double sr = sin(rake * deg), cr = cos(rake * deg);
  const double along[3] = {sf, cf, 0.0};           /* strike direction (east, north, up) */
  const double down[3] = {cd * cf, -cd * sf, -sd}; /* down-dip direction */
  const double n[3] = {sd * cf, -sd * sf, cd};     /* normal into the hanging wall */
  double d[3];
  for (int i = 0; i < 3; ++i) d[i] = cr * along[i] - sr * down[i];
  static const int vi[6] = {0, 1, 2, 0, 1, 0}, vj[6] = {0, 1, 2, 1, 2, 2};
  for (int k = 0; k < 6; ++k) moment[k] = m0 * (n[vi[k]] * d[vj[k]] + d[vi[k]] * n[vj[k]]);
  if (normal) memcpy(normal, n, sizeof(n));
  if (slip) memcpy(slip, d, sizeof(d));
}

void sq_source_quantities(const sq_point_source *src, const sq_material *mat, double q[9]) {
  /* a source may carry both parts (a finite-source sub-fault with a moment tensor and a force) */
  for (int k = 0; k < 6; ++k) q[k] = -src->moment[k];
  for (int d = 0; d < 3; ++d) q[6 + d] = src->force[d] / mat->rho;
  if (src->kind == SQ_SOURCE_SLIP) {
    static const int vi[6] = {0, 1, 2, 0, 1, 0}, vj[6] = {0, 1, 2, 1, 2, 2};
    const double *n = src->normal, *d = src->slip;
    const double mu = src->mu > 0 ? src->mu : mat->mu, nd = n[0] * d[0] + n[1] * d[1] + n[2] * d[2];
    for (int k = 0; k < 6; ++k)
      q[k] =
          -src->area * ((vi[k] == vj[k] ? mat->lambda * nd : 0.0) + mu * (n[vi[k]] * d[vj[k]] + d[vi[k]] * n[vj[k]]));
  }
}

/* ---------------------------------------------------------------------------------------------- */
/* Discretisation                                                                                 */
/* ---------------------------------------------------------------------------------------------- */

static int cmp_point(const void *a, const void *b) {
  const sq_source_point *x = a, *y = b; /* within one tile: by element, then source index */
  if (x->elem != y->elem) return x->elem < y->elem ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

int sq_source_set_create(const sq_disc *d, const sq_locator *loc, const sq_source_list *list, sq_source_set **out) {
  const sq_mesh *m = d->mesh;
  sq_source_set *s;
  SQ_CALL(SQ_CALLOC(s, 1));
  *out = s;
  s->list = list;
  s->predictor = 1;
  s->ntile = d->ntile;
  SQ_CALL(SQ_CALLOC(s->tile_begin, d->ntile + 1));
  SQ_CALL(SQ_CALLOC(s->point, list->n > 0 ? list->n : 1));
  /* locate all; report every source outside the mesh */
  int64_t *elem;
  SQ_CALL(SQ_CALLOC(elem, list->n > 0 ? list->n : 1));
  double *xi;
  SQ_CALL(SQ_CALLOC(xi, 3 * (size_t)(list->n > 0 ? list->n : 1)));
  int nout = 0, first_out = -1;
  for (int i = 0; i < list->n; ++i) {
    const int64_t c = sq_locator_find(loc, list->src[i].x, &xi[3 * i]);
    elem[i] = c < 0 ? -1 : d->elem_of[c];
    if (elem[i] >= 0 && d->is_ghost[elem[i]])
      elem[i] = -1; /* another rank applies it (also c == SQ_LOCATE_ELSEWHERE) */
    if (c == -1 && nout++ == 0) first_out = i;
  }
  if (nout) {
    /* one error line naming the first one (file:line of its definition), then the others */
    char more[80] = "";
    if (nout > 1) snprintf(more, sizeof more, "; %d sources lie outside in all; the others:", nout);
    const double *x = list->src[first_out].x;
    sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
             "%s: source %d at (%.9g, %.9g, %.9g) lies outside the mesh %s, which spans x %.9g..%.9g, "
             "y %.9g..%.9g, z %.9g..%.9g%s",
             list->src[first_out].origin, first_out, x[0], x[1], x[2], m->source, m->bbox_lo[0], m->bbox_hi[0],
             m->bbox_lo[1], m->bbox_hi[1], m->bbox_lo[2], m->bbox_hi[2], more);
    for (int i = first_out + 1; i < list->n; ++i)
      if (elem[i] < 0 && sq_locator_find(loc, list->src[i].x, &xi[3 * i]) == -1)
        sq_error_more("  %s: source %d at (%.9g, %.9g, %.9g)", list->src[i].origin, i, list->src[i].x[0],
                      list->src[i].x[1], list->src[i].x[2]);
    SQ_FREE(elem);
    SQ_FREE(xi);
    return SQ_ERR_INPUT;
  }
  /* tile of each source: elements are contiguous per tile */
  int *tile_of_src;
  SQ_CALL(SQ_CALLOC(tile_of_src, list->n > 0 ? list->n : 1));
  int nlocal = 0;
  for (int i = 0; i < list->n; ++i) {
    tile_of_src[i] = -1;
    if (elem[i] < 0) continue;
    ++nlocal;
    int lo = 0, hi = d->ntile - 1;
    while (lo < hi) { /* last tile with begin <= elem */
      const int mid = (lo + hi + 1) / 2;
      if (d->tile[mid].begin <= elem[i]) lo = mid;
      else hi = mid - 1;
    }
    tile_of_src[i] = lo;
    s->tile_begin[lo + 1]++;
  }
  for (int t = 0; t < d->ntile; ++t) s->tile_begin[t + 1] += s->tile_begin[t];
  int *fill;
  SQ_CALL(SQ_CALLOC(fill, d->ntile > 0 ? d->ntile : 1));
  const int B = d->nbasis;
  double phi[SQ_MAXB];
  for (int i = 0; i < list->n; ++i) {
    const int t = tile_of_src[i];
    if (t < 0) continue;
    sq_source_point *p = &s->point[s->tile_begin[t] + fill[t]++];
    const int64_t c = d->cell_of[elem[i]];
    p->elem = (int32_t)(elem[i] - d->tile[t].begin);
    p->index = i;
    sq_source_quantities(&list->src[i], &d->material[c], p->q);
    sq_basis_eval(d->opt.order, &xi[3 * i], phi);
    const double jac = 6.0 * m->volume[c]; /* |J| */
    for (int k = 0; k < B; ++k) p->phi[k] = phi[k] / (jac * d->ref->mass[k]);
    for (int k = B; k < SQ_MAXB; ++k) p->phi[k] = 0.0;
  }
  for (int t = 0; t < d->ntile; ++t)
    if (s->tile_begin[t + 1] > s->tile_begin[t])
      qsort(&s->point[s->tile_begin[t]], (size_t)(s->tile_begin[t + 1] - s->tile_begin[t]), sizeof(sq_source_point),
            cmp_point);
  s->n = nlocal;
  SQ_FREE(fill);
  SQ_FREE(tile_of_src);
  SQ_FREE(elem);
  SQ_FREE(xi);
  return SQ_SUCCESS;
}

void sq_source_set_destroy(sq_source_set *s) {
  if (!s) return;
  SQ_FREE(s->point);
  SQ_FREE(s->tile_begin);
  SQ_FREE(s);
}

void sq_source_set_coefficients(const sq_source_set *s, int tile, double t0, double dt, int order, double *coef) {
  for (int i = s->tile_begin[tile]; i < s->tile_begin[tile + 1]; ++i) {
    const sq_stf *stf = &s->list->src[s->point[i].index].stf;
    double *c = coef + (size_t)(i - s->tile_begin[tile]) * (order + 1);
    sq_stf_taylor(stf, t0, dt, order, c);
    c[order] = sq_stf_integral(stf, t0, t0 + dt);
  }
}

/* ---------------------------------------------------------------------------------------------- */
/* Source kernel                                                                                  */
/* ---------------------------------------------------------------------------------------------- */

static double get_real(sq_precision p, const void *base, size_t i) {
  return p == SQ_F64 ? ((const double *)base)[i] : (double)((const float *)base)[i];
}
static void add_real(sq_precision p, void *base, size_t i, double v) {
  if (p == SQ_F64) ((double *)base)[i] += v;
  else ((float *)base)[i] += (float)v;
}

/* with attenuation: e (B x 6) += C_u^-1 s (s B x 6) with the element's compliance coefficients c */
static void ane_strain_add(int B, const double *c, const double *s, double scale, double *e) {
  for (int k = 0; k < B; ++k) {
    const double tr = s[k] + s[k + B] + s[k + 2 * B];
    for (int p = 0; p < 6; ++p) e[k + p * B] += scale * (c[SQ_ANE_C1] * s[k + p * B] - (p < 3 ? c[SQ_ANE_C2] * tr : 0));
  }
}

/* with attenuation: g (B x 6) = sum_l a_l tr(th_l) I + b_l th_l */
static void ane_stress(int B, int nmech, const double *c, const double *th, double *g) {
  memset(g, 0, sizeof(double) * (size_t)B * 6);
  for (int l = 0; l < nmech; ++l) {
    const double *t = th + (size_t)l * 6 * B;
    for (int k = 0; k < B; ++k) {
      const double tr = t[k] + t[k + B] + t[k + 2 * B];
      for (int p = 0; p < 6; ++p) g[k + p * B] += c[SQ_ANE_B + l] * t[k + p * B] + (p < 3 ? c[SQ_ANE_A + l] * tr : 0);
    }
  }
}

void sq_kernel_point_sources(sq_precision prec, int order, int n, const sq_source_point *pts, const double *coef,
                             double dt, int predictor, const void *pack, const void *star, const void *flux_local,
                             void *dofs, void *tint, void *derivs, void *buffer, int nmech, const void *ane_coef,
                             void *ane) {
  const int B = sq_nbasis(order), BB = B * B, nq = B * 9;
  const size_t rs = sq_real_size(prec);
  double forcing[SQ_ORDER_MAX][SQ_MAXB * 9], D[SQ_MAXB * 9], next[SQ_MAXB * 9], tmp[SQ_MAXB * 9];
  double I[SQ_MAXB * 9], update[SQ_MAXB * 9], st[3][81];
  union {
    double f64[SQ_MAXB * 9];
    float f32[SQ_MAXB * 9];
  } tint_w;
  /* with attenuation: the source part's memory variables Theta_s (Theta_s^0 = 0: a stress source leaves theta
   * continuous), their time integral, the anelastic stress source and the element's coefficients */
  const int na = B * 6, nane = ane ? na * (nmech + 1) : 0;
  double th[2][SQ_MECH_MAX * SQ_MAXB * 6], ith[SQ_MECH_MAX * SQ_MAXB * 6], gs[SQ_MAXB * 6], ce[SQ_ANE_NCOEF];
  for (int g = 0; g < n;) {
    const int e = pts[g].elem;
    int h = g;
    while (h < n && pts[h].elem == e) ++h;
    /* forcing terms S^(i) = sum_src phi q s^(i)(t0) and the update's phi q int s */
    memset(forcing, 0, sizeof(forcing));
    memset(update, 0, sizeof(update));
    for (int src = g; src < h; ++src) {
      const double *c = coef + (size_t)src * (order + 1);
      for (int p = 0; p < 9; ++p) {
        if (pts[src].q[p] == 0.0) continue;
        for (int k = 0; k < B; ++k) {
          const double pq = pts[src].phi[k] * pts[src].q[p];
          for (int i = 0; i < order; ++i) forcing[i][k + p * B] += pq * c[i];
          update[k + p * B] += pq * c[order];
        }
      }
    }
    if (ane)
      for (int k = 0; k < SQ_ANE_NCOEF; ++k) ce[k] = get_real(prec, ane_coef, (size_t)e * SQ_ANE_NCOEF + k);
    if (!predictor) {
      for (int k = 0; k < nq; ++k) add_real(prec, dofs, (size_t)e * nq + k, update[k]);
      if (ane) /* the stress jump moves phi_l = theta_l - C_u^-1 sigma by -C_u^-1 (the jump) */
        for (int l = 0; l < nmech; ++l) {
          memset(ith, 0, sizeof(double) * na);
          ane_strain_add(B, ce, update, -1.0, ith);
          for (int k = 0; k < na; ++k) add_real(prec, ane, (size_t)e * nane + (size_t)l * na + k, ith[k]);
        }
      g = h;
      continue;
    }
    for (int dd = 0; dd < 3; ++dd)
      for (int i = 0; i < 81; ++i) st[dd][i] = get_real(prec, star, (size_t)e * 243 + dd * 81 + i);
    /* predictor of the source part (eq. 3.33, 3.34): D_s^0 = 0 */
    memset(D, 0, sizeof(double) * nq);
    memset(I, 0, sizeof(double) * nq);
    if (ane) {
      memset(th[0], 0, sizeof(double) * (size_t)nmech * na);
      memset(ith, 0, sizeof(double) * (size_t)nmech * na);
    }
    double factor = dt; /* dt^{i+1} / (i+1)! */
    for (int i = 1; i < order; ++i) {
      /* D^i = -sum_e Kder_e (D^{i-1} A*_e^T) + S^(i-1) */
      memcpy(next, forcing[i - 1], sizeof(double) * nq);
      for (int dd = 0; dd < 3; ++dd) {
        for (int p = 0; p < 9; ++p)
          for (int k = 0; k < B; ++k) {
            double sum = 0.0;
            for (int q = 0; q < 9; ++q) sum += st[dd][p * 9 + q] * D[k + q * B];
            tmp[k + p * B] = sum;
          }
        const size_t off = (size_t)(SQ_PACK_KDER + dd) * BB;
        for (int p = 0; p < 9; ++p)
          for (int l = 0; l < B; ++l) {
            double sum = 0.0;
            for (int k = 0; k < B; ++k) sum += get_real(prec, pack, off + l + (size_t)k * B) * tmp[k + p * B];
            next[l + p * B] -= sum;
          }
      }
      factor *= dt / (i + 1);
      if (ane) {
        /* Theta_s^i = C_u^-1 E^i_sigma - w_l Theta_s^{i-1} (E^i: the elastic part, without the forcing) and
         * D^i -= G(Theta_s^{i-1}), as in the anelastic predictor */
        const double *cth = th[(i - 1) & 1];
        double *nxt = th[i & 1];
        for (int k = 0; k < na; ++k) tmp[k] = next[k] - forcing[i - 1][k];
        for (int l = 0; l < nmech; ++l) {
          double *t = nxt + (size_t)l * na;
          for (int k = 0; k < na; ++k) t[k] = -ce[SQ_ANE_W + l] * cth[(size_t)l * na + k];
          ane_strain_add(B, ce, tmp, 1.0, t);
        }
        ane_stress(B, nmech, ce, cth, gs);
        for (int k = 0; k < na; ++k) next[k] -= gs[k];
        for (int k = 0; k < nmech * na; ++k) ith[k] += factor * nxt[k];
      }
      memcpy(D, next, sizeof(double) * nq);
      for (int k = 0; k < nq; ++k) I[k] += factor * D[k];
      if (derivs)
        for (int k = 0; k < nq; ++k) add_real(prec, derivs, ((size_t)e * order + i) * nq + k, D[k]);
    }
    /* tint (and the LTS buffer) += I_s; dofs += local update of I_s + phi q int s */
    for (int k = 0; k < nq; ++k) {
      if (prec == SQ_F64) tint_w.f64[k] = I[k];
      else tint_w.f32[k] = (float)I[k];
      add_real(prec, tint, (size_t)e * nq + k, I[k]);
      if (buffer) add_real(prec, buffer, (size_t)e * nq + k, I[k]);
    }
    sq_kernel_local(prec, order, 1, pack, &tint_w, (const char *)star + (size_t)e * 243 * rs,
                    (const char *)flux_local + (size_t)e * 324 * rs, (char *)dofs + (size_t)e * nq * rs);
    for (int k = 0; k < nq; ++k) add_real(prec, dofs, (size_t)e * nq + k, update[k]);
    if (ane) {
      /* the corrector of the source part's anelastic terms: sigma -= G(I_Theta_s);
       * phi_l += C_u^-1 G(I_Theta_s) - w_l I_Theta_s,l - C_u^-1 (the stress jump phi q int s) */
      ane_stress(B, nmech, ce, ith, gs);
      for (int k = 0; k < na; ++k) add_real(prec, dofs, (size_t)e * nq + k, -gs[k]);
      for (int l = 0; l < nmech; ++l) {
        double *dphi = th[0];
        for (int k = 0; k < na; ++k) dphi[k] = -ce[SQ_ANE_W + l] * ith[(size_t)l * na + k];
        ane_strain_add(B, ce, gs, 1.0, dphi);
        ane_strain_add(B, ce, update, -1.0, dphi);
        for (int k = 0; k < na; ++k) add_real(prec, ane, (size_t)e * nane + (size_t)l * na + k, dphi[k]);
      }
    }
    g = h;
  }
}
