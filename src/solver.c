/** @file solver.c  Discretisation set-up: ordering, clusters, tiles, operators; projection and norms. */
#include "sq_solver.h"
#include "sq_attenuation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t sq_disc_elem_bytes(const sq_disc *disc) {
  return (size_t)disc->nbasis * SQ_NQ * sq_real_size(disc->opt.precision);
}

double sq_disc_dt_stable(const sq_disc_options *opt, double insphere, const sq_material *mat) {
  const int N = opt->order - 1;
  const double dt = opt->cfl * insphere / ((2.0 * N + 1.0) * sq_material_vp(mat));
  return opt->relax_rate > 0 ? fmin(dt, 2.0 / opt->relax_rate) : dt;
}

int sq_disc_cluster_level(const sq_disc_options *opt, double dt_min, double dt_stable) {
  int l = 0;
  if (opt->lts_rate > 1) {
    double dtl = dt_min * opt->lts_rate;
    while (dtl <= dt_stable * (1.0 + 1e-12) && l + 1 < opt->max_clusters) {
      ++l;
      dtl *= opt->lts_rate;
    }
  }
  return l;
}

/* Per-element CFL time step dt_e = CFL d_e / ((2N+1) c_p) (eq. 3.36) and LTS clusters (eq. 3.38-3.39),
 * normalised so that face neighbours differ by at most one cluster and rupture faces share one. */
static void assign_clusters(const sq_mesh *m, const sq_material *mat, const sq_disc_options *opt, double *dt_stable,
                            int *cluster, double *dt_min, int *ncluster) {
  *dt_min = INFINITY;
  for (int64_t c = 0; c < m->ncell; ++c) {
    dt_stable[c] = sq_disc_dt_stable(opt, m->insphere[c], &mat[c]);
    *dt_min = fmin(*dt_min, dt_stable[c]);
  }
  for (int64_t c = 0; c < m->ncell; ++c) cluster[c] = sq_disc_cluster_level(opt, *dt_min, dt_stable[c]);
  for (int changed = 1; changed;) {
    changed = 0;
    for (int64_t c = 0; c < m->ncell; ++c)
      for (int f = 0; f < 4; ++f) {
        const int64_t nb = m->face_neighbor[c * 4 + f];
        if (nb < 0) continue;
        const int limit = m->face_bc[c * 4 + f] == SQ_BC_RUPTURE ? cluster[nb] : cluster[nb] + 1;
        if (cluster[c] > limit) {
          cluster[c] = limit;
          changed = 1;
        }
      }
  }
  int maxc = 0;
  for (int64_t c = 0; c < m->ncell; ++c) maxc = cluster[c] > maxc ? cluster[c] : maxc;
  *ncluster = maxc + 1;
}

int sq_disc_clusters(const sq_mesh *mesh, const sq_material *cell_material, const sq_disc_options *opt, int *cluster,
                     int *ncluster, double *dt_min_out) {
  double *dt_stable, dt_min;
  SQ_CALL(SQ_CALLOC(dt_stable, mesh->ncell));
  sq_disc_options o = *opt;
  if (o.lts_rate < 1) o.lts_rate = 1;
  if (o.max_clusters < 1) o.max_clusters = 1;
  assign_clusters(mesh, cell_material, &o, dt_stable, cluster, &dt_min, ncluster);
  if (dt_min_out) *dt_min_out = dt_min;
  SQ_FREE(dt_stable);
  return SQ_SUCCESS;
}

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int owner(const sq_disc *d, int64_t cell) { return d->opt.cell_rank ? d->opt.cell_rank[cell] : 0; }

static int is_rupture_face(const sq_disc *d, int64_t cell, int f) {
  return d->opt.rupture && d->mesh->face_bc[cell * 4 + f] == SQ_BC_RUPTURE && d->mesh->face_neighbor[cell * 4 + f] >= 0;
}

int sq_disc_is_rupture_face(const sq_disc *d, int64_t cell, int face) { return is_rupture_face(d, cell, face); }

/* The tile size of a cluster's owned cells: opt.fast_tile_size for the fastest of several clusters, where set. */
static int cluster_tile_size(const sq_disc *d, int cluster) {
  return cluster == 0 && d->ncluster > 1 && d->opt.fast_tile_size > 0 ? d->opt.fast_tile_size : d->opt.tile_size;
}

/* Tiles of [begin, end) of at most `tile` elements: the first *small_left elements (NULL: none) in tiles of
 * small_tile_size. */
static void cut_tiles(sq_disc *d, int64_t begin, int64_t end, int cluster, int layer, int peer, int tile,
                      int64_t *small_left) {
  for (int64_t b = begin, size; b < end; b += size) {
    size = tile;
    if (small_left && *small_left > 0) {
      size = d->opt.small_tile_size < *small_left ? d->opt.small_tile_size : *small_left;
      *small_left -= size < end - b ? size : end - b;
    }
    sq_tile *t = &d->tile[d->ntile++];
    t->begin = b;
    t->end = b + size < end ? b + size : end;
    t->cluster = cluster;
    t->layer = layer;
    t->peer = peer;
    t->part = -1;
  }
}

/*
 * Local ordering (thesis §4.4): per cluster, the interior elements, then the copy elements (owned,
 * with a face neighbour on another rank), then the ghost elements (other ranks' cells next to ours)
 * grouped by owner rank and by the data kinds we read from them, and sorted by global cell id -- the
 * order in which the owner sends them (runtime/halo.c).
 */
