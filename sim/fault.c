/**
 * @file fault.c  The fault of a run: per-point values from the config (numbers, expressions in x, y, z,
 * patches, or an easi model: fault.easi) and the check that the mesh and the config agree on having one.
 */
#include <math.h>
#include <mpi.h>
#include <string.h>

#include "sq_easi.h"
#include "sq_expr.h"
#include "sq_sim_setup.h"

/* SeisSol's names of the fault values in easi models and ours; SeisSol's cohesion is negative where it
 * adds strength, ours positive.  nuc_xx .. nuc_xz (a nucleation stress tensor) are projected like the
 * initial stress and added to Tnuc_n, Tnuc_s, Tnuc_d. */
static const struct {
  const char *name;
  int param;
  double sign;
} easi_names[] = {{"mu_s", SQ_FP_MU_S, 1},
                  {"mu_d", SQ_FP_MU_D, 1},
                  {"d_c", SQ_FP_D_C, 1},
                  {"cohesion", SQ_FP_COHESION, -1},
                  {"forced_rupture_time", SQ_FP_FORCED_TIME, 1},
                  {"rs_a", SQ_FP_A, 1},
                  {"rs_b", SQ_FP_B, 1},
                  {"rs_sl0", SQ_FP_L, 1},
                  {"rs_f0", SQ_FP_F0, 1},
                  {"rs_sr0", SQ_FP_V0, 1},
                  {"rs_muw", SQ_FP_F_W, 1},
                  {"rs_srW", SQ_FP_V_W, 1},
                  {"s_xx", SQ_FP_S_XX, 1},
                  {"s_yy", SQ_FP_S_YY, 1},
                  {"s_zz", SQ_FP_S_ZZ, 1},
                  {"s_xy", SQ_FP_S_XY, 1},
                  {"s_yz", SQ_FP_S_YZ, 1},
                  {"s_xz", SQ_FP_S_XZ, 1},
                  {"T_n", SQ_FP_TRACTION_NORMAL, 1},
                  {"T_s", SQ_FP_TRACTION_STRIKE, 1},
                  {"T_d", SQ_FP_TRACTION_DIP, 1},
                  {"Tnuc_n", SQ_FP_NUC_NORMAL, 1},
                  {"Tnuc_s", SQ_FP_NUC_STRIKE, 1},
                  {"Tnuc_d", SQ_FP_NUC_DIP, 1},
                  {"tp_thermalDiffusivity", SQ_FP_TP_ALPHA_TH, 1},
                  {"tp_hydraulicDiffusivity", SQ_FP_TP_ALPHA_HY, 1},
                  {"tp_heatCapacity", SQ_FP_TP_RHO_C, 1},
                  {"tp_undrainedTPResponse", SQ_FP_TP_LAMBDA, 1},
                  {"tp_halfWidthShearZone", SQ_FP_TP_HALF_WIDTH, 1},
                  {"tp_iniTemp", SQ_FP_TP_T0, 1},
                  {"tp_iniPressure", SQ_FP_TP_P0, 1},
                  {"strike_slip", SQ_FP_STRIKE_SLIP, 1},
                  {"dip_slip", SQ_FP_DIP_SLIP, 1},
                  {"rupture_onset", SQ_FP_RUPTURE_ONSET, 1},
                  {"tau_S", SQ_FP_TAU_S, 1},
                  {"tau_R", SQ_FP_RISE_TIME, 1},
                  {"rupture_rise_time", SQ_FP_RISE_TIME, 1}};
enum { NEASI = sizeof(easi_names) / sizeof(easi_names[0]) };
static const char *const easi_nuc[6] = {"nuc_xx", "nuc_yy", "nuc_zz", "nuc_xy", "nuc_yz", "nuc_xz"};

