/** @file sim.c  The simulation object: set-up from a configuration and time advancement. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sq_app.h"

static int starpu_started = 0;

int sq_app_starpu_start(const char *sched) {
  if (starpu_started) return SQ_SUCCESS;
  struct starpu_conf conf;
  starpu_conf_init(&conf);
  if (sq_verbosity < 2) setenv("STARPU_SILENT", "1", 0);
  if (!getenv("STARPU_SCHED") && sched && sched[0]) conf.sched_policy_name = sched;
  else if (!getenv("STARPU_SCHED")) conf.sched_policy_name = "lws";
  int ret = starpu_init(&conf);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "starpu_init failed (%d): check STARPU_* environment variables", ret);
  starpu_started = 1;
  return SQ_SUCCESS;
}

void sq_app_starpu_stop(void) {
  if (starpu_started) starpu_shutdown();
  starpu_started = 0;
}

int sq_sim_create(const sq_config *cfg, int serial, sq_sim **out) {
  sq_sim *s;
  SQ_CALL(SQ_CALLOC(s, 1));
  *out = s;
  s->cfg = *cfg;
  s->serial = serial;
  switch (cfg->mesh_kind) {
  case SQ_MESH_BOX: SQ_CALL(sq_mesh_box(&cfg->box, &s->mesh)); break;
  default:
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "%s: mesh type '%s' is not supported by this version; use mesh.type: box", cfg->path,
                    cfg->mesh_kind == SQ_MESH_GMSH ? "gmsh" : "puml");
  }
  SQ_CALL(SQ_CALLOC(s->cell_material, s->mesh->ncell));
  for (int64_t c = 0; c < s->mesh->ncell; ++c)
    s->cell_material[c] = sq_config_material_at(cfg, &s->mesh->centroid[c * 3], s->mesh->group[c]);
  sq_disc_options opt = {.order = cfg->order,
                         .precision = cfg->precision,
                         .cfl = cfg->cfl,
                         .tile_size = cfg->tile_size,
                         .lts_rate = cfg->lts_rate,
                         .max_clusters = cfg->lts_max_clusters};
  SQ_CALL(sq_disc_create(s->mesh, s->cell_material, &opt, &s->disc));
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
    sq_disc_project(s->disc, sq_planewave_eval, &s->pw, 0.0);
    s->has_analytic = cfg->nrules == 0; /* a plane wave is exact only in a homogeneous medium */
  }
  if (!serial) {
    SQ_CALL(sq_app_starpu_start(cfg->scheduler));
    SQ_CALL(sq_runtime_create(s->disc, &s->rt));
  }
  return SQ_SUCCESS;
}

void sq_sim_plan(const sq_sim *s, double t_end, double *dt, int64_t *nsteps) {
  const double remaining = t_end - s->time;
  const double dt_sync = s->disc->cluster_dt[s->disc->ncluster - 1];
  int64_t n = (int64_t)ceil(remaining / dt_sync * (1.0 - 1e-12));
  if (n < 1) n = 1;
  *nsteps = n;
  *dt = remaining / (double)n;
}

int sq_sim_advance(sq_sim *s, int64_t nsteps, double dt) {
  const sq_graph_options gopt = {.merge_neighbor_clusters = s->cfg.merge_neighbor_clusters};
  for (int64_t i = 0; i < nsteps; ++i) {
    if (s->serial) sq_disc_step_serial(s->disc, dt);
    else SQ_CALL(sq_graph_sync_interval(s->rt, dt, &gopt));
  }
  if (!s->serial) SQ_CALL(sq_runtime_sync(s->rt));
  s->time += nsteps * dt;
  s->steps += nsteps;
  return SQ_SUCCESS;
}

void sq_sim_destroy(sq_sim *s) {
  if (!s) return;
  sq_runtime_destroy(s->rt);
  sq_disc_destroy(s->disc);
  sq_mesh_destroy(s->mesh);
  SQ_FREE(s->cell_material);
  SQ_FREE(s);
}