static int build_tiles(sq_disc *d) {
  const sq_mesh *m = d->mesh;
  const int me = d->opt.rank;
  int8_t *role; /* 0 not local, 1 interior, 2 copy, 3 ghost */
  SQ_CALL(SQ_CALLOC(role, m->ncell));
  for (int64_t c = 0; c < m->ncell; ++c) {
    if (owner(d, c) != me) continue;
    role[c] = 1;
    for (int f = 0; f < 4; ++f) {
      const int64_t nb = m->face_neighbor[c * 4 + f];
      if (nb >= 0 && owner(d, nb) != me) role[c] = 2;
    }
  }
  for (int64_t c = 0; c < m->ncell; ++c)
    if (role[c] == 2)
      for (int f = 0; f < 4; ++f) {
        const int64_t nb = m->face_neighbor[c * 4 + f];
        if (nb >= 0 && owner(d, nb) != me) role[nb] = 3;
      }
  int64_t nlocal = 0, maxtiles = 0;
  for (int64_t c = 0; c < m->ncell; ++c) nlocal += role[c] != 0;
  d->nelem = nlocal;
  SQ_CALL(SQ_CALLOC(d->cell_of, nlocal > 0 ? nlocal : 1));
  SQ_CALL(SQ_CALLOC(d->link, 4 * (nlocal > 0 ? nlocal : 1)));
  SQ_CALL(SQ_CALLOC(d->is_ghost, nlocal > 0 ? nlocal : 1));
  for (int64_t c = 0; c < m->ncell; ++c) d->elem_of[c] = -1;
  /* the data kinds this rank reads from each ghost cell (runtime/halo.c works out the same mask on
   * the owner's side: both must agree, message by message) */
  int8_t *ghost_mask;
  SQ_CALL(SQ_CALLOC(ghost_mask, m->ncell));
  for (int64_t c = 0; c < m->ncell; ++c)
    if (role[c] == 2)
      for (int f = 0; f < 4; ++f) {
        const int64_t nb = m->face_neighbor[c * 4 + f];
        if (nb >= 0 && role[nb] == 3)
          ghost_mask[nb] |=
              (int8_t)(is_rupture_face(d, c, f) ? SQ_GHOST_DERIVS : sq_halo_kind(d->cluster[nb], d->cluster[c]));
      }
  /* the GPU regions (opt.cell_part) and their halo cells: those with a face neighbour in another region */
  const int *part = d->opt.cell_part;
  const int nparts = part && d->opt.nparts > 1 ? d->opt.nparts : 1;
  d->opt.nparts = nparts > 1 ? nparts : 0; /* what the tiles were cut by (sq_runtime_place_tiles_on_gpus) */
  int8_t *part_border = NULL;
  if (nparts > 1) {
    SQ_CALL(SQ_CALLOC(part_border, m->ncell));
    for (int64_t c = 0; c < m->ncell; ++c) {
      SQ_CHECK(part[c] >= 0 && part[c] < nparts, SQ_ERR_INPUT, "cell %lld is in GPU region %d of %d", (long long)c,
               part[c], nparts);
      for (int f = 0; f < 4; ++f) {
        const int64_t nb = m->face_neighbor[c * 4 + f];
        if (nb >= 0 && part[nb] != part[c]) part_border[c] = 1;
      }
    }
  }
  /* worst case: every (cluster, layer, region, halo or not, peer, kinds) group adds one partial tile */
  const int small = d->opt.small_tile_size > 0 && d->opt.small_share > 0;
  const int fast = cluster_tile_size(d, 0), min_tile = fast < d->opt.tile_size ? fast : d->opt.tile_size;
  int64_t max_tile = fast > d->opt.tile_size ? fast : d->opt.tile_size; /* and no tile exceeds our elements */
  max_tile = max_tile < nlocal ? max_tile : (nlocal > 0 ? nlocal : 1);
  maxtiles = nlocal / min_tile + (int64_t)d->ncluster * (2 + 7 * d->opt.nranks + 4 * nparts) + 1;
  if (small) maxtiles += (int64_t)(d->opt.small_share * (double)nlocal) / d->opt.small_tile_size + 2 * d->ncluster;
  SQ_CALL(SQ_CALLOC(d->tile, maxtiles));
  d->ntile = 0;
  int64_t pos = 0;
  for (int l = 0; l < d->ncluster; ++l) {
    int64_t owned = 0, small_left = 0;
    if (small) {
      for (int64_t c = 0; c < m->ncell; ++c) owned += (role[c] == 1 || role[c] == 2) && d->cluster[c] == l;
      small_left = (int64_t)llround(d->opt.small_share * (double)owned);
    }
    for (int layer = 1; layer <= 2; ++layer)
      for (int p = 0; p < nparts; ++p) /* region by region, each region's halo cells last (opt.cell_part) */
        for (int border = 0; border <= (nparts > 1); ++border) {
          const int64_t begin = pos;
          const int first_tile = d->ntile;
          for (int64_t c = 0; c < m->ncell; ++c)
            if (role[c] == layer && d->cluster[c] == l && (nparts == 1 || (part[c] == p && part_border[c] == border)))
              d->cell_of[pos++] = c;
          cut_tiles(d, begin, pos, l, layer == 1 ? SQ_LAYER_INTERIOR : SQ_LAYER_COPY, -1, cluster_tile_size(d, l),
                    small ? &small_left : NULL);
          for (int t = first_tile; t < d->ntile && nparts > 1; ++t)
            d->tile[t].part = p, d->tile[t].part_border = border;
        }
    /* one group per kinds mask, so that a message carries a kind only for the cells that need it
     * (the LTS derivatives are `order` times the size of the time-integrated dofs) */
    for (int peer = 0; peer < d->opt.nranks; ++peer)
      for (int mask = 1; mask <= 7; ++mask) {
        const int64_t begin = pos;
        const int first_tile = d->ntile;
        for (int64_t c = 0; c < m->ncell; ++c) /* mesh order = ascending global id */
          if (role[c] == 3 && d->cluster[c] == l && owner(d, c) == peer && ghost_mask[c] == mask)
            d->cell_of[pos++] = c, d->is_ghost[pos - 1] = 1;
        cut_tiles(d, begin, pos, l, SQ_LAYER_GHOST, peer, d->opt.tile_size, NULL);
        for (int t = first_tile; t < d->ntile; ++t) d->tile[t].ghost_kinds = mask; /* what its messages carry */
      }
  }
  SQ_FREE(role);
  SQ_FREE(ghost_mask);
  SQ_FREE(part_border);
  for (int64_t e = 0; e < d->nelem; ++e) d->elem_of[d->cell_of[e]] = e;
  /* tile of each element, then each computed tile's neighbour-tile list and face links */
  int *tile_of;
  SQ_CALL(SQ_CALLOC(tile_of, d->nelem > 0 ? d->nelem : 1));
  for (int t = 0; t < d->ntile; ++t)
    for (int64_t e = d->tile[t].begin; e < d->tile[t].end; ++e) tile_of[e] = t;
  int64_t *buf;
  SQ_CALL(SQ_CALLOC(buf, 4 * (size_t)max_tile));
  for (int t = 0; t < d->ntile; ++t) {
    sq_tile *tl = &d->tile[t];
    if (tl->layer == SQ_LAYER_GHOST) continue;
    int64_t n = 0;
    for (int64_t e = tl->begin; e < tl->end; ++e)
      for (int f = 0; f < 4; ++f) {
        const int64_t nb = m->face_neighbor[d->cell_of[e] * 4 + f];
        if (nb >= 0 && !is_rupture_face(d, d->cell_of[e], f)) buf[n++] = tile_of[d->elem_of[nb]];
      }
    qsort(buf, n, sizeof(int64_t), cmp_i64);
    int64_t u = 0;
    for (int64_t i = 0; i < n; ++i)
      if (u == 0 || buf[u - 1] != buf[i]) buf[u++] = buf[i];
    tl->nneighbor = (int)u;
    SQ_CALL(SQ_CALLOC(tl->neighbor, u > 0 ? u : 1));
    for (int64_t i = 0; i < u; ++i) tl->neighbor[i] = (int)buf[i];
    for (int64_t e = tl->begin; e < tl->end; ++e)
      for (int f = 0; f < 4; ++f) {
        sq_face_link *ln = &d->link[e * 4 + f];
        const int64_t cell = d->cell_of[e];
        const int64_t nb = m->face_neighbor[cell * 4 + f];
        if (nb >= 0 && is_rupture_face(d, cell, f)) {
          /* the rupture task imposes this face's flux from both sides' derivatives (thesis §3.6.3) */
          sq_tile *nt = &d->tile[tile_of[d->elem_of[nb]]];
          tl->needs_derivs = nt->needs_derivs = 1;
        }
        if (nb < 0 || is_rupture_face(d, cell, f)) {
          ln->kind = SQ_LINK_NONE;
          continue;
        }
        const int64_t enb = d->elem_of[nb];
        const int tn = tile_of[enb];
        int slot = 0;
        while (tl->neighbor[slot] != tn) ++slot;
        /* thesis §3.5: a slower neighbour lends its derivatives, a faster one its accumulated buffer */
        const int lnb = d->cluster[nb], lown = d->cluster[cell];
        ln->kind = lnb > lown ? SQ_LINK_DERIVS : SQ_LINK_TINT;
        ln->flux = sq_ref_flux_index(f, m->face_nbface[cell * 4 + f], m->face_orient[cell * 4 + f]);
        ln->slot = slot;
        ln->index = (int32_t)(enb - d->tile[tn].begin);
        sq_tile *nt = &d->tile[tn];
        if (lnb > lown) tl->needs_buffer = 1, nt->needs_derivs = 1;
        if (lnb < lown) tl->needs_derivs = 1, nt->needs_buffer = 1;
      }
  }
  SQ_FREE(buf);
  SQ_FREE(tile_of);
  return SQ_SUCCESS;
}

