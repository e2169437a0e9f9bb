/**
 * @file placement.c  Where element tasks run: the static CPU/GPU split of each cluster's tiles and the
 * part of the mesh given to each GPU of the process (its region, where sq_disc_create cut the tiles by
 * regions; else a contiguous part of every cluster's tiles).
 */
#include "sq_runtime_impl.h"
#ifdef SQ_USE_CUDA
#include "sq_cuda.h"
#endif

int sq_runtime_cuda_devices(int devid[STARPU_NMAXWORKERS], int first_worker[STARPU_NMAXWORKERS]) {
  int ngpu = 0, dev_of[STARPU_NMAXWORKERS];
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w) {
    if (starpu_worker_get_type((int)w) != STARPU_CUDA_WORKER) continue;
    const int dev = starpu_worker_get_devid((int)w);
    int g = 0;
    while (g < ngpu && dev_of[g] != dev) ++g;
    if (g < ngpu) continue;
    dev_of[ngpu] = dev;
    if (devid) devid[ngpu] = dev;
    if (first_worker) first_worker[ngpu] = (int)w;
    ++ngpu;
  }
  return ngpu;
}

int sq_runtime_place_tiles_on_gpus(sq_runtime *rt) {
  const sq_disc *d = rt->disc;
  SQ_FREE(rt->tile_gpu);
  SQ_FREE(rt->gpu_workers);
  const unsigned nw = starpu_worker_get_count();
  int devid[STARPU_NMAXWORKERS];
  const int ngpu = sq_runtime_cuda_devices(devid, NULL);
  if (ngpu < 2 || d->ntile == 0) return 0;
  rt->gpu_words = (nw + 31) / 32;
  if (SQ_CALLOC(rt->gpu_workers, (size_t)ngpu * rt->gpu_words) || SQ_CALLOC(rt->tile_gpu, d->ntile)) {
    SQ_FREE(rt->gpu_workers);
    return 0;
  }
  for (unsigned w = 0; w < nw; ++w) /* a GPU's own workers, and every CPU worker (StarPU may still use CPUs) */
    for (int g = 0; g < ngpu; ++g)
      if (starpu_worker_get_type((int)w) != STARPU_CUDA_WORKER || starpu_worker_get_devid((int)w) == devid[g])
        rt->gpu_workers[(size_t)g * rt->gpu_words + w / 32] |= 1u << (w % 32);
  for (int t = 0; t < d->ntile; ++t) /* tiles kept on CPU workers (runtime.cpu_share) stay out */
    rt->tile_gpu[t] = (int16_t)(rt->tile_where && rt->tile_where[t] == STARPU_CPU ? -1 : 0);
  if (d->opt.nparts == ngpu) { /* one region per GPU, cut into tiles by sq_disc_create */
    for (int t = 0; t < d->ntile; ++t)
      if (rt->tile_gpu[t] == 0) rt->tile_gpu[t] = (int16_t)d->tile[t].part;
  } else if (sq_disc_split_parts(d, ngpu, rt->tile_gpu)) {
    SQ_FREE(rt->gpu_workers);
    SQ_FREE(rt->tile_gpu);
    return 0;
  }
  return ngpu;
}

/* A cell's element updates per sync interval in each of @p ncluster clusters of LTS rate @p rate (as
 * sq_disc_cluster_steps counts them, before the discretisation exists). */
static void steps_per_interval(int ncluster, int rate, double steps[SQ_MAX_PLACED_CLUSTERS]) {
  steps[ncluster - 1] = 1;
  for (int l = ncluster - 2; l >= 0; --l) steps[l] = steps[l + 1] * (rate > 1 ? rate : 1);
}

