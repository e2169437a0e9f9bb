/** @file test_lts.c  Check suite for local time stepping: clustering, the schedule, buffers, merging. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sq_check.h"
#include "sq_test_data.h"
#include "sq_graph.h"
#include "sq_partition.h"
#include "sq_runtime_impl.h"

static const sq_material base = {.rho = 1.0, .lambda = 2.0, .mu = 1.0};

/* A jittered periodic box whose materials vary strongly (speed x1 .. x16), rate 2; the first small_share of
 * each cluster in tiles of small_tile (0: none); with nparts > 1, the tiles cut by nparts METIS regions with an
 * equal share of every cluster (sq_disc_options.cell_part, as sq_sim_create makes them for several GPUs). */
static int gather_fastest; /* make_disc_regions: the fastest cluster's cells in one region (sq_gather_cluster_cells) */
static int gathered_region;
static int gather_chain; /* make_disc_regions: and cluster 1's cells next to it (sq_gather_fast_chain) */
static int fast_tile;    /* make_disc_regions: the fastest cluster's tile size (sq_disc_options.fast_tile_size) */
static double fast_share = 1.0; /* run_lts_grouped: the fastest cluster's GPU's aim (runtime.fast_gpu_share) */

static sq_disc *make_disc_regions(int rate, int tile, double small_share, int small_tile, int nparts, sq_mesh **mesh) {
  sq_box_params bp;
  sq_box_params_default(&bp);
  bp.n[0] = bp.n[1] = bp.n[2] = 4;
  bp.jitter = 0.15;
  ck_assert_int_eq(sq_mesh_box(&bp, mesh), 0);
  sq_material *m = malloc(sizeof(sq_material) * (*mesh)->ncell);
  for (int64_t c = 0; c < (*mesh)->ncell; ++c) {
    const double *x = &(*mesh)->centroid[c * 3];
    const double s = 1.0 + 15.0 * exp(-20.0 * ((x[0] - 0.5) * (x[0] - 0.5) + (x[1] - 0.4) * (x[1] - 0.4)));
    m[c] = base;
    m[c].lambda *= s * s; /* speeds scale with s */
    m[c].mu *= s * s;
  }
  sq_disc_options opt = {.order = 3,
                         .precision = SQ_F64,
                         .cfl = 0.5,
                         .tile_size = tile,
                         .lts_rate = rate,
                         .max_clusters = 20,
                         .small_share = small_share,
                         .small_tile_size = small_tile,
                         .fast_tile_size = fast_tile};
  int *part = NULL;
  if (nparts > 1) {
    int *cluster = malloc(sizeof(int) * (*mesh)->ncell), ncluster;
    double dt_min;
    part = malloc(sizeof(int) * (*mesh)->ncell);
    ck_assert_int_eq(sq_disc_clusters(*mesh, m, &opt, cluster, &ncluster, &dt_min), 0);
    ck_assert_int_eq(sq_partition(*mesh, cluster, ncluster, rate, nparts, SQ_PART_ENCODED, NULL, part, NULL), 0);
    if (gather_chain) {
      gathered_region =
          sq_gather_fast_chain((*mesh)->ncell, cluster, ncluster, rate, (*mesh)->face_neighbor, nparts, part);
      ck_assert_int_ge(gathered_region, 0); /* else the caller's checks prove nothing */
    } else if (gather_fastest) {
      gathered_region = sq_gather_cluster_cells((*mesh)->ncell, cluster, ncluster, rate, nparts, part);
    }
    free(cluster);
    opt.cell_part = part;
    opt.nparts = nparts;
  }
  sq_disc *d;
  ck_assert_int_eq(sq_disc_create(*mesh, m, &opt, &d), 0);
  d->opt.cell_part = NULL; /* the tiles are cut: the regions are not read again */
  free(part);
  free(m);
  return d;
}

static sq_disc *make_disc_small(int rate, int tile, double small_share, int small_tile, sq_mesh **mesh) {
  return make_disc_regions(rate, tile, small_share, small_tile, 1, mesh);
}

static sq_disc *make_disc(int rate, int tile, sq_mesh **mesh) { return make_disc_small(rate, tile, 0.0, 0, mesh); }

/* small CPU tiles (runtime.cpu_tile_size): the first share of each cluster is cut small, the rest as usual */
START_TEST(small_tiles_first) {
  sq_mesh *mesh;
  const double share = 0.3;
  const int tile = 40, small = 3;
  sq_disc *d = make_disc_small(2, tile, share, small, &mesh);
  for (int l = 0; l < d->ncluster; ++l) {
    int64_t owned = 0, in_small = 0;
    for (int t = 0; t < d->ntile; ++t)
      if (d->tile[t].cluster == l && d->tile[t].layer != SQ_LAYER_GHOST) owned += d->tile[t].end - d->tile[t].begin;
    const int64_t want = llround(share * (double)owned);
    for (int t = 0; t < d->ntile; ++t) { /* in order: small tiles until the share is reached, then normal ones */
      const sq_tile *tl = &d->tile[t];
      if (tl->cluster != l || tl->layer == SQ_LAYER_GHOST) continue;
      const int64_t n = tl->end - tl->begin;
      if (in_small < want) {
        ck_assert_int_le(n, small);
        in_small += n;
      } else {
        ck_assert_int_le(n, tile);
      }
    }
    ck_assert_int_eq(in_small, want);
  }
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
}
END_TEST

START_TEST(cluster_invariants) {
  sq_mesh *mesh;
  sq_disc *d = make_disc(2, 32, &mesh);
  ck_assert_int_ge(d->ncluster, 3);
  for (int64_t c = 0; c < mesh->ncell; ++c) {
    /* stable: the cluster's step never exceeds the element's CFL step */
    ck_assert(d->cluster_dt[d->cluster[c]] <= d->dt_stable[c] * (1 + 1e-12));
    for (int f = 0; f < 4; ++f) {
      const int64_t nb = mesh->face_neighbor[c * 4 + f];
      if (nb >= 0) ck_assert_int_le(abs(d->cluster[c] - d->cluster[nb]), 1);
    }
  }
  for (int l = 0; l < d->ncluster; ++l) ck_assert_double_eq_tol(d->cluster_dt[l], d->dt_min * pow(2, l), 1e-18);
  /* tiles hold one cluster each, and the links point at the right kind of data */
  for (int t = 0; t < d->ntile; ++t)
    for (int64_t e = d->tile[t].begin; e < d->tile[t].end; ++e) {
      ck_assert_int_eq(d->cluster[d->cell_of[e]], d->tile[t].cluster);
      for (int f = 0; f < 4; ++f) {
        const sq_face_link *ln = &d->link[e * 4 + f];
        const int nt = d->tile[t].neighbor[ln->slot];
        if (ln->kind == SQ_LINK_DERIVS) ck_assert_int_eq(d->tile[nt].cluster, d->tile[t].cluster + 1);
        if (ln->kind == SQ_LINK_TINT) ck_assert_int_le(d->tile[nt].cluster, d->tile[t].cluster);
      }
    }
  /* rate 1 is GTS */
  sq_mesh *m2;
  sq_disc *g = make_disc(1, 32, &m2);
  ck_assert_int_eq(g->ncluster, 1);
  double lts, gts;
  sq_disc_lts_work(d, &lts, &gts);
  ck_assert(lts < gts);
  sq_disc_destroy(d);
  sq_disc_destroy(g);
  sq_mesh_destroy(mesh);
  sq_mesh_destroy(m2);
}
END_TEST

