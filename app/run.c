/** @file run.c  `starquake CONFIG.yaml`: run a simulation with progress, energies and a summary. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "sq_app.h"
#include "sq_namelist.h"
#include "sq_run_files.h"
#include "sq_sim_outputs.h"

static double wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int make_dir(const char *path) {
  SQ_CALL(sq_mkdir_p(path, "output "));
  SQ_CHECK(access(path, W_OK) == 0, SQ_ERR_IO, "output directory '%s' is not writable: %s", path, strerror(errno));
  return SQ_SUCCESS;
}

/*
 * SIGTERM, SIGUSR1 and a first SIGINT (Ctrl-C) ask for a checkpoint and a clean stop; a second SIGINT
 * aborts at once.  The handler records the signal (the one piece of global state: a handler cannot reach
 * the sq_sim) and cancels the tasks of the chunk in flight when its start was saved (sq_sim_interrupt);
 * the run loop acts on it after that chunk (docs/PRODUCTION.md, "Signals").
 */
static volatile sig_atomic_t sq_run_stop_signal = 0;
static volatile sig_atomic_t sq_run_signal_root = 1; /* this process speaks on stderr (MPI rank 0) */
static struct timespec sq_run_signal_at;             /* when the first stop signal came (CLOCK_MONOTONIC) */

/** Wall seconds between two blow-up checks when no output brings the solution to the host earlier. */
#define SQ_FINITE_CHECK_SECONDS 30.0
/** Wall seconds between two writes of the buffered receiver samples, whatever receivers.flush_interval says:
 * a crash or a kill -9 loses at most this much of the seismograms. */
#define SQ_RECEIVER_FLUSH_SECONDS 5.0

static void say(const char *text) {
  if (!sq_run_signal_root) return;
  const ssize_t n = write(2, text, strlen(text));
  (void)n;
}

static void on_stop_signal(int sig) {
  if (sig == SIGINT && sq_run_stop_signal == SIGINT) { /* the second Ctrl-C: abort, no checkpoint */
    say("\nstarquake: second SIGINT: aborted without a checkpoint\n");
    signal(SIGINT, SIG_DFL);
    raise(SIGINT);
    return;
  }
  if (sig == SIGINT)
    say("\nstarquake: SIGINT: stopping at the next task and writing a checkpoint (Ctrl-C again aborts without "
        "one)\n");
  if (!sq_run_stop_signal) clock_gettime(CLOCK_MONOTONIC, &sq_run_signal_at); /* async-signal-safe */
  sq_run_stop_signal = sig;
  sq_sim_interrupt(); /* cancels the chunk in flight when its start is saved */
}

/** Progress on stderr: a bar on a terminal, plain lines otherwise. */
typedef struct progress {
  double t_end, wall0, last;
  double updates_per_sync; /**< element updates actually done per sync interval (LTS work) */
  int64_t steps0;          /**< steps done before this process started (restart) */
  int tty;
} progress;

static void progress_show(progress *p, const sq_sim *s, int final) {
  const double now = wall_now(), el = now - p->wall0;
  if (!final && now - p->last < (p->tty ? 0.2 : 5.0)) return;
  p->last = now;
  const double frac = p->t_end > 0 ? s->time / p->t_end : 1.0;
  const double eta = frac > 0 ? el * (1.0 - frac) / frac : 0.0;
  const double rate = el > 0 ? (double)(s->steps - p->steps0) * p->updates_per_sync / el : 0.0;
  if (sq_verbosity < 1) return;
  if (p->tty) {
    char bar[31];
    const int nfill = (int)(frac * 30);
    for (int i = 0; i < 30; ++i) bar[i] = i < nfill ? '#' : '.';
    bar[30] = 0;
    fprintf(stderr, "\r[%s] %5.1f%%  t=%.4g/%.4g  ETA %.0fs  %.3g elem-updates/s%s", bar, 100 * frac, s->time, p->t_end,
            eta, rate, final ? "\n" : "");
  } else {
    fprintf(stderr, "progress: %5.1f%%  t=%.6g of %.6g  step %lld  elapsed %.1fs  ETA %.1fs  %.3g elem-updates/s\n",
            100 * frac, s->time, p->t_end, (long long)s->steps, el, eta, rate);
  }
}

/* Blow-up check of the host copies (sq_sim_fetch first), collective: on a NaN/Inf anywhere, every rank
 * writes its rows of a diagnosis checkpoint (PREFIX-blowup.h5; the last good checkpoint is kept), and
 * the rank holding the bad cell of smallest global id names it. */
