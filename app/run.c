/** @file run.c  `starquake CONFIG.yaml`: run a simulation with progress, energies and a summary. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sq_app.h"

static double wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int make_dir(const char *path) {
  char buf[SQ_PATH_MAX];
  snprintf(buf, sizeof(buf), "%s", path);
  for (char *p = buf + 1; *p; ++p) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(buf, 0777) && errno != EEXIST)
      return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot create output directory '%s': %s", buf, strerror(errno));
    *p = '/';
  }
  if (mkdir(buf, 0777) && errno != EEXIST)
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot create output directory '%s': %s", buf, strerror(errno));
  SQ_CHECK(access(buf, W_OK) == 0, SQ_ERR_IO, "output directory '%s' is not writable: %s", buf, strerror(errno));
  return SQ_SUCCESS;
}

/** Progress on stderr: a bar on a terminal, plain lines otherwise. */
typedef struct progress {
  double t_end, wall0, last;
  double updates_per_sync; /**< element updates actually done per sync interval (LTS work) */
  int tty;
} progress;

static void progress_show(progress *p, const sq_sim *s, int final) {
  const double now = wall_now(), el = now - p->wall0;
  if (!final && now - p->last < (p->tty ? 0.2 : 5.0)) return;
  p->last = now;
  const double frac = p->t_end > 0 ? s->time / p->t_end : 1.0;
  const double eta = frac > 0 ? el * (1.0 - frac) / frac : 0.0;
  const double rate = el > 0 ? (double)s->steps * p->updates_per_sync / el : 0.0;
  if (sq_verbosity < 1) return;
  if (p->tty) {
    char bar[31];
    const int nfill = (int)(frac * 30);
    for (int i = 0; i < 30; ++i) bar[i] = i < nfill ? '#' : '.';
    bar[30] = 0;
    fprintf(stderr, "\r[%s] %5.1f%%  t=%.4g/%.4g  ETA %.0fs  %.3g elem-updates/s%s", bar, 100 * frac, s->time,
            p->t_end, eta, rate, final ? "\n" : "");
  } else {
    fprintf(stderr, "progress: %5.1f%%  t=%.6g of %.6g  step %lld  elapsed %.1fs  ETA %.1fs  %.3g elem-updates/s\n",
            100 * frac, s->time, p->t_end, (long long)s->steps, el, eta, rate);
  }
}

static int check_finite(const sq_sim *s) {
  const int64_t e = sq_disc_find_nonfinite(s->disc);
  if (e < 0) return SQ_SUCCESS;
  const int64_t c = s->disc->cell_of[e];
  const double *x = &s->mesh->centroid[c * 3];
  return sq_error(SQ_ERR_NUMERIC, __FILE__, __LINE__,
                  "the solution blew up: cell %lld (centroid %g %g %g, cluster %d) holds NaN/Inf at t=%g; "
                  "reduce equations.cfl or check the materials",
                  (long long)c, x[0], x[1], x[2], s->disc->cluster[c], s->time);
}

static void usage_run(void) {
  printf("usage: starquake CONFIG.yaml [--serial] [--tile-size N] [--scheduler NAME] [--output DIR] [--quiet] "
         "[--verbose]\n");
}