/* Store a row-major 9x9 double matrix, scaled, in the working precision. */
static void store81(sq_precision p, void *base, size_t idx, const double *a, double scale) {
  if (p == SQ_F64) {
    double *o = (double *)base + idx * 81;
    for (int i = 0; i < 81; ++i) o[i] = a[i] * scale;
  } else {
    float *o = (float *)base + idx * 81;
    for (int i = 0; i < 81; ++i) o[i] = (float)(a[i] * scale);
  }
}

/* The operators of element e; returns the first face whose flux solver fails, or -1. */
static int element_operators(sq_disc *d, int64_t e) {
  const sq_mesh *m = d->mesh;
  const sq_precision p = d->opt.precision;
  const int64_t c = d->cell_of[e];
  const sq_material *mat = &d->material[c];
  double star[3][81];
  sq_star_matrices(mat, &m->jac_inv[c * 9], star);
  for (int k = 0; k < 3; ++k) store81(p, d->star, (size_t)e * 3 + k, star[k], 1.0);
  for (int f = 0; f < 4; ++f) {
    const int64_t nb = m->face_neighbor[c * 4 + f];
    const int bc = m->face_bc[c * 4 + f];
    sq_flux_kind kind = SQ_FLUX_REGULAR;
    if (nb < 0) kind = bc == SQ_BC_FREE ? SQ_FLUX_FREE : SQ_FLUX_ABSORB;
    double loc[81], nbm[81];
    if (is_rupture_face(d, c, f)) { /* imposed by the rupture task instead */
      memset(loc, 0, sizeof(loc));
      store81(p, d->flux_local, (size_t)e * 4 + f, loc, 1.0);
      store81(p, d->flux_nb, (size_t)e * 4 + f, loc, 1.0);
      continue;
    }
    if (sq_flux_solvers(mat, nb >= 0 ? &d->material[nb] : mat, &m->face_normal[(c * 4 + f) * 3], kind, loc, nbm))
      return f;
    const double scale = 2.0 * m->face_area[c * 4 + f] / (6.0 * m->volume[c]); /* |S_j| / |J| */
    store81(p, d->flux_local, (size_t)e * 4 + f, loc, scale);
    store81(p, d->flux_nb, (size_t)e * 4 + f, nbm, scale);
  }
  return -1;
}