/* sq_disc_split_parts: per cluster, parts are contiguous in mesh order and balanced to within a tile */
START_TEST(split_parts_contiguous_balanced) {
  sq_mesh *mesh;
  const int tile = 8, nparts = 3;
  sq_disc *d = make_disc(2, tile, &mesh);
  int16_t *part = calloc((size_t)d->ntile, sizeof(*part));
  part[0] = -1; /* left out by the caller */
  ck_assert_int_eq(sq_disc_split_parts(d, nparts, part), 0);
  ck_assert_int_eq(part[0], -1);
  for (int l = 0; l < d->ncluster; ++l) {
    int64_t count[3] = {0, 0, 0}, total = 0, last_first = -1;
    int last_part = 0;
    for (int pass = 0; pass < d->ntile; ++pass) { /* tiles of cluster l in mesh order (their first cell) */
      int next = -1;
      for (int t = 0; t < d->ntile; ++t)
        if (d->tile[t].cluster == l && t != 0 && d->cell_of[d->tile[t].begin] > last_first &&
            (next < 0 || d->cell_of[d->tile[t].begin] < d->cell_of[d->tile[next].begin]))
          next = t;
      if (next < 0) break;
      last_first = d->cell_of[d->tile[next].begin];
      ck_assert_int_ge(part[next], 0);
      ck_assert_int_lt(part[next], nparts);
      ck_assert_int_ge(part[next], last_part); /* contiguous: parts never go back */
      last_part = part[next];
      count[part[next]] += d->tile[next].end - d->tile[next].begin;
      total += d->tile[next].end - d->tile[next].begin;
    }
    for (int p = 0; p < nparts; ++p)
      if (total >= nparts * tile) ck_assert_int_le(llabs(count[p] - total / nparts), tile);
  }
  ck_assert_int_ne(sq_disc_split_parts(d, 0, part), 0);
  free(part);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
}
END_TEST

/* GPU regions (sq_disc_options.cell_part): every tile lies in one region, a region's halo cells (a face
 * neighbour in another region) and only those are in its halo tiles, so every face between two regions joins
 * two halo tiles; every region holds a share of every cluster. */
START_TEST(gpu_regions_halo_tiles) {
  sq_mesh *mesh;
  const int nparts = 3, tile = 16;
  sq_disc *d = make_disc_regions(2, tile, 0.0, 0, nparts, &mesh);
  ck_assert_int_eq(d->opt.nparts, nparts);
  int *region = malloc(sizeof(int) * mesh->ncell), *tile_of = malloc(sizeof(int) * mesh->ncell);
  int64_t count[64][3];
  memset(count, 0, sizeof(count));
  for (int t = 0; t < d->ntile; ++t) {
    const sq_tile *tl = &d->tile[t];
    ck_assert_int_ge(tl->part, 0);
    ck_assert_int_lt(tl->part, nparts);
    ck_assert_int_le(tl->end - tl->begin, tile);
    for (int64_t e = tl->begin; e < tl->end; ++e) {
      region[d->cell_of[e]] = tl->part;
      tile_of[d->cell_of[e]] = t;
      count[tl->cluster][tl->part]++;
    }
  }
  int64_t halo = 0;
  for (int64_t c = 0; c < mesh->ncell; ++c) {
    int border = 0;
    for (int f = 0; f < 4; ++f) {
      const int64_t nb = mesh->face_neighbor[c * 4 + f];
      border |= nb >= 0 && region[nb] != region[c];
    }
    ck_assert_int_eq(d->tile[tile_of[c]].part_border, border);
    halo += border;
  }
  ck_assert_int_gt(halo, 0);
  ck_assert_int_lt(halo, mesh->ncell);
  for (int t = 0; t < d->ntile; ++t) /* what a tile reads of another region is a halo tile, and it is one itself */
    for (int64_t e = d->tile[t].begin; e < d->tile[t].end; ++e)
      for (int f = 0; f < 4; ++f) {
        const sq_face_link *ln = &d->link[e * 4 + f];
        if (ln->kind == SQ_LINK_NONE) continue;
        const sq_tile *nt = &d->tile[d->tile[t].neighbor[ln->slot]];
        if (nt->part != d->tile[t].part) ck_assert(nt->part_border && d->tile[t].part_border);
      }
  for (int l = 0; l < d->ncluster; ++l) {
    int64_t total = 0;
    for (int p = 0; p < nparts; ++p) total += count[l][p];
    for (int p = 0; p < nparts && total >= 10 * nparts; ++p) ck_assert_int_gt(count[l][p], 0);
  }
  free(region);
  free(tile_of);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
}
END_TEST

START_TEST(taylor_additivity_and_buffer) {
  /* The integral of a Taylor series over [0, dt] is the sum over r sub-intervals (what a faster
   * neighbour's buffer relies on), and the predictor's tint is that integral. */
  sq_mesh *mesh;
  sq_disc *d = make_disc(2, 64, &mesh);
  const int B = d->nbasis, O = d->opt.order;
  const int64_t n = d->nelem, len = n * B * 9;
  double *q = d->dofs;
  for (int64_t i = 0; i < len; ++i) q[i] = sin(0.37 * i);
  double *derivs = calloc(len * O, sizeof(double)), *tint = calloc(len, sizeof(double));
  double *part = calloc(len, sizeof(double)), *buf = calloc(len, sizeof(double));
  const double dt = 0.01;
  sq_kernel_ader(SQ_F64, O, n, d->pack, d->dofs, d->star, dt, tint, derivs);
  for (int k = 0; k < 4; ++k) {
    sq_kernel_taylor(SQ_F64, O, n, derivs, k * dt / 4, (k + 1) * dt / 4, part);
    sq_kernel_accumulate(SQ_F64, O, n, part, k == 0, buf);
  }
  double maxdiff = 0, maxval = 0;
  for (int64_t i = 0; i < len; ++i)
    maxdiff = fmax(maxdiff, fabs(buf[i] - tint[i])), maxval = fmax(maxval, fabs(tint[i]));
  ck_assert(maxval > 0);
  ck_assert(maxdiff <= 1e-13 * maxval);
  /* the derivative of order 0 is the state itself */
  for (int64_t i = 0; i < B * 9; ++i) ck_assert_double_eq(derivs[i], q[i]);
  free(derivs), free(tint), free(part), free(buf);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
}
END_TEST

