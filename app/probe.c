/**
 * @file probe.c  `starquake probe CONFIG --points ...`: the material, the plasticity parameters and the fault
 * values at given points, as a run of CONFIG (a YAML config or a SeisSol parameters.par) sets them up.  The
 * set-up is the run's own (sq_sim_create, serial: no StarPU); the material and the plasticity values are those
 * of the mesh cell holding the point (evaluated at its centroid, as the run does); the fault values are
 * evaluated at the point itself in the frame of the fault face holding it (sq_sim_fault_probe).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sq_app.h"
#include "sq_locate.h"
#include "sq_namelist.h"
#include "sq_source_io.h"

#define PROBE_MAX_SETS 64

/* One coordinate triple "x,y,z" (blanks allowed around the numbers) into @p x; 0 on success. */
static int parse_triple(const char *s, double x[3]) {
  char *end;
  for (int k = 0; k < 3; ++k) {
    x[k] = strtod(s, &end);
    if (end == s || !isfinite(x[k])) return 1;
    s = end + strspn(end, " \t");
    if (k < 2) {
      if (*s != ',') return 1;
      ++s;
    }
  }
  return *s != '\0';
}

/* The points: "x,y,z;x,y,z..." or a file of lines "x y z" (read as receiver files are: sq_read_points). */
static int read_points(const char *spec, double **xyz, int *n) {
  *xyz = NULL, *n = 0;
  if (!strchr(spec, ',')) {
    int *line = NULL;
    const int ierr = sq_read_points(spec, n, xyz, &line);
    free(line);
    return ierr;
  }
  char point[1024];
  int cap = 0, ierr = SQ_SUCCESS;
  for (const char *cur = spec; *cur;) {
    const size_t len = strcspn(cur, ";");
    snprintf(point, sizeof(point), "%.*s", (int)(len < sizeof(point) ? len : sizeof(point) - 1), cur);
    cur += len + (cur[len] == ';');
    if (*n == cap) {
      cap = cap ? 2 * cap : 16;
      double *grown = realloc(*xyz, 3 * (size_t)cap * sizeof(double));
      if (!grown) {
        ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory");
        break;
      }
      *xyz = grown;
    }
    if (parse_triple(point, &(*xyz)[3 * *n])) {
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "--points: point %d: a point is three numbers 'x,y,z' (points separated by ';'), got '%s'",
                      *n + 1, point);
      break;
    }
    ++*n;
  }
  if (!ierr && *n == 0) ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "--points '%s': no points", spec);
  if (ierr) {
    free(*xyz);
    *xyz = NULL;
  }
  return ierr;
}

/* One table: the column names, then per point a row; "-" (table) or "" (CSV) where a value does not apply. */
typedef struct table {
  int csv, ncol;
  const char *name[48];
  char cell[48][32];
} table;

static void col(table *t, const char *name, double v, int have) {
  t->name[t->ncol] = name;
  if (have) snprintf(t->cell[t->ncol], sizeof(t->cell[0]), "%.17g", v);
  else snprintf(t->cell[t->ncol], sizeof(t->cell[0]), "%s", t->csv ? "" : "-");
  ++t->ncol;
}

static void row(const table *t, int header) {
  for (int k = 0; k < t->ncol; ++k) {
    const char *s = header ? t->name[k] : t->cell[k];
    if (t->csv) printf("%s%s", k ? "," : "", s);
    else printf(k ? " %-24s" : "%-24s", s);
  }
  printf("\n");
}