typedef struct fault_values {
  const sq_fault_config *cfg;
  const char *path;
  sq_expr *base[SQ_NFAULT_PARAMS];
  sq_expr *patch[SQ_MAX_FAULT_PATCHES][SQ_NFAULT_PARAMS];
  sq_easi *easi; /* fault.easi */
  int neasi;     /* values the model gives: names[k] -> param[k] (param -1: nuc_* k) */
  const char *names[NEASI + 6];
  int param[NEASI + 6];
  double sign[NEASI + 6];
  int from_easi[SQ_NFAULT_PARAMS];
  int timing; /* print the evaluation's time (--verbose) */
} fault_values;

static int compile(const char *path, const sq_cfg_expr *e, sq_expr **out) {
  char err[256];
  *out = NULL;
  if (!e->text[0]) return SQ_SUCCESS;
  const int rc = sq_expr_compile(e->text, NULL, 0, out, err, sizeof(err));
  if (rc == SQ_ERR_INPUT) return sq_error(rc, __FILE__, __LINE__, "%s:%d: '%s': %s", path, e->line, e->text, err);
  return rc;
}

/* fault.easi: which values the model gives; a value both the model and a fault key give is an error */
static int easi_open(const sq_config *cfg, fault_values *v) {
  const sq_fault_config *fc = &cfg->fault;
  const int rc = sq_easi_load(fc->easi, &v->easi);
  if (rc) {
    sq_error_more("  (the model of fault.easi, %s line %d)", cfg->path, fc->easi_line);
    return rc;
  }
  for (int k = 0; k < NEASI; ++k) {
    if (!sq_easi_provides(v->easi, easi_names[k].name)) continue;
    const int i = easi_names[k].param;
    SQ_CHECK(!fc->param[i].text[0], SQ_ERR_INPUT,
             "%s:%d: fault.%s is given twice: here and as '%s' by the easi model %s (fault.easi, line %d)", cfg->path,
             fc->param[i].line, sq_fault_param_names[i], easi_names[k].name, fc->easi, fc->easi_line);
    v->names[v->neasi] = easi_names[k].name;
    v->param[v->neasi] = i;
    v->sign[v->neasi++] = easi_names[k].sign;
    v->from_easi[i] = 1;
  }
  for (int k = 0; k < 6; ++k)
    if (sq_easi_provides(v->easi, easi_nuc[k])) {
      v->names[v->neasi] = easi_nuc[k];
      v->param[v->neasi] = -1 - k;
      v->sign[v->neasi++] = 1;
    }
  /* what the friction law needs and neither the model nor the config gives */
  static const int lsw[] = {SQ_FP_MU_S, SQ_FP_MU_D, SQ_FP_D_C, -1};
  static const int rs[] = {SQ_FP_A, SQ_FP_B, SQ_FP_L, SQ_FP_F0, SQ_FP_V0, SQ_FP_V_INIT, -1};
  static const int fvw[] = {SQ_FP_A, SQ_FP_B, SQ_FP_L, SQ_FP_F0, SQ_FP_V0, SQ_FP_V_INIT, SQ_FP_F_W, SQ_FP_V_W, -1};
  static const int yoffe[] = {SQ_FP_TAU_S, SQ_FP_RISE_TIME, -1}, gaussian[] = {SQ_FP_RISE_TIME, -1}, delta[] = {-1};
  const int *need = fc->law == SQ_FRICTION_LSW                  ? lsw
                    : fc->law == SQ_FRICTION_RS_FVW             ? fvw
                    : fc->law == SQ_FRICTION_KINEMATIC_YOFFE    ? yoffe
                    : fc->law == SQ_FRICTION_KINEMATIC_GAUSSIAN ? gaussian
                    : fc->law == SQ_FRICTION_KINEMATIC_DELTA    ? delta
                                                                : rs;
  for (int k = 0; need[k] >= 0; ++k) {
    const int i = need[k];
    if (v->from_easi[i] || fc->param[i].text[0]) continue;
    const char *seissol = "";
    for (int j = 0; j < NEASI; ++j)
      if (easi_names[j].param == i && !seissol[0]) seissol = easi_names[j].name;
    if (i == SQ_FP_RISE_TIME && fc->law == SQ_FRICTION_KINEMATIC_GAUSSIAN) seissol = "rupture_rise_time";
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "%s:%d: the friction law %s needs %s: the easi model %s (fault.easi) does not give '%s' and the "
                    "config has no fault.%s",
                    cfg->path, fc->easi_line, sq_friction_law_name((sq_friction_law)fc->law), sq_fault_param_names[i],
                    fc->easi, seissol[0] ? seissol : sq_fault_param_names[i], sq_fault_param_names[i]);
  }
  return SQ_SUCCESS;
}