int sq_cmd_run(int argc, char **argv) {
  const char *path = NULL, *sched = NULL, *outdir = NULL;
  int serial = 0, tile = 0;
  for (int i = 0; i < argc; ++i) {
    if (!strcmp(argv[i], "--serial")) serial = 1;
    else if (!strcmp(argv[i], "--tile-size") && i + 1 < argc) tile = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--scheduler") && i + 1 < argc) sched = argv[++i];
    else if (!strcmp(argv[i], "--output") && i + 1 < argc) outdir = argv[++i];
    else if (!strcmp(argv[i], "--quiet")) sq_verbosity = 0;
    else if (!strcmp(argv[i], "--verbose")) sq_verbosity = 2;
    else if (argv[i][0] == '-') {
      usage_run();
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "unknown option '%s'", argv[i]);
    } else if (!path) path = argv[i];
    else return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "more than one configuration file given ('%s')", argv[i]);
  }
  if (!path) {
    usage_run();
    return SQ_ERR_INPUT;
  }
  sq_config cfg;
  SQ_CALL(sq_config_load(path, &cfg));
  if (tile > 0) cfg.tile_size = tile;
  if (sched) snprintf(cfg.scheduler, sizeof(cfg.scheduler), "%s", sched);
  if (outdir) snprintf(cfg.output_dir, sizeof(cfg.output_dir), "%s", outdir);
  SQ_CALL(make_dir(cfg.output_dir));

  const double w0 = wall_now();
  sq_sim *s = NULL;
  int ierr = sq_sim_create(&cfg, serial, &s);
  if (ierr) {
    sq_sim_destroy(s);
    sq_app_starpu_stop();
    return ierr;
  }
  const sq_disc *d = s->disc;
  const size_t bytes = (size_t)d->nelem * (2 * sq_disc_elem_bytes(d) + (243 + 648) * sq_real_size(cfg.precision));
  if (sq_verbosity >= 1) {
    printf("starquake: %s\n", cfg.path);
    printf("  mesh       %s: %lld cells, %lld vertices\n", s->mesh->source, (long long)s->mesh->ncell,
           (long long)s->mesh->nvert);
    printf("  order      %d (%d basis functions), %s precision\n", cfg.order, d->nbasis,
           cfg.precision == SQ_F64 ? "double" : "single");
    printf("  tiles      %d of <= %d elements\n", d->ntile, cfg.tile_size);
    printf("  dt         %.6g smallest (CFL %.3g), end time %.6g\n", d->dt_min, cfg.cfl, cfg.end_time);
    printf("  memory     about %.1f MiB on the host for the solution and operators\n", bytes / 1048576.0);
    printf("  runtime    %s\n", serial ? "serial reference (no StarPU)" : "StarPU");
    sq_disc_print_clusters(d, stdout);
    fflush(stdout);
  }

  char fname[SQ_PATH_MAX + 300];
  snprintf(fname, sizeof(fname), "%s/%s-energy.csv", cfg.output_dir, cfg.output_prefix);
  FILE *fe = fopen(fname, "w");
  if (!fe) {
    sq_sim_destroy(s);
    sq_app_starpu_stop();
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s", fname, strerror(errno));
  }
  fprintf(fe, "time,energy\n%.10e,%.10e\n", 0.0, sq_disc_energy(d));
  fflush(fe);

  double dt;
  int64_t nsteps;
  sq_sim_plan(s, cfg.end_time, &dt, &nsteps);
  const int64_t out_every =
      cfg.output_interval > 0 ? (int64_t)fmax(1.0, floor(cfg.output_interval / dt + 0.5)) : nsteps;
  double lts_work, gts_work;
  sq_disc_lts_work(d, &lts_work, &gts_work);
  progress pr = {.t_end = cfg.end_time, .wall0 = wall_now(), .last = 0, .updates_per_sync = lts_work, .tty = isatty(2)};
  const double t_loop = wall_now();
  int64_t done = 0, chunk = 1;
  while (done < nsteps && !ierr) {
    const int64_t to_out = out_every - done % out_every;
    int64_t n = chunk < to_out ? chunk : to_out;
    if (n > nsteps - done) n = nsteps - done;
    const double c0 = wall_now();
    ierr = sq_sim_advance(s, n, dt);
    done += n;
    if (!ierr) ierr = check_finite(s);
    const double per_step = (wall_now() - c0) / n;
    chunk = per_step > 0 ? (int64_t)fmax(1.0, fmin(1000.0, 0.5 / per_step)) : 1000;
    if (!ierr && (done % out_every == 0 || done == nsteps)) {
      fprintf(fe, "%.10e,%.10e\n", s->time, sq_disc_energy(d));
      fflush(fe);
    }
    progress_show(&pr, s, done == nsteps);
  }
  const double t_steps = wall_now() - t_loop;
  fclose(fe);
  if (!ierr) {
    snprintf(fname, sizeof(fname), "%s/%s-summary.txt", cfg.output_dir, cfg.output_prefix);
    FILE *fs = fopen(fname, "w");
    if (!fs) ierr = sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s", fname, strerror(errno));
    else {
      double err = NAN, norm = NAN;
      if (s->has_analytic) sq_disc_l2_error(d, sq_planewave_eval, &s->pw, s->time, &err, &norm);
      const double ups = (double)nsteps * lts_work / t_steps;
      fprintf(fs, "config: %s\ncells: %lld\norder: %d\nprecision: %s\nsync_intervals: %lld\ndt_sync: %.10e\nend_time: %.10e\n",
              cfg.path, (long long)d->nelem, cfg.order, cfg.precision == SQ_F64 ? "double" : "single",
              (long long)nsteps, dt, s->time);
      fprintf(fs, "wall_time_steps: %.3f\nelement_updates_per_second: %.4e\n", t_steps, ups);
      fprintf(fs, "gts_equivalent_updates_per_second: %.4e\nclusters: %d\nlts_work_ratio: %.6f\n",
              (double)nsteps * gts_work / t_steps, d->ncluster, lts_work / gts_work);
      fprintf(fs, "energy: %.10e\n", sq_disc_energy(d));
      if (s->has_analytic) fprintf(fs, "l2_error_relative: %.6e\n", err / norm);
      fprintf(fs, "dofs_hash: %016llx\n", (unsigned long long)sq_disc_hash(d));
      fclose(fs);
      if (sq_verbosity >= 1) {
        printf("done: %lld steps in %.2f s (%.3g element updates/s), total %.2f s\n", (long long)nsteps, t_steps, ups,
               wall_now() - w0);
        if (s->has_analytic) printf("relative L2 error against the analytic plane wave: %.6e\n", err / norm);
        printf("dofs hash: %016llx\n", (unsigned long long)sq_disc_hash(d));
        printf("results in %s/ (%s-energy.csv, %s-summary.txt)\n", cfg.output_dir, cfg.output_prefix,
               cfg.output_prefix);
      }
    }
  }
  sq_sim_destroy(s);
  sq_app_starpu_stop();
  return ierr;
}
