/**
 * @file lts_placement.c  Where the LTS benchmark's tiles go on several GPUs of one process, without GPUs:
 * tests/bench/lts-placement [CELLS_XY] [TYPE] [TILE] [GPUS] [FAST_TILE] [FAST_SHARE]   (defaults 64 1 16384 4 0 1)
 * builds the box of tests/bench/lts_types.sh (CELLS_XY² × 32 cubes × 6 tetrahedra, z-slabs in LTS clusters 0
 * to 4 with the cell layers of TYPE 1 or 5, rate 2), cuts one METIS region per GPU as sq_sim_create does for
 * runtime.gpu_affinity, and places the tiles as runtime.fast_cluster_gpu does, alone and with
 * runtime.fast_cluster_chain, the fastest cluster cut in tiles of FAST_TILE (runtime.fast_cluster_tile, 0: TILE)
 * and its GPU aiming at FAST_SHARE of an equal share (runtime.fast_gpu_share).  For each it prints every GPU's
 * element updates per sync interval, cluster by cluster (with its tile count), against the equal share, and the
 * fastest cluster's tiles, halo tiles and those that may take whole steps (sq_step_fusable's tile conditions:
 * interior, no other tile of the fastest cluster among its neighbours), and that GPU's tiles of cluster 1: halo
 * tiles (next to another GPU's region) and those that read the fastest cluster.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sq_partition.h"
#include "sq_runtime_impl.h"

enum { NCL = 5, NZ = 32 };

static double tile_updates(const sq_disc *d, int t) {
  double w = (double)(d->tile[t].end - d->tile[t].begin);
  for (int l = d->tile[t].cluster + 1; l < d->ncluster; ++l) w *= 2;
  return w;
}

static int place(const sq_mesh *mesh, const sq_material *mat, sq_disc_options opt, int ngpu, int chain, double share) {
  const int64_t n = mesh->ncell;
  int *cluster = malloc(sizeof(int) * (size_t)n), *part = malloc(sizeof(int) * (size_t)n), ncluster;
  double dt_min;
  if (!cluster || !part || sq_disc_clusters(mesh, mat, &opt, cluster, &ncluster, &dt_min) ||
      sq_partition(mesh, cluster, ncluster, opt.lts_rate, ngpu, SQ_PART_ENCODED, NULL, part, NULL))
    return 1;
  const int gathered = chain ? sq_gather_fast_chain(n, cluster, ncluster, opt.lts_rate, mesh->face_neighbor, ngpu, part)
                             : sq_gather_cluster_cells(n, cluster, ncluster, opt.lts_rate, ngpu, part);
  opt.cell_part = part, opt.nparts = ngpu;
  sq_disc *d;
  if (sq_disc_create(mesh, mat, &opt, &d)) return 1;
  int16_t *gpu = malloc(sizeof(int16_t) * (size_t)d->ntile);
  if (!gpu) return 1;
  for (int t = 0; t < d->ntile; ++t) gpu[t] = (int16_t)d->tile[t].part;
  const int g0 = sq_place_fastest_cluster(d, ngpu, chain && gathered >= 0, share, gpu);
  printf("\n%s: %d clusters, %d tiles, the fastest cluster on GPU %d%s\n",
         chain ? "fast_cluster_gpu + fast_cluster_chain" : "fast_cluster_gpu", d->ncluster, d->ntile, g0,
         chain && gathered < 0 ? " (the chain did not fit one GPU: fast_cluster_gpu alone)" : "");
  double total = 0;
  for (int t = 0; t < d->ntile; ++t) total += tile_updates(d, t);
  printf("| GPU | updates per interval | / equal share |");
  for (int l = 0; l < d->ncluster; ++l) printf(" cluster %d (tiles) |", l);
  printf("\n|---|---|---|");
  for (int l = 0; l < d->ncluster; ++l) printf("---|");
  printf("\n");
  for (int g = 0; g < ngpu; ++g) {
    double load = 0, per[NCL] = {0};
    int tiles[NCL] = {0};
    for (int t = 0; t < d->ntile; ++t)
      if (gpu[t] == g && d->tile[t].cluster < NCL) {
        load += tile_updates(d, t);
        per[d->tile[t].cluster] += tile_updates(d, t);
        tiles[d->tile[t].cluster]++;
      }
    printf("| %d | %.0f | %.3f |", g, load, load / (total / ngpu));
    for (int l = 0; l < d->ncluster && l < NCL; ++l) printf(" %.0f (%d) |", per[l], tiles[l]);
    printf("\n");
  }
  int fast = 0, fast_halo = 0, whole = 0;
  for (int t = 0; t < d->ntile; ++t) {
    if (d->tile[t].cluster != 0) continue;
    int alone = d->tile[t].layer == SQ_LAYER_INTERIOR;
    for (int k = 0; k < d->tile[t].nneighbor; ++k)
      alone &= d->tile[t].neighbor[k] == t || d->tile[d->tile[t].neighbor[k]].cluster != 0;
    fast++, fast_halo += d->tile[t].part_border, whole += alone;
  }
  printf("the fastest cluster: %d tiles, %d of them halo tiles, %d may take whole steps (runtime.fuse_steps)\n", fast,
         fast_halo, whole);
  int c1 = 0, c1_halo = 0, feeders = 0, feeders_halo = 0; /* cluster 1 on the fastest cluster's GPU */
  for (int t = 0; t < d->ntile && g0 >= 0; ++t) {
    if (d->tile[t].cluster != 1 || gpu[t] != g0) continue;
    int reads = 0;
    for (int k = 0; k < d->tile[t].nneighbor; ++k) reads |= d->tile[d->tile[t].neighbor[k]].cluster == 0;
    c1++, c1_halo += d->tile[t].part_border, feeders += reads, feeders_halo += reads && d->tile[t].part_border;
  }
  printf("cluster 1 on GPU %d: %d tiles, %d of them halo tiles; %d read the fastest cluster, %d of those halo tiles\n",
         g0, c1, c1_halo, feeders, feeders_halo);
  free(gpu);
  sq_disc_destroy(d);
  free(cluster);
  free(part);
  return 0;
}