static void values_free(fault_values *v) {
  sq_easi_free(v->easi);
  for (int i = 0; i < SQ_NFAULT_PARAMS; ++i) {
    sq_expr_destroy(v->base[i]);
    for (int k = 0; k < SQ_MAX_FAULT_PATCHES; ++k) sq_expr_destroy(v->patch[k][i]);
  }
}

/* Value of parameter i at x: the last patch containing x that sets it, else the fault-wide value.
 * @p report 0: a bad value fails quietly (threads; the caller reports the first bad point). */
static int value_at(const fault_values *v, int i, const double x[3], double fallback, double *out, int report) {
  const double vars[4] = {x[0], x[1], x[2], 0.0};
  for (int k = v->cfg->npatches - 1; k >= 0; --k) {
    const sq_fault_patch *p = &v->cfg->patches[k];
    if (!v->patch[k][i]) continue;
    if (x[0] < p->lo[0] || x[0] > p->hi[0] || x[1] < p->lo[1] || x[1] > p->hi[1] || x[2] < p->lo[2] || x[2] > p->hi[2])
      continue;
    *out = sq_expr_eval(v->patch[k][i], vars);
    if (!isfinite(*out) && !report) return SQ_ERR_INPUT;
    SQ_CHECK(isfinite(*out), SQ_ERR_INPUT, "%s:%d: fault.patches[%d].%s is %g at (%g, %g, %g)", v->path,
             p->param[i].line, k, sq_fault_param_names[i], *out, x[0], x[1], x[2]);
    return SQ_SUCCESS;
  }
  *out = v->base[i] ? sq_expr_eval(v->base[i], vars) : fallback;
  const int good = isfinite(*out) || (i == SQ_FP_FORCED_TIME && *out > 0);
  if (!good && !report) return SQ_ERR_INPUT;
  SQ_CHECK(good, SQ_ERR_INPUT, "%s:%d: fault.%s is %g at (%g, %g, %g)", v->path, v->cfg->param[i].line,
           sq_fault_param_names[i], *out, x[0], x[1], x[2]);
  return SQ_SUCCESS;
}

/* The values of one point at @p x on a face with frame @p frame, from the easi model's values @p e (v->neasi
 * of them) and the config's numbers and expressions; @p report 0: a bad value fails quietly. */