/* The columns of point @p x: position, cell and material, plasticity (with the section), fault values. */
static void point_row(table *t, const sq_sim *s, const double x[3], const double xi[3], int64_t cell, int64_t elem,
                      int64_t face, double dist, const sq_fault_point *pt) {
  static const char *const xyz[3] = {"x", "y", "z"};
  t->ncol = 0;
  for (int k = 0; k < 3; ++k) col(t, xyz[k], x[k], 1);
  col(t, "cell", (double)(cell >= 0 ? sq_mesh_global_cell(s->mesh, cell) : -1), 1);
  const sq_material *m = cell >= 0 ? &s->cell_material[cell] : NULL;
  col(t, "rho", m ? m->rho : 0, m != NULL);
  col(t, "mu", m ? m->mu : 0, m != NULL);
  col(t, "lambda", m ? m->lambda : 0, m != NULL);
  col(t, "vp", m ? sq_material_vp(m) : 0, m != NULL);
  col(t, "vs", m ? sq_material_vs(m) : 0, m != NULL);
  if (s->plastic) {
    static const char *const pn[3] = {"plasticity.cohesion", "plasticity.bulk_friction", "plasticity.tv"};
    static const char *const sn[6] = {"plasticity.s_xx", "plasticity.s_yy", "plasticity.s_zz",
                                      "plasticity.s_xy", "plasticity.s_yz", "plasticity.s_xz"};
    for (int k = 0; k < 3; ++k) col(t, pn[k], elem >= 0 ? s->plastic->params[3 * elem + k] : 0, elem >= 0);
    double s0[6] = {0};
    if (elem >= 0) sq_plastic_state_stress_at(s->plastic, elem, xi, s0); /* interpolated from the nodal points */
    for (int k = 0; k < 6; ++k) col(t, sn[k], s0[k], elem >= 0);
  }
  if (!s->fault) return;
  const int on = face >= 0;
  col(t, "fault_distance", dist, isfinite(dist));
  static const char *const fn[3] = {"n_x", "n_y", "n_z"};
  for (int k = 0; k < 3; ++k) col(t, fn[k], on ? s->fault->face[face].frame[k] : 0, on);
  col(t, "T_n", on ? pt->traction0[0] : 0, on);
  col(t, "T_s", on ? pt->traction0[1] : 0, on);
  col(t, "T_d", on ? pt->traction0[2] : 0, on);
  col(t, "Tnuc_n", on ? pt->nucleation[0] : 0, on);
  col(t, "Tnuc_s", on ? pt->nucleation[1] : 0, on);
  col(t, "Tnuc_d", on ? pt->nucleation[2] : 0, on);
  const sq_friction_params *p = on ? &pt->param : &(sq_friction_params){0};
  col(t, "cohesion", p->cohesion, on);
  if (s->cfg.fault.law == SQ_FRICTION_LSW) {
    col(t, "mu_s", p->mu_s, on);
    col(t, "mu_d", p->mu_d, on);
    col(t, "d_c", p->d_c, on);
    /* "never" (no forced rupture) stays a large number: compare it as it is */
    col(t, "forced_rupture_time", p->forced_time, on);
  } else if (sq_friction_is_kinematic((sq_friction_law)s->cfg.fault.law)) {
    col(t, "strike_slip", p->slip_strike, on);
    col(t, "dip_slip", p->slip_dip, on);
    col(t, "rupture_onset", p->onset, on);
    if (s->cfg.fault.law == SQ_FRICTION_KINEMATIC_YOFFE) col(t, "tau_S", p->tau_s, on);
    if (s->cfg.fault.law != SQ_FRICTION_KINEMATIC_DELTA) col(t, "rise_time", p->rise_time, on);
  } else {
    col(t, "a", p->a, on);
    col(t, "b", p->b, on);
    col(t, "L", p->L, on);
    col(t, "f0", p->f0, on);
    col(t, "V0", p->V0, on);
    if (s->cfg.fault.law == SQ_FRICTION_RS_FVW) {
      col(t, "f_w", p->f_w, on);
      col(t, "V_w", p->V_w, on);
    }
    col(t, "initial_slip_rate", on ? pt->state.slip_rate[0] : 0, on);
    if (s->cfg.fault.thermal_pressurization) {
      col(t, "tp_thermal_diffusivity", p->tp_alpha_th, on);
      col(t, "tp_hydraulic_diffusivity", p->tp_alpha_hy, on);
      col(t, "tp_heat_capacity", p->tp_rho_c, on);
      col(t, "tp_lambda", p->tp_lambda, on);
      col(t, "tp_half_width", p->tp_half_width, on);
      col(t, "tp_initial_temperature", p->tp_T0, on);
      col(t, "tp_initial_pressure", p->tp_p0, on);
    }
  }
}

