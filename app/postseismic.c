/**
 * @file postseismic.c  `starquake postseismic CONFIG.yaml [OPTIONS]`: the configuration's postseismic section
 * (sim/sq_postseismic.h).  A first SIGINT (Ctrl-C) or SIGTERM ends the run after the step in flight, with the
 * station series and the surface snapshots written up to that step and closed; a second SIGINT aborts at once.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sq_app.h"
#include "sq_postseismic.h"

#define SQ_PS_MAX_SETS 64

static volatile sig_atomic_t sq_ps_stop = 0;

static void ps_say(const char *text) {
  const ssize_t n = write(2, text, strlen(text));
  (void)n;
}

static void ps_on_signal(int sig) {
  if (sig == SIGINT && sq_ps_stop == SIGINT) { /* the second Ctrl-C */
    ps_say("\nstarquake postseismic: second SIGINT: aborted\n");
    signal(SIGINT, SIG_DFL);
    raise(SIGINT);
    return;
  }
  ps_say("\nstarquake postseismic: stopping after the step in flight; the outputs are written up to it (Ctrl-C "
         "again aborts)\n");
  sq_ps_stop = sig;
}

int sq_cmd_postseismic(int argc, char **argv) {
  const char *path = NULL, *outdir = NULL, *sets[SQ_PS_MAX_SETS];
  int nsets = 0, serial = 0;
  for (int i = 0; i < argc; ++i) {
    if (!strcmp(argv[i], "--set") && i + 1 < argc) {
      SQ_CHECK(nsets < SQ_PS_MAX_SETS, SQ_ERR_INPUT, "--set: at most %d overrides", SQ_PS_MAX_SETS);
      sets[nsets++] = argv[++i];
    } else if (!strcmp(argv[i], "--output") && i + 1 < argc) outdir = argv[++i];
    else if (!strcmp(argv[i], "--serial")) serial = 1;
    else if (!strcmp(argv[i], "--quiet")) sq_verbosity = 0;
    else if (argv[i][0] == '-') {
      sq_help_print(stdout, "postseismic");
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "postseismic: unknown or incomplete option '%s'", argv[i]);
    } else if (!path) path = argv[i];
    else return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "postseismic: more than one configuration ('%s')", argv[i]);
  }
  if (!path) {
    sq_help_print(stdout, "postseismic");
    return SQ_ERR_INPUT;
  }
  sq_config *cfg = malloc(sizeof(*cfg));
  SQ_CHECK(cfg, SQ_ERR_MEMORY, "postseismic: no memory");
  sq_sim_hold_errors(); /* every rank reads the same configuration: rank 0 alone reports its errors */
  int ierr = sq_config_load_with_sets(path, sets, nsets, cfg);
  ierr = sq_sim_release_errors(ierr);
  if (!ierr && outdir) snprintf(cfg->output_dir, sizeof(cfg->output_dir), "%s", outdir);
  if (!ierr && serial) cfg->postseismic.serial = 1;
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = ps_on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sq_ps_summary sum;
  if (!ierr) ierr = sq_postseismic_run(cfg, &sq_ps_stop, &sum);
  if ((!ierr || ierr == SQ_STOPPED) && sq_verbosity >= 1 && sq_sim_mpi_rank() == 0)
    printf("postseismic: %s at t = %.6g years after %d steps: %lld outer, %lld inner, %lld coarse iterations; %d "
           "surface snapshots, %d station series in %s (%.1f s)\n",
           ierr == SQ_STOPPED ? "stopped" : "done", sum.time / 31557600.0, sum.nstep, (long long)sum.outer_iters,
           (long long)sum.inner_iters, (long long)sum.coarse_iters, sum.nsnapshot, sum.nstation, cfg->output_dir,
           sum.seconds);
  free(cfg);
  return ierr;
}
