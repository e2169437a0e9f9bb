/**
 * @file points.c  Sources and receivers of a simulation: from the configuration (and the files it
 * names) to located, projected point sets registered with the runtime.
 */
#include <errno.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sq_sim_setup.h"
#include "sq_locate.h"
#include "sq_nrf.h"
#include "sq_source_io.h"

static const double sq_pi = 3.14159265358979323846;

/* A file named in the config must be readable: say where it was named. */
static int check_readable(const sq_config *c, int line, const char *key, const char *file) {
  if (access(file, R_OK) == 0) return SQ_SUCCESS;
  if (line <= 0)
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "%s: %s: cannot read '%s': %s", c->path, key, file, strerror(errno));
  return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "%s:%d: %s: cannot read '%s': %s", c->path, line, key, file,
                  strerror(errno));
}

static int source_from_config(const sq_config *c, int i, sq_source_list *list) {
  const sq_source_config *sc = &c->sources[i];
  char key[64];
  if (sc->type == SQ_SRCCFG_FINITE) {
    snprintf(key, sizeof(key), "sources[%d].file", i);
    SQ_CALL(check_readable(c, sc->line, key, sc->file));
    return sq_read_fsrm(sc->file, list);
  }
  if (sc->type == SQ_SRCCFG_NRF) {
    snprintf(key, sizeof(key), "sources[%d].file", i);
    SQ_CALL(check_readable(c, sc->line, key, sc->file));
    return sq_read_nrf(sc->file, list);
  }
  sq_point_source src;
  memset(&src, 0, sizeof(src));
  memcpy(src.x, sc->location, sizeof(src.x));
  if (sc->type == SQ_SRCCFG_CMTSOLUTION) {
    /* SPECFEM3D's Gaussian of half duration h: 1/e half width h / 1.628, centred 1.5 h after the time
     * shift (SPECFEM starts at t = -1.5 h; starquake starts at 0) */
    snprintf(key, sizeof(key), "sources[%d].file", i);
    SQ_CALL(check_readable(c, sc->line, key, sc->file));
    sq_cmtsolution cmt;
    SQ_CALL(sq_read_cmtsolution(sc->file, &cmt));
    src.kind = SQ_SOURCE_MOMENT;
    sq_cmtsolution_source(&cmt, src.x, src.moment);
    const double h = cmt.value[SQ_CMT_HDUR] > 0 ? cmt.value[SQ_CMT_HDUR] : 1e-6;
    src.stf.kind = SQ_STF_GAUSSIAN, src.stf.width = h / 1.628, src.stf.delay = 1.5 * h;
    src.stf.onset = sc->onset + cmt.value[SQ_CMT_TIME_SHIFT];
    snprintf(src.origin, sizeof(src.origin), "%.120s:%d", sc->file, cmt.line[SQ_CMT_DEPTH]);
    return sq_source_list_push(list, &src);
  }
  switch (sc->type) {
  case SQ_SRCCFG_MOMENT_TENSOR:
    src.kind = SQ_SOURCE_MOMENT;
    memcpy(src.moment, sc->moment_tensor, sizeof(src.moment));
    break;
  case SQ_SRCCFG_DOUBLE_COUPLE:
    src.kind = SQ_SOURCE_MOMENT;
    sq_moment_from_sdr(sc->strike, sc->dip, sc->rake, sc->m0, src.moment, NULL, NULL);
    break;
  default:
    src.kind = SQ_SOURCE_FORCE;
    memcpy(src.force, sc->force, sizeof(src.force));
    break;
  }
  const sq_stf_config *f = &sc->stf;
  src.stf.onset = sc->onset;
  switch (f->kind) {
  case SQ_STFCFG_GAUSSIAN: src.stf.kind = SQ_STF_GAUSSIAN, src.stf.delay = f->delay, src.stf.width = f->width; break;
  case SQ_STFCFG_RICKER:
    src.stf.kind = SQ_STF_RICKER, src.stf.delay = f->delay, src.stf.frequency = f->frequency;
    break;
  case SQ_STFCFG_BRUNE: src.stf.kind = SQ_STF_BRUNE, src.stf.period = 1.0 / (2.0 * sq_pi * f->corner_frequency); break;
  case SQ_STFCFG_LOH1: src.stf.kind = SQ_STF_LOH1, src.stf.period = f->period; break;
  default:
    snprintf(key, sizeof(key), "sources[%d].time_function.file", i);
    SQ_CALL(check_readable(c, sc->line, key, f->file));
    SQ_CALL(sq_read_stf_table(f->file, &src.stf));
    break;
  }
  snprintf(src.origin, sizeof(src.origin), "%.120s:%d", c->path, sc->line);
  const int ierr = sq_source_list_push(list, &src);
  if (ierr) {
    free(src.stf.time);
    free(src.stf.value);
  }
  return ierr;
}

/*
 * With several ranks each holds a part of the mesh: a point on a face, edge or vertex shared by cells
 * of several ranks must go to one cell, the one a whole-mesh search picks (deepest, then lowest global
 * id).  Each rank searches its part, the ranks agree on the deepest point, then on the lowest global
 * id at that depth (two MPI_Allreduce), and the locator is told the outcome: the cell if it is here,
 * SQ_LOCATE_ELSEWHERE if another rank holds it, -1 if no rank found the point (outside the mesh, an
 * error every rank reports alike).
 */