/*
 * Place the tiles on two pretend GPUs as sq_runtime_place_tiles_on_gpus does on a host with two
 * (sq_disc_split_parts), with every worker allowed for both: the tasks run on the CPU workers, and
 * the graph pairs tiles as it would on two GPUs.
 */
static void place_on_two_gpus(sq_runtime *rt) {
  const unsigned nw = starpu_worker_get_count();
  rt->gpu_words = (nw + 31) / 32;
  ck_assert_int_eq(SQ_CALLOC(rt->gpu_workers, 2 * (size_t)rt->gpu_words), 0);
  ck_assert_int_eq(SQ_CALLOC(rt->tile_gpu, rt->disc->ntile), 0);
  for (unsigned w = 0; w < nw; ++w)
    for (int g = 0; g < 2; ++g) rt->gpu_workers[(size_t)g * rt->gpu_words + w / 32] |= 1u << (w % 32);
  if (rt->disc->opt.nparts == 2) /* tiles cut by two GPU regions: each on its region's GPU */
    for (int t = 0; t < rt->disc->ntile; ++t) rt->tile_gpu[t] = (int16_t)rt->disc->tile[t].part;
  else ck_assert_int_eq(sq_disc_split_parts(rt->disc, 2, rt->tile_gpu), 0);
}

/* how: 1 merged predictors, 2 fused predictor, 4 whole steps, 8 tiles placed on two pretend GPUs, 16 whole
 * steps of the fastest cluster two sub-steps per task (steps_per_task: the task count goes to *ngrouped), 32
 * tiles cut by two GPU regions (with 8: placed by region), 64 the time integrals, derivatives and LTS buffers
 * filled with NaN before the runtime takes them (sq_runtime_upload gives them room on a GPU without copying), 128
 * (with 8) the fastest cluster on one of the two GPUs (sq_runtime_place_fastest_cluster), 256 (with 32 and 128)
 * cluster 1's cells next to it in its region too, their tiles kept on its GPU (sq_gather_fast_chain), 512 (with
 * 4 and 16) cluster 1's corrections next to the fastest cluster in its whole-step tasks (fuse_chain_correction:
 * how many go to `folded`), 1024 (with 512) their next predictors too (fuse_chain_prediction: `folded_predict`) */
static int64_t folded, folded_predict,
    doubled; /* doubled: tiles with two time-integral arrays (sq_runtime_double_tint) */
static uint64_t run_lts_grouped(int how, int tile, int64_t *npred, int64_t *ncorr, int64_t *nmerged, int64_t *ngrouped,
                                int *ncluster) {
  sq_mesh *mesh;
  gather_chain = (how & 256) != 0;
  sq_disc *d = make_disc_regions(2, tile, 0.0, 0, how & 32 ? 2 : 1, &mesh);
  gather_chain = 0;
  project_p_wave(d, &base);
  if (how & 64) {
    const size_t eb = sq_disc_elem_bytes(d), n = (size_t)d->nelem;
    memset(d->tint, 0xff, n * eb); /* all bits set: NaN in either precision */
    if (d->derivs) memset(d->derivs, 0xff, n * eb * (size_t)d->opt.order);
    if (d->buffer) memset(d->buffer, 0xff, n * eb);
  }
  sq_runtime *rt;
  ck_assert_int_eq(sq_runtime_create(d, &rt), 0);
  if (how & 64) { /* no GPU here: nothing to move; the same accesses on the host's memory node change nothing */
    sq_upload_stats up = {.tiles = -1};
    ck_assert_int_eq(sq_runtime_upload(rt, &up), 0);
    ck_assert_int_eq(up.tiles, 0);
    for (int t = 0; t < d->ntile; ++t) ck_assert_int_eq(sq_runtime_upload_tile(rt, t, STARPU_MAIN_RAM, 1, &up), 0);
    ck_assert_int_eq(up.tiles, d->ntile);
    ck_assert(up.output_bytes > 0);
  }
  if (how & 4) { /* whole steps as one task: some tile must qualify, else the comparison proves nothing */
    int fusable = 0;
    for (int t = 0; t < d->ntile; ++t) fusable += sq_step_fusable(rt, t);
    ck_assert_int_gt(fusable, 0);
  }
  if (how & 8) place_on_two_gpus(rt);
  if (how & 128) ck_assert_int_ge(sq_runtime_place_fastest_cluster(rt, (how & 256) != 0, fast_share), 0);
  sq_graph_options opt = {.merge_neighbor_clusters = how & 1,
                          .fuse_predictor = (how & 2) != 0,
                          .fuse_steps = (how & 4) != 0,
                          .steps_per_task = how & 16 ? 2 : 1,
                          .fuse_chain_correction = (how & 512) != 0,
                          .fuse_chain_prediction = (how & 1024) != 0};
  sq_graph_stats st = {0};
  for (int s = 0; s < 2; ++s)
    ck_assert_int_eq(sq_graph_sync_interval(rt, d->cluster_dt[d->ncluster - 1], &opt, &st), 0);
  for (int l = 0; l < d->ncluster; ++l) {
    if (npred) npred[l] += st.predict[l];
    if (ncorr) ncorr[l] += st.correct[l];
  }
  if (nmerged)
    nmerged[0] += st.merged_predict, nmerged[1] += st.merged_predict_across_gpus, nmerged[2] += st.merged_correct;
  if (ngrouped) *ngrouped += st.grouped;
  folded = st.folded;
  folded_predict = st.folded_predict;
  ck_assert_int_eq(sq_runtime_sync(rt), 0);
  doubled = 0;
  for (int t = 0; rt->tint_alt && t < d->ntile; ++t) doubled += rt->tint_alt[t] != NULL;
  sq_runtime_destroy(rt);
  ck_assert_int_lt(sq_disc_find_nonfinite(d), 0);
  const uint64_t h = sq_disc_hash(d);
  *ncluster = d->ncluster;
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
  return h;
}

static uint64_t run_lts_counted(int how, int tile, int64_t *npred, int64_t *ncorr, int64_t *nmerged, int *ncluster) {
  return run_lts_grouped(how, tile, npred, ncorr, nmerged, NULL, ncluster);
}