static int check_finite(sq_sim *s, sq_outputs *outs, int64_t done) {
  const int64_t e = sq_sim_find_nonfinite(s);
  const int64_t mine = e >= 0 ? sq_mesh_global_cell(s->mesh, s->disc->cell_of[e]) : INT64_MAX;
  int64_t first = mine; /* the smallest global cell id holding NaN/Inf, over all ranks */
  if (s->nranks > 1) MPI_Allreduce(&mine, &first, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  if (first == INT64_MAX) return SQ_SUCCESS;
  const char *path = NULL;
  const int werr = sq_outputs_blowup_checkpoint(outs, done, &path);
  int ret = SQ_ERR_NUMERIC; /* the rank holding the first bad cell reports it */
  if (mine == first) {
    const int64_t c = s->disc->cell_of[e];
    const double *x = &s->mesh->centroid[c * 3];
    ret = sq_error(SQ_ERR_NUMERIC, __FILE__, __LINE__,
                   "the solution blew up: cell %lld (centroid %g %g %g, cluster %d) holds NaN/Inf at t=%g; "
                   "reduce equations.cfl or check the materials; %s%s",
                   (long long)first, x[0], x[1], x[2], s->disc->cluster[c], s->time,
                   werr ? "the diagnosis checkpoint could not be written" : "the state is in ", werr ? "" : path);
  }
  if (s->nranks > 1) MPI_Barrier(MPI_COMM_WORLD); /* the message is out before any rank aborts */
  return ret;
}

/* Before any time stepping: does this rank's working set fit in its GPUs' memory?  (StarPU would
 * otherwise evict tiles to host memory and back at every step, or fail an allocation mid-run.)  The
 * element data all go to the GPUs unless runtime.cpu_share keeps a fraction on the CPU workers.
 * STARPU_LIMIT_CUDA_MEM lowers what StarPU may use, and so what is checked here. */
static int check_gpu_memory(const sq_sim *s, size_t bytes, double cpu_share) {
  int ngpu = 0;
  const double total = sq_runtime_gpu_memory(&ngpu);
  if (ngpu == 0) return SQ_SUCCESS;
  const double need = (double)bytes * (cpu_share > 0 ? 1.0 - cpu_share : 1.0);
  SQ_CHECK(need <= 0.95 * total, SQ_ERR_MEMORY,
           "%s: rank %d needs about %.0f MiB of GPU memory for its %lld elements, but its %d GPU%s offer %.0f MiB "
           "(StarPU's limit, STARPU_LIMIT_CUDA_MEM where set); run on more GPUs (more ranks, one per GPU), or "
           "with runtime.partition: bwm, which evens the memory per rank, or keep part of the elements on the CPUs "
           "(runtime.cpu_share), or coarsen the mesh or lower the order",
           s->cfg.path, s->rank, need / 1048576.0, (long long)s->disc->nelem, ngpu, ngpu > 1 ? "s" : "",
           total / 1048576.0);
  return SQ_SUCCESS;
}

/** Most --set options of one command line. */
#define SQ_RUN_MAX_SETS 64

/* The command line and the configuration it names, with the command line's overrides (app/help.c
 * describes every option). */
static int run_options(int argc, char **argv, sq_config *cfg, int *serial, int *profile, const char **restart,
                       const char **trace, int *trace_all, int *dry_run, int *keep_stale) {
  const char *path = NULL, *sched = NULL, *outdir = NULL, *partition = NULL;
  const char *sets[SQ_RUN_MAX_SETS];
  int tile = 0, nsets = 0, strict = 0;
  for (int i = 0; i < argc; ++i) {
    if (!strcmp(argv[i], "--serial")) *serial = 1;
    else if (!strcmp(argv[i], "--set") && i + 1 < argc && argv[i + 1][0] != '-') {
      SQ_CHECK(nsets < SQ_RUN_MAX_SETS, SQ_ERR_INPUT, "--set: at most %d overrides", SQ_RUN_MAX_SETS);
      sets[nsets++] = argv[++i];
    } else if (!strcmp(argv[i], "--dry-run")) *dry_run = 1;
    else if (!strcmp(argv[i], "--tile-size") && i + 1 < argc) {
      char *end;
      const long v = strtol(argv[++i], &end, 10);
      SQ_CHECK(end != argv[i] && !*end && v >= 1 && v <= 1 << 30, SQ_ERR_INPUT,
               "--tile-size needs a positive integer (elements per task), got '%s'", argv[i]);
      tile = (int)v;
    } else if (!strcmp(argv[i], "--scheduler") && i + 1 < argc) sched = argv[++i];
    else if (!strcmp(argv[i], "--output") && i + 1 < argc) outdir = argv[++i];
    else if (!strcmp(argv[i], "--partition") && i + 1 < argc) partition = argv[++i];
    else if (!strcmp(argv[i], "--profile")) *profile = 1;
    else if (!strcmp(argv[i], "--trace") && i + 1 < argc) *trace = argv[++i], *profile = 1;
    else if (!strcmp(argv[i], "--trace-all") && i + 1 < argc) *trace = argv[++i], *profile = 1, *trace_all = 1;
    else if (!strcmp(argv[i], "--restart") && i + 1 < argc) *restart = argv[++i];
    else if (!strcmp(argv[i], "--keep-stale")) *keep_stale = 1;
    else if (!strcmp(argv[i], "--clean")) *keep_stale = 0;
    else if (!strcmp(argv[i], "--quiet")) sq_verbosity = 0;
    else if (!strcmp(argv[i], "--verbose")) sq_verbosity = 2;
    else if (!strcmp(argv[i], "--strict")) strict = 1;
    else if (!strcmp(argv[i], "--set"))
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "--set needs KEY=VALUE after it, e.g. --set equations.end_time=3");
    else if (argv[i][0] == '-') {
      if (sq_sim_mpi_rank() == 0) sq_help_print(stdout, "run");
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "unknown option '%s'", argv[i]);
    } else if (!path) path = argv[i];
    else return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "more than one configuration file given ('%s')", argv[i]);
  }
  if (!path) {
    if (sq_sim_mpi_rank() == 0) sq_help_print(stdout, "run");
    return SQ_ERR_INPUT;
  }
  /* a SeisSol parameters.par (a namelist, told by its content) is imported first (app/seissol_cmd.c) */
  if (sq_namelist_file_detect(path)) SQ_CALL(sq_seissol_load(path, sets, nsets, cfg));
  else SQ_CALL(sq_config_load_with_sets(path, sets, nsets, cfg));
  cfg->strict = strict;
  SQ_CHECK(cfg->end_time > 0, SQ_ERR_INPUT,
           "%s has no equations.end_time: it describes a post-seismic run only; run it with starquake postseismic %s",
           path, path);
  if (tile > 0) cfg->tile_size = tile;
  if (sched) snprintf(cfg->scheduler, sizeof(cfg->scheduler), "%s", sched);
  if (outdir) snprintf(cfg->output_dir, sizeof(cfg->output_dir), "%s", outdir);
  if (partition) {
    const sq_part_weights all[3] = {SQ_PART_BW, SQ_PART_BWM, SQ_PART_ENCODED};
    int found = 0;
    for (int k = 0; k < 3; ++k)
      if (!strcmp(partition, sq_part_weights_name(all[k]))) cfg->partition = all[k], found = 1;
    SQ_CHECK(found, SQ_ERR_INPUT, "--partition must be bw, bwm or encoded (got '%s')", partition);
  }
  return SQ_SUCCESS;
}