static int decide_points(const sq_sim *s, sq_locator *loc, int n, const double *x) {
  if (s->nranks < 2 || n == 0) return SQ_SUCCESS;
  double *depth = calloc((size_t)n, sizeof(double)); /* every entry is set below */
  int64_t *cell = malloc(sizeof(int64_t) * (size_t)n), *gid = malloc(sizeof(int64_t) * (size_t)n);
  SQ_CHECK(depth && cell && gid, SQ_ERR_MEMORY, "out of memory locating %d points", n);
  for (int i = 0; i < n; ++i) cell[i] = sq_locator_find_depth(loc, &x[3 * i], NULL, &depth[i]);
  double *best = malloc(sizeof(double) * (size_t)n);
  SQ_CHECK(best, SQ_ERR_MEMORY, "out of memory locating %d points", n);
  MPI_Allreduce(depth, best, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i)
    gid[i] = cell[i] >= 0 && depth[i] == best[i] ? sq_mesh_global_cell(s->mesh, cell[i]) : INT64_MAX;
  MPI_Allreduce(MPI_IN_PLACE, gid, n, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i) {
    if (gid[i] == INT64_MAX) cell[i] = -1;
    else if (cell[i] < 0 || sq_mesh_global_cell(s->mesh, cell[i]) != gid[i]) cell[i] = SQ_LOCATE_ELSEWHERE;
  }
  const int ierr = sq_locator_decide(loc, n, x, cell);
  free(depth), free(cell), free(gid), free(best);
  return ierr;
}

int sq_sim_points_create(sq_sim *s) {
  const sq_config *c = &s->cfg;
  const int has_receivers = c->nreceivers > 0 || c->receiver_file[0] || c->receiver_stations[0];
  if (c->nsources == 0 && !has_receivers) return SQ_SUCCESS;
  SQ_CHECK(!s->serial, SQ_ERR_INPUT,
           "%s: point sources and receivers run as tasks of the runtime; drop --serial to use them", c->path);
  for (int i = 0; i < c->nsources; ++i) SQ_CALL(source_from_config(c, i, &s->sources));
  sq_locator *loc;
  SQ_CALL(sq_locator_create(s->mesh, &loc));
  double *sx = malloc(sizeof(double) * 3 * (size_t)(s->sources.n > 0 ? s->sources.n : 1));
  int ierr = sx ? SQ_SUCCESS : sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory");
  for (int i = 0; !ierr && i < s->sources.n; ++i) memcpy(&sx[3 * i], s->sources.src[i].x, 3 * sizeof(double));
  if (!ierr) ierr = decide_points(s, loc, s->sources.n, sx);
  free(sx);
  if (!ierr) ierr = sq_source_set_create(s->disc, loc, &s->sources, &s->source_set);
  if (!ierr && has_receivers) {
    int nfile = 0, *line = NULL;
    double *xf = NULL;
    if (c->receiver_file[0]) {
      ierr = check_readable(c, 0, "receivers.file", c->receiver_file);
      if (!ierr) ierr = sq_read_points(c->receiver_file, &nfile, &xf, &line);
    }
    int nsta = 0, *sta_line = NULL;
    double *xs = NULL;
    char(*sta_name)[SQ_STATION_NAME] = NULL;
    if (!ierr && c->receiver_stations[0]) {
      ierr = check_readable(c, 0, "receivers.stations", c->receiver_stations);
      if (!ierr) ierr = sq_read_stations(c->receiver_stations, &nsta, &xs, &sta_name, &sta_line);
    }
    const int nfirst = c->nreceivers + nfile, n = nfirst + nsta;
    double *x = ierr ? NULL : malloc(sizeof(double) * 3 * (size_t)(n > 0 ? n : 1));
    char **origin = ierr ? NULL : calloc((size_t)(n > 0 ? n : 1), sizeof(char *));
    char *names = ierr ? NULL : malloc((size_t)(n > 0 ? n : 1) * 160);
    if (!ierr && (!x || !origin || !names)) ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory");
    for (int i = 0; !ierr && i < n; ++i) {
      origin[i] = names + 160 * (size_t)i;
      if (i < c->nreceivers) {
        memcpy(&x[3 * i], c->receiver_points[i], 3 * sizeof(double));
        snprintf(origin[i], 160, "%.120s:%d", c->path, c->receiver_line[i]);
      } else if (i < nfirst) {
        memcpy(&x[3 * i], &xf[3 * (i - c->nreceivers)], 3 * sizeof(double));
        snprintf(origin[i], 160, "%.120s:%d", c->receiver_file, line[i - c->nreceivers]);
      } else {
        memcpy(&x[3 * i], &xs[3 * (i - nfirst)], 3 * sizeof(double));
        snprintf(origin[i], 160, "%.100s:%d (station %s)", c->receiver_stations, sta_line[i - nfirst],
                 sta_name[i - nfirst]);
      }
    }
    if (!ierr) ierr = decide_points(s, loc, n, x);
    if (!ierr)
      ierr = sq_receiver_set_create(s->disc, loc, n, x, (const char *const *)origin, c->receiver_interval, 0,
                                    &s->receivers);
    for (int i = 0; !ierr && i < nsta; ++i) ierr = sq_receiver_set_name(s->receivers, nfirst + i, sta_name[i]);
    free(xs), free(sta_name), free(sta_line);
    free(x);
    free(origin);
    free(names);
    free(xf);
    free(line);
  }
  sq_locator_destroy(loc);
  return ierr;
}

int sq_sim_points_attach(sq_sim *s) {
  if (!s->rt) return SQ_SUCCESS;
  if (s->source_set && s->source_set->n > 0) SQ_CALL(sq_runtime_attach_sources(s->rt, s->source_set));
  if (s->receivers) SQ_CALL(sq_runtime_attach_receivers(s->rt, s->receivers));
  return SQ_SUCCESS;
}

void sq_sim_points_destroy(sq_sim *s) {
  sq_source_set_destroy(s->source_set);
  s->source_set = NULL;
  sq_receiver_set_destroy(s->receivers);
  s->receivers = NULL;
  sq_source_list_clear(&s->sources);
}