static int build_operators(sq_disc *d) {
  /* independent per element; a failure is reported for the first failing element whatever the threads */
  int64_t bad = d->nelem;
  SQ_PARALLEL_FOR_MIN(bad)
  for (int64_t e = 0; e < d->nelem; ++e)
    if (element_operators(d, e) >= 0 && e < bad) bad = e;
  if (bad < d->nelem) {
    const int64_t c = d->cell_of[bad];
    const sq_material *mat = &d->material[c];
    SQ_CHECK(0, SQ_ERR_INPUT, "%s: cell %lld face %d: cannot build the flux solver (rho %g, lambda %g, mu %g)",
             d->mesh->source, (long long)c, element_operators(d, bad), mat->rho, mat->lambda, mat->mu);
  }
  return SQ_SUCCESS;
}

int sq_disc_create(const sq_mesh *mesh, const sq_material *cell_material, const sq_disc_options *opt, sq_disc **disc) {
  SQ_CHECK(opt->tile_size >= 1, SQ_ERR_INPUT, "tile size must be >= 1 (got %d)", opt->tile_size);
  SQ_CHECK(opt->cfl > 0 && opt->cfl <= 1, SQ_ERR_INPUT, "CFL must be in (0, 1] (got %g)", opt->cfl);
  for (int64_t c = 0; c < mesh->ncell; ++c) {
    const sq_material *mt = &cell_material[c];
    SQ_CHECK(isfinite(mt->rho) && isfinite(mt->lambda) && isfinite(mt->mu) && mt->rho > 0 && mt->mu > 0 &&
                 mt->lambda + 2.0 / 3.0 * mt->mu > 0,
             SQ_ERR_INPUT,
             "%s: cell %lld (centroid %g %g %g) has a non-physical material rho=%g lambda=%g mu=%g "
             "(need rho > 0, mu > 0, lambda + 2mu/3 > 0)",
             mesh->source, (long long)c, mesh->centroid[c * 3], mesh->centroid[c * 3 + 1], mesh->centroid[c * 3 + 2],
             mt->rho, mt->lambda, mt->mu);
  }
  sq_disc *d;
  SQ_CALL(SQ_CALLOC(d, 1));
  *disc = d;
  d->opt = *opt;
  if (d->opt.lts_rate < 1) d->opt.lts_rate = 1;
  if (d->opt.max_clusters < 1) d->opt.max_clusters = 1;
  if (d->opt.nranks < 1) d->opt.nranks = 1;
  d->mesh = mesh;
  SQ_CALL(sq_ref_create(opt->order, &d->ref));
  d->nbasis = d->ref->nbasis;
  SQ_CALL(SQ_CALLOC(d->elem_of, mesh->ncell));
  SQ_CALL(SQ_CALLOC(d->material, mesh->ncell));
  memcpy(d->material, cell_material, (size_t)mesh->ncell * sizeof(sq_material));
  SQ_CALL(SQ_CALLOC(d->dt_stable, mesh->ncell));
  SQ_CALL(SQ_CALLOC(d->cluster, mesh->ncell));
  assign_clusters(mesh, d->material, &d->opt, d->dt_stable, d->cluster, &d->dt_min, &d->ncluster);
  if (opt->cell_cluster) { /* computed over the whole mesh (a distributed run) */
    memcpy(d->cluster, opt->cell_cluster, (size_t)mesh->ncell * sizeof(int));
    d->ncluster = opt->ncluster;
    d->dt_min = opt->dt_min;
  }
  SQ_CALL(build_tiles(d)); /* sets nelem: owned + ghost elements */
  SQ_CALL(SQ_CALLOC(d->cluster_dt, d->ncluster));
  for (int l = 0; l < d->ncluster; ++l) d->cluster_dt[l] = d->dt_min * pow(d->opt.lts_rate, l);
  const size_t rs = sq_real_size(opt->precision), nq = (size_t)d->nbasis * SQ_NQ;
  SQ_CALL(sq_calloc_aligned(&d->dofs, d->nelem * nq, rs));
  SQ_CALL(sq_calloc_aligned(&d->tint, d->nelem * nq, rs));
  SQ_CALL(sq_calloc_aligned(&d->star, d->nelem * 243, rs));
  SQ_CALL(sq_calloc_aligned(&d->flux_local, d->nelem * 324, rs));
  SQ_CALL(sq_calloc_aligned(&d->flux_nb, d->nelem * 324, rs));
  int needs_derivs = 0;
  for (int t = 0; t < d->ntile; ++t) needs_derivs |= d->tile[t].needs_derivs;
  if (needs_derivs) SQ_CALL(sq_calloc_aligned(&d->derivs, d->nelem * nq * opt->order, rs));
  if (d->ncluster > 1) {
    if (!d->derivs) SQ_CALL(sq_calloc_aligned(&d->derivs, d->nelem * nq * opt->order, rs));
    SQ_CALL(sq_calloc_aligned(&d->buffer, d->nelem * nq, rs));
  }
  SQ_CALL(build_operators(d));
  SQ_CALL(sq_kernel_pack(d->ref, opt->precision, &d->pack, &d->pack_bytes));
  return SQ_SUCCESS;
}