static int point_values(const fault_values *v, const double x[3], const double frame[9], const double *e,
                        sq_fault_point *pt, int report) {
  double val[SQ_NFAULT_PARAMS], nuc[6] = {0, 0, 0, 0, 0, 0};
  static const double fallback[SQ_NFAULT_PARAMS] = {[SQ_FP_FORCED_TIME] = SQ_FRICTION_NEVER, [SQ_FP_V0] = 1e-6};
  for (int k = 0; k < v->neasi; ++k)
    if (v->param[k] >= 0) val[v->param[k]] = v->sign[k] * e[k];
    else nuc[-1 - v->param[k]] = e[k];
  for (int i = 0; i < SQ_NFAULT_PARAMS; ++i)
    if ((i < SQ_FP_TRACTION_NORMAL || i > SQ_FP_TRACTION_DIP) && !v->from_easi[i])
      SQ_CALL(value_at(v, i, x, fallback[i], &val[i], report));
  memset(pt, 0, sizeof(*pt));
  pt->param = (sq_friction_params){.mu_s = val[SQ_FP_MU_S],
                                   .mu_d = val[SQ_FP_MU_D],
                                   .d_c = val[SQ_FP_D_C],
                                   .cohesion = val[SQ_FP_COHESION],
                                   .forced_time = val[SQ_FP_FORCED_TIME],
                                   .t0 = val[SQ_FP_FORCED_DURATION],
                                   .a = val[SQ_FP_A],
                                   .b = val[SQ_FP_B],
                                   .L = val[SQ_FP_L],
                                   .f0 = val[SQ_FP_F0],
                                   .V0 = val[SQ_FP_V0],
                                   .f_w = val[SQ_FP_F_W],
                                   .V_w = val[SQ_FP_V_W],
                                   .slip_strike = val[SQ_FP_STRIKE_SLIP],
                                   .slip_dip = val[SQ_FP_DIP_SLIP],
                                   .onset = val[SQ_FP_RUPTURE_ONSET],
                                   .tau_s = val[SQ_FP_TAU_S],
                                   .rise_time = val[SQ_FP_RISE_TIME]};
  if (v->cfg->thermal_pressurization) {
    pt->param.tp_alpha_th = val[SQ_FP_TP_ALPHA_TH], pt->param.tp_alpha_hy = val[SQ_FP_TP_ALPHA_HY];
    pt->param.tp_rho_c = val[SQ_FP_TP_RHO_C], pt->param.tp_lambda = val[SQ_FP_TP_LAMBDA];
    pt->param.tp_half_width = val[SQ_FP_TP_HALF_WIDTH], pt->param.tp_T0 = val[SQ_FP_TP_T0];
    pt->param.tp_p0 = val[SQ_FP_TP_P0], pt->param.tp_points = v->cfg->tp_grid_points;
  }
  /* traction of the initial stress tensor on the fault (sigma n) in the fault frame; traction_* values
   * (fault-wide or in patches) replace its components where they are given */
  const double *s = &val[SQ_FP_S_XX], *n = frame;
  const double sig[3][3] = {{s[0], s[3], s[5]}, {s[3], s[1], s[4]}, {s[5], s[4], s[2]}};
  double t[3];
  for (int r = 0; r < 3; ++r) t[r] = sig[r][0] * n[0] + sig[r][1] * n[1] + sig[r][2] * n[2];
  const double nsig[3][3] = {{nuc[0], nuc[3], nuc[5]}, {nuc[3], nuc[1], nuc[4]}, {nuc[5], nuc[4], nuc[2]}};
  double tn[3];
  for (int r = 0; r < 3; ++r) tn[r] = nsig[r][0] * n[0] + nsig[r][1] * n[1] + nsig[r][2] * n[2];
  for (int a = 0; a < 3; ++a) {
    const double from_tensor = t[0] * frame[3 * a] + t[1] * frame[3 * a + 1] + t[2] * frame[3 * a + 2];
    if (v->from_easi[SQ_FP_TRACTION_NORMAL + a]) pt->traction0[a] = val[SQ_FP_TRACTION_NORMAL + a];
    else SQ_CALL(value_at(v, SQ_FP_TRACTION_NORMAL + a, x, from_tensor, &pt->traction0[a], report));
    pt->nucleation[a] =
        val[SQ_FP_NUC_NORMAL + a] + tn[0] * frame[3 * a] + tn[1] * frame[3 * a + 1] + tn[2] * frame[3 * a + 2];
  }
  pt->state.slip_rate[0] = val[SQ_FP_V_INIT]; /* sq_fault_create reads the initial slip rate here */
  char why[256];
  if (sq_friction_check_params((sq_friction_law)v->cfg->law, &pt->param, why, sizeof(why))) {
    if (!report) return SQ_ERR_INPUT;
    int line = v->cfg->line; /* the line of the key the message names, where the config has it */
    for (int i = 0; i < SQ_NFAULT_PARAMS; ++i) {
      const size_t len = strlen(sq_fault_param_names[i]);
      if (!strncmp(why, sq_fault_param_names[i], len) && why[len] == ' ' && v->cfg->param[i].line > 0)
        line = v->cfg->param[i].line;
    }
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: the fault values at the fault point (%g, %g, %g): %s",
                    v->path, line, x[0], x[1], x[2], why);
  }
  return SQ_SUCCESS;
}

