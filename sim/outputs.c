/**
 * @file outputs.c  What a run writes while it advances, gathered from the simulation and handed to the
 * writers of io/ (energies, receivers, snapshots, fault outputs, checkpoints), and restarts.
 */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sq_fault_output.h"
#include "sq_run_files.h"
#include "sq_sim_outputs.h"
#include "sq_snapshot.h"

/** Flush the receiver buffer at the next event once it holds this much. */
#define SQ_RECEIVER_BUFFER_LIMIT ((size_t)64 << 20)

struct sq_outputs {
  sq_sim *s;
  const sq_config *cfg;
  int root;
  int64_t nsteps;
  double dt;
  sq_plan_schedule out, ckpts, faults; /* energies and snapshots, checkpoints, fault snapshots: at the times
                                          asked for (sq_plan.h) */
  int64_t flush_every;                 /* receiver flushes, in sync intervals; 0: never */
  sq_energy_file *energy;              /* rank 0 only */
  int64_t energy_rows;
  sq_receiver_writer *rec;
  sq_snapshot_writer *snap; /* wavefield and free-surface snapshots */
  char ckpt[SQ_PATH_MAX + 300];
  char blowup[SQ_PATH_MAX + 300]; /* the diagnosis checkpoint of a blow-up */
  sq_fault_output *fault;         /* fault snapshots, stations, cplot (NULL without a fault) */
};

static int64_t every(double interval, double dt, int64_t fallback) {
  return interval > 0 ? (int64_t)fmax(1.0, floor(interval / dt + 0.5)) : fallback;
}

/* Energies summed over ranks: total (the solver's quadrature), kinetic and elastic (exact). */
static void energies(const sq_sim *s, double e[3]) {
  e[0] = sq_sim_energy(s);
  sq_sim_energy_split(s, &e[1], &e[2]);
}

/* SeisSol's plastic moment: int mu eta dV over the owned elements (0 without plasticity). */
static double plastic_moment(const sq_sim *s) {
  if (!s->plastic) return 0.0;
  const sq_disc *d = s->disc;
  double m = 0.0;
  for (int64_t e = 0; e < d->nelem; ++e)
    if (!d->is_ghost[e])
      m += d->material[d->cell_of[e]].mu * s->mesh->volume[d->cell_of[e]] *
           s->plastic->strain[e * SQ_PLASTIC_STRAIN_COLS + 6];
  return m;
}