int sq_cmd_probe(int argc, char **argv) {
  const char *path = NULL, *spec = NULL, *sets[PROBE_MAX_SETS];
  int nsets = 0, csv = 0;
  sq_verbosity = 0; /* the set-up's report would mix with the table */
  for (int i = 0; i < argc; ++i) {
    if (!strcmp(argv[i], "--points") && i + 1 < argc) spec = argv[++i];
    else if (!strcmp(argv[i], "--csv")) csv = 1;
    else if (!strcmp(argv[i], "--set") && i + 1 < argc && argv[i + 1][0] != '-') {
      SQ_CHECK(nsets < PROBE_MAX_SETS, SQ_ERR_INPUT, "--set: at most %d overrides", PROBE_MAX_SETS);
      sets[nsets++] = argv[++i];
    } else if (!strcmp(argv[i], "--verbose")) sq_verbosity = 1;
    else if (!strcmp(argv[i], "--set") || !strcmp(argv[i], "--points"))
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "probe: %s needs a value after it (see starquake probe --help)",
                      argv[i]);
    else if (argv[i][0] == '-') {
      sq_help_print(stdout, "probe");
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "probe: unknown option '%s'", argv[i]);
    } else if (!path) path = argv[i];
    else return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "probe: more than one configuration file ('%s')", argv[i]);
  }
  if (!path || !spec) {
    sq_help_print(stdout, "probe");
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "probe: %s",
                    path ? "no --points given" : "no configuration given");
  }
  SQ_CHECK(sq_sim_mpi_nranks() == 1, SQ_ERR_INPUT, "probe runs on one MPI rank");
  double *x;
  int n;
  SQ_CALL(read_points(spec, &x, &n));
  static sq_config cfg; /* large */
  int ierr = sq_namelist_file_detect(path) ? sq_seissol_load(path, sets, nsets, &cfg)
                                           : sq_config_load_with_sets(path, sets, nsets, &cfg);
  /* the serial set-up takes one time cluster; materials and fault values do not depend on the clustering */
  cfg.lts_rate = 1;
  /* sources and receivers are not probed (and the serial set-up has none) */
  cfg.nsources = 0, cfg.nreceivers = 0, cfg.receiver_file[0] = '\0', cfg.receiver_stations[0] = '\0';
  sq_sim *s = NULL;
  if (!ierr) ierr = sq_sim_create(&cfg, 1, &s);
  sq_locator *loc = NULL;
  int64_t *elem_of = NULL, *face = NULL;
  double *dist = NULL;
  sq_fault_point *pt = NULL;
  if (!ierr) ierr = sq_locator_create(s->mesh, &loc);
  if (!ierr) ierr = SQ_CALLOC(elem_of, s->mesh->ncell);
  if (!ierr) ierr = SQ_CALLOC(face, n);
  if (!ierr) ierr = SQ_CALLOC(dist, n);
  if (!ierr) ierr = SQ_CALLOC(pt, n);
  if (!ierr) {
    for (int64_t c = 0; c < s->mesh->ncell; ++c) elem_of[c] = -1;
    for (int64_t e = 0; e < s->disc->nelem; ++e) elem_of[s->disc->cell_of[e]] = e;
    ierr = sq_sim_fault_probe(s, n, x, face, dist, pt);
  }
  table t = {.csv = csv};
  for (int i = 0; i < n && !ierr; ++i) {
    double xi[3] = {0};
    const int64_t c = sq_locator_find(loc, &x[3 * i], xi);
    if (c < 0)
      fprintf(stderr, "starquake: probe: the point (%g, %g, %g) is outside the mesh %s\n", x[3 * i], x[3 * i + 1],
              x[3 * i + 2], cfg.mesh_file);
    point_row(&t, s, &x[3 * i], xi, c, c >= 0 ? elem_of[c] : -1, face[i], dist[i], &pt[i]);
    if (i == 0) row(&t, 1);
    row(&t, 0);
  }
  SQ_FREE(pt);
  SQ_FREE(dist);
  SQ_FREE(face);
  SQ_FREE(elem_of);
  sq_locator_destroy(loc);
  if (s) sq_sim_destroy(s);
  free(x);
  return ierr;
}