static uint64_t run_lts(int how, int tile, int64_t *npred, int64_t *ncorr, int *ncluster) {
  return run_lts_counted(how, tile, npred, ncorr, NULL, ncluster);
}

/* Merged predictors on tiles split over two GPUs pair only tiles of the same GPU, and agree bitwise. */
START_TEST(merge_on_two_gpus) {
  int64_t p0[64] = {0}, c0[64] = {0}, p1[64] = {0}, c1[64] = {0}, merged[3] = {0, 0, 0};
  int L;
  const uint64_t h0 = run_lts(0, 8, p0, c0, &L);
  const uint64_t h1 = run_lts_counted(8 | 1, 8, p1, c1, merged, &L);
  ck_assert_uint_eq(h0, h1);
  for (int l = 0; l < L; ++l) {
    ck_assert_int_eq(p0[l], p1[l]);
    ck_assert_int_eq(c0[l], c1[l]);
  }
  ck_assert_int_gt(merged[0], 0); /* some pairs, */
  ck_assert_int_eq(merged[1], 0); /* none across the two GPUs */
  ck_assert_int_gt(merged[2], 0); /* and merged neighbour-flux tasks */
  /* the same with tiles cut by two GPU regions, halo cells apart: same bits, steps, and no pair across GPUs */
  int64_t p2[64] = {0}, c2[64] = {0}, p3[64] = {0}, c3[64] = {0}, merged_regions[3] = {0, 0, 0};
  ck_assert_uint_eq(run_lts(32 | 8 | 2, 8, p2, c2, &L), h0);
  ck_assert_uint_eq(run_lts_counted(32 | 8 | 1, 8, p3, c3, merged_regions, &L), h0);
  for (int l = 0; l < L; ++l) {
    ck_assert_int_eq(p0[l], p2[l]);
    ck_assert_int_eq(c0[l], c3[l]);
  }
  ck_assert_int_gt(merged_regions[0], 0);
  ck_assert_int_eq(merged_regions[1], 0);
}
END_TEST

/* Every task graph writes the time integrals, derivatives and LTS buffers of a sync interval before it reads
 * them: a run whose arrays start as NaN gives the same bits (so the GPUs need room for them, no copy). */
START_TEST(outputs_written_before_read) {
  int L;
  const uint64_t h0 = run_lts(0, 8, NULL, NULL, &L);
  ck_assert_int_gt(L, 2);
  const int hows[][2] = {{0, 8}, {1, 8}, {2, 8}, {1 | 2, 8}, {32 | 8 | 2, 8}, {4, 100000}, {4 | 16 | 1, 100000}};
  for (size_t i = 0; i < sizeof(hows) / sizeof(hows[0]); ++i)
    ck_assert_uint_eq(run_lts(64 | hows[i][0], hows[i][1], NULL, NULL, &L), h0);
}
END_TEST

/* The fastest cluster on one of three GPU regions: all its tiles there, the work balanced to within one tile,
 * and the same bits as without placement on two pretend GPUs. */
START_TEST(fastest_cluster_on_one_gpu) {
  sq_mesh *mesh;
  sq_disc *d = make_disc_regions(2, 8, 0.0, 0, 3, &mesh);
  ck_assert_int_gt(d->ncluster, 2);
  int16_t *gpu = malloc(sizeof(int16_t) * (size_t)d->ntile);
  double before[3] = {0}, load[3] = {0}, total = 0, biggest = 0, fast[3] = {0};
  for (int t = 0; t < d->ntile; ++t) {
    gpu[t] = (int16_t)d->tile[t].part;
    double w = (double)(d->tile[t].end - d->tile[t].begin);
    for (int l = d->tile[t].cluster + 1; l < d->ncluster; ++l) w *= 2;
    before[gpu[t]] += w, total += w, biggest = w > biggest ? w : biggest;
    if (d->tile[t].cluster == 0) fast[gpu[t]] += w;
  }
  const int g0 = sq_place_fastest_cluster(d, 3, 0, 1.0, gpu);
  ck_assert_int_ge(g0, 0);
  for (int g = 0; g < 3; ++g) ck_assert(fast[g] <= fast[g0]); /* the GPU that held most of it */
  for (int t = 0; t < d->ntile; ++t) {
    double w = (double)(d->tile[t].end - d->tile[t].begin);
    for (int l = d->tile[t].cluster + 1; l < d->ncluster; ++l) w *= 2;
    load[gpu[t]] += w;
    if (d->tile[t].cluster == 0) ck_assert_int_eq(gpu[t], g0);
    if (gpu[t] != d->tile[t].part) ck_assert(d->tile[t].cluster == 0 || d->tile[t].part == g0); /* only off g0 */
  }
  double most_before = 0;
  for (int g = 0; g < 3; ++g) most_before = before[g] > most_before ? before[g] : most_before;
  for (int g = 0; g < 3; ++g)
    ck_assert(load[g] <= (most_before > total / 3 + biggest ? most_before : total / 3 + biggest));
  /* a fastest cluster with more than one GPU's share stays where it is: spread, or on one GPU already */
  int16_t *same = malloc(sizeof(int16_t) * (size_t)d->ntile);
  int nfast = 0;
  for (int t = 0; t < d->ntile; ++t) same[t] = (int16_t)(d->tile[t].cluster == 0 ? nfast++ % 2 : -1);
  ck_assert_int_gt(nfast, 1);
  ck_assert_int_eq(sq_place_fastest_cluster(d, 3, 0, 1.0, same), -1);
  for (int t = 0, k = 0; t < d->ntile; ++t) ck_assert_int_eq(same[t], d->tile[t].cluster == 0 ? k++ % 2 : -1);
  for (int t = 0; t < d->ntile; ++t) same[t] = (int16_t)(d->tile[t].cluster == 0 ? 1 : -1);
  ck_assert_int_eq(sq_place_fastest_cluster(d, 3, 0, 1.0, same), 1);
  for (int t = 0; t < d->ntile; ++t) ck_assert_int_eq(same[t], d->tile[t].cluster == 0 ? 1 : -1);
  free(same);
  free(gpu);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
  /* the fastest cluster's cells in one region before the tiles are cut: its tiles all there, halo tiles apart */
  gather_fastest = 1;
  d = make_disc_regions(2, 8, 0.0, 0, 3, &mesh);
  ck_assert_int_ge(gathered_region, 0);
  gpu = malloc(sizeof(int16_t) * (size_t)d->ntile);
  int halo = 0;
  for (int t = 0; t < d->ntile; ++t) {
    gpu[t] = (int16_t)d->tile[t].part;
    if (d->tile[t].cluster == 0) ck_assert_int_eq(d->tile[t].part, gathered_region);
    halo += d->tile[t].part_border;
  }
  ck_assert_int_gt(halo, 0);
  ck_assert_int_eq(sq_place_fastest_cluster(d, 3, 0, 1.0, gpu), gathered_region);
  free(gpu);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
  int L;
  const uint64_t h0 = run_lts(0, 8, NULL, NULL, &L);
  ck_assert_uint_eq(run_lts(128 | 32 | 8 | 2, 8, NULL, NULL, &L), h0); /* regions gathered, on two GPUs */
  gather_fastest = 0;
  ck_assert_uint_eq(run_lts(128 | 8, 8, NULL, NULL, &L), h0);
  ck_assert_uint_eq(run_lts(128 | 32 | 8 | 2, 8, NULL, NULL, &L), h0);
}
END_TEST

