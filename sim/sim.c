/** @file sim.c  The simulation object: set-up from a configuration and time advancement. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>

#include <starpu_mpi.h>

#include "sq_distmesh.h"
#include "sq_mesh_io.h"
#include "sq_sim_setup.h"

const char *sq_sim_setup_phase(int k) {
  static const char *name[SQ_SIM_SETUP_PHASES] = {"mesh and materials", "runtime start", "discretisation",
                                                  "points and fault", "runtime data"};
  return k >= 0 && k < SQ_SIM_SETUP_PHASES ? name[k] : "?";
}

int sq_measure_node_speed(const sq_config *cfg, double *speed) {
  /* Node-speed weights (thesis eq. 4.10): a short proxy run of the real task graph on this rank's
   * own workers (CPUs and GPUs alike) on a small periodic box, in element updates per second. */
  sq_box_params bp;
  sq_box_params_default(&bp);
  bp.n[0] = bp.n[1] = bp.n[2] = 6;
  sq_mesh *mesh = NULL;
  sq_material *mat = NULL;
  sq_disc *d = NULL;
  sq_runtime *rt = NULL;
  int ierr = sq_mesh_box(&bp, &mesh);
  if (!ierr) ierr = SQ_CALLOC(mat, mesh->ncell);
  if (!ierr) {
    for (int64_t c = 0; c < mesh->ncell; ++c) mat[c] = cfg->material_default;
    const sq_disc_options opt = {.order = cfg->order,
                                 .precision = cfg->precision,
                                 .cfl = cfg->cfl,
                                 .tile_size = cfg->tile_size > 0             ? cfg->tile_size
                                              : sq_runtime_gpu_workers() > 0 ? SQ_GPU_TILE_MIN
                                                                             : SQ_CPU_TILE_DEFAULT,
                                 .lts_rate = 1,
                                 .max_clusters = 1,
                                 .nranks = 1};
    ierr = sq_disc_create(mesh, mat, &opt, &d);
  }
  if (!ierr) ierr = sq_runtime_create(d, &rt);
  double elapsed = 0;
  const int nstep = 4;
  for (int i = 0; i <= nstep && !ierr; ++i) { /* step 0 warms up (first touch, perf models) */
    const double t0 = starpu_timing_now();
    ierr = sq_graph_sync_interval(rt, d->dt_min, NULL, NULL);
    if (!ierr) ierr = starpu_task_wait_for_all();
    if (i > 0) elapsed += 1e-6 * (starpu_timing_now() - t0);
  }
  if (!ierr) *speed = elapsed > 0 ? (double)nstep * d->nelem / elapsed : 1.0;
  sq_runtime_destroy(rt);
  sq_disc_destroy(d);
  SQ_FREE(mat);
  sq_mesh_destroy(mesh);
  return ierr;
}

/*
 * Keep this rank's part of the mesh (owned cells and the ghost layer, sq_mesh_extract) and free the
 * whole mesh: from here on no rank holds it.  The per-cell arrays computed over the whole mesh
 * (owner rank, LTS cluster, material) are cut down the same way.
 */
static int sim_keep_part(sq_sim *s, const int *cluster, int ncluster, double dt_min, sq_disc_options *opt) {
  sq_mesh *part = NULL;
  SQ_CALL(sq_mesh_extract(s->mesh, s->cell_rank, s->rank, &part));
  int *rank_of = NULL;
  sq_material *mat = NULL;
  int ierr = SQ_CALLOC(rank_of, part->ncell > 0 ? part->ncell : 1);
  if (!ierr) ierr = SQ_CALLOC(mat, part->ncell > 0 ? part->ncell : 1);
  if (!ierr) ierr = SQ_CALLOC(s->cell_cluster, part->ncell > 0 ? part->ncell : 1);
  if (ierr) {
    sq_mesh_destroy(part);
    SQ_FREE(rank_of);
    SQ_FREE(mat);
    return ierr;
  }
  for (int64_t c = 0; c < part->ncell; ++c) {
    const int64_t g = part->global_id[c];
    rank_of[c] = s->cell_rank[g];
    mat[c] = s->cell_material[g];
    s->cell_cluster[c] = cluster[g];
  }
  sq_mesh_destroy(s->mesh);
  SQ_FREE(s->cell_rank);
  SQ_FREE(s->cell_material);
  s->mesh = part;
  s->cell_rank = rank_of;
  s->cell_material = mat;
  opt->cell_rank = s->cell_rank;
  opt->cell_cluster = s->cell_cluster;
  opt->ncluster = ncluster;
  opt->dt_min = dt_min;
  if (sq_verbosity >= 2) {
    printf("starquake: rank %d holds %lld cells (owned + ghost) of %lld (read whole, then cut down)\n", s->rank,
           (long long)part->ncell, (long long)part->nglobal);
    fflush(stdout);
  }
  return SQ_SUCCESS;
}