void sq_disc_destroy(sq_disc *d) {
  if (!d) return;
  for (int t = 0; t < d->ntile; ++t) SQ_FREE(d->tile[t].neighbor);
  SQ_FREE(d->tile);
  SQ_FREE(d->cell_of);
  SQ_FREE(d->is_ghost);
  SQ_FREE(d->elem_of);
  SQ_FREE(d->material);
  SQ_FREE(d->dt_stable);
  SQ_FREE(d->cluster);
  SQ_FREE(d->cluster_dt);
  SQ_FREE(d->dofs);
  SQ_FREE(d->tint);
  SQ_FREE(d->derivs);
  SQ_FREE(d->buffer);
  SQ_FREE(d->star);
  SQ_FREE(d->flux_local);
  SQ_FREE(d->flux_nb);
  SQ_FREE(d->link);
  SQ_FREE(d->ane);
  SQ_FREE(d->ane_coef);
  SQ_FREE(d->pack);
  sq_ref_destroy(d->ref);
  SQ_FREE(d);
}

static void ref_to_phys(const sq_mesh *m, int64_t c, const double xi[3], double x[3]) {
  const int64_t *v = &m->cell_vert[c * 4];
  const double *p0 = &m->vert[v[0] * 3];
  for (int d = 0; d < 3; ++d) {
    x[d] = p0[d];
    for (int k = 1; k < 4; ++k) x[d] += xi[k - 1] * (m->vert[v[k] * 3 + d] - p0[d]);
  }
}

static double get_real(const sq_disc *d, const void *base, size_t i) {
  return d->opt.precision == SQ_F64 ? ((const double *)base)[i] : (double)((const float *)base)[i];
}

/* The basis at the reference volume points, nvol x B (caller frees): tabulated once per sweep over the
 * elements instead of once per element and point. */
static double *vol_basis(const sq_disc *d) {
  const sq_ref *r = d->ref;
  double *phi = malloc(sizeof(double) * (size_t)r->nvol * d->nbasis);
  if (!phi) {
    fprintf(stderr, "starquake: out of memory tabulating the basis (%d points)\n", r->nvol);
    abort();
  }
  for (int iq = 0; iq < r->nvol; ++iq) sq_basis_eval(d->opt.order, &r->vol_point[iq * 3], phi + (size_t)iq * d->nbasis);
  return phi;
}

/* The dofs of element e in double precision (B x 9, basis index fastest). */
static void load_dofs(const sq_disc *d, int64_t e, double *dof) {
  const size_t nq = (size_t)d->nbasis * 9;
  if (d->opt.precision == SQ_F64) memcpy(dof, (const double *)d->dofs + e * nq, nq * sizeof(double));
  else
    for (size_t i = 0; i < nq; ++i) dof[i] = ((const float *)d->dofs)[e * nq + i];
}

/* The solution at a point where the basis takes the values phi, from an element's loaded dofs. */
static void eval_vol(int B, const double *dof, const double *phi, double q[9]) {
  for (int p = 0; p < 9; ++p) {
    double s = 0.0;
    for (int k = 0; k < B; ++k) s += phi[k] * dof[k + p * B];
    q[p] = s;
  }
}

/* L2 projection of fn's nvar values into the first nvar columns of each element's block of ld reals */
static void project(sq_disc *d, sq_field_fn fn, const void *ctx, double t, int nvar, void *base, size_t ld) {
  const sq_ref *r = d->ref;
  const int B = d->nbasis;
  double *table = vol_basis(d);
  SQ_PARALLEL_FOR
  for (int64_t e = 0; e < d->nelem; ++e) {
    const int64_t c = d->cell_of[e];
    double acc[84 * 6 * SQ_MECH_MAX], q[6 * SQ_MECH_MAX];
    memset(acc, 0, sizeof(double) * B * nvar);
    for (int iq = 0; iq < r->nvol; ++iq) {
      double x[3];
      ref_to_phys(d->mesh, c, &r->vol_point[iq * 3], x);
      fn(ctx, x, t, q);
      const double *phi = table + (size_t)iq * B;
      for (int p = 0; p < nvar; ++p)
        for (int k = 0; k < B; ++k) acc[k + p * B] += r->vol_weight[iq] * phi[k] * q[p];
    }
    for (int p = 0; p < nvar; ++p)
      for (int k = 0; k < B; ++k) {
        const double v = acc[k + p * B] / r->mass[k];
        const size_t i = (size_t)e * ld + k + p * B;
        if (d->opt.precision == SQ_F64) ((double *)base)[i] = v;
        else ((float *)base)[i] = (float)v;
      }
  }
  free(table);
}