/* One run, from the command line to the summary: what its phases hand on to each other. */
typedef struct run {
  sq_config cfg;
  const char *restart, *trace; /* --restart CHECKPOINT, --trace FILE (NULL: none) */
  int serial, profile;
  int trace_all;       /* --trace-all: the trace covers the first chunk too */
  int keep_stale;      /* --keep-stale: a new run keeps the files of the previous one */
  sq_run_files *files; /* the manifest (rank 0) */
  int stopped;         /* stopped by a signal, with a checkpoint */
  sq_sim *s;
  int root;                  /* MPI rank 0 */
  int verbose_ranks;         /* every rank reports its peak memory */
  char trace_path[4096];     /* this rank's --trace file ("": none) */
  sq_checkpoint_info ck;     /* the checkpoint restarted from */
  double w0;                 /* wall time at the start */
  double dt;                 /* the sync interval */
  int64_t nsteps;            /* sync intervals of the run; after the loop, those this process ran */
  double lts_work, gts_work; /* element updates per sync interval with LTS, and as GTS would do them */
  /* the time loop: t_loop its start, t_steps its length; t_first the end of the first chunk (the profile
   * and the steady rate leave it out, as it uploads the data to the GPUs and calibrates), t_advance the
   * time stepping after it, t_stepping in all chunks; t_fetch the solution's copies to the host, t_outputs
   * those with the checks and outputs */
  double t_loop, t_steps, t_first, t_advance, t_stepping, t_fetch, t_outputs;
  int64_t first_step, steps_first; /* steps done when the loop started and after its first chunk */
} run;

/* Per-kind task times and worker idle fractions (--profile), printed at the end, and --trace's file,
 * made now, so that a bad path stops the run before it starts. */
static int run_profile_start(run *r) {
  sq_sim *s = r->s;
  if (!r->profile || !s->rt) return SQ_SUCCESS;
  sq_runtime_enable_profiling(s->rt);
  if (!r->trace) return SQ_SUCCESS;
  if (s->nranks > 1) snprintf(r->trace_path, sizeof(r->trace_path), "%s.%d", r->trace, s->rank);
  else snprintf(r->trace_path, sizeof(r->trace_path), "%s", r->trace);
  FILE *f = fopen(r->trace_path, "w");
  if (!f)
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "--trace: cannot write '%s': %s", r->trace_path, strerror(errno));
  fclose(f);
  return sq_runtime_trace_start(s->rt, (int64_t)1 << 20);
}

/* Host bytes of dofs, tint; star, flux matrices; face links; kept derivatives and LTS buffers; sources,
 * receivers; plasticity. */
static size_t host_bytes(const sq_sim *s) {
  const sq_disc *d = s->disc;
  size_t bytes = (size_t)d->nelem * (2 * sq_disc_elem_bytes(d) + (243 + 648) * sq_real_size(s->cfg.precision) +
                                     4 * sizeof(sq_face_link)) +
                 d->pack_bytes;
  for (int t = 0; t < d->ntile; ++t) {
    const size_t n = (size_t)(d->tile[t].end - d->tile[t].begin);
    if (d->tile[t].needs_derivs) bytes += n * sq_disc_elem_bytes(d) * d->opt.order;
    if (d->tile[t].needs_buffer) bytes += n * sq_disc_elem_bytes(d);
  }
  if (s->source_set) bytes += (size_t)s->source_set->n * sizeof(sq_source_point);
  if (s->receivers) bytes += (size_t)s->receivers->n * sizeof(sq_receiver_point);
  bytes += sq_plastic_state_bytes(s->plastic); /* with plasticity: its initial stress at the nodal points etc. */
  return bytes;
}

/* The start-up summary on stdout (rank 0). */
static void print_setup(const run *r, size_t bytes) {
  const sq_config *cfg = &r->cfg;
  const sq_sim *s = r->s;
  const sq_disc *d = s->disc;
  printf("starquake: %s\n", cfg->path);
  printf("  mesh       %s: %lld cells, %lld vertices\n", s->mesh->source, (long long)sq_mesh_ncell_global(s->mesh),
         (long long)sq_mesh_nvert_global(s->mesh));
  printf("  order      %d (%d basis functions), %s precision\n", cfg->order, d->nbasis,
         cfg->precision == SQ_F64 ? "double" : "single");
  printf("  tiles      %d of <= %d elements\n", d->ntile, s->cfg.tile_size);
  printf("  dt         %.6g smallest (CFL %.3g), end time %.6g\n", d->dt_min, cfg->cfl, cfg->end_time);
  printf("  memory     about %.1f MiB on the host for the solution, operators and point data\n", bytes / 1048576.0);
  if (!r->serial && sq_runtime_gpu_workers() > 0)
    printf("             about %.1f MiB on each GPU if it holds the whole working set (%d CUDA workers)\n",
           bytes / 1048576.0, sq_runtime_gpu_workers());
  printf("  runtime    %s\n", r->serial ? "serial reference (no StarPU)" : "StarPU");
  if (s->nranks > 1)
    printf("  partition  %d ranks, METIS weights %s: work imbalance %.3f, memory imbalance %.3f, edge cut %lld faces\n"
           "             (rank 0 holds %lld elements: owned + ghost; tables below are rank 0's share)\n",
           s->nranks, sq_part_weights_name(cfg->partition), s->part_stats.work_imbalance,
           s->part_stats.memory_imbalance, (long long)s->part_stats.edge_cut, (long long)d->nelem);
  if (cfg->node_speed_weights) {
    printf("  node speed shares (measured):");
    for (int k = 0; k < s->nranks && k < 8; ++k) printf(" %.3f", s->part_target[k]);
    printf("%s\n", s->nranks > 8 ? " ..." : "");
  }
  printf("  set-up    ");
  for (int k = 0; k < SQ_SIM_SETUP_PHASES; ++k)
    printf("%s %s %.1f s", k ? "," : "", sq_sim_setup_phase(k), s->setup_seconds[k]);
  printf("\n");
  sq_sim_print_materials(s, stdout);
  sq_disc_print_clusters(d, stdout);
  fflush(stdout);
}