static int energy_row(sq_outputs *o) {
  double e[3], fe[2] = {0, 0};
  energies(o->s, e);
  if (o->cfg->output_style == SQ_OUTPUT_STYLE_SEISSOL) { /* SeisSol's quantities (docs/SEISSOL_OUTPUTS.md) */
    double src[4] = {0, 0, 0, plastic_moment(o->s)};
    if (o->s->fault) sq_fault_energies_seissol(o->s->fault, o->s->disc, src);
    if (o->s->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, src, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    ++o->energy_rows;
    return o->energy ? sq_energy_file_row_seissol(o->energy, o->s->time, e, src) : SQ_SUCCESS;
  }
  if (o->s->fault) { /* frictional work and seismic moment */
    sq_fault_energies(o->s->fault, o->s->disc, &fe[0], &fe[1]);
    if (o->s->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, fe, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  ++o->energy_rows; /* counted on every rank: the checkpoint's attributes are the same everywhere */
  if (!o->energy) return SQ_SUCCESS;
  return sq_energy_file_row(o->energy, o->s->time, e, o->s->fault ? fe : NULL);
}

static const double *plastic_strain(const sq_sim *s) { return s->plastic ? s->plastic->strain : NULL; }

/* Write the receiver samples before the current time. */
static int flush_receivers(sq_outputs *o) {
  sq_receiver_set *r = o->s->receivers;
  if (!r || !o->rec) return SQ_SUCCESS;
  int64_t jb, je;
  sq_receiver_samples_in(r->interval, 0.0, o->s->time, &jb, &je);
  const int64_t count = je - r->first;
  if (count <= 0) return SQ_SUCCESS;
  SQ_CALL(sq_receiver_writer_append(o->rec, r->first, count, r->samples));
  sq_receiver_set_consume(r, count);
  return SQ_SUCCESS;
}

/* The checkpoint's fields beside the dofs: the plastic strain, and the memory variables of a viscoelastic run as
 * doubles in *ane (the caller frees it; copied from the run, so that the ghost rows keep their values when a
 * read fills the owned ones). */
static int checkpoint_fields(const sq_sim *s, sq_checkpoint_field fields[2], int *nfield, double **ane) {
  *nfield = 0;
  *ane = NULL;
  if (s->plastic)
    fields[(*nfield)++] =
        (sq_checkpoint_field){.name = "plastic_strain", .ncol = SQ_PLASTIC_STRAIN_COLS, .data = s->plastic->strain};
  if (s->disc->ane) {
    const int ncol = sq_disc_ane_ncol(s->disc);
    SQ_CALL(SQ_CALLOC(*ane, (size_t)(s->disc->nelem > 0 ? s->disc->nelem : 1) * ncol));
    sq_disc_ane_copy(s->disc, *ane, 0);
    fields[(*nfield)++] = (sq_checkpoint_field){.name = "memory_variables", .ncol = ncol, .data = *ane};
  }
  return SQ_SUCCESS;
}

static int checkpoint_to(sq_outputs *o, int64_t done, const char *path) {
  const sq_sim *s = o->s;
  int64_t samples = sq_receiver_writer_count(o->rec);
  if (s->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, &samples, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  const sq_checkpoint_info info = {.time = s->time,
                                   .dt = o->dt,
                                   .plan_t0 = s->plan_t0,
                                   .plan_step0 = s->plan_step0,
                                   .steps = done,
                                   .nsteps = o->nsteps,
                                   .order = s->disc->opt.order,
                                   .precision = (int)s->disc->opt.precision,
                                   .ncell = sq_mesh_ncell_global(s->mesh),
                                   .receiver_samples = samples,
                                   .energy_rows = o->energy_rows,
                                   .wavefield_steps = sq_snapshot_wavefield_steps(o->snap),
                                   .surface_steps = sq_snapshot_surface_steps(o->snap)};
  sq_checkpoint_field fields[2];
  int nfield;
  double *ane;
  SQ_CALL(checkpoint_fields(s, fields, &nfield, &ane));
  if (o->fault) { /* the friction state goes next to the checkpoint, first: a restart checks the pair's step */
    char fault_ckpt[SQ_PATH_MAX + 320];
    sq_fault_checkpoint_path(path, fault_ckpt, sizeof(fault_ckpt));
    const int ierr = sq_fault_checkpoint_write(o->fault, fault_ckpt, done);
    if (ierr) SQ_FREE(ane);
    SQ_CALL(ierr);
  }
  /* every rank writes the rows of its own cells (parallel HDF5) */
  const int ierr = sq_checkpoint_write_fields(path, s->disc, &info, nfield, fields);
  SQ_FREE(ane);
  SQ_CALL(ierr);
  if (sq_verbosity >= 2) fprintf(stderr, "checkpoint: %s (t=%.6g, step %lld)\n", path, s->time, (long long)done);
  return SQ_SUCCESS;
}

static int checkpoint(sq_outputs *o, int64_t done) { return checkpoint_to(o, done, o->ckpt); }

int sq_outputs_blowup_checkpoint(sq_outputs *o, int64_t done, const char **path) {
  const sq_config *cfg = o->cfg;
  const char *dir = cfg->checkpoint_dir[0] ? cfg->checkpoint_dir : cfg->output_dir;
  snprintf(o->blowup, sizeof(o->blowup), "%s/%s-blowup.h5", dir, cfg->output_prefix);
  if (o->root) SQ_CALL(sq_mkdir_p(dir, ""));
  SQ_CALL(checkpoint_to(o, done, o->blowup));
  *path = o->blowup;
  return SQ_SUCCESS;
}

int sq_outputs_need_fields(const sq_outputs *o, int64_t done, int stop) {
  const int last = done == o->nsteps;
  return last || stop || sq_plan_due(&o->out, done) || sq_plan_due(&o->ckpts, done) ||
         o->cfg->output_surface_displacement; /* integrated after every sync interval */
}

int sq_outputs_need_fault(const sq_outputs *o, int64_t done) {
  return o->fault && (done == o->nsteps || sq_plan_due(&o->faults, done));
}

/* The next sync point after @p k at which @p e is due (INT64_MAX: none). */
static int64_t next_due(const sq_plan_schedule *e, int64_t k) {
  const int64_t n = sq_plan_steps_to(e, k);
  return n == INT64_MAX ? n : k + n;
}

/*
 * One output at intervals, at start-up (rank 0): its interval and sync steps on the plan's line (@p line);
 * where the plan does not put its times on sync points, a warning that names the times it is written at
 * instead.  @p used: the sync points it is written at, @p exact: whether those are its times.
 */
static void plan_report_one(const sq_sim *s, int64_t nsteps, FILE *line, const char *key, double interval,
                            const sq_plan_schedule *used, int exact) {
  const int64_t k0 = next_due(used, s->steps);
  if (!(interval > 0) || k0 >= nsteps) return; /* none before the end, which is a sync point */
  if (exact) {
    if (line) fprintf(line, "; %s %g every %lld", key, interval, (long long)used->every);
    return;
  }
  fprintf(stderr,
          "starquake: warning: %s: %s = %g: its times are not all sync points of the plan (sync intervals of "
          "%.10g s, the stable one %.10g s): %s; written every %lld sync intervals instead, at t =",
          s->cfg.path, key, interval, s->plan_dt, sq_sim_stable_step(s),
          s->restart_path[0] ? "a restarted run keeps the checkpoint's plan, or plans anew from its time"
                             : "with the end time and the outputs before it in the list (output.interval, "
                               "fault.output_interval, checkpoint.interval) they need a step under half the stable one",
          (long long)used->every);
  int64_t k = k0;
  for (int i = 0; i < 3 && k < nsteps; ++i, k += used->every) fprintf(stderr, " %.10g,", sq_sim_time_at(s, k));
  fprintf(stderr, " ...\n");
}

void sq_outputs_report_plan(const sq_sim *s, int64_t nsteps) {
  if (s->rank != 0) return;
  const sq_config *cfg = &s->cfg;
  const sq_plan_schedule out = sq_plan_schedule_of(s->plan_t0, s->plan_step0, s->plan_dt, nsteps, cfg->output_interval);
  const sq_plan_schedule ckpts =
      sq_plan_schedule_of(s->plan_t0, s->plan_step0, s->plan_dt, nsteps, cfg->checkpoint_interval);
  char *text = NULL;
  size_t len = 0;
  FILE *line = sq_verbosity >= 1 ? open_memstream(&text, &len) : NULL;
  if (line)
    fprintf(line, "  plan       %lld sync intervals of %.10g s (stable step %.10g s) from t=%.10g to t=%.10g",
            (long long)(nsteps - s->steps), s->plan_dt, sq_sim_stable_step(s), s->time, sq_sim_time_at(s, nsteps));
  plan_report_one(s, nsteps, line, "output.interval", cfg->output_interval, &out, out.exact);
  if (s->fault) {
    const sq_plan_schedule faults =
        sq_plan_schedule_of(s->plan_t0, s->plan_step0, s->plan_dt, nsteps, cfg->fault.output_interval);
    plan_report_one(s, nsteps, line, "fault.output_interval", cfg->fault.output_interval, &faults, faults.exact);
  }
  plan_report_one(s, nsteps, line, "checkpoint.interval", cfg->checkpoint_interval, &ckpts, ckpts.exact);
  if (line) {
    fclose(line);
    printf("%s\n", text);
    fflush(stdout);
  }
  free(text);
}

int sq_outputs_open(sq_sim *s, int64_t nsteps, double dt, const sq_checkpoint_info *restart, sq_outputs **out) {
  sq_outputs *o;
  SQ_CALL(SQ_CALLOC(o, 1));
  *out = o;
  const sq_config *cfg = &s->cfg;
  o->s = s;
  o->cfg = cfg;
  o->root = s->rank == 0;
  o->nsteps = nsteps;
  o->dt = dt;
  o->flush_every = every(cfg->receiver_flush, dt, 0);
  if (!restart) sq_sim_plan_start(s, dt); /* the plan of a new run starts now; a restart keeps the checkpoint's */
  o->out = sq_plan_schedule_of(s->plan_t0, s->plan_step0, s->plan_dt, nsteps, cfg->output_interval);
  o->ckpts = sq_plan_schedule_of(s->plan_t0, s->plan_step0, s->plan_dt, nsteps, cfg->checkpoint_interval);
  o->faults =
      sq_plan_schedule_of(s->plan_t0, s->plan_step0, s->plan_dt, nsteps, s->fault ? cfg->fault.output_interval : 0.0);
  sq_outputs_report_plan(s, nsteps);
  if (sq_verbosity >= 1 && o->root) { /* which HDF5 writes the files, and how */
    char hdf5[96];
    sq_output_hdf5_describe(hdf5, sizeof(hdf5));
    if (s->nranks > 1)
      printf("  output     %s/, %s: each of the %d ranks writes its own rows\n", cfg->output_dir, hdf5, s->nranks);
    else printf("  output     %s/, %s\n", cfg->output_dir, hdf5);
    fflush(stdout);
  }
  /* energies */
  if (o->root)
    SQ_CALL(sq_energy_file_open_style(cfg->output_dir, cfg->output_prefix, s->fault != NULL,
                                      cfg->output_style == SQ_OUTPUT_STYLE_SEISSOL, restart ? restart->energy_rows : -1,
                                      &o->energy));
  o->energy_rows = restart ? restart->energy_rows : 0;
  if (!restart) SQ_CALL(energy_row(o));
  /* receivers: each rank writes the receivers in its cells, text files and their columns of the HDF5 file */
  if (s->receivers)
    SQ_CALL(sq_receiver_writer_open_style(
        cfg->output_dir, cfg->output_prefix, s->receivers->n, s->receivers->x, s->receivers->owned, s->receivers->name,
        s->receivers->interval, cfg->receiver_hdf5, cfg->receiver_displacement,
        cfg->output_style == SQ_OUTPUT_STYLE_SEISSOL, restart ? restart->receiver_samples : -1, &o->rec));
  /* snapshots */
  const int64_t restart_steps[2] = {restart ? restart->wavefield_steps : -1, restart ? restart->surface_steps : -1};
  SQ_CALL(sq_snapshot_open(cfg, s->mesh, s->disc, s->rank, s->nranks, s->time, plastic_strain(s),
                           restart ? restart_steps : NULL, &o->snap));
  /* fault */
  char fault_ckpt[SQ_PATH_MAX + 320];
  {
    const char *cdir = cfg->checkpoint_dir[0] ? cfg->checkpoint_dir : cfg->output_dir;
    char main_ckpt[SQ_PATH_MAX + 300];
    snprintf(main_ckpt, sizeof(main_ckpt), "%s/%s-checkpoint.h5", cdir, cfg->output_prefix);
    sq_fault_checkpoint_path(s->restart_path[0] ? s->restart_path : main_ckpt, fault_ckpt, sizeof(fault_ckpt));
  }
  SQ_CALL(sq_fault_output_open(s->fault, s->disc, cfg, s->rank, s->nranks, s->time, nsteps, s->plan_dt,
                               restart ? fault_ckpt : NULL, &o->fault));
  /* checkpoints */
  const char *dir = cfg->checkpoint_dir[0] ? cfg->checkpoint_dir : cfg->output_dir;
  snprintf(o->ckpt, sizeof(o->ckpt), "%s/%s-checkpoint.h5", dir, cfg->output_prefix);
  if (o->root && (o->ckpts.every > 0 || cfg->checkpoint_dir[0])) SQ_CALL(sq_mkdir_p(dir, ""));
  return SQ_SUCCESS;
}

int64_t sq_outputs_steps_to_event(const sq_outputs *o, int64_t done) {
  if (o->cfg->output_surface_displacement) return 1;
  int64_t n = o->nsteps - done;
  const int64_t ev[4] = {sq_plan_steps_to(&o->out, done), sq_plan_steps_to(&o->ckpts, done),
                         sq_plan_steps_to(&o->faults, done),
                         o->flush_every > 0 ? o->flush_every - done % o->flush_every : INT64_MAX};
  for (int k = 0; k < 4; ++k)
    if (ev[k] < n) n = ev[k];
  return n > 0 ? n : 1;
}

int sq_outputs_prepare(sq_outputs *o, int64_t done, int64_t n) {
  if (!o->s->receivers) return SQ_SUCCESS;
  return sq_receiver_set_reserve(o->s->receivers, sq_sim_time_at(o->s, done + n));
}

int sq_outputs_after(sq_outputs *o, int64_t done, int stop, const char **ckpt_path) {
  const int last = done == o->nsteps;
  SQ_CALL(sq_snapshot_integrate(o->snap, o->s->time));
  if (sq_plan_due(&o->out, done) || last) {
    SQ_CALL(energy_row(o));
    SQ_CALL(sq_snapshot_write(o->snap, o->s->time, plastic_strain(o->s)));
  }
  SQ_CALL(sq_fault_output_after(o->fault, o->s->time, sq_plan_due(&o->faults, done) || last));
  const int ckpt = !last && (stop || sq_plan_due(&o->ckpts, done));
  const sq_receiver_set *r = o->s->receivers;
  const int big = r && (size_t)r->capacity * r->n * 9 * sizeof(double) > SQ_RECEIVER_BUFFER_LIMIT;
  if (last || ckpt || big || (o->flush_every > 0 && done % o->flush_every == 0)) SQ_CALL(flush_receivers(o));
  if (ckpt) {
    if (o->energy) sq_energy_file_flush(o->energy);
    SQ_CALL(checkpoint(o, done));
    if (ckpt_path) *ckpt_path = o->ckpt;
  }
  return SQ_SUCCESS;
}

int sq_outputs_stopped(sq_outputs *o, int64_t done, const char **ckpt_path) {
  SQ_CALL(flush_receivers(o));
  if (o->energy) sq_energy_file_flush(o->energy);
  SQ_CALL(checkpoint(o, done));
  *ckpt_path = o->ckpt;
  return SQ_SUCCESS;
}

int sq_outputs_flush(sq_outputs *o) {
  if (o->energy) sq_energy_file_flush(o->energy);
  return flush_receivers(o);
}

size_t sq_outputs_memory(const sq_outputs *o) {
  size_t bytes = 0;
  const sq_receiver_set *r = o->s->receivers;
  if (r) bytes += (size_t)r->capacity * r->n * 9 * sizeof(double) + (size_t)r->n * sizeof(sq_receiver_point);
  return bytes + sq_snapshot_memory(o->snap);
}

void sq_outputs_close(sq_outputs *o) {
  if (!o) return;
  sq_energy_file_close(o->energy);
  sq_fault_output_close(o->fault);
  sq_receiver_writer_close(o->rec);
  sq_snapshot_close(o->snap);
  SQ_FREE(o);
}

int sq_outputs_restart(sq_sim *s, const char *path, sq_checkpoint_info *info) {
  SQ_CHECK(s->steps == 0, SQ_ERR_INTERNAL, "a restart must come before the first step");
  SQ_CHECK(!s->cfg.output_surface_displacement, SQ_ERR_INPUT,
           "%s: output.surface_displacement: a run that integrates the free-surface displacement cannot continue "
           "from a checkpoint (the checkpoint does not hold the integral); set it to false to continue",
           s->cfg.path);
  sq_checkpoint_field fields[2];
  int nfield;
  double *ane;
  SQ_CALL(checkpoint_fields(s, fields, &nfield, &ane));
  /* the set-up may already have sent the initial state to the GPUs: the host copies become the only valid
   * ones before the checkpoint overwrites them */
  SQ_CALL(sq_sim_host_overwrite(s));
  const int ierr = sq_checkpoint_read_fields(path, s->disc, info, nfield, fields);
  if (!ierr && ane) sq_disc_ane_copy(s->disc, ane, 1);
  SQ_FREE(ane);
  SQ_CALL(ierr);
  snprintf(s->restart_path, sizeof(s->restart_path), "%s", path);
  if (s->fault) {
    char fault_ckpt[SQ_PATH_MAX + 320];
    sq_fault_checkpoint_path(path, fault_ckpt, sizeof(fault_ckpt));
    SQ_CALL(sq_fault_checkpoint_read(s->fault, s->nranks, fault_ckpt, info->steps));
  }
  s->time = info->time;
  s->steps = info->steps;
  s->plan_t0 = info->plan_t0;
  s->plan_step0 = info->plan_step0;
  s->plan_dt = info->dt;
  const double want = s->cfg.end_time, tol = 1e-9 * fmax(1.0, fabs(want));
  SQ_CHECK(info->steps >= 0 && want > info->time + tol, SQ_ERR_INPUT,
           "the checkpoint '%s' is at t = %.9g (step %lld), and %s sets equations.end_time = %.9g: nothing is left "
           "to run; set a later equations.end_time to extend the run",
           path, info->time, (long long)info->steps, s->cfg.path, want);
  /* the run may end elsewhere than the one that wrote the checkpoint (extended, or shortened): on the
   * checkpoint's grid of steps if the new end lies on it (then the run is the same, bit for bit, as one
   * planned with that step from the start), else with a new plan from the checkpoint's time on */
  const double dt_sync = s->disc->cluster_dt[s->disc->ncluster - 1];
  SQ_CHECK(info->dt <= dt_sync * (1 + 1e-9), SQ_ERR_INPUT,
           "the checkpoint '%s' steps by %.9g, more than this run's stable sync interval %.9g: %s changed the "
           "materials, the mesh's geometry or equations.cfl since it was written; restart with its values",
           path, info->dt, dt_sync, s->cfg.path);
  const double k = (double)info->plan_step0 + (want - info->plan_t0) / info->dt;
  const int64_t kn = (int64_t)floor(k + 0.5);
  if (kn > info->steps && fabs(sq_sim_time_at(s, kn) - want) <= tol) info->nsteps = kn;
  else {
    double dt;
    int64_t n;
    sq_sim_plan(s, want, &dt, &n);
    info->nsteps = info->steps + n;
    info->dt = s->plan_dt = dt;
    info->plan_t0 = s->plan_t0 = info->time;
    info->plan_step0 = s->plan_step0 = info->steps;
  }
  if (s->receivers) s->receivers->first = info->receiver_samples;
  return SQ_SUCCESS;
}