void sq_disc_project(sq_disc *d, sq_field_fn fn, const void *ctx, double t) {
  project(d, fn, ctx, t, 9, d->dofs, (size_t)d->nbasis * 9);
}

void sq_disc_project_ane(sq_disc *d, sq_field_fn fn, const void *ctx, double t) {
  if (d->ane) project(d, fn, ctx, t, 6 * d->nmech, d->ane, (size_t)d->nbasis * 6 * (d->nmech + 1));
}

void sq_disc_eval(const sq_disc *d, int64_t e, const double xi[3], double q[9]) {
  const int B = d->nbasis;
  double phi[84];
  sq_basis_eval(d->opt.order, xi, phi);
  for (int p = 0; p < 9; ++p) {
    double s = 0.0;
    for (int k = 0; k < B; ++k) s += phi[k] * get_real(d, d->dofs, (size_t)e * B * 9 + k + p * B);
    q[p] = s;
  }
}

void sq_disc_l2_error(const sq_disc *d, sq_field_fn fn, const void *ctx, double t, double *err, double *norm) {
  const sq_ref *r = d->ref;
  double e2 = 0.0, n2 = 0.0, *table = vol_basis(d);
  /* per-element sums, added in element order afterwards: the same result on any number of threads */
  double *part = malloc(sizeof(double) * 2 * (size_t)(d->nelem > 0 ? d->nelem : 1));
  if (!part) {
    fprintf(stderr, "starquake: out of memory for the L2 error of %lld elements\n", (long long)d->nelem);
    abort();
  }
  SQ_PARALLEL_FOR
  for (int64_t e = 0; e < d->nelem; ++e) {
    double pe = 0.0, pn = 0.0;
    if (!d->is_ghost[e]) {
      const int64_t c = d->cell_of[e];
      const double jac = 6.0 * d->mesh->volume[c];
      double dof[84 * 9];
      load_dofs(d, e, dof);
      for (int iq = 0; iq < r->nvol; ++iq) {
        double x[3], q[9], qh[9];
        ref_to_phys(d->mesh, c, &r->vol_point[iq * 3], x);
        fn(ctx, x, t, q);
        eval_vol(d->nbasis, dof, table + (size_t)iq * d->nbasis, qh);
        for (int p = 0; p < 9; ++p) {
          pe += jac * r->vol_weight[iq] * (qh[p] - q[p]) * (qh[p] - q[p]);
          pn += jac * r->vol_weight[iq] * q[p] * q[p];
        }
      }
    }
    part[2 * e] = pe, part[2 * e + 1] = pn;
  }
  for (int64_t e = 0; e < d->nelem; ++e) e2 += part[2 * e], n2 += part[2 * e + 1];
  free(part);
  free(table);
  *err = sqrt(e2);
  *norm = sqrt(n2);
}

static void energy_block(int64_t lo, int64_t hi, double *acc, const void *ctx) {
  const sq_disc *d = ctx;
  const sq_ref *r = d->ref;
  const int B = d->nbasis;
  for (int64_t e = lo; e < hi; ++e) {
    if (d->is_ghost[e]) continue;
    const int64_t c = d->cell_of[e];
    double dof[84 * 9], sum = 0.0;
    load_dofs(d, e, dof);
    for (int k = 0; k < B; ++k) {
      double qk[9];
      for (int p = 0; p < 9; ++p) qk[p] = dof[k + p * B];
      sum += r->mass[k] * sq_energy_density(&d->material[c], qk);
    }
    acc[0] += 6.0 * d->mesh->volume[c] * sum;
  }
}

double sq_disc_energy(const sq_disc *d) {
  /* the energy density is a quadratic form and the basis is orthogonal: the integral over an element is
   * |J| sum_k M_k density(q_k), exactly what quadrature of the interpolated field gives, at the cost of
   * one density per basis function instead of one per quadrature point.  Threaded, in a fixed order. */
  double total;
  sq_sum_blocks(d->nelem, 1, energy_block, d, &total);
  return total;
}

int64_t sq_disc_find_nonfinite(const sq_disc *d) {
  const size_t nq = (size_t)d->nbasis * 9;
  int64_t first = d->nelem; /* the first bad element, whatever the threads */
  SQ_PARALLEL_FOR_MIN(first)
  for (int64_t e = 0; e < d->nelem; ++e) {
    int bad = 0;
    for (size_t i = 0; i < nq && !d->is_ghost[e] && !bad; ++i) bad = !isfinite(get_real(d, d->dofs, e * nq + i));
    if (bad && e < first) first = e;
  }
  return first < d->nelem ? first : -1;
}