/* The discretisation, the initial condition and the point, fault and plasticity data: numerics only, no
 * StarPU call (its workers are paused meanwhile). */
static int sim_setup_numerics(sq_sim *s, const sq_config *cfg, const sq_disc_options *opt, int serial) {
  SQ_CALL(sq_disc_create(s->mesh, s->cell_material, opt, &s->disc));
  if (cfg->attenuation.enabled) { /* the cells' materials are the unrelaxed ones (sim_unrelax) */
    double *coef;
    SQ_CALL(sq_sim_attenuation_coefficients(cfg, s->mesh, s->cell_material, &coef));
    const int ierr = sq_disc_set_attenuation(s->disc, cfg->attenuation.mechanisms, coef);
    free(coef);
    SQ_CALL(ierr);
  }
  SQ_CHECK(!serial || s->disc->ncluster == 1, SQ_ERR_INPUT,
           "%s: the serial reference runs global time stepping only, but equations.lts.rate %d gives %d clusters",
           cfg->path, cfg->lts_rate, s->disc->ncluster);
  if (cfg->ic_kind == SQ_IC_PLANEWAVE) {
    sq_wave_kind kind[SQ_MAX_MODES];
    int dir[SQ_MAX_MODES];
    double amp[SQ_MAX_MODES];
    for (int i = 0; i < cfg->ic_nmodes; ++i) {
      kind[i] = (sq_wave_kind)cfg->ic_modes[i].type;
      dir[i] = cfg->ic_modes[i].direction;
      amp[i] = cfg->ic_modes[i].amplitude;
    }
    sq_planewave_init(&s->pw, &cfg->material_default, cfg->ic_wave_vector, cfg->ic_profile == SQ_PROFILE_GAUSSIAN,
                      cfg->ic_center, cfg->ic_width, cfg->ic_nmodes, kind, dir, amp);
    if (cfg->attenuation.enabled) SQ_CALL(sq_sim_attenuation_wave(cfg, &s->pw));
    sq_disc_project(s->disc, sq_planewave_eval, &s->pw, 0.0);
    sq_disc_project_ane(s->disc, sq_planewave_eval_ane, &s->pw, 0.0);
    /* a plane wave is exact only in a homogeneous elastic medium */
    s->has_analytic = cfg->nrules == 0 && !cfg->plasticity.enabled;
  }
  const double t0 = sq_wall_seconds();
  sq_sim_hold_errors(); /* points are located by all ranks together: they fail alike */
  SQ_CALL(sq_sim_release_errors(sq_sim_points_create(s)));
  SQ_CALL(sq_sim_fault_create(s));
  s->setup_seconds[3] += sq_wall_seconds() - t0;
  s->setup_seconds[2] -= sq_wall_seconds() - t0;
  SQ_CALL(sq_sim_plasticity_create(s));
  return SQ_SUCCESS;
}

/* The context of the distributed start-up's callbacks: the config and its compiled materials. */
typedef struct material_ctx {
  const sq_config *cfg;
  const sq_material_eval *ev;
  sq_atten_band band; /* with attenuation */
  int failed;         /* a material expression gave a bad value (reported once); the default stands in */
} material_ctx;

/* The config's material at a cell (sq_distmesh_input.material_at); with attenuation its unrelaxed moduli. */
static sq_material material_at(const void *ctx, const double x[3], int group) {
  material_ctx *m = (material_ctx *)ctx;
  sq_material mat = m->cfg->material_default;
  if (!m->failed && sq_material_eval_cell(m->ev, x, group, -1, &mat, NULL)) m->failed = 1;
  if (!m->failed && m->cfg->attenuation.enabled && sq_sim_attenuation_unrelax(m->cfg, &m->band, x, -1, &mat))
    m->failed = 1;
  return m->failed ? m->cfg->material_default : mat;
}