int sq_gather_cluster_cells(int64_t ncell, const int *cluster, int ncluster, int rate, int nparts, int *part) {
  int64_t count[SQ_MAX_PLACED_GPUS] = {0};
  if (nparts < 2 || nparts > SQ_MAX_PLACED_GPUS || ncluster < 2) return -1;
  double steps[SQ_MAX_PLACED_CLUSTERS], total = 0, fastest = 0; /* a cell's updates per sync interval */
  if (ncluster > SQ_MAX_PLACED_CLUSTERS) return -1;
  steps_per_interval(ncluster, rate, steps);
  for (int64_t c = 0; c < ncell; ++c) {
    total += steps[cluster[c]];
    if (cluster[c] != 0) continue;
    fastest += steps[0];
    if (part[c] >= 0 && part[c] < nparts) count[part[c]]++;
  }
  if (fastest > total / nparts) return -1; /* it would overload one GPU by itself */
  int g0 = 0;
  for (int g = 1; g < nparts; ++g) g0 = count[g] > count[g0] ? g : g0;
  if (count[g0] == 0) return -1;
  for (int64_t c = 0; c < ncell; ++c)
    if (cluster[c] == 0) part[c] = g0;
  return g0;
}

/* The cells of cluster 1 with a face neighbour in cluster 0: in every step of cluster 1 their correction reads
 * cluster 0's buffer, and cluster 0's two sub-steps read their derivatives. */
static int feeds_fastest(const int *cluster, const int64_t *face_neighbor, int64_t c) {
  if (cluster[c] != 1) return 0;
  for (int f = 0; f < 4; ++f)
    if (face_neighbor[c * 4 + f] >= 0 && cluster[face_neighbor[c * 4 + f]] == 0) return 1;
  return 0;
}

int sq_gather_fast_chain(int64_t ncell, const int *cluster, int ncluster, int rate, const int64_t *face_neighbor,
                         int nparts, int *part) {
  if (nparts < 2 || nparts > SQ_MAX_PLACED_GPUS || ncluster < 2 || ncluster > SQ_MAX_PLACED_CLUSTERS) return -1;
  double steps[SQ_MAX_PLACED_CLUSTERS], total = 0, chain = 0; /* a cell's updates per sync interval */
  steps_per_interval(ncluster, rate, steps);
  for (int64_t c = 0; c < ncell; ++c) {
    total += steps[cluster[c]];
    if (cluster[c] == 0 || feeds_fastest(cluster, face_neighbor, c)) chain += steps[cluster[c]];
  }
  if (chain > total / nparts) return -1; /* they would overload one GPU by themselves */
  int64_t *queue, head = 0, tail = 0;
  int *to;
  if (SQ_CALLOC(queue, ncell > 0 ? ncell : 1)) return -1;
  if (SQ_CALLOC(to, ncell > 0 ? ncell : 1)) {
    SQ_FREE(queue);
    return -1;
  }
  const int g0 = sq_gather_cluster_cells(ncell, cluster, ncluster, rate, nparts, part);
  if (g0 < 0) {
    SQ_FREE(queue);
    SQ_FREE(to);
    return -1;
  }
  for (int64_t c = 0; c < ncell; ++c)
    if (feeds_fastest(cluster, face_neighbor, c)) part[c] = g0;
  /* g0's other cells of cluster 1 out of its region, so that the tiles of cluster 1 cut there hold only the
   * chain's cells (tiles are cut in mesh order: a tile of feeders and other cells would tie those others to g0,
   * which the balance by tiles could not undo).  Each goes to the region nearest to it through face neighbours:
   * a front from the other regions' cells grows through g0's, every cell taking the region of the cell it was
   * reached from (to[], first come first served); only cluster 1's cells take it up. */
  for (int64_t c = 0; c < ncell; ++c) to[c] = part[c] == g0 ? -1 : part[c];
  for (int64_t c = 0; c < ncell; ++c) /* the front's start: g0's cells next to another region */
    for (int f = 0; f < 4 && part[c] == g0 && to[c] < 0; ++f) {
      const int64_t nb = face_neighbor[c * 4 + f];
      if (nb >= 0 && part[nb] != g0) to[c] = part[nb], queue[tail++] = c;
    }
  while (head < tail) {
    const int64_t c = queue[head++];
    for (int f = 0; f < 4; ++f) {
      const int64_t nb = face_neighbor[c * 4 + f];
      if (nb >= 0 && to[nb] < 0) to[nb] = to[c], queue[tail++] = nb;
    }
  }
  for (int64_t c = 0; c < ncell; ++c)
    if (cluster[c] == 1 && part[c] == g0 && to[c] >= 0 && !feeds_fastest(cluster, face_neighbor, c)) part[c] = to[c];
  SQ_FREE(queue);
  SQ_FREE(to);
  return g0;
}