uint64_t sq_disc_hash(const sq_disc *d) {
  uint64_t h = 1469598103934665603ULL;
  const size_t eb = sq_disc_elem_bytes(d);
  for (int64_t c = 0; c < d->mesh->ncell; ++c) {
    if (d->elem_of[c] < 0 || d->is_ghost[d->elem_of[c]]) continue; /* not ours */
    const unsigned char *p = (const unsigned char *)d->dofs + (size_t)d->elem_of[c] * eb;
    for (size_t i = 0; i < eb; ++i) {
      h ^= p[i];
      h *= 1099511628211ULL;
    }
  }
  return h;
}

void *sq_disc_elem_ptr(const sq_disc *d, void *base, int64_t e) {
  return (char *)base + (size_t)e * sq_disc_elem_bytes(d);
}

size_t sq_disc_ane_bytes(const sq_disc *d) {
  return d->ane ? (size_t)d->nbasis * 6 * (d->nmech + 1) * sq_real_size(d->opt.precision) : 0;
}
void *sq_disc_ane_ptr(const sq_disc *d, int64_t e) { return (char *)d->ane + (size_t)e * sq_disc_ane_bytes(d); }
void *sq_disc_ane_coef_ptr(const sq_disc *d, int64_t e) {
  return (char *)d->ane_coef + (size_t)e * SQ_ANE_NCOEF * sq_real_size(d->opt.precision);
}

int sq_disc_ane_ncol(const sq_disc *d) { return d->ane ? d->nbasis * 6 * d->nmech : 0; }

void sq_disc_ane_copy(sq_disc *d, double *buf, int to_disc) {
  const int ncol = sq_disc_ane_ncol(d);
  const size_t ld = (size_t)d->nbasis * 6 * (d->nmech + 1);
  for (int64_t e = 0; e < d->nelem; ++e)
    for (int i = 0; i < ncol; ++i) {
      const size_t k = (size_t)e * ld + i;
      double *b = buf + (size_t)e * ncol + i;
      if (d->opt.precision == SQ_F64) {
        if (to_disc) ((double *)d->ane)[k] = *b;
        else *b = ((double *)d->ane)[k];
      } else {
        if (to_disc) ((float *)d->ane)[k] = (float)*b;
        else *b = ((float *)d->ane)[k];
      }
    }
}

int sq_disc_set_attenuation(sq_disc *d, int nmech, const double *cell_coef) {
  SQ_CHECK(nmech >= 1 && nmech <= SQ_MECH_MAX, SQ_ERR_INPUT, "attenuation: %d mechanisms (choose 1 to %d)", nmech,
           SQ_MECH_MAX);
  const size_t rs = sq_real_size(d->opt.precision), n = d->nelem > 0 ? (size_t)d->nelem : 1;
  double *coef = malloc(sizeof(double) * SQ_ANE_NCOEF * n);
  SQ_CHECK(coef, SQ_ERR_MEMORY, "attenuation: out of memory for %zu elements", n);
  for (int64_t e = 0; e < d->nelem; ++e)
    memcpy(coef + e * SQ_ANE_NCOEF, cell_coef + d->cell_of[e] * SQ_ANE_NCOEF, sizeof(double) * SQ_ANE_NCOEF);
  SQ_FREE(d->ane);
  SQ_FREE(d->ane_coef);
  int ierr = sq_calloc_aligned(&d->ane, n * d->nbasis * 6 * (nmech + 1), rs);
  if (!ierr) ierr = sq_calloc_aligned(&d->ane_coef, n * SQ_ANE_NCOEF, rs);
  if (!ierr) {
    d->nmech = nmech;
    sq_kernel_ane_coef(d->opt.precision, d->nelem, coef, d->ane_coef);
  }
  free(coef);
  return ierr;
}

void sq_disc_predict_serial(sq_disc *d, double dt) {
  const sq_precision p = d->opt.precision;
  const int O = d->opt.order;
  const size_t rs = sq_real_size(p);
  for (int t = 0; t < d->ntile; ++t) {
    const sq_tile *tl = &d->tile[t];
    void *derivs =
        tl->needs_derivs && d->derivs ? (char *)d->derivs + (size_t)tl->begin * sq_disc_elem_bytes(d) * O : NULL;
    if (d->ane)
      sq_kernel_ader_ane(p, O, d->nmech, tl->end - tl->begin, d->pack, sq_disc_elem_ptr(d, d->dofs, tl->begin),
                         (char *)d->star + (size_t)tl->begin * 243 * rs, sq_disc_ane_coef_ptr(d, tl->begin), dt,
                         sq_disc_elem_ptr(d, d->tint, tl->begin), derivs, sq_disc_ane_ptr(d, tl->begin));
    else
      sq_kernel_ader(p, O, tl->end - tl->begin, d->pack, sq_disc_elem_ptr(d, d->dofs, tl->begin),
                     (char *)d->star + (size_t)tl->begin * 243 * rs, dt, sq_disc_elem_ptr(d, d->tint, tl->begin),
                     derivs);
  }
  for (int t = 0; t < d->ntile; ++t) {
    const sq_tile *tl = &d->tile[t];
    sq_kernel_local(p, O, tl->end - tl->begin, d->pack, sq_disc_elem_ptr(d, d->tint, tl->begin),
                    (char *)d->star + (size_t)tl->begin * 243 * rs,
                    (char *)d->flux_local + (size_t)tl->begin * 324 * rs, sq_disc_elem_ptr(d, d->dofs, tl->begin));
    if (d->ane)
      sq_kernel_ane_source(p, O, d->nmech, tl->end - tl->begin, sq_disc_ane_ptr(d, tl->begin),
                           sq_disc_elem_ptr(d, d->dofs, tl->begin));
  }
}