int main(int argc, char **argv) {
  const int nxy = argc > 1 ? atoi(argv[1]) : 64, type = argc > 2 ? atoi(argv[2]) : 1;
  const int tile = argc > 3 ? atoi(argv[3]) : 16384, ngpu = argc > 4 ? atoi(argv[4]) : 4;
  const int fast_tile = argc > 5 ? atoi(argv[5]) : 0;
  const double share = argc > 6 ? atof(argv[6]) : 1.0;
  static const int type_layers[2][NCL] = {{1, 2, 4, 9, 16}, {6, 6, 7, 7, 6}}; /* as tests/bench/lts_types.sh */
  if (nxy < 2 || (type != 1 && type != 5) || tile < 1 || ngpu < 2 || ngpu > SQ_MAX_PLACED_GPUS || fast_tile < 0 ||
      !(share > 0 && share <= 1)) {
    fprintf(stderr,
            "usage: lts-placement [CELLS_XY >= 2] [TYPE 1|5] [TILE >= 1] [GPUS 2..%d] [FAST_TILE >= 0] [FAST_SHARE (0, "
            "1]]\n",
            SQ_MAX_PLACED_GPUS);
    return 2;
  }
  const int *layers = type_layers[type == 5];
  sq_box_params bp;
  sq_box_params_default(&bp);
  bp.n[0] = bp.n[1] = nxy, bp.n[2] = NZ;
  bp.hi[0] = bp.hi[1] = 1.0, bp.hi[2] = 4.0;
  bp.tets_per_cube = 6;
  for (int i = 0; i < 4; ++i) bp.bc[i] = SQ_BC_PERIODIC;
  bp.bc[4] = bp.bc[5] = SQ_BC_ABSORB;
  sq_mesh *mesh;
  if (sq_mesh_box(&bp, &mesh)) return 1;
  sq_material *mat = malloc(sizeof(sq_material) * (size_t)mesh->ncell);
  if (!mat) return 1;
  for (int64_t c = 0; c < mesh->ncell; ++c) { /* slab l: wave speeds 2^-l (lts_types.sh's materials) */
    const double layer = mesh->centroid[3 * c + 2] * NZ / bp.hi[2];
    int l = 0, top = layers[0];
    while (l < NCL - 1 && layer > top) top += layers[++l];
    const double s2 = 1.0 / (double)(1 << (2 * l));
    mat[c] = (sq_material){.rho = 1.0, .lambda = 2.0 * s2, .mu = s2};
  }
  /* the order does not change where the tiles go: 2 keeps the set-up small */
  const sq_disc_options opt = {.order = 2,
                               .precision = SQ_F32,
                               .cfl = 0.5,
                               .tile_size = tile,
                               .lts_rate = 2,
                               .max_clusters = NCL,
                               .fast_tile_size = fast_tile};
  printf("type %d, %lld elements, tile %d, fastest cluster's tile %d, %d GPUs, its GPU aiming at %g of a share\n", type,
         (long long)mesh->ncell, tile, fast_tile > 0 ? fast_tile : tile, ngpu, share);
  const int err = place(mesh, mat, opt, ngpu, 0, share) || place(mesh, mat, opt, ngpu, 1, share);
  free(mat);
  sq_mesh_destroy(mesh);
  return err;
}