/* A tile's element updates per sync interval: its elements times its cluster's steps. */
static double tile_work(const sq_disc *d, int t) {
  return (double)sq_disc_cluster_steps(d, d->tile[t].cluster) * (double)(d->tile[t].end - d->tile[t].begin);
}

/* A tile of cluster 1 that reads a tile of cluster 0 (sq_gather_fast_chain's cells, where they were gathered). */
static int tile_feeds_fastest(const sq_disc *d, int t) {
  if (d->tile[t].cluster != 1) return 0;
  for (int k = 0; k < d->tile[t].nneighbor; ++k)
    if (d->tile[d->tile[t].neighbor[k]].cluster == 0) return 1;
  return 0;
}

/* The loads of the GPUs other than g0 evened out by tiles of clusters 2 and slower (their steps are the rarest:
 * the fewest reads across GPUs): the most loaded gives one of its tiles of the slowest cluster it has to the
 * least loaded, while that lowers the larger of the two loads (every move lowers the sum of the squared loads:
 * it ends).  g0, which runs the chain, takes none. */
static void even_out(const sq_disc *d, int ngpu, int g0, double *load, int16_t *tile_gpu) {
  for (;;) {
    int gmax = g0 == 0 ? 1 : 0, gmin = gmax, best = -1;
    for (int g = 0; g < ngpu; ++g) {
      if (g == g0) continue;
      gmax = load[g] > load[gmax] ? g : gmax;
      gmin = load[g] < load[gmin] ? g : gmin;
    }
    for (int t = 0; t < d->ntile; ++t)
      if (tile_gpu[t] == gmax && d->tile[t].cluster > 1 && load[gmin] + tile_work(d, t) < load[gmax] &&
          (best < 0 || d->tile[t].cluster > d->tile[best].cluster))
        best = t;
    if (best < 0) return;
    const double w = tile_work(d, best);
    load[gmax] -= w, load[gmin] += w;
    tile_gpu[best] = (int16_t)gmin;
  }
}