/* The values of all fault points (sq_fault_init_fn): the easi model evaluated once over the points, each
 * with the fault tag of its face as its group (SeisSol's rule), then the config's values point by point;
 * both threaded, with the same bits and the same first error whatever the number of threads. */
static int init_points(void *ctx, int64_t n, const double *x, const double *frame, const int *group,
                       sq_fault_point *pt) {
  const fault_values *v = ctx;
  double *e = NULL;
  const double t0 = sq_wall_seconds(), c0 = sq_cpu_seconds();
  if (v->easi && v->neasi > 0) {
    SQ_CALL(SQ_CALLOC(e, n * v->neasi + 1));
    int64_t bad = n;
    const int rc = sq_easi_eval_first_bad(v->easi, n, x, group, v->neasi, v->names, e, &bad);
    if (rc) {
      sq_error_more("  (fault.easi, %s line %d; a fault point's group is the fault tag of its face, %d)", v->path,
                    v->cfg->easi_line, bad < n ? group[bad] : SQ_BC_RUPTURE);
      SQ_FREE(e);
      return rc;
    }
  }
  int64_t bad = n;
  SQ_PARALLEL_FOR_MIN(bad)
  for (int64_t p = 0; p < n; ++p)
    if (point_values(v, &x[3 * p], &frame[9 * p], e ? &e[p * v->neasi] : NULL, &pt[p], 0) && p < bad) bad = p;
  int ierr = SQ_SUCCESS;
  if (bad < n) { /* the first bad point again, reported */
    ierr = point_values(v, &x[3 * bad], &frame[9 * bad], e ? &e[bad * v->neasi] : NULL, &pt[bad], 1);
    if (!ierr)
      ierr = sq_error(SQ_ERR_INTERNAL, __FILE__, __LINE__, "fault point %lld failed once only", (long long)bad);
  }
  SQ_FREE(e);
  if (!ierr && v->timing && sq_verbosity >= 2) {
    const double dt = sq_wall_seconds() - t0, cpu = sq_cpu_seconds() - c0;
    printf("starquake: rank %d: fault values of %lld points evaluated in %.3f s (%.3g us per point, %d threads, %.3f "
           "s CPU)\n",
           sq_sim_mpi_rank(), (long long)n, dt, 1e6 * dt / (double)(n ? n : 1), sq_get_threads(), cpu);
    fflush(stdout);
  }
  return ierr;
}

static int64_t mesh_rupture_faces(const sq_mesh *m) {
  int64_t n = 0;
  for (int64_t c = 0; c < 4 * m->ncell; ++c) n += m->face_bc[c] == SQ_BC_RUPTURE && m->face_neighbor[c] >= 0;
  return n / 2;
}

int sq_sim_fault_check_mesh(const sq_config *cfg, const sq_mesh *m) {
  return sq_sim_fault_check_count(cfg, m->source, mesh_rupture_faces(m));
}

int sq_sim_fault_check_count(const sq_config *cfg, const char *source, int64_t n) {
  if (cfg->fault.enabled)
    SQ_CHECK(n > 0, SQ_ERR_INPUT,
             "%s:%d: fault.friction_law is set, but the mesh %s has no dynamic-rupture faces (tag 3: Gmsh physical "
             "surface 103, PUML boundary code 3 or > 64)",
             cfg->path, cfg->fault.line, source);
  else if (n > 0 && sq_verbosity >= 1 && sq_sim_mpi_rank() == 0)
    fprintf(stderr,
            "starquake: note: the mesh has %lld dynamic-rupture faces but the config has no fault section; "
            "they act as ordinary welded faces\n",
            (long long)n);
  return SQ_SUCCESS;
}