/* A tile of cluster 1 that reads a tile of cluster 0. */
static int reads_fastest(const sq_disc *d, int t) {
  int reads = 0;
  for (int k = 0; k < d->tile[t].nneighbor; ++k) reads |= d->tile[d->tile[t].neighbor[k]].cluster == 0;
  return d->tile[t].cluster == 1 && reads;
}

/* sq_gather_fast_chain on a row of cells, each the face neighbour of the next: clusters 0 0 1 1 1 1 2 2 2 2 2 2
 * (rate 2: 4, 2 and 1 updates per sync interval, 22 in all), cluster 0 mostly in region 1.  Cluster 0 and the
 * cell of cluster 1 next to it (10 updates) fit one of two regions' share (11): they go to region 1, whose other
 * cells of cluster 1 go to the neighbouring region, 0; the slowest cluster stays.  They do not fit one of three
 * (7.3): nothing changes. */
START_TEST(fast_chain_cells_gathered) {
  enum { N = 12 };
  const int cluster[N] = {0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2};
  const int part0[N] = {1, 1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0};
  const int want[N] = {1, 1, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0};
  int64_t nb[4 * N];
  int part[N];
  for (int c = 0; c < N; ++c) {
    nb[4 * c] = c > 0 ? c - 1 : -1;
    nb[4 * c + 1] = c + 1 < N ? c + 1 : -1;
    nb[4 * c + 2] = nb[4 * c + 3] = -1;
  }
  memcpy(part, part0, sizeof(part));
  ck_assert_int_eq(sq_gather_fast_chain(N, cluster, 3, 2, nb, 2, part), 1);
  for (int c = 0; c < N; ++c) ck_assert_int_eq(part[c], want[c]);
  int three[N];
  for (int c = 0; c < N; ++c) three[c] = part0[c] % 3;
  memcpy(part, three, sizeof(part));
  ck_assert_int_eq(sq_gather_fast_chain(N, cluster, 3, 2, nb, 3, part), -1);
  for (int c = 0; c < N; ++c) ck_assert_int_eq(part[c], three[c]);
  ck_assert_int_eq(sq_gather_fast_chain(N, cluster, 1, 2, nb, 2, part), -1); /* one cluster: nothing to do */
}
END_TEST

/* On the jittered box in two METIS regions (cluster 0 and cluster 1's cells next to it are 48 % of the element
 * updates: more than one of three regions' share): those cells in one region, its other
 * cells of cluster 1 in the others, every other cell where METIS put it; in the tiles cut from that, region
 * g0's tiles of cluster 1 are the ones that read cluster 0 and those alone, sq_place_fastest_cluster keeps them
 * on g0 and balances the work with slower tiles to within one tile (on three GPUs: the two others among
 * themselves too, by tiles of clusters 2 and slower); and the same bits as without placement on two pretend GPUs. */