/* With attenuation, every cell's material becomes its unrelaxed one: the LTS clusters, the partition and the
 * discretisation all see the moduli the solver steps with. */
static int sim_unrelax(sq_sim *s, const sq_config *cfg) {
  if (!cfg->attenuation.enabled) return SQ_SUCCESS;
  sq_atten_band band;
  SQ_CALL(sq_sim_attenuation_band(cfg, &band));
  for (int64_t c = 0; c < s->mesh->ncell; ++c)
    SQ_CALL(sq_sim_attenuation_unrelax(cfg, &band, &s->mesh->centroid[3 * c], sq_mesh_global_cell(s->mesh, c),
                                       &s->cell_material[c]));
  return SQ_SUCCESS;
}

/* The config's fault against the mesh's rupture faces (sq_distmesh_input.check_rupture). */
static int check_rupture(const void *ctx, const char *source, int64_t nrupture) {
  return sq_sim_fault_check_count(((const material_ctx *)ctx)->cfg, source, nrupture);
}

/* The mesh file cannot be read: name the config's line and key, and the script that makes the mesh. */
static int mesh_missing(const sq_config *cfg) {
  const char *base = strrchr(cfg->mesh_file, '/');
  base = base ? base + 1 : cfg->mesh_file;
  char dir[SQ_PATH_MAX] = "", script[SQ_PATH_MAX + 16], hint[SQ_PATH_MAX + 128] = "";
  const char *slash = strrchr(cfg->path, '/');
  if (slash) snprintf(dir, sizeof(dir), "%.*s", (int)(slash - cfg->path + 1), cfg->path);
  snprintf(script, sizeof(script), "%srun.sh", dir);
  FILE *f = fopen(script, "r"); /* the scenario script beside the config that names the mesh makes it */
  char line[1024];
  while (f && fgets(line, sizeof(line), f)) {
    if (line[0] == '#' || !strstr(line, base)) continue;
    char label[64] = ""; /* a case label "  short) ..." picks the script's argument */
    if (sscanf(line, " %63[A-Za-z0-9_-])", label) == 1 &&
        strchr(line, ')') == line + strspn(line, " \t") + strlen(label))
      snprintf(hint, sizeof(hint), "; make it with `%s %s`", script, label);
    else snprintf(hint, sizeof(hint), "; make it with `%s`", script);
    break;
  }
  if (f) fclose(f);
  return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "%s:%d: key 'mesh.file': cannot open the mesh '%s': %s%s", cfg->path,
                  cfg->mesh_file_line, cfg->mesh_file, strerror(errno), hint);
}

/* What each material entry matched over this rank's owned cells (all cells on one rank), summed over the
 * ranks when the mesh is distributed, and the warnings (or with --strict the error) about them. */