int sq_place_fastest_cluster(const sq_disc *d, int ngpu, int keep_chain, double fast_share, int16_t *tile_gpu) {
  if (d->ncluster < 2 || ngpu < 2 || !(fast_share > 0 && fast_share <= 1)) return -1;
  double load[SQ_MAX_PLACED_GPUS] = {0}, fast[SQ_MAX_PLACED_GPUS] = {0}, total = 0, fastest = 0;
  SQ_CHECK(ngpu <= SQ_MAX_PLACED_GPUS, SQ_ERR_INPUT, "at most %d GPUs per process are placed (%d asked)",
           SQ_MAX_PLACED_GPUS, ngpu);
  for (int t = 0; t < d->ntile; ++t) {
    if (tile_gpu[t] < 0) continue;
    const double w = tile_work(d, t);
    load[tile_gpu[t]] += w, total += w;
    if (d->tile[t].cluster == 0) fast[tile_gpu[t]] += w, fastest += w;
  }
  const double share = total / ngpu;
  /* what each GPU aims at: g0 fast_share of an equal share, the others the rest in equal parts */
  const double aim0 = fast_share * share, aim = (total - aim0) / (ngpu - 1);
  int g0 = 0;
  for (int g = 1; g < ngpu; ++g) g0 = fast[g] > fast[g0] ? g : g0;
  /* a fastest cluster that would overload one GPU by itself stays spread, unless it is on one already
   * (sq_gather_cluster_cells): then its GPU still sheds what slow tiles it can */
  if (fastest <= 0 || (fastest > share && fast[g0] < fastest)) return -1;
  for (int t = 0; t < d->ntile; ++t)
    if (tile_gpu[t] >= 0 && tile_gpu[t] != g0 && d->tile[t].cluster == 0) {
      const double w = tile_work(d, t);
      load[tile_gpu[t]] -= w, load[g0] += w;
      tile_gpu[t] = (int16_t)g0;
    }
  /* then the other GPUs take g0's tiles of the slowest clusters (the rarest steps: the fewest reads across
   * GPUs), each to the least loaded GPU, while that lowers the larger of the two loads, each taken relative to
   * what its GPU aims at */
  for (int l = d->ncluster - 1; l > 0 && load[g0] > aim0; --l)
    for (int t = 0; t < d->ntile && load[g0] > aim0; ++t) {
      if (tile_gpu[t] != g0 || d->tile[t].cluster != l || (keep_chain && tile_feeds_fastest(d, t))) continue;
      int gmin = g0 == 0 ? 1 : 0;
      for (int g = 0; g < ngpu; ++g) gmin = g != g0 && load[g] < load[gmin] ? g : gmin;
      const double w = tile_work(d, t);
      if ((load[gmin] + w) / aim >= load[g0] / aim0) continue;
      load[g0] -= w, load[gmin] += w;
      tile_gpu[t] = (int16_t)gmin;
    }
  if (keep_chain) even_out(d, ngpu, g0, load, tile_gpu);
  return g0;
}

double sq_runtime_split_tiles(sq_runtime *rt, double cpu_share) {
  const sq_disc *d = rt->disc;
  SQ_FREE(rt->tile_where);
  if (!(cpu_share >= 0.0) || starpu_cuda_worker_get_count() == 0 || starpu_cpu_worker_get_count() == 0) return -1.0;
  if (SQ_CALLOC(rt->tile_where, d->ntile)) return -1.0;
  int64_t on_cpu = 0, owned = 0;
  for (int l = 0; l < d->ncluster; ++l) {
    int64_t total = 0, before = 0;
    for (int t = 0; t < d->ntile; ++t)
      if (d->tile[t].cluster == l && d->tile[t].layer != SQ_LAYER_GHOST) total += d->tile[t].end - d->tile[t].begin;
    for (int t = 0; t < d->ntile; ++t) {
      const sq_tile *tl = &d->tile[t];
      if (tl->cluster != l) continue;
      if (tl->layer == SQ_LAYER_GHOST) {
        rt->tile_where[t] = -1;
        continue;
      }
      const int64_t n = tl->end - tl->begin;
      int cpu = (double)before + 0.5 * (double)n < cpu_share * (double)total;
#ifdef SQ_USE_CUDA
      cpu |= tl->nneighbor > SQ_CUDA_MAX_SLOTS;
#endif
      rt->tile_where[t] = cpu ? STARPU_CPU : STARPU_CUDA;
      before += n;
      owned += n;
      on_cpu += cpu ? n : 0;
    }
  }
  return owned > 0 ? (double)on_cpu / (double)owned : 0.0;
}

int sq_runtime_place_fastest_cluster(sq_runtime *rt, int keep_chain, double fast_share) {
  if (!rt->tile_gpu) return -1;
  int ngpu = 0;
  for (int t = 0; t < rt->disc->ntile; ++t) ngpu = rt->tile_gpu[t] + 1 > ngpu ? rt->tile_gpu[t] + 1 : ngpu;
  return sq_place_fastest_cluster(rt->disc, ngpu, keep_chain, fast_share, rt->tile_gpu);
}