void sq_disc_correct_serial(sq_disc *d) {
  const sq_precision p = d->opt.precision;
  const size_t rs = sq_real_size(p);
  int maxnb = 1;
  for (int t = 0; t < d->ntile; ++t) maxnb = d->tile[t].nneighbor > maxnb ? d->tile[t].nneighbor : maxnb;
  const void **nb = malloc(sizeof(void *) * maxnb);
  for (int t = 0; t < d->ntile; ++t) {
    const sq_tile *tl = &d->tile[t];
    for (int s = 0; s < tl->nneighbor; ++s) nb[s] = sq_disc_elem_ptr(d, d->tint, d->tile[tl->neighbor[s]].begin);
    sq_kernel_neighbor(p, d->opt.order, tl->end - tl->begin, d->pack, d->link + tl->begin * 4,
                       (char *)d->flux_nb + (size_t)tl->begin * 324 * rs, nb, NULL, NULL,
                       sq_disc_elem_ptr(d, d->dofs, tl->begin));
  }
  free(nb);
}

void sq_disc_step_serial(sq_disc *d, double dt) {
  sq_disc_predict_serial(d, dt);
  sq_disc_correct_serial(d);
}

int64_t sq_disc_cluster_steps(const sq_disc *d, int l) {
  int64_t n = 1;
  for (int k = l + 1; k < d->ncluster; ++k) n *= d->opt.lts_rate;
  return n;
}

/* A tile keyed by its first cell: sorted, a cluster's tiles come in mesh order (interior and copy tiles
 * interleave), so that contiguous runs of them are compact in space. */
typedef struct keyed_tile {
  int64_t first_cell;
  int tile;
} keyed_tile;
static int by_first_cell(const void *a, const void *b) {
  const int64_t ca = ((const keyed_tile *)a)->first_cell, cb = ((const keyed_tile *)b)->first_cell;
  return (ca > cb) - (ca < cb);
}

int sq_disc_split_parts(const sq_disc *d, int nparts, int16_t *part) {
  SQ_CHECK(nparts >= 1 && nparts <= INT16_MAX, SQ_ERR_INPUT, "cannot split tiles into %d parts", nparts);
  keyed_tile *order;
  SQ_CALL(SQ_CALLOC(order, d->ntile > 0 ? d->ntile : 1));
  for (int l = 0; l < d->ncluster; ++l) {
    int n = 0;
    int64_t total = 0, before = 0;
    for (int t = 0; t < d->ntile; ++t) {
      const sq_tile *tl = &d->tile[t];
      if (tl->cluster != l) continue;
      if (tl->layer == SQ_LAYER_GHOST || part[t] < 0) {
        part[t] = -1;
        continue;
      }
      order[n++] = (keyed_tile){d->cell_of[tl->begin], t};
      total += tl->end - tl->begin;
    }
    qsort(order, (size_t)n, sizeof(*order), by_first_cell);
    for (int i = 0; i < n; ++i) { /* the part that holds the tile's middle element */
      const int t = order[i].tile;
      const int64_t size = d->tile[t].end - d->tile[t].begin;
      const int p = (int)(((double)before + 0.5 * (double)size) / (double)total * nparts);
      part[t] = (int16_t)(p < nparts ? p : nparts - 1);
      before += size;
    }
  }
  SQ_FREE(order);
  return SQ_SUCCESS;
}

void sq_disc_lts_work(const sq_disc *d, double *lts, double *gts) {
  *lts = *gts = 0.0;
  for (int64_t e = 0; e < d->nelem; ++e) {
    if (d->is_ghost[e]) continue;
    *lts += (double)sq_disc_cluster_steps(d, d->cluster[d->cell_of[e]]);
    *gts += (double)sq_disc_cluster_steps(d, 0);
  }
}

void sq_disc_print_clusters(const sq_disc *d, FILE *out) {
  double lts, gts;
  sq_disc_lts_work(d, &lts, &gts);
  fprintf(out, "  clusters   %d (rate %d)\n", d->ncluster, d->opt.lts_rate);
  if (d->opt.relax_rate > 0)
    fprintf(out,
            "    steps at most 2 / omega_max = %.4e s (attenuation: the fastest mechanism relaxes at %.4e rad/s)\n",
            2.0 / d->opt.relax_rate, d->opt.relax_rate);
  fprintf(out, "    cluster   elements          dt   steps/sync   updates/sync\n");
  for (int l = 0; l < d->ncluster; ++l) {
    int64_t n = 0;
    for (int64_t e = 0; e < d->nelem; ++e) n += !d->is_ghost[e] && d->cluster[d->cell_of[e]] == l;
    fprintf(out, "    %7d %10lld %11.4e %12lld %14.4e\n", l, (long long)n, d->cluster_dt[l],
            (long long)sq_disc_cluster_steps(d, l), (double)n * sq_disc_cluster_steps(d, l));
  }
  fprintf(out,
          "    work per sync interval: LTS %.4e, GTS %.4e element updates; LTS/GTS work ratio %.4f "
          "(speed-up %.2fx)\n",
          lts, gts, lts / gts, gts / lts);
}