static int materials_report(sq_sim *s, const sq_material_eval *ev, int distributed) {
  sq_material_stats *st = &s->material_stats;
  sq_material_stats_init(st);
  /* every cell at its centroid with its group, threaded (the same bits with any number of threads) */
  const double t0 = sq_wall_seconds(), c0 = sq_cpu_seconds();
  sq_sim_workers_pause(); /* (with several ranks StarPU runs already: its idle workers would poll) */
  int ierr =
      sq_material_eval_cells(ev, s->mesh->ncell, s->mesh->centroid, s->mesh->group, s->mesh->global_id,
                             distributed ? s->cell_rank : NULL, s->rank, distributed ? NULL : s->cell_material, st);
  sq_sim_workers_resume();
  if (!ierr && sq_verbosity >= 2) {
    const double dt = sq_wall_seconds() - t0, cpu = sq_cpu_seconds() - c0;
    printf("starquake: rank %d: materials of %lld cells evaluated in %.3f s (%.3g us per cell, %d threads, %.3f s "
           "CPU)\n",
           s->rank, (long long)s->mesh->ncell, dt, 1e6 * dt / (double)(s->mesh->ncell ? s->mesh->ncell : 1),
           sq_get_threads(), cpu);
    fflush(stdout);
  }
  double lo[3], hi[3];
  memcpy(lo, s->mesh->bbox_lo, sizeof(lo));
  memcpy(hi, s->mesh->bbox_hi, sizeof(hi));
  if (distributed) {
    MPI_Allreduce(MPI_IN_PLACE, &ierr, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, st->ncell, SQ_MAX_MATERIALS + 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, st->lo, 3 * (SQ_MAX_MATERIALS + 1), MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, st->hi, 3 * (SQ_MAX_MATERIALS + 1), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, st->vpvs_lo, SQ_MAX_MATERIALS + 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, lo, 3, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, hi, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  SQ_CALL(ierr);
  return sq_material_stats_check(&s->cfg, st, lo, hi, s->rank == 0);
}

/*
 * The tile sizes and the CPU/GPU split of the started workers (runtime/hybrid.c): settings given in the
 * configuration stay; with CUDA workers the tiles are large and the CPUs get a share of the elements only
 * where the calibrated rates make the split worth it.  s->cfg keeps what the run uses.
 */
static int sim_hybrid_defaults(sq_sim *s, sq_disc_options *opt) {
  const sq_hybrid_request req = {.order = s->cfg.order,
                                 .precision = s->cfg.precision,
                                 .nelem = s->mesh->ncell,
                                 .lts = s->cfg.lts_rate > 1,
                                 .tile_size = s->cfg.tile_size,
                                 .cpu_tile_size = s->cfg.cpu_tile_size,
                                 .cpu_share = s->cfg.cpu_share};
  sq_hybrid_defaults h;
  SQ_CALL(sq_runtime_hybrid_defaults(&req, &h));
  s->cfg.tile_size = opt->tile_size = h.tile_size;
  s->cfg.cpu_share = h.cpu_share;
  s->cfg.cpu_tile_size = h.cpu_tile_size;
  opt->small_share = h.cpu_share > 0 ? h.cpu_share : 0.0;
  opt->small_tile_size = h.cpu_share > 0 ? h.cpu_tile_size : 0;
  if (s->rank == 0 && sq_verbosity >= 1 && h.plan.reason && req.cpu_share < 0)
    printf("  workers    %s (rates: CPUs %.3g, GPUs %.3g element updates/s; modelled gain %.2fx)\n", h.plan.reason,
           h.rate_cpu, h.rate_gpu, h.plan.speedup);
  return SQ_SUCCESS;
}

/*
 * With several GPUs in this one-rank process (runtime.gpu_affinity): one METIS region per GPU, each with an
 * equal share of every LTS cluster (one constraint per cluster), which sq_disc_create cuts into tiles, its
 * halo cells apart.  Where METIS cannot split the mesh so, the tiles are placed by mesh order instead.
 */
static int gpu_regions(sq_sim *s, sq_disc_options *opt) {
  int ngpu;
  sq_runtime_gpu_memory(&ngpu);
  if (ngpu < 2) return SQ_SUCCESS;
  int *cluster, ncluster;
  double dt_min;
  SQ_CALL(SQ_CALLOC(cluster, s->mesh->ncell));
  int ierr = SQ_CALLOC(s->cell_part, s->mesh->ncell);
  if (!ierr) ierr = sq_disc_clusters(s->mesh, s->cell_material, opt, cluster, &ncluster, &dt_min);
  if (!ierr) {
    sq_error_hold(1);
    const int rate = opt->lts_rate > 1 ? opt->lts_rate : 1;
    if (sq_partition(s->mesh, cluster, ncluster, rate, ngpu, SQ_PART_ENCODED, NULL, s->cell_part, NULL)) {
      sq_error_discard();
      SQ_FREE(s->cell_part);
      if (sq_verbosity >= 1) printf("  placement  no METIS region per GPU: tiles placed by mesh order\n");
    } else if (s->cfg.fast_cluster_gpu && ncluster > 1) { /* the fastest cluster in one region */
      const int64_t n = s->mesh->ncell;
      if (s->cfg.fast_cluster_chain) /* with cluster 1's cells next to it, where they fit */
        s->fast_chain =
            sq_gather_fast_chain(n, cluster, ncluster, rate, s->mesh->face_neighbor, ngpu, s->cell_part) >= 0;
      if (!s->fast_chain) sq_gather_cluster_cells(n, cluster, ncluster, rate, ngpu, s->cell_part);
    }
    sq_error_hold(0);
  }
  SQ_FREE(cluster);
  SQ_CALL(ierr);
  if (s->cell_part) opt->cell_part = s->cell_part, opt->nparts = ngpu;
  return SQ_SUCCESS;
}

int sq_sim_create(const sq_config *cfg, int serial, sq_sim **out) {
  sq_sim *s;
  SQ_CALL(SQ_CALLOC(s, 1));
  *out = s;
  s->cfg = *cfg;
  s->serial = serial;
  s->rank = serial ? 0 : sq_sim_mpi_rank();
  s->nranks = serial ? 1 : sq_sim_mpi_nranks();
  SQ_CHECK(!serial || sq_sim_mpi_nranks() == 1, SQ_ERR_INPUT, "--serial runs on one MPI rank only");
  const double tstart = sq_wall_seconds();
  double t0 = tstart;
  sq_disc_options opt = {.order = cfg->order,
                         .precision = cfg->precision,
                         .cfl = cfg->cfl,
                         .tile_size = cfg->tile_size > 0 ? cfg->tile_size : SQ_CPU_TILE_DEFAULT,
                         .lts_rate = cfg->lts_rate,
                         .max_clusters = cfg->lts_max_clusters,
                         .rank = s->rank,
                         .nranks = s->nranks,
                         .rupture = cfg->fault.enabled,
                         .relax_rate = sq_sim_attenuation_relax_rate(cfg),
                         .fast_tile_size = cfg->fast_cluster_tile};
  double *target = NULL;
  int distributed = 0;
  sq_material_eval *ev = NULL; /* the config's materials, compiled */
  if (s->nranks > 1) {
    SQ_CALL(sq_sim_starpu_start(cfg->scheduler, cfg->cpu_task_threads));
    if (cfg->node_speed_weights) { /* node-speed shares of the work (thesis eq. 4.10) */
      SQ_CALL(SQ_CALLOC(target, s->nranks));
      SQ_CALL(sq_measure_node_speed(cfg, &target[s->rank]));
      MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, target, 1, MPI_DOUBLE, MPI_COMM_WORLD);
      double sum = 0;
      for (int r = 0; r < s->nranks; ++r) sum += target[r];
      for (int r = 0; r < s->nranks; ++r) target[r] /= sum;
      for (int r = 0; r < s->nranks && r < 8; ++r) s->part_target[r] = target[r];
    }
    /* PUML: each rank reads a block, and no rank holds the whole mesh (mesh/distmesh.c) */
    material_ctx mctx = {.cfg = cfg};
    if (cfg->attenuation.enabled) SQ_CALL(sq_sim_attenuation_band(cfg, &mctx.band));
    SQ_CALL(sq_material_eval_create(cfg, &ev));
    const sq_distmesh_input in = {.mesh_file = cfg->mesh_file,
                                  .partition = cfg->partition,
                                  .target = target,
                                  .material_at = material_at,
                                  .check_rupture = check_rupture,
                                  .ctx = &mctx};
    mctx.ev = ev;
    sq_distmesh_part part = {0};
    int ierr =
        sq_mesh_read_distributed(&in, cfg->mesh_kind != SQ_MESH_BOX, s->rank, s->nranks, &opt, &part, &distributed);
    MPI_Allreduce(MPI_IN_PLACE, &mctx.failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!ierr && mctx.failed) ierr = SQ_ERR_INPUT;
    s->mesh = part.mesh; /* freed by sq_sim_destroy, also after an error */
    s->cell_rank = part.cell_rank;
    s->cell_cluster = part.cell_cluster;
    s->cell_material = part.cell_material;
    s->part_stats = part.part_stats;
    if (!ierr && distributed) ierr = materials_report(s, ev, 1);
    if (ierr) {
      SQ_FREE(target);
      sq_material_eval_destroy(ev);
    }
    SQ_CALL(ierr);
    if (distributed && sq_verbosity >= 2) {
      printf("starquake: rank %d holds %lld cells (owned + ghost) of %lld (read by blocks)\n", s->rank,
             (long long)s->mesh->ncell, (long long)s->mesh->nglobal);
      fflush(stdout);
    }
  }
  if (!distributed) {     /* the whole mesh on every rank, cut down after partitioning */
    sq_sim_hold_errors(); /* every rank reads the same whole mesh: rank 0 alone reports its errors */
    int ierr = SQ_SUCCESS;
    if (cfg->mesh_kind != SQ_MESH_BOX && access(cfg->mesh_file, R_OK) != 0) ierr = mesh_missing(cfg);
    else
      ierr = cfg->mesh_kind == SQ_MESH_BOX ? sq_mesh_box(&cfg->box, &s->mesh)
                                           : sq_mesh_read(cfg->mesh_file, &s->mesh); /* Gmsh or PUML, by extension */
    if (!ierr && !ev) ierr = sq_material_eval_create(cfg, &ev);
    if (!ierr) ierr = SQ_CALLOC(s->cell_material, s->mesh->ncell);
    if (!ierr) ierr = materials_report(s, ev, 0); /* the whole mesh: every rank alike */
    if (!ierr) ierr = sim_unrelax(s, cfg);
    if (!ierr) ierr = sq_sim_fault_check_mesh(cfg, s->mesh);
    ierr = sq_sim_release_errors(ierr);
    t0 = sq_wall_seconds();
    if (!ierr && !serial && s->nranks == 1) ierr = sq_sim_starpu_start(cfg->scheduler, cfg->cpu_task_threads);
    s->setup_seconds[1] += sq_wall_seconds() - t0;
    if (ierr) {
      SQ_FREE(target);
      sq_material_eval_destroy(ev);
    }
    SQ_CALL(ierr);
  }
  if (s->nranks > 1 && !distributed) { /* every rank partitions the same mesh the same way (METIS is deterministic) */
    int *cluster, ncluster;
    double dt_min;
    SQ_CALL(SQ_CALLOC(cluster, s->mesh->ncell));
    SQ_CALL(SQ_CALLOC(s->cell_rank, s->mesh->ncell));
    SQ_CALL(sq_disc_clusters(s->mesh, s->cell_material, &opt, cluster, &ncluster, &dt_min));
    int ierr = sq_partition(s->mesh, cluster, ncluster, opt.lts_rate > 1 ? opt.lts_rate : 1, s->nranks, cfg->partition,
                            target, s->cell_rank, &s->part_stats);
    if (!ierr) ierr = sim_keep_part(s, cluster, ncluster, dt_min, &opt);
    SQ_FREE(cluster);
    SQ_FREE(target);
    SQ_CALL(ierr);
  }
  SQ_FREE(target);
  sq_material_eval_destroy(ev);
  ev = NULL;
  if (!serial) SQ_CALL(sim_hybrid_defaults(s, &opt));
  else s->cfg.tile_size = opt.tile_size;
  if (!serial && s->nranks == 1 && cfg->gpu_affinity) SQ_CALL(gpu_regions(s, &opt));
  /* StarPU's idle workers poll for tasks: pause them while the set-up loops (OpenMP) use the cores */
  sq_sim_workers_pause();
  t0 = sq_wall_seconds();
  s->setup_seconds[0] = t0 - tstart - s->setup_seconds[1]; /* (with several ranks: the partitioning too) */
  const int ierr = sim_setup_numerics(s, cfg, &opt, serial);
  s->setup_seconds[2] += sq_wall_seconds() - t0;
  sq_sim_workers_resume();
  SQ_CALL(ierr);
  t0 = sq_wall_seconds();
  if (!serial) {
    SQ_CALL(sq_runtime_create(s->disc, &s->rt));
    const double placed = sq_runtime_split_tiles(s->rt, s->cfg.cpu_share);
    if (placed >= 0 && s->rank == 0 && sq_verbosity >= 1)
      printf("  placement  %.1f %% of the elements on CPU workers, the rest on GPUs (runtime.cpu_share %g)\n",
             100.0 * placed, s->cfg.cpu_share);
    const int ngpu = cfg->gpu_affinity ? sq_runtime_place_tiles_on_gpus(s->rt) : 0;
    if (ngpu > 0 && s->rank == 0 && sq_verbosity >= 1)
      printf(s->cell_part ? "  placement  one METIS region per GPU (%d), its halo cells in tiles of their own "
                            "(runtime.gpu_affinity)\n"
                          : "  placement  each cluster's tiles split into %d contiguous parts, one per GPU "
                            "(runtime.gpu_affinity)\n",
             ngpu);
    /* with one METIS region per GPU only (where it was measured): the regions' halo tiles stay the reads
     * across GPUs */
    const int fast_gpu = ngpu > 0 && s->cell_part && cfg->fast_cluster_gpu
                             ? sq_runtime_place_fastest_cluster(s->rt, s->fast_chain, cfg->fast_gpu_share)
                             : -1;
    if (fast_gpu >= 0 && s->rank == 0 && sq_verbosity >= 1)
      printf("  placement  the fastest cluster%s on GPU %d, slower tiles moved off it for balance "
             "(runtime.fast_cluster_gpu%s)\n",
             s->fast_chain ? " and cluster 1's cells next to it" : "", fast_gpu,
             s->fast_chain ? ", runtime.fast_cluster_chain" : "");
    int64_t ahead = 0;
    if (cfg->prefetch_halo) SQ_CALL(sq_runtime_forward_outputs(s->rt, &ahead));
    if (ahead > 0 && s->rank == 0 && sq_verbosity >= 1)
      printf("  placement  %lld tile outputs copied to the other GPUs that read them as soon as they are written "
             "(runtime.prefetch_halo)\n",
             (long long)ahead);
    sq_runtime_set_chain_priority(s->rt, cfg->chain_priority);
    SQ_CALL(sq_sim_points_attach(s));
    SQ_CALL(sq_runtime_attach_fault(s->rt, s->fault));
    SQ_CALL(sq_runtime_attach_plasticity(s->rt, s->plastic));
    /* the GPUs' data starts going up now, while the rest of the set-up runs */
    sq_upload_stats up;
    SQ_CALL(sq_runtime_upload(s->rt, &up));
    if (up.tiles > 0 && s->rank == 0 && sq_verbosity >= 1)
      printf("  upload     %.2f GB of %lld tiles' data to the GPUs started, %.2f GB of room for their outputs, %.2f GB "
             "for the copies other GPUs read\n",
             1e-9 * up.input_bytes, (long long)up.tiles, 1e-9 * up.output_bytes, 1e-9 * up.replica_bytes);
  }
  s->setup_seconds[4] += sq_wall_seconds() - t0;
  return SQ_SUCCESS;
}

void sq_sim_print_materials(const sq_sim *s, FILE *out) { sq_material_stats_print(&s->cfg, &s->material_stats, out); }

void sq_sim_plan(const sq_sim *s, double t_end, double *dt, int64_t *nsteps) {
  sq_plan_event ev[SQ_SIM_PLAN_EVENTS];
  sq_sim_plan_events(s, ev);
  *nsteps = sq_plan_steps(s->time, t_end, sq_sim_stable_step(s), SQ_SIM_PLAN_EVENTS, ev, dt);
}

void sq_sim_plan_events(const sq_sim *s, sq_plan_event ev[SQ_SIM_PLAN_EVENTS]) {
  const sq_config *c = &s->cfg;
  ev[0] = (sq_plan_event){.key = "output.interval", .interval = c->output_interval};
  ev[1] = (sq_plan_event){.key = "fault.output_interval", .interval = c->fault.enabled ? c->fault.output_interval : 0};
  ev[2] = (sq_plan_event){.key = "checkpoint.interval", .interval = c->checkpoint_interval};
}

void sq_sim_plan_start(sq_sim *s, double dt) {
  s->plan_t0 = s->time;
  s->plan_step0 = s->steps;
  s->plan_dt = dt;
}

double sq_sim_stable_step(const sq_sim *s) { return s->disc->cluster_dt[s->disc->ncluster - 1]; }

double sq_sim_time_at(const sq_sim *s, int64_t k) { return sq_plan_time(s->plan_t0, s->plan_step0, s->plan_dt, k); }

int sq_sim_fetch(sq_sim *s) { return s->serial ? SQ_SUCCESS : sq_runtime_sync(s->rt); }

int sq_sim_fetch_fault(sq_sim *s) { return s->serial || !s->fault ? SQ_SUCCESS : sq_runtime_sync_fault(s->rt); }

int sq_sim_host_overwrite(sq_sim *s) { return s->serial || !s->rt ? SQ_SUCCESS : sq_runtime_host_overwrite(s->rt); }

int64_t sq_sim_find_nonfinite(const sq_sim *s) {
  sq_sim_workers_pause(); /* the scan is threaded: the cores go to OpenMP meanwhile */
  const int64_t e = sq_disc_find_nonfinite(s->disc);
  sq_sim_workers_resume();
  return e;
}

int sq_sim_advance(sq_sim *s, int64_t nsteps, double dt, int fetch) {
  sq_graph_options gopt = {.merge_neighbor_clusters = s->cfg.merge_neighbor_clusters,
                           .merge_predictors_only = !s->cfg.merge_corrections,
                           .fuse_predictor = s->cfg.fuse_predictor,
                           .fuse_steps = s->cfg.fuse_steps,
                           .steps_per_task = s->cfg.steps_per_task,
                           .fuse_chain_correction = s->cfg.fuse_chain_correction,
                           .fuse_chain_prediction = s->cfg.fuse_chain_prediction};
  if (dt != s->plan_dt) sq_sim_plan_start(s, dt); /* (a restart sets the checkpoint's plan instead) */
  if (!s->serial) { /* the whole chunk at once: consecutive steps may share tasks (runtime.steps_per_task) */
    double *times;
    SQ_CALL(SQ_CALLOC(times, (size_t)nsteps + 1));
    for (int64_t i = 0; i <= nsteps; ++i) times[i] = sq_sim_time_at(s, s->steps + i);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    sq_graph_stats stats = {0};
    sq_sim_arm(s); /* a stop may cancel this chunk's tasks if its start is saved */
    const int ierr = sq_graph_sync_intervals(s->rt, dt, nsteps, times, &gopt, &stats);
    clock_gettime(CLOCK_MONOTONIC, &b);
    s->grouped_tasks += stats.grouped;
    s->folded_corrections += stats.folded;
    s->folded_predictions += stats.folded_predict;
    s->submit_seconds += (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    SQ_FREE(times);
    if (ierr) sq_sim_disarm();
    SQ_CALL(ierr);
  }
  for (int64_t i = 0; i < nsteps && s->serial; ++i) {
    gopt.t_begin = sq_sim_time_at(s, s->steps + i);
    gopt.t_end = sq_sim_time_at(s, s->steps + i + 1);
    if (s->fault) {
      sq_disc_predict_serial(s->disc, dt);
      SQ_CALL(sq_fault_step_serial(s->fault, s->disc, gopt.t_begin, dt));
      sq_disc_correct_serial(s->disc);
      if (s->plastic) sq_plastic_state_step_serial(s->plastic, s->disc, dt); /* after the update (ch. 8) */
    } else {
      sq_disc_step_serial(s->disc, dt);
      if (s->plastic) sq_plastic_state_step_serial(s->plastic, s->disc, dt);
    }
  }
  const int werr = s->serial ? SQ_SUCCESS : fetch ? sq_runtime_sync(s->rt) : sq_runtime_wait(s->rt);
  sq_sim_disarm();
  s->cancelled = sq_runtime_cancelled();
  SQ_CALL(werr);
  s->steps += nsteps;
  s->time = sq_sim_time_at(s, s->steps);
  return SQ_SUCCESS;
}

void sq_sim_destroy(sq_sim *s) {
  if (!s) return;
  sq_runtime_destroy(s->rt);
  sq_sim_save_free(s);
  sq_sim_points_destroy(s);
  sq_fault_destroy(s->fault);
  sq_plastic_state_destroy(s->plastic);
  sq_disc_destroy(s->disc);
  sq_mesh_destroy(s->mesh);
  SQ_FREE(s->cell_material);
  SQ_FREE(s->cell_rank);
  SQ_FREE(s->cell_part);
  SQ_FREE(s->cell_cluster);
  SQ_FREE(s);
}