START_TEST(fast_chain_on_one_gpu) {
  sq_mesh *mesh;
  sq_disc *d = make_disc_regions(2, 8, 0.0, 0, 1, &mesh); /* its clusters (those of the regions' runs too) */
  const int64_t n = mesh->ncell;
  const int ncluster = d->ncluster;
  ck_assert_int_gt(ncluster, 2);
  int *cluster = malloc(sizeof(int) * (size_t)n), *metis = malloc(sizeof(int) * (size_t)n);
  int *part = malloc(sizeof(int) * (size_t)n);
  for (int64_t c = 0; c < n; ++c) cluster[c] = d->cluster[c];
  sq_disc_destroy(d);
  ck_assert_int_eq(sq_partition(mesh, cluster, ncluster, 2, 2, SQ_PART_ENCODED, NULL, metis, NULL), 0);
  memcpy(part, metis, sizeof(int) * (size_t)n);
  const int g0 = sq_gather_fast_chain(n, cluster, ncluster, 2, mesh->face_neighbor, 2, part);
  ck_assert_int_ge(g0, 0);
  int64_t feeders = 0, moved = 0;
  for (int64_t c = 0; c < n; ++c) {
    int feeds = 0;
    for (int f = 0; f < 4; ++f)
      feeds |= mesh->face_neighbor[4 * c + f] >= 0 && cluster[mesh->face_neighbor[4 * c + f]] == 0;
    feeds &= cluster[c] == 1;
    feeders += feeds;
    if (cluster[c] == 0 || feeds) ck_assert_int_eq(part[c], g0);
    else if (cluster[c] == 1) {
      ck_assert_int_ne(part[c], g0);
      moved += metis[c] == g0;
    } else ck_assert_int_eq(part[c], metis[c]);
  }
  ck_assert_int_gt(feeders, 0);
  ck_assert_int_gt(moved, 0); /* the region had other cells of cluster 1, which left */
  free(cluster);
  free(metis);
  free(part);
  sq_mesh_destroy(mesh);
  gather_chain = 1;
  d = make_disc_regions(2, 8, 0.0, 0, 2, &mesh);
  gather_chain = 0;
  int16_t *gpu = malloc(sizeof(int16_t) * (size_t)d->ntile);
  double before[2] = {0}, load[2] = {0}, total = 0, biggest = 0;
  int chain_tiles = 0;
  for (int t = 0; t < d->ntile; ++t) {
    gpu[t] = (int16_t)d->tile[t].part;
    double w = (double)(d->tile[t].end - d->tile[t].begin);
    for (int l = d->tile[t].cluster + 1; l < d->ncluster; ++l) w *= 2;
    before[gpu[t]] += w, total += w, biggest = w > biggest ? w : biggest;
    if (d->tile[t].cluster == 1 && d->tile[t].part == gathered_region) {
      ck_assert(reads_fastest(d, t));
      ++chain_tiles;
    }
    if (reads_fastest(d, t)) ck_assert_int_eq(d->tile[t].part, gathered_region);
  }
  ck_assert_int_gt(chain_tiles, 0);
  ck_assert_int_eq(sq_place_fastest_cluster(d, 2, 1, 1.0, gpu), gathered_region);
  for (int t = 0; t < d->ntile; ++t) {
    double w = (double)(d->tile[t].end - d->tile[t].begin);
    for (int l = d->tile[t].cluster + 1; l < d->ncluster; ++l) w *= 2;
    load[gpu[t]] += w;
    if (d->tile[t].cluster == 0 || reads_fastest(d, t)) ck_assert_int_eq(gpu[t], gathered_region);
    if (gpu[t] != d->tile[t].part) ck_assert(d->tile[t].cluster > 1 && d->tile[t].part == gathered_region);
  }
  double most_before = 0;
  for (int g = 0; g < 2; ++g) most_before = before[g] > most_before ? before[g] : most_before;
  for (int g = 0; g < 2; ++g)
    ck_assert(load[g] <= (most_before > total / 2 + biggest ? most_before : total / 2 + biggest));
  /* everything on one of three GPUs, whose share is less than the chain's work: it sheds every slower tile, and
   * then of cluster 1 only those that do not read cluster 0 (without keep_chain, some that do) */
  for (int keep = 1; keep >= 0; --keep) {
    for (int t = 0; t < d->ntile; ++t) gpu[t] = (int16_t)gathered_region;
    ck_assert_int_eq(sq_place_fastest_cluster(d, 3, keep, 1.0, gpu), gathered_region);
    int chain_moved = 0;
    double on[3] = {0};
    for (int t = 0; t < d->ntile; ++t) {
      if (d->tile[t].cluster > 1) ck_assert_int_ne(gpu[t], gathered_region);
      chain_moved += reads_fastest(d, t) && gpu[t] != gathered_region;
      double w = (double)(d->tile[t].end - d->tile[t].begin);
      for (int l = d->tile[t].cluster + 1; l < d->ncluster; ++l) w *= 2;
      on[gpu[t]] += w;
    }
    if (keep) ck_assert_int_eq(chain_moved, 0);
    else ck_assert_int_gt(chain_moved, 0);
    if (keep) /* the two others evened out to within one tile */
      ck_assert(fabs(on[(gathered_region + 1) % 3] - on[(gathered_region + 2) % 3]) <= biggest);
  }
  /* the chain alone on g0, every other tile on a second GPU, none on the third: the two even out by tiles of
   * clusters 2 and slower */
  const int g1 = (gathered_region + 1) % 3, g2 = (gathered_region + 2) % 3;
  for (int t = 0; t < d->ntile; ++t)
    gpu[t] = (int16_t)(d->tile[t].cluster == 0 || reads_fastest(d, t) ? gathered_region : g1);
  ck_assert_int_eq(sq_place_fastest_cluster(d, 3, 1, 1.0, gpu), gathered_region);
  double on[3] = {0};
  for (int t = 0; t < d->ntile; ++t) {
    double w = (double)(d->tile[t].end - d->tile[t].begin);
    for (int l = d->tile[t].cluster + 1; l < d->ncluster; ++l) w *= 2;
    on[gpu[t]] += w;
    if (d->tile[t].cluster <= 1)
      ck_assert_int_eq(gpu[t], d->tile[t].cluster == 0 || reads_fastest(d, t) ? gathered_region : g1);
  }
  ck_assert(on[g2] > 0);
  ck_assert(fabs(on[g1] - on[g2]) <= biggest);
  free(gpu);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
  int L;
  const uint64_t h0 = run_lts(0, 8, NULL, NULL, &L);
  ck_assert_uint_eq(run_lts(256 | 128 | 32 | 8 | 2, 8, NULL, NULL, &L), h0);
  ck_assert_uint_eq(run_lts(256 | 128 | 32 | 8 | 1, 8, NULL, NULL, &L), h0); /* merged predictors too */
}
END_TEST

/* Elements of cluster l's owned tiles of @p d, and how many tiles hold them. */
static int64_t cluster_elements(const sq_disc *d, int l, int *ntile) {
  int64_t n = 0;
  *ntile = 0;
  for (int t = 0; t < d->ntile; ++t)
    if (d->tile[t].cluster == l && d->tile[t].layer != SQ_LAYER_GHOST) n += d->tile[t].end - d->tile[t].begin, ++*ntile;
  return n;
}

/* The fastest cluster in tiles of its own size (runtime.fast_cluster_tile): with its cells and cluster 1's next to
 * them in one of two GPU regions, one interior tile that no halo cell shares, which takes its whole step as one
 * task, two sub-steps per task, on the region's GPU; every other cluster cut as before; GTS untouched; and the
 * same bits as the plain run. */