/* From the first output file on, SIGTERM/SIGUSR1/SIGINT only set a flag: the loop then writes a checkpoint
 * at its next step (a job script waits for the outputs to appear before it signals).  The handler stays
 * until the process ends: a signal after the last step must not kill the run while it writes its
 * final files (the run then ends normally, its outputs complete); a second SIGINT still aborts. */
static void catch_stop_signals(int root) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sq_run_stop_signal = 0;
  sq_run_signal_root = root;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGUSR1, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
}

/* What the ranks agree on after a chunk: the next chunk's length, a stop request, a blow-up check, a
 * receiver flush, whether some rank's tasks were cancelled by a stop, and the wall times that decide
 * whether the next chunk's start is saved (every rank must save the same chunks and roll back together). */
typedef struct chunk_plan {
  int64_t chunk;
  int stop, check, flush, cancelled;
  double per_step, save_cost; /* wall seconds: a sync interval, the last sq_sim_save (the largest of the ranks) */
} chunk_plan;

/* After a chunk: the next chunk's length, aiming at about 0.5 s of wall time per chunk (@p per_step
 * seconds a sync interval so far); with several ranks the plan is agreed on, since every rank must submit
 * the same steps before its next wait. */
static void next_chunk(const sq_sim *s, chunk_plan *p) {
  p->chunk = p->per_step > 0 ? (int64_t)fmax(1.0, fmin(1000.0, 0.5 / p->per_step)) : 1000;
  if (s->nranks > 1) {
    /* the chunk, measured per rank from its own clock, is the smallest; a stop, a check, a flush: any */
    int64_t agree[5] = {-p->chunk, p->stop, p->check, p->flush, p->cancelled};
    MPI_Allreduce(MPI_IN_PLACE, agree, 5, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    p->chunk = -agree[0], p->stop = (int)agree[1], p->check = (int)agree[2], p->flush = (int)agree[3];
    p->cancelled = (int)agree[4];
    double times[2] = {p->per_step, p->save_cost};
    MPI_Allreduce(MPI_IN_PLACE, times, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    p->per_step = times[0], p->save_cost = times[1];
  }
}

/* Whether the next chunk starts with a copy of the state (sim/rollback.c), so that a stop need not wait
 * for its end: when it is expected to take longer than checkpoint.stop_within and the copy costs at most a
 * tenth of it (always when stop_within is 0).  A run that integrates the surface displacement goes without:
 * it cannot be continued from a checkpoint. */
static int save_next(const run *r, const chunk_plan *p) {
  if (r->serial || r->cfg.output_surface_displacement) return 0;
  if (r->cfg.stop_within == 0 || p->per_step == 0) return 1; /* the first chunk: its length is not known */
  const double seconds = p->per_step * (double)p->chunk;
  return seconds > r->cfg.stop_within && p->save_cost <= 0.1 * seconds;
}

/* @p word for a shell: as it is where that is safe, else in single quotes. */
static void shell_word(FILE *f, const char *word) {
  int plain = word[0] != 0;
  for (const char *c = word; *c; ++c)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+@%-", *c)) plain = 0;
  if (plain) {
    fputs(word, f);
    return;
  }
  fputc('\'', f);
  for (const char *c = word; *c; ++c) *c == '\'' ? fputs("'\\''", f) : fputc(*c, f);
  fputc('\'', f);
}

/* The command that continues this run from @p ckpt: this process's own command line (every word, the
 * sub-command and options included, as /proc/self/cmdline holds it) with --restart CKPT in place of a
 * --restart it had, or added; quoted for a shell.  Under MPI the launcher's words are not part of it. */
static void restart_command(const run *r, const char *ckpt, char *buf, size_t len) {
  FILE *f = fmemopen(buf, len, "w");
  if (!f) {
    snprintf(buf, len, "starquake %s --restart %s", r->cfg.path, ckpt);
    return;
  }
  char cmdline[16384];
  size_t n = 0;
  FILE *pc = fopen("/proc/self/cmdline", "r");
  if (pc) n = fread(cmdline, 1, sizeof(cmdline) - 1, pc), fclose(pc);
  cmdline[n] = 0;
  if (n == 0 || n == sizeof(cmdline) - 1) { /* no /proc, or a command line too long to hold: the essentials */
    fputs("starquake ", f);
    shell_word(f, r->cfg.path);
  }
  int skip = 0;
  for (size_t at = 0; n > 0 && n < sizeof(cmdline) - 1 && at < n; at += strlen(cmdline + at) + 1) {
    const char *word = cmdline + at;
    if (skip) {
      skip = 0;
      continue;
    }
    if (!strcmp(word, "--restart")) {
      skip = 1;
      continue;
    }
    if (at > 0) fputc(' ', f);
    shell_word(f, word);
  }
  fputs(" --restart ", f);
  shell_word(f, ckpt);
  fputc(0, f);
  fclose(f);
  buf[len - 1] = 0;
}

/* The error that ends a run stopped by a signal at sync interval @p done, naming its checkpoint and the
 * command that continues it. */
static int stopped(const run *r, int stop, int64_t done, const char *ckpt) {
  if (!r->root) return SQ_STOPPED; /* rank 0 speaks for all */
  char cmd[20000];
  restart_command(r, ckpt ? ckpt : "?", cmd, sizeof(cmd));
  return sq_error(SQ_STOPPED, __FILE__, __LINE__,
                  "stopped by %s at t=%.9g (step %lld of %lld); checkpoint written to '%s'; continue with:\n  %s",
                  stop == SIGTERM   ? "SIGTERM"
                  : stop == SIGUSR1 ? "SIGUSR1"
                  : stop == SIGINT  ? "SIGINT"
                                    : "a signal",
                  r->s->time, (long long)done, (long long)r->nsteps, ckpt ? ckpt : "?", cmd);
}

/* The time loop: chunks of sync intervals up to the next output event, then the outputs due.  A stop
 * request ends the loop after the chunk in flight; when the chunk's start was saved, at once: its
 * remaining tasks are cancelled and the run goes back to that start for the checkpoint. */
static int run_loop(run *r, sq_outputs *outs, progress *pr) {
  sq_sim *s = r->s;
  const int64_t nsteps = r->nsteps;
  int64_t done = s->steps;
  chunk_plan plan = {.chunk = 1};
  int save = save_next(r, &plan);
  double last_check = r->t_loop, last_flush = r->t_loop;
  int ierr = SQ_SUCCESS;
  while (done < nsteps && !ierr) {
    const int64_t to_event = sq_outputs_steps_to_event(outs, done);
    int64_t n = plan.chunk < to_event ? plan.chunk : to_event;
    if (n > nsteps - done) n = nsteps - done;
    const double c0 = wall_now();
    ierr = sq_outputs_prepare(outs, done, n);
    if (!ierr && save) {
      ierr = sq_sim_save(s);
      plan.save_cost = wall_now() - c0;
      r->t_fetch += plan.save_cost;
    }
    const double a0 = wall_now();
    if (!ierr) ierr = sq_sim_advance(s, n, r->dt, 0);
    r->t_stepping += wall_now() - a0;
    if (r->t_first >= 0) r->t_advance += wall_now() - a0;
    done += n;
    /* the profile covers the time stepping after the first chunk: not the outputs that follow */
    if (!ierr && r->profile && s->rt && done == nsteps) ierr = sq_runtime_profile_freeze(s->rt);
    const double now = wall_now();
    plan.stop = sq_run_stop_signal, plan.check = now - last_check >= SQ_FINITE_CHECK_SECONDS;
    plan.flush = now - last_flush >= SQ_RECEIVER_FLUSH_SECONDS;
    plan.cancelled = save && sq_sim_cancelled(s);
    plan.per_step = (now - c0) / (double)n;
    next_chunk(s, &plan);
    if (!ierr && plan.cancelled) { /* some rank's tasks were cancelled: every rank goes back to the start */
      const double f0 = wall_now();
      ierr = sq_sim_rollback(s);
      const double f1 = wall_now();
      done = s->steps;
      const char *ckpt = NULL;
      if (!ierr) ierr = sq_outputs_stopped(outs, done, &ckpt);
      r->t_outputs += wall_now() - f0;
      const double sig_at = (double)sq_run_signal_at.tv_sec + 1e-9 * (double)sq_run_signal_at.tv_nsec;
      if (r->root && sq_verbosity >= 1 && sq_run_stop_signal)
        fprintf(stderr,
                "%sstop: the chunk's remaining tasks cancelled %.2f s after the signal, its start restored in %.2f s, "
                "the checkpoint written in %.2f s\n",
                pr->tty ? "\n" : "", f0 - sig_at, f1 - f0, wall_now() - f1);
      progress_show(pr, s, 0);
      if (pr->tty && sq_verbosity >= 1) fputc('\n', stderr);
      if (!ierr) ierr = stopped(r, plan.stop ? plan.stop : SIGTERM, done, ckpt);
      r->stopped = 1;
      break;
    }
    save = save_next(r, &plan);
    const int stop = plan.stop;
    /* the solution comes back to the host only for the outputs that read it and for the blow-up check
     * (every SQ_FINITE_CHECK_SECONDS and at every such output): on GPUs, fetching it after every chunk
     * moved the whole solution over PCIe twice a second and dominated the run */
    const double f0 = wall_now();
    if (!ierr && (plan.check || sq_outputs_need_fields(outs, done, stop && done < nsteps))) {
      ierr = sq_sim_fetch(s);
      r->t_fetch += wall_now() - f0;
      if (!ierr) ierr = check_finite(s, outs, done);
      last_check = wall_now();
    } else if (!ierr && sq_outputs_need_fault(outs, done)) { /* a fault snapshot: the friction state only */
      ierr = sq_sim_fetch_fault(s);
      r->t_fetch += wall_now() - f0;
    }
    const char *ckpt = NULL;
    if (!ierr) ierr = sq_outputs_after(outs, done, stop && done < nsteps, &ckpt);
    if (!ierr && plan.flush) ierr = sq_outputs_flush(outs), last_flush = wall_now();
    r->t_outputs += wall_now() - f0;
    progress_show(pr, s, done == nsteps);
    if (r->t_first < 0) { /* the profile, too, covers the steady part only */
      r->t_first = wall_now(), r->steps_first = done;
      if (r->profile && s->rt) sq_runtime_profile_reset(s->rt, r->trace_all);
    }
    if (!ierr && stop && done < nsteps) {
      if (pr->tty && sq_verbosity >= 1) fputc('\n', stderr);
      ierr = stopped(r, stop, done, ckpt);
      r->stopped = 1;
    }
  }
  return ierr;
}

/* The plan of the run (a restart's: the interrupted run's step size and count) and its outputs. */
static int run_open_outputs(run *r, sq_outputs **outs) {
  sq_sim *s = r->s;
  if (r->restart) {
    r->dt = r->ck.dt;
    r->nsteps = r->ck.nsteps;
  } else {
    sq_sim_plan(s, r->cfg.end_time, &r->dt, &r->nsteps);
  }
  catch_stop_signals(r->root);
  int ierr = r->root ? sq_run_files_begin(r->cfg.output_dir, r->cfg.checkpoint_dir, r->cfg.output_prefix,
                                          r->restart != NULL, r->keep_stale, &r->files)
                     : SQ_SUCCESS;
  if (s->nranks > 1) MPI_Bcast(&ierr, 1, MPI_INT, 0, MPI_COMM_WORLD); /* the old files are gone everywhere */
  if (ierr) return ierr;
  ierr = sq_outputs_open(s, r->nsteps, r->dt, r->restart ? &r->ck : NULL, outs);
  if (ierr) {
    sq_outputs_close(*outs);
    *outs = NULL;
    return ierr;
  }
  if (r->restart && sq_verbosity >= 1)
    printf("  restart    %s: t=%.6g, step %lld of %lld (dt %.10e)\n", r->restart, s->time, (long long)s->steps,
           (long long)r->nsteps, r->dt);
  return SQ_SUCCESS;
}

/* The time loop with progress, then the outputs closed; sets the loop's times in @p r. */
static int run_steps(run *r, sq_outputs *outs) {
  sq_sim *s = r->s;
  double work[2];
  sq_disc_lts_work(s->disc, &work[0], &work[1]);
  if (s->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, work, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  r->lts_work = work[0], r->gts_work = work[1];
  progress pr = {.t_end = r->cfg.end_time,
                 .wall0 = wall_now(),
                 .last = 0,
                 .updates_per_sync = r->lts_work,
                 .steps0 = s->steps,
                 .tty = isatty(2)};
  r->t_loop = wall_now();
  r->first_step = s->steps;
  r->t_first = -1;
  const int ierr = run_loop(r, outs, &pr);
  sq_outputs_close(outs);
  r->nsteps -= r->first_step; /* what this process ran, for the rates below */
  r->t_steps = wall_now() - r->t_loop;
  return ierr;
}

/* The summary file and the closing lines on stdout (rank 0); the measures are collective. */
static int run_report(const run *r) {
  const sq_config *cfg = &r->cfg;
  const sq_sim *s = r->s;
  const int64_t nsteps = r->nsteps;
  const double lts_work = r->lts_work, t_steps = r->t_steps;
  double err = NAN, norm = NAN, e_end = 0;
  uint64_t hash = 0;
  sq_plasticity_stats plast = {0};
  sq_rupture_stats rupture = {0};
  /* collective: every rank takes part */
  if (s->has_analytic) sq_sim_l2_error(s, &err, &norm);
  e_end = sq_sim_energy(s);
  hash = sq_sim_hash(s);
  sq_sim_plasticity_stats(s, &plast);
  sq_sim_rupture_stats(s, &rupture);
  if (!r->root) return SQ_SUCCESS;
  char fname[SQ_PATH_MAX + 300];
  snprintf(fname, sizeof(fname), "%s/%s-summary.txt", cfg->output_dir, cfg->output_prefix);
  const double ups = (double)nsteps * lts_work / t_steps;
  const int64_t nsteady = s->steps - r->steps_first;
  /* after the first chunk: the time stepping alone (what the proxy measures), and with the outputs,
   * checks and final copy back of the solution */
  const double t_after = r->t_loop + t_steps - r->t_first;
  const double ups_steady = nsteady > 0 && r->t_advance > 0 ? (double)nsteady * lts_work / r->t_advance : ups;
  const double ups_after = nsteady > 0 && t_after > 0 ? (double)nsteady * lts_work / t_after : ups;
  const double yield_fraction = nsteps > 0 ? (double)plast.yield_updates / ((double)nsteps * lts_work) : 0.0;
  const sq_run_summary sum = {
      .config = cfg->path,
      .cells = sq_mesh_ncell_global(s->mesh),
      .order = cfg->order,
      .precision = cfg->precision,
      .sync_intervals = nsteps,
      .dt_sync = r->dt,
      .end_time = s->time,
      .wall_time_steps = t_steps,
      .wall_time_stepping = r->t_stepping,
      .updates_per_second = ups,
      .updates_per_second_steady = ups_steady,
      .steady_sync_intervals = nsteady,
      .updates_per_second_after_first_chunk = ups_after,
      .wall_time_fetch = r->t_fetch,
      .wall_time_outputs = r->t_outputs,
      .task_submission_seconds = s->submit_seconds,
      .grouped_step_tasks = s->grouped_tasks,
      .folded_corrections = s->folded_corrections,
      .folded_predictions = s->folded_predictions,
      .gts_equivalent_updates_per_second = (double)nsteps * r->gts_work / t_steps,
      .clusters = s->disc->ncluster,
      .lts_work_ratio = lts_work / r->gts_work,
      .ranks = s->nranks,
      .energy = e_end,
      .has_l2 = s->has_analytic,
      .l2_error_relative = err / norm,
      .dofs_hash = hash,
      .has_plastic = s->plastic != NULL,
      .plastic_strain_hash = plast.strain_hash,
      .plastic_yielded_cells = plast.yielded_cells,
      .plastic_yield_updates = plast.yield_updates,
      .plastic_yield_fraction = yield_fraction,
      .plastic_max_eta = plast.max_eta,
      .has_fault = s->fault != NULL,
      .seismic_moment = rupture.seismic_moment,
      .fault_area = rupture.fault_area,
      .ruptured_area = rupture.ruptured_area,
      .peak_slip = rupture.peak_slip,
      .peak_slip_rate = rupture.peak_slip_rate,
      .peak_slip_at = {rupture.peak_slip_at[0], rupture.peak_slip_at[1], rupture.peak_slip_at[2]},
      .peak_face_slip = rupture.peak_face_slip};
  SQ_CALL(sq_run_summary_write(fname, &sum));
  if (sq_verbosity < 1) return SQ_SUCCESS;
  printf("done: %lld steps in %.2f s (%.3g element updates/s; after the first %lld, %.3g in the time "
         "stepping, %.3g with the outputs), total %.2f s\n",
         (long long)nsteps, t_steps, ups, (long long)(r->steps_first - r->first_step), ups_steady, ups_after,
         wall_now() - r->w0);
  if (s->has_analytic) printf("relative L2 error against the analytic plane wave: %.6e\n", err / norm);
  printf("dofs hash: %016llx\n", (unsigned long long)hash);
  if (s->plastic)
    printf("plasticity: %lld of %lld cells yielded (max eta %.3e), %.3g%% of the element updates yielded; "
           "strain hash %016llx\n",
           (long long)plast.yielded_cells, (long long)sq_mesh_ncell_global(s->mesh), plast.max_eta,
           nsteps > 0 ? 100.0 * (double)plast.yield_updates / ((double)nsteps * lts_work) : 0.0,
           (unsigned long long)plast.strain_hash);
  if (s->fault)
    printf("rupture: seismic moment %.4g N m, Mw %.2f; ruptured %.4g of %.4g km^2; peak slip %.3g m at (%.0f, %.0f, "
           "%.0f) m (largest face average %.3g m), peak slip rate %.3g m/s\n",
           rupture.seismic_moment, sq_moment_magnitude(rupture.seismic_moment), rupture.ruptured_area * 1e-6,
           rupture.fault_area * 1e-6, rupture.peak_slip, rupture.peak_slip_at[0], rupture.peak_slip_at[1],
           rupture.peak_slip_at[2], rupture.peak_face_slip, rupture.peak_slip_rate);
  return SQ_SUCCESS;
}

/* The manifest of the run's files (rank 0), also after a stop or a failure, and the closing list of them;
 * the files of an earlier run kept by --keep-stale are named on stderr. */
static int run_manifest(const run *r, int ierr) {
  if (r->s && r->s->nranks > 1 && (!ierr || r->stopped)) MPI_Barrier(MPI_COMM_WORLD); /* every file is out */
  if (!r->files) return ierr;
  const int merr = sq_run_files_finish(r->files);
  if (merr) return ierr ? ierr : merr;
  const sq_run_files *f = r->files;
  const int nstale = sq_run_files_stale_count(f);
  if (nstale > 0) {
    fprintf(stderr,
            "starquake: warning: %d file%s of an earlier run with prefix %s kept (--keep-stale), not written "
            "by this run and not in %s:",
            nstale, nstale > 1 ? "s" : "", r->cfg.output_prefix, sq_run_files_manifest(f));
    for (int i = 0; i < nstale; ++i) fprintf(stderr, " %s", sq_run_files_stale_path(f, i));
    fputc('\n', stderr);
  }
  if (sq_verbosity < 1) return ierr;
  FILE *out = ierr ? stderr : stdout;
  const int n = sq_run_files_count(f);
  fprintf(out, "%s %d file%s in %s/, listed in %s:\n", ierr ? "written so far:" : "results:", n, n == 1 ? "" : "s",
          r->cfg.output_dir, sq_run_files_manifest(f));
  for (int i = 0; i < n; ++i) fprintf(out, "  %s\n", sq_run_files_path(f, i));
  fflush(out);
  return ierr;
}

/* --profile: every rank reports (rank 0's verbosity speaks for all elsewhere), one block written at once,
 * so that the ranks' reports do not interleave line by line; then --trace's file. */
static int run_profile_report(const run *r, int ierr) {
  const sq_sim *s = r->s;
  if (!r->profile || !s->rt || (!r->root && s->nranks < 2)) return ierr;
  char *text = NULL;
  size_t len = 0;
  FILE *pf = open_memstream(&text, &len);
  if (pf) {
    if (s->nranks > 1) fprintf(pf, "  profile of rank %d:\n", s->rank);
    fprintf(pf, "  task submission (main thread): %.3f s over %lld sync intervals, %.3g ms each\n", s->submit_seconds,
            (long long)r->nsteps, r->nsteps > 0 ? 1e3 * s->submit_seconds / (double)r->nsteps : 0.0);
    if (s->nranks > 1) {
      double sent, unsplit;
      sq_halo_bytes(s->rt, &sent, &unsplit);
      fprintf(pf,
              "  halo messages of rank %d, every cluster and kind once: %.3g MB (%.3g MB if not split by "
              "kinds)\n",
              s->rank, sent / 1e6, unsplit / 1e6);
    }
    sq_runtime_print_profile(s->rt, pf);
    fclose(pf);
    fputs(text, stdout);
    fflush(stdout);
    free(text);
  }
  if (r->trace_path[0] && !ierr) {
    ierr = sq_runtime_trace_write(s->rt, r->trace_path);
    if (!ierr && sq_verbosity >= 1)
      printf("  task trace: %s%s\n", r->trace_path, s->nranks > 1 ? " (and the other ranks')" : "");
  }
  return ierr;
}

/* The peak resident memory of this process (Linux), with --verbose on several ranks. */
static void print_peak_memory(const run *r) {
  char line[256];
  FILE *st = fopen("/proc/self/status", "r");
  while (st && fgets(line, sizeof(line), st))
    if (!strncmp(line, "VmHWM:", 6)) printf("starquake: rank %d peak memory %s", r->s->rank, line + 6);
  if (st) fclose(st);
  fflush(stdout);
}

/* The simulation, set up and reported, with a restart's state read back and the GPU memory checked. */
static int run_setup(run *r) {
  int ierr = sq_sim_create(&r->cfg, r->serial, &r->s);
  if (ierr) return ierr;
  sq_sim *s = r->s;
  r->root = s->rank == 0;
  ierr = run_profile_start(r);
  if (!ierr && r->restart) ierr = sq_outputs_restart(s, r->restart, &r->ck);
  if (ierr) return ierr;
  const size_t bytes = host_bytes(s);
  r->verbose_ranks = sq_verbosity >= 2 && s->nranks > 1;
  if (!r->root) sq_verbosity = 0; /* rank 0 speaks for everyone */
  if (sq_verbosity >= 1) print_setup(r, bytes);
  if (!r->serial) SQ_CALL(check_gpu_memory(s, bytes, s->cfg.cpu_share));
  return SQ_SUCCESS;
}

/* A duration for people: "42 s", "12 min", "3.1 h". */
static void format_duration(double sec, char *out, size_t size) {
  if (sec < 120) snprintf(out, size, "%.0f s", sec);
  else if (sec < 7200) snprintf(out, size, "%.0f min", sec / 60);
  else snprintf(out, size, "%.1f h", sec / 3600);
}

/* --dry-run: the set-up and its memory estimate as for the run, then its first sync intervals timed
 * (about 2 s of them after a first one, which uploads and calibrates) for the estimated run time; no
 * output is written.  With several ranks they agree on how many intervals to time. */
static int run_dry(run *r) {
  sq_sim *s = r->s;
  if (r->restart) r->dt = r->ck.dt, r->nsteps = r->ck.nsteps;
  else sq_sim_plan(s, r->cfg.end_time, &r->dt, &r->nsteps), sq_sim_plan_start(s, r->dt);
  sq_outputs_report_plan(s, r->nsteps); /* and where the outputs fall, as the run would say */
  const int64_t todo = r->nsteps - s->steps;
  const double w_first = wall_now();
  /* the receivers sample into a buffer reserved ahead of each chunk (no file takes the samples here) */
  if (todo > 0 && s->receivers) SQ_CALL(sq_receiver_set_reserve(s->receivers, s->time + 1.5 * r->dt));
  if (todo > 0) SQ_CALL(sq_sim_advance(s, 1, r->dt, 0));
  const double w0 = wall_now();
  int64_t timed = 0;
  for (int more = todo > 1; more;) {
    if (s->receivers) SQ_CALL(sq_receiver_set_reserve(s->receivers, s->time + 1.5 * r->dt));
    SQ_CALL(sq_sim_advance(s, 1, r->dt, 0));
    ++timed;
    more = timed + 1 < todo && wall_now() - w0 < 2.0;
    if (s->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, &more, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  }
  const double first = w0 - w_first, per = timed > 0 ? (wall_now() - w0) / (double)timed : first;
  const double eta = todo > 0 ? first + per * (double)(todo - 1) : 0.0;
  char text[32];
  format_duration(eta, text, sizeof(text));
  if (sq_verbosity >= 1)
    printf("  estimate   %lld sync intervals of %.6g s to t=%.6g; %.3g s each (timed over %lld after a first one of "
           "%.3g s): the time stepping takes about %s (ETA, without outputs)\n"
           "dry run: nothing written\n",
           (long long)todo, r->dt, r->cfg.end_time, per, (long long)timed, first, text);
  return SQ_SUCCESS;
}

int sq_cmd_run(int argc, char **argv) {
  run r;
  memset(&r, 0, sizeof(r));
  int dry_run = 0;
  /* every rank reads the same command line and file: rank 0 alone reports their errors */
  sq_sim_hold_errors();
  SQ_CALL(sq_sim_release_errors(run_options(argc, argv, &r.cfg, &r.serial, &r.profile, &r.restart, &r.trace,
                                            &r.trace_all, &dry_run, &r.keep_stale)));
  if (sq_sim_mpi_rank() == 0 && !dry_run) SQ_CALL(make_dir(r.cfg.output_dir));
  r.w0 = wall_now();
  sq_outputs *outs = NULL;
  int ierr = run_setup(&r);
  if (!ierr && dry_run) {
    ierr = run_dry(&r);
    sq_sim_destroy(r.s);
    sq_sim_starpu_stop();
    return ierr;
  }
  if (!ierr) ierr = run_open_outputs(&r, &outs);
  if (!ierr) { /* from here on, a failed step still reports the profile */
    ierr = run_steps(&r, outs);
    if (!ierr) ierr = run_report(&r);
    ierr = run_profile_report(&r, ierr);
    if (r.verbose_ranks) print_peak_memory(&r);
  }
  ierr = run_manifest(&r, ierr);
  sq_run_files_destroy(r.files);
  sq_sim_destroy(r.s);
  sq_sim_starpu_stop();
  return ierr;
}