/* The minimum of a key over the ranks (sq_fault_options.min_over_processes). */
static int64_t min_over_ranks(int64_t key, void *ctx) {
  (void)ctx;
  MPI_Allreduce(MPI_IN_PLACE, &key, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  return key;
}

/* The fault values of the config: its easi model opened, its expressions compiled (values_free frees them). */
static int values_open(const sq_config *cfg, fault_values *v) {
  const sq_fault_config *fc = &cfg->fault;
  *v = (fault_values){.cfg = fc, .path = cfg->path};
  int ierr = fc->easi[0] ? easi_open(cfg, v) : SQ_SUCCESS;
  for (int i = 0; i < SQ_NFAULT_PARAMS && !ierr; ++i) {
    ierr = compile(cfg->path, &fc->param[i], &v->base[i]);
    for (int k = 0; k < fc->npatches && !ierr; ++k)
      ierr = compile(cfg->path, &fc->patches[k].param[i], &v->patch[k][i]);
  }
  return ierr;
}

int sq_sim_fault_probe(const sq_sim *s, int n, const double *x, int64_t *face, double *dist, sq_fault_point *pt) {
  for (int i = 0; i < n; ++i) face[i] = -1, dist[i] = INFINITY;
  if (!s->fault) return SQ_SUCCESS;
  fault_values v;
  int ierr = values_open(&s->cfg, &v);
  for (int i = 0; i < n && !ierr; ++i) {
    double chi[2];
    sq_fault_locate(s->fault, s->disc, &x[3 * i], &face[i], chi, &dist[i]);
    if (face[i] < 0) continue;
    const sq_fault_face *fc = &s->fault->face[face[i]];
    const int group = s->disc->mesh->face_bc[4 * s->disc->cell_of[fc->elem[0]] + fc->face[0]];
    ierr = init_points(&v, 1, &x[3 * i], fc->frame, &group, &pt[i]);
  }
  values_free(&v);
  return ierr;
}

int sq_sim_fault_create(sq_sim *s) {
  const sq_fault_config *fc = &s->cfg.fault;
  if (!fc->enabled) return SQ_SUCCESS;
  fault_values v;
  int ierr = values_open(&s->cfg, &v);
  const sq_fault_options opt = {.law = (sq_friction_law)fc->law,
                                .reference = {fc->reference_point[0], fc->reference_point[1], fc->reference_point[2]},
                                .reference_convention = fc->reference_convention,
                                .reference_method = fc->reference_method,
                                .nucleation_time = fc->nucleation_time,
                                .nstation = fc->nstations,
                                .station = (const double(*)[3])fc->stations,
                                .min_over_processes = s->nranks > 1 ? min_over_ranks : NULL,
                                .pc_v_star = fc->pc_v_star,
                                .pc_length = fc->pc_length};
  v.timing = 1;
  if (!ierr) ierr = sq_fault_create(s->disc, &opt, init_points, &v, &s->fault);
  values_free(&v);
  if (ierr) return ierr;
  int64_t count[2] = {0, 0}; /* faces; faces whose sides live on two ranks (solved on both) */
  for (int64_t i = 0; i < s->fault->nface; ++i) {
    count[0] += s->fault->face[i].owned[0];
    count[1] += s->fault->face[i].owned[0] && !s->fault->face[i].owned[1];
  }
  if (s->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, count, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (sq_verbosity >= 1 && s->rank == 0)
    printf("  fault      %lld faces (%lld across ranks), %s, %d points per face, nucleation ramp %g s\n",
           (long long)count[0], (long long)count[1], sq_friction_law_name(opt.law), s->fault->npoint,
           opt.nucleation_time);
  return SQ_SUCCESS;
}