START_TEST(fastest_cluster_own_tile) {
  sq_mesh *mesh;
  gather_chain = 1;
  sq_disc *plain = make_disc_regions(2, 8, 0.0, 0, 2, &mesh);
  sq_mesh_destroy(mesh);
  fast_tile = 100000;
  sq_disc *d = make_disc_regions(2, 8, 0.0, 0, 2, &mesh);
  gather_chain = 0;
  ck_assert_int_eq(d->ncluster, plain->ncluster);
  int n0, n1;
  ck_assert_int_eq(cluster_elements(d, 0, &n1), cluster_elements(plain, 0, &n0));
  ck_assert_int_gt(n0, 1); /* plain: several tiles, which read each other (no whole steps) */
  const int plain_fast_tiles = n0;
  ck_assert_int_eq(n1, 1);
  for (int l = 1; l < d->ncluster; ++l) { /* the other clusters' tiles are those of the plain cut */
    ck_assert_int_eq(cluster_elements(d, l, &n1), cluster_elements(plain, l, &n0));
    ck_assert_int_eq(n1, n0);
  }
  for (int t = 0; t < d->ntile; ++t)
    if (d->tile[t].cluster == 0) {
      ck_assert_int_eq(d->tile[t].part_border, 0);
      ck_assert_int_eq(d->tile[t].part, gathered_region);
    } else {
      ck_assert_int_le(d->tile[t].end - d->tile[t].begin, 8);
    }
  sq_runtime *rt;
  ck_assert_int_eq(sq_runtime_create(d, &rt), 0);
  for (int t = 0; t < d->ntile; ++t) ck_assert_int_eq(sq_step_fusable(rt, t), d->tile[t].cluster == 0);
  sq_runtime_destroy(rt);
  sq_disc_destroy(d);
  sq_disc_destroy(plain);
  sq_mesh_destroy(mesh);
  /* smaller than tile_size: the fastest cluster in more, smaller tiles */
  fast_tile = 3;
  gather_chain = 1;
  d = make_disc_regions(2, 8, 0.0, 0, 2, &mesh);
  gather_chain = 0;
  int nsmall;
  cluster_elements(d, 0, &nsmall);
  ck_assert_int_gt(nsmall, plain_fast_tiles);
  for (int t = 0; t < d->ntile; ++t)
    ck_assert_int_le(d->tile[t].end - d->tile[t].begin, d->tile[t].cluster == 0 ? 3 : 8);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
  fast_tile = 100000;
  /* one cluster (GTS): tile_size alone */
  d = make_disc(1, 8, &mesh);
  ck_assert_int_eq(d->ncluster, 1);
  for (int t = 0; t < d->ntile; ++t) ck_assert_int_le(d->tile[t].end - d->tile[t].begin, 8);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
  fast_tile = 0;
  int L;
  const uint64_t h0 = run_lts(0, 8, NULL, NULL, &L);
  int64_t p[64] = {0}, c[64] = {0}, grouped = 0;
  fast_tile = 100000;
  /* on two GPUs, the chain on one, fused predictors, whole steps two sub-steps per task; and merged predictors */
  ck_assert_uint_eq(run_lts_grouped(256 | 128 | 32 | 16 | 8 | 4 | 2, 8, p, c, NULL, &grouped, &L), h0);
  ck_assert_int_eq(grouped, 2 * (int64_t)pow(2, L - 2)); /* one task per step of cluster 1 */
  for (int l = 0; l < L; ++l) ck_assert_int_eq(c[l], 2 * (int64_t)pow(2, L - 1 - l));
  ck_assert_uint_eq(run_lts(256 | 128 | 32 | 16 | 8 | 4 | 1, 8, NULL, NULL, &L), h0);
  /* and cluster 1's corrections next to it in the whole-step tasks: same bits, a folded correction per tile of
   * cluster 1 that reads the fastest cluster, in every step of cluster 1 */
  int64_t c2[64] = {0};
  ck_assert_uint_eq(run_lts_grouped(512 | 256 | 128 | 32 | 16 | 8 | 4 | 2, 8, NULL, c2, NULL, NULL, &L), h0);
  ck_assert_int_gt(folded, 0);
  ck_assert_int_eq(folded % (2 * (int64_t)pow(2, L - 2)), 0);
  ck_assert_int_gt(doubled, folded / (2 * (int64_t)pow(2, L - 2))); /* the folded tiles and their neighbours */
  for (int l = 0; l < L; ++l) ck_assert_int_eq(c2[l], c[l]);
  /* and their next predictors: same bits and step counts; no folded step predicts ahead past the end of its sync
   * interval (nor, for a tile with an LTS buffer, past the end of cluster 2's step) */
  const int64_t nfolded = folded;
  int64_t p3[64] = {0}, c3[64] = {0};
  ck_assert_uint_eq(run_lts_grouped(1024 | 512 | 256 | 128 | 32 | 16 | 8 | 4 | 2, 8, p3, c3, NULL, NULL, &L), h0);
  ck_assert_int_eq(folded, nfolded);
  ck_assert_int_gt(folded_predict, 0);
  ck_assert_int_le(folded_predict, folded - folded / (int64_t)pow(2, L - 2));
  for (int l = 0; l < L; ++l) {
    ck_assert_int_eq(c3[l], c[l]);
    ck_assert_int_eq(p3[l], p[l]);
  }
  fast_tile = 0;
}
END_TEST

/* runtime.fast_gpu_share: the fastest cluster's GPU (of three) aims below an equal share, the others take more of
 * its slow tiles: it keeps the fastest cluster, its load never rises as the share falls and comes down to its aim
 * (or to the fastest cluster's work, which it cannot shed) within one tile; outside (0, 1] nothing changes. */
START_TEST(fast_gpu_share_sheds) {
  sq_mesh *mesh;
  gather_fastest = 1;
  sq_disc *d = make_disc_regions(2, 4, 0.0, 0, 3, &mesh);
  gather_fastest = 0;
  ck_assert_int_ge(gathered_region, 0);
  int16_t *gpu = malloc(sizeof(int16_t) * (size_t)d->ntile);
  double total = 0, biggest = 0, fastest = 0, last = INFINITY;
  for (int t = 0; t < d->ntile; ++t) {
    double w = (double)(d->tile[t].end - d->tile[t].begin);
    for (int l = d->tile[t].cluster + 1; l < d->ncluster; ++l) w *= 2;
    total += w, biggest = w > biggest ? w : biggest;
    if (d->tile[t].cluster == 0) fastest += w;
  }
  const double shares[] = {1.0, 0.9, 0.8, 0.6, 0.2};
  double load0[5];
  for (int i = 0; i < 5; ++i) {
    for (int t = 0; t < d->ntile; ++t) gpu[t] = (int16_t)d->tile[t].part;
    ck_assert_int_eq(sq_place_fastest_cluster(d, 3, 0, shares[i], gpu), gathered_region);
    double on[3] = {0};
    for (int t = 0; t < d->ntile; ++t) {
      double w = (double)(d->tile[t].end - d->tile[t].begin);
      for (int l = d->tile[t].cluster + 1; l < d->ncluster; ++l) w *= 2;
      on[gpu[t]] += w;
      if (d->tile[t].cluster == 0) ck_assert_int_eq(gpu[t], gathered_region);
    }
    load0[i] = on[gathered_region];
    ck_assert(load0[i] <= last);
    last = load0[i];
    const double aim0 = shares[i] * total / 3;
    ck_assert(load0[i] <= (aim0 > fastest ? aim0 : fastest) + biggest);
  }
  ck_assert(load0[3] < load0[0]); /* it sheds something */
  for (int t = 0; t < d->ntile; ++t) gpu[t] = (int16_t)d->tile[t].part;
  ck_assert_int_eq(sq_place_fastest_cluster(d, 3, 1, 0.0, gpu), -1);
  ck_assert_int_eq(sq_place_fastest_cluster(d, 3, 1, 1.5, gpu), -1);
  for (int t = 0; t < d->ntile; ++t) ck_assert_int_eq(gpu[t], d->tile[t].part);
  free(gpu);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
  /* the same bits with the share on two pretend GPUs */
  int L;
  const uint64_t h0 = run_lts(0, 8, NULL, NULL, &L);
  fast_share = 0.5;
  ck_assert_uint_eq(run_lts(256 | 128 | 32 | 8 | 2, 8, NULL, NULL, &L), h0);
  fast_share = 1.0;
}
END_TEST

START_TEST(schedule_counts_and_merge) {
  int64_t p0[64] = {0}, c0[64] = {0}, p1[64] = {0}, c1[64] = {0}, p2[64] = {0}, c2[64] = {0};
  int64_t p3[64] = {0}, c3[64] = {0}, p4[64] = {0}, c4[64] = {0}, p5[64] = {0}, c5[64] = {0};
  int64_t p6[64] = {0}, c6[64] = {0}, grouped[2] = {0, 0};
  int L;
  const uint64_t h0 = run_lts(0, 32, p0, c0, &L);
  int64_t merged[3] = {0, 0, 0};
  const uint64_t h1 = run_lts_counted(1, 32, p1, c1, merged, &L);
  ck_assert_int_gt(merged[0], 0);                          /* merged predictors */
  ck_assert_int_gt(merged[2], 0);                          /* merged neighbour fluxes */
  const uint64_t h2 = run_lts(0, 5, p1 + 32, c1 + 32, &L); /* another tile size */
  const uint64_t h3 = run_lts(2, 32, p2, c2, &L);          /* fused ader + local per tile */
  const uint64_t h4 = run_lts(4, 100000, p3, c3, &L);      /* one tile per cluster: whole steps */
  const uint64_t h5 = run_lts(4 | 1, 100000, p4, c4, &L);  /* whole steps and merged predictors */
  /* the fastest cluster's two sub-steps per task, alone and with merged predictors */
  const uint64_t h6 = run_lts_grouped(16 | 4, 100000, p5, c5, NULL, &grouped[0], &L);
  const uint64_t h7 = run_lts_grouped(16 | 4 | 1, 100000, p6, c6, NULL, &grouped[1], &L);
  ck_assert_int_ge(L, 3);
  /* one task per step of cluster 1: two sync intervals of 2^(L-2) each */
  ck_assert_int_eq(grouped[0], 2 * (int64_t)pow(2, L - 2));
  ck_assert_int_eq(grouped[1], grouped[0]);
  for (int l = 0; l < L; ++l) {
    const int64_t expect = 2 * (int64_t)pow(2, L - 1 - l); /* two sync intervals, rate 2 */
    ck_assert_int_eq(p0[l], expect);
    ck_assert_int_eq(c0[l], expect);
    ck_assert_int_eq(p1[l], expect); /* merged tasks still predict every cluster step once */
    ck_assert_int_eq(c1[l], expect);
    ck_assert_int_eq(p2[l], expect);
    ck_assert_int_eq(c2[l], expect);
    ck_assert_int_eq(p3[l], expect);
    ck_assert_int_eq(c3[l], expect);
    ck_assert_int_eq(p4[l], expect);
    ck_assert_int_eq(c4[l], expect);
    ck_assert_int_eq(p5[l], expect); /* grouped sub-steps count one each */
    ck_assert_int_eq(c5[l], expect);
    ck_assert_int_eq(p6[l], expect);
    ck_assert_int_eq(c6[l], expect);
  }
  ck_assert_uint_eq(h0, h1); /* merge on/off: bitwise equal */
  ck_assert_uint_eq(h0, h2); /* tile size: bitwise equal */
  ck_assert_uint_eq(h0, h3); /* fused predictor: bitwise equal */
  ck_assert_uint_eq(h0, h4); /* whole steps: bitwise equal */
  ck_assert_uint_eq(h0, h5);
  ck_assert_uint_eq(h0, h6); /* grouped sub-steps: bitwise equal */
  ck_assert_uint_eq(h0, h7);
}
END_TEST

/* GTS in one tile: n global steps, steps_per_task of them per whole-step task, bitwise those of one per task. */
static uint64_t run_gts_grouped(int steps_per_task, int64_t n, int64_t *ngrouped) {
  sq_mesh *mesh;
  sq_disc *d = make_disc(1, 100000, &mesh);
  ck_assert_int_eq(d->ncluster, 1);
  project_p_wave(d, &base);
  sq_runtime *rt;
  ck_assert_int_eq(sq_runtime_create(d, &rt), 0);
  ck_assert_int_eq(sq_step_fusable(rt, 0), 1);
  int64_t npred[1] = {0}, ncorr[1] = {0};
  const sq_graph_options opt = {.fuse_steps = 1, .steps_per_task = steps_per_task};
  sq_graph_stats st = {0};
  double times[16];
  const double dt = d->cluster_dt[0];
  for (int64_t i = 0; i <= n; ++i) times[i] = (double)i * dt;
  ck_assert_int_eq(sq_graph_sync_intervals(rt, dt, n, times, &opt, &st), 0);
  npred[0] = st.predict[0], ncorr[0] = st.correct[0], *ngrouped = st.grouped;
  ck_assert_int_eq(sq_runtime_sync(rt), 0);
  ck_assert_int_eq(npred[0], n);
  ck_assert_int_eq(ncorr[0], n);
  sq_runtime_destroy(rt);
  ck_assert_int_lt(sq_disc_find_nonfinite(d), 0);
  const uint64_t h = sq_disc_hash(d);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
  return h;
}

START_TEST(gts_steps_per_task) {
  int64_t g1 = 0, g2 = 0, g7 = 0;
  const uint64_t h1 = run_gts_grouped(1, 7, &g1), h2 = run_gts_grouped(2, 7, &g2), h7 = run_gts_grouped(7, 7, &g7);
  ck_assert_int_eq(g1, 0); /* one step per task: the plain graph */
  ck_assert_int_eq(g2, 4); /* 2 + 2 + 2 + 1 */
  ck_assert_int_eq(g7, 1);
  ck_assert_uint_eq(h1, h2);
  ck_assert_uint_eq(h1, h7);
}
END_TEST

int main(void) {
  setenv("STARPU_SILENT", "1", 0);
  struct starpu_conf conf;
  starpu_conf_init(&conf);
  conf.sched_policy_name = "lws";
  if (starpu_init(&conf) != 0) return 1;
  const TTest *tests[] = {cluster_invariants,
                          split_parts_contiguous_balanced,
                          gpu_regions_halo_tiles,
                          small_tiles_first,
                          taylor_additivity_and_buffer,
                          schedule_counts_and_merge,
                          merge_on_two_gpus,
                          gts_steps_per_task,
                          outputs_written_before_read,
                          fastest_cluster_on_one_gpu,
                          fast_chain_cells_gathered,
                          fast_chain_on_one_gpu,
                          fastest_cluster_own_tile,
                          fast_gpu_share_sheds,
                          NULL};
  Suite *s = sq_test_suite("lts", 300, tests);
  const int status = sq_test_run(s, 0);
  starpu_shutdown();
  return status;
}
