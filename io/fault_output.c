/**
 * @file fault_output.c  The fault outputs of a run: XDMF snapshots of the fault triangles, on-fault
 * stations (SeisSol text and SCEC formats), the rupture-time file `cplot`, and the fault checkpoint.
 */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "sq_fault_output.h"
#include "sq_output.h"

/* ------------------------------------------------------------------------------------ outputs */

/* the last two (thermal pressurization) are written only with it */
enum {
  FV_SRS,
  FV_SRD,
  FV_SR,
  FV_SLS,
  FV_SLD,
  FV_SL,
  FV_TS,
  FV_TD,
  FV_PN,
  FV_STATE,
  FV_MU,
  FV_RT,
  FV_VR,
  FV_PSR,
  FV_PF,
  FV_TMP,
  FV_N
};
static const char *const fv_names[FV_N] = {
    "slip_rate_strike", "slip_rate_dip",  "slip_rate",     "slip_strike", "slip_dip", "slip",
    "traction_strike",  "traction_dip",   "normal_stress", "state",       "mu",       "rupture_time",
    "rupture_velocity", "peak_slip_rate", "pore_pressure", "temperature"};
/* Native snapshot fields of this run: without thermal pressurization no pore pressure and temperature. */
static int fv_count(const sq_config *cfg) { return cfg->fault.thermal_pressurization ? FV_N : FV_PF; }

struct sq_fault_output {
  sq_fault *f;
  const sq_disc *d;
  const sq_config *cfg;
  int root, nranks;
  double time; /* of the values last written */
  double dt;   /* sync interval (the stations' time_step) */
  int64_t nsteps;
  int64_t nglobal;   /* faces over all ranks: the rows of the fault files */
  int64_t nown;      /* faces whose "-" side is ours: the rows this rank writes */
  int64_t *own_face; /* their local index, in the order of their rows */
  int64_t *own_row;  /* their row in the files, ascending */
  double *values;    /* FV_N x nown: one snapshot, value by value */
  sq_xdmf_writer *xdmf;
  int nstation;
  struct station {
    int64_t face; /* local fault face, -1: another rank has it */
    int index;    /* its sq_fault.station */
    double next;  /* next time to write (fault.station_interval) */
    int64_t rows; /* data rows written to each of its two files */
    FILE *scec, *seissol;
    double init[3]; /* output.style seissol: the initial (normal, strike, dip) traction at the station */
    double d_c;     /* and its critical slip distance (linear slip weakening) */
    double ds;      /* DS: the first time its slip path reached d_c (0 before) */
    double vr;      /* Vr once known (the rupture times of its face's points are final then), 0 before */
  } * station;
};

/* Face averages of the points' values (sq_fault_face_average: the peak slip rate too, each point's running
 * maximum averaged; the rupture time and velocity -1 / 0 unless every point ruptured). */
static void face_values(const sq_fault *f, const sq_disc *d, int64_t i, double *out) {
  const int np = f->npoint;
  const sq_fault_point *pts = f->point + i * np;
  sq_friction_state a;
  sq_fault_face_average(f, i, &a, &out[FV_SR]);
  out[FV_SRS] = a.slip_rate[0], out[FV_SRD] = a.slip_rate[1];
  out[FV_SLS] = a.slip[0], out[FV_SLD] = a.slip[1], out[FV_SL] = a.slip_path;
  out[FV_TS] = a.traction[0], out[FV_TD] = a.traction[1], out[FV_PN] = a.normal_stress;
  out[FV_STATE] = a.state, out[FV_MU] = a.mu, out[FV_RT] = a.rupture_time, out[FV_PSR] = a.peak_slip_rate;
  out[FV_PF] = a.pressure, out[FV_TMP] = a.temperature;
  const int ruptured = a.rupture_time >= 0;
  out[FV_VR] = 0.0;
  if (ruptured) { /* least-squares plane t(chi) = t0 + g . chi over the points, then |grad t| in metres */
    double A[9] = {0}, b[3] = {0};
    for (int p = 0; p < np; ++p) {
      const double r[3] = {1.0, f->chi[2 * p], f->chi[2 * p + 1]}, t = pts[p].state.rupture_time;
      for (int a = 0; a < 3; ++a) {
        b[a] += r[a] * t;
        for (int c = 0; c < 3; ++c) A[a * 3 + c] += r[a] * r[c];
      }
    }
    if (sq_solve_dense(3, A, b) == SQ_SUCCESS) {
      /* the face's edge vectors: x(chi) = p0 + chi1 e1 + chi2 e2 (sq_ref.h face parametrisation) */
      const sq_fault_face *fc = &f->face[i];
      const int64_t c = d->cell_of[fc->elem[0]];
      const int64_t *cv = &d->mesh->cell_vert[c * 4];
      const int *fv = sq_ref_face_vertices[fc->face[0]];
      double e1[3], e2[3];
      for (int k = 0; k < 3; ++k) {
        const double p0 = d->mesh->vert[cv[fv[0]] * 3 + k];
        e1[k] = d->mesh->vert[cv[fv[1]] * 3 + k] - p0;
        e2[k] = d->mesh->vert[cv[fv[2]] * 3 + k] - p0;
      }
      /* grad t = G^{-1}-weighted combination: solve [e1.e1 e1.e2; e1.e2 e2.e2] c = (g1, g2), grad = c1 e1 + c2 e2 */
      const double g11 = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2],
                   g22 = e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2];
      const double g12 = e1[0] * e2[0] + e1[1] * e2[1] + e1[2] * e2[2], det = g11 * g22 - g12 * g12;
      const double k1 = (g22 * b[1] - g12 * b[2]) / det, k2 = (g11 * b[2] - g12 * b[1]) / det;
      double grad = 0.0;
      for (int k = 0; k < 3; ++k) grad += (k1 * e1[k] + k2 * e2[k]) * (k1 * e1[k] + k2 * e2[k]);
      out[FV_VR] = grad > 0 ? 1.0 / sqrt(grad) : 0.0;
    }
  }
}

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/*
 * The row of every local fault face in the fault files (snapshots, fault checkpoint): the rank of its
 * gid among the gids of all fault faces, each listed once, by the rank that owns its "-" side.  The
 * ranks exchange their gids (an index: 8 bytes a face) once.  *@p nglobal: faces over all ranks.
 */
static int fault_rows(const sq_fault *f, int nranks, int64_t **row, int64_t *nglobal) {
  int64_t n = 0;
  for (int64_t i = 0; i < f->nface; ++i) n += f->face[i].owned[0];
  int64_t *all = malloc(sizeof(int64_t) * (size_t)(n + 1)), total = n;
  SQ_CALL(SQ_CALLOC(*row, f->nface + 1));
  SQ_CHECK(all, SQ_ERR_MEMORY, "out of memory numbering the fault faces");
  n = 0;
  for (int64_t i = 0; i < f->nface; ++i)
    if (f->face[i].owned[0]) all[n++] = f->face[i].gid;
  if (nranks > 1) {
    int count = (int)n, *counts = malloc(sizeof(int) * nranks), *displs = malloc(sizeof(int) * nranks);
    SQ_CHECK(counts && displs, SQ_ERR_MEMORY, "out of memory numbering the fault faces");
    MPI_Allgather(&count, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    total = 0;
    for (int r = 0; r < nranks; ++r) displs[r] = (int)total, total += counts[r];
    int64_t *every = malloc(sizeof(int64_t) * (size_t)(total + 1));
    SQ_CHECK(every, SQ_ERR_MEMORY, "out of memory numbering the fault faces");
    MPI_Allgatherv(all, count, MPI_INT64_T, every, counts, displs, MPI_INT64_T, MPI_COMM_WORLD);
    free(all), free(counts), free(displs);
    all = every;
  }
  qsort(all, total, sizeof(int64_t), cmp_i64);
  for (int64_t i = 0; i < f->nface; ++i) {
    const int64_t *hit = bsearch(&f->face[i].gid, all, total, sizeof(int64_t), cmp_i64);
    (*row)[i] = hit ? hit - all : -1; /* -1: nobody owns its "-" side (cannot happen) */
  }
  free(all);
  *nglobal = total;
  return SQ_SUCCESS;
}

/* The local faces @p pick marks (NULL: all), in the order of their rows @p row (the local faces are
 * ordered by cluster first): @p face[k] has row @p face_row[k], ascending.  Returns how many. */
static int64_t faces_by_row(const sq_fault *f, const int64_t *row, const int *pick, int64_t *face, int64_t *face_row) {
  int64_t n = 0;
  for (int64_t i = 0; i < f->nface; ++i)
    if (!pick || pick[i]) face_row[n] = row[i], face[n++] = i;
  int64_t *pair = malloc(sizeof(int64_t) * 2 * (size_t)(n + 1)); /* (row, face), sorted by row */
  if (!pair) return -1;
  for (int64_t k = 0; k < n; ++k) pair[2 * k] = face_row[k], pair[2 * k + 1] = face[k];
  qsort(pair, n, 2 * sizeof(int64_t), cmp_i64);
  for (int64_t k = 0; k < n; ++k) face_row[k] = pair[2 * k], face[k] = pair[2 * k + 1];
  free(pair);
  return n;
}

/* The faces this rank writes (its "-" sides) and their rows. */
static int own_rows(sq_fault_output *o) {
  const sq_fault *f = o->f;
  int64_t *row = NULL;
  int *mine = NULL;
  SQ_CALL(fault_rows(f, o->nranks, &row, &o->nglobal));
  const int64_t n = f->nface > 0 ? f->nface : 1;
  int ierr = SQ_CALLOC(o->own_face, n);
  if (!ierr) ierr = SQ_CALLOC(o->own_row, n);
  if (!ierr) ierr = SQ_CALLOC(mine, n);
  for (int64_t i = 0; !ierr && i < f->nface; ++i) mine[i] = f->face[i].owned[0];
  if (!ierr) o->nown = faces_by_row(f, row, mine, o->own_face, o->own_row);
  if (!ierr && o->nown < 0)
    ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory numbering the fault faces");
  if (!ierr) ierr = SQ_CALLOC(o->values, (o->nown > 0 ? o->nown : 1) * SQ_XDMF_MAX_FIELDS);
  SQ_FREE(mine);
  SQ_FREE(row);
  return ierr;
}

/* SeisSol's fault output groups (OutputMask, fault.output_mask) and their columns */
static const char *const ss_group_cols[12][3] = {{"SRs", "SRd", NULL}, {"T_s", "T_d", "P_n"}, {"u_n", NULL, NULL},
                                                 {"Mud", "StV", NULL}, {"Ts0", "Td0", "Pn0"}, {"Sls", "Sld", NULL},
                                                 {"Vr", NULL, NULL},   {"ASl", NULL, NULL},   {"PSR", NULL, NULL},
                                                 {"RT", NULL, NULL},   {"DS", NULL, NULL},    {"P_f", "Tmp", NULL}};

/* The dip sign of SeisSol's files: +1 where the fault frame is SeisSol's (fault.reference_convention:
 * seissol), -1 where fault.reference_point follows the native convention (docs/RUPTURE.md). */
static double seissol_dip_sign(const sq_fault_output *o) {
  return o->cfg->fault.reference_convention == SQ_FAULT_REF_SEISSOL ? 1.0 : -1.0;
}

/* The face average of the points' initial traction (normal, strike, dip), with the face rule's weights. */
static void face_traction0(const sq_fault *f, int64_t i, double t0[3]) {
  double wsum = 0.0;
  t0[0] = t0[1] = t0[2] = 0.0;
  for (int p = 0; p < f->npoint; ++p) {
    wsum += f->chi_weight[p];
    for (int c = 0; c < 3; ++c) t0[c] += f->chi_weight[p] * f->point[i * f->npoint + p].traction0[c];
  }
  for (int c = 0; c < 3; ++c) t0[c] /= wsum;
}

/* The snapshot in SeisSol's names (output.style: seissol): the groups fault.output_mask selects, each face's
 * average, with SeisSol's dip sign and its T_s, T_d, P_n (changes) and Ts0, Td0, Pn0 (totals). */
static int snapshot_seissol(sq_fault_output *o) {
  const char *names[SQ_XDMF_MAX_FIELDS];
  const double *col[SQ_XDMF_MAX_FIELDS];
  const double sd = seissol_dip_sign(o);
  const int64_t n = o->nown;
  int nf = 0;
  for (int g = 0; g < 12; ++g)
    for (int c = 0; (o->cfg->fault.output_mask >> g & 1) && c < 3 && ss_group_cols[g][c]; ++c) {
      names[nf] = ss_group_cols[g][c];
      col[nf] = o->values + (size_t)nf * (n > 0 ? n : 1);
      ++nf;
    }
  for (int64_t k = 0; k < n; ++k) {
    double v[FV_N], t0[3];
    face_values(o->f, o->d, o->own_face[k], v);
    face_traction0(o->f, o->own_face[k], t0);
    const double rt = v[FV_RT] < 0 ? 0.0 : v[FV_RT];
    const double val[12][3] = {{v[FV_SRS], sd * v[FV_SRD]},
                               {v[FV_TS] - t0[1], sd * (v[FV_TD] - t0[2]), v[FV_PN] - t0[0]},
                               {0.0},
                               {v[FV_MU], v[FV_STATE]},
                               {v[FV_TS], sd * v[FV_TD], v[FV_PN]},
                               {v[FV_SLS], sd * v[FV_SLD]},
                               {v[FV_VR]},
                               {v[FV_SL]},
                               {v[FV_PSR]},
                               {rt},
                               {0.0},
                               {v[FV_PF], v[FV_TMP]}};
    int j = 0;
    for (int g = 0; g < 12; ++g)
      for (int c = 0; (o->cfg->fault.output_mask >> g & 1) && c < 3 && ss_group_cols[g][c]; ++c, ++j)
        ((double *)col[j])[k] = val[g][c] + 0.0;
  }
  const sq_rows rows = {.n = n, .id = o->own_row};
  return sq_xdmf_write(o->xdmf, o->time, nf, names, col, SQ_XDMF_CELL, &rows);
}

static int snapshot(sq_fault_output *o) {
  if (!o->xdmf) return SQ_SUCCESS;
  if (o->cfg->output_style == SQ_OUTPUT_STYLE_SEISSOL) return snapshot_seissol(o);
  double v[FV_N];
  for (int64_t k = 0; k < o->nown; ++k) {
    face_values(o->f, o->d, o->own_face[k], v);
    for (int j = 0; j < FV_N; ++j) o->values[j * o->nown + k] = v[j];
  }
  const double *col[FV_N];
  for (int j = 0; j < FV_N; ++j) col[j] = o->values + j * o->nown;
  const sq_rows rows = {.n = o->nown, .id = o->own_row};
  return sq_xdmf_write(o->xdmf, o->time, fv_count(o->cfg), fv_names, col, SQ_XDMF_CELL, &rows);
}

/* Open the fault's XDMF series: each rank writes the triangles of its faces (three unshared vertices
 * each: simple and exact). */
static int open_xdmf(sq_fault_output *o, int64_t snapshots) {
  const sq_fault *f = o->f;
  const sq_disc *d = o->d;
  const sq_config *cfg = o->cfg;
  const int64_t n = o->nown;
  double *geom = malloc(sizeof(double) * 9 * (size_t)(n + 1));
  int64_t *tri = malloc(sizeof(int64_t) * 3 * (size_t)(n + 1)), *node = malloc(sizeof(int64_t) * 3 * (size_t)(n + 1));
  SQ_CHECK(geom && tri && node, SQ_ERR_MEMORY, "out of memory opening the fault output");
  for (int64_t k = 0; k < n; ++k) {
    const sq_fault_face *fc = &f->face[o->own_face[k]];
    const int64_t c = d->cell_of[fc->elem[0]];
    for (int v = 0; v < 3; ++v) {
      node[3 * k + v] = tri[3 * k + v] = 3 * o->own_row[k] + v;
      for (int x = 0; x < 3; ++x)
        geom[9 * k + 3 * v + x] =
            d->mesh->vert[d->mesh->cell_vert[c * 4 + sq_ref_face_vertices[fc->face[0]][v]] * 3 + x];
    }
  }
  const sq_rows node_rows = {.n = 3 * n, .id = node}, face_rows = {.n = n, .id = o->own_row};
  const int ierr =
      sq_xdmf_open_style(cfg->output_dir, cfg->output_prefix, "fault", 3 * o->nglobal, geom, &node_rows, o->nglobal, 3,
                         tri, &face_rows, cfg->output_style == SQ_OUTPUT_STYLE_SEISSOL, snapshots, &o->xdmf);
  free(geom), free(tri), free(node);
  return ierr;
}

/* Down-dip distance of x from the free surface z = 0 along the fault face of frame `fr` (n, s, d; d points
 * down): its depth over sin(dip).  A vertical fault gives the depth; a horizontal one has no down-dip
 * direction out of the surface and gives the depth too. */
static double station_down_dip(const double x[3], const double fr[9]) {
  const double sin_dip = -fr[8];
  return sin_dip > 1e-6 ? -x[2] / sin_dip : -x[2];
}

/* SCEC's station name: along-strike and down-dip distances in hectometres (TPV12/13 name stations of a
 * dipping fault by the distance down the fault, not by depth). */
static void station_name(const double x[3], const double fr[9], char *out, size_t len) {
  const double st = x[0] * fr[3] + x[1] * fr[4] + x[2] * fr[5];
  const int h = (int)lround(st / 100.0), dp = (int)lround(station_down_dip(x, fr) / 100.0);
  snprintf(out, len, "faultst%s%03ddp%03d", h < 0 ? "-" : "", abs(h), dp);
}

/* Cut a station file to its header and the first `rows` data rows (a restart continues it). */
static int continue_file(const char *path, int64_t rows) {
  FILE *f = fopen(path, "r");
  SQ_CHECK(f, SQ_ERR_IO, "cannot open '%s' to continue it: %s", path, strerror(errno));
  int64_t header = 0;
  char line[4096];
  while (fgets(line, sizeof(line), f) && !(line[0] == '-' || line[0] == '+' || (line[0] >= '0' && line[0] <= '9')))
    ++header;
  fclose(f);
  return sq_text_truncate(path, header, rows);
}

/* Open station k's file for writing: new (header written by the caller) or continued after `keep` rows. */
static FILE *open_station_file(const char *path, int64_t keep, int *ierr) {
  *ierr = keep >= 0 ? continue_file(path, keep) : SQ_SUCCESS;
  if (*ierr) return NULL;
  FILE *f = fopen(path, keep >= 0 ? "a" : "w");
  if (!f) *ierr = sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s", path, strerror(errno));
  return f;
}

/* ---- SeisSol's fault receivers (output.style: seissol) ---- */

static int rank_of(const sq_fault_output *o) {
  int r = 0;
  if (o->nranks > 1) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

/* A station's initial traction and d_c, interpolated as its values are (sq_fault_station_row). */
static void station_static(const sq_fault_output *o, struct station *st) {
  const sq_fault *f = o->f;
  const sq_fault_station *fs = &f->station[st->index];
  const sq_fault_point *pts = f->point + st->face * f->npoint;
  for (int c = 0; c < 3; ++c) st->init[c] = 0.0;
  st->d_c = 0.0;
  for (int i = 0; i < f->npoint; ++i) {
    const double w = fs->point >= 0 ? (i == fs->point) : fs->weight[i];
    for (int c = 0; c < 3; ++c) st->init[c] += w * pts[i].traction0[c];
    st->d_c += w * pts[i].param.d_c;
  }
}

static void seissol_header(const sq_fault_output *o, const struct station *st, int k, const double x[3]) {
  FILE *fp = st->seissol;
  fprintf(fp, "TITLE = \"Temporal Signal for fault receiver number %d\"\nVARIABLES = \"Time\"", k + 1);
  for (int g = 0; g < 12; ++g)
    for (int c = 0; (o->cfg->fault.output_mask >> g & 1) && c < 3 && ss_group_cols[g][c]; ++c)
      fprintf(fp, " ,\"%s\"", ss_group_cols[g][c]);
  fprintf(fp, "\n# x1\t%.16e\n# x2\t%.16e\n# x3\t%.16e\n", x[0], x[1], x[2]);
  fprintf(fp, "# P_0\t%.16e\n# T_s\t%.16e\n# T_d\t%.16e\n", st->init[0], st->init[1],
          seissol_dip_sign(o) * st->init[2]);
}

/* One SeisSol row from a log row r (t, SRs, SRd, Ts, Td, Pn, mu, state, Sls, Sld, ASl, PSR, RT): T_s, T_d,
 * P_n are the changes from the initial traction, Ts0, Td0, Pn0 the totals (SeisSol's fault-output.rst). */
static void seissol_row(const sq_fault_output *o, struct station *st, const double *r) {
  const double sd = seissol_dip_sign(o);
  if (o->cfg->fault.law == SQ_FRICTION_LSW && st->ds <= 0 && st->d_c > 0 && r[10] >= st->d_c) st->ds = r[0];
  /* Vr: the face's rupture velocity (its fitted plane), once the row says every point of the face has
   * ruptured (RT >= 0); those rupture times never change again, so the value is kept from then on */
  if ((o->cfg->fault.output_mask >> 6 & 1) && st->vr <= 0 && r[12] >= 0) {
    double v[FV_N];
    face_values(o->f, o->d, st->face, v);
    st->vr = v[FV_VR];
  }
  const double vr = r[12] >= 0 ? st->vr : 0.0;
  const double val[12][3] = {{r[1], sd * r[2] + 0.0},
                             {r[3] - st->init[1], sd * (r[4] - st->init[2]), r[5] - st->init[0]},
                             {0.0},
                             {r[6], r[7]},
                             {r[3], sd * r[4], r[5]},
                             {r[8], sd * r[9]},
                             {vr},
                             {r[10]},
                             {r[11]},
                             {r[12] < 0 ? 0.0 : r[12]},
                             {st->ds},
                             {r[13], r[14]}};
  fprintf(st->seissol, "%.16e\t", r[0]);
  for (int g = 0; g < 12; ++g)
    for (int c = 0; (o->cfg->fault.output_mask >> g & 1) && c < 3 && ss_group_cols[g][c]; ++c)
      fprintf(st->seissol, "%.16e\t", val[g][c] + 0.0); /* + 0.0: no "-0" from a flipped zero */
  fputc('\n', st->seissol);
}

/* A restart continues DS and Vr from the last row the file keeps (their columns as the mask places them). */
static int seissol_resume(const sq_fault_output *o, const char *path, struct station *st) {
  const int mask = o->cfg->fault.output_mask;
  int col = 1, col_vr = -1, col_ds = -1; /* column 0: Time */
  for (int g = 0; g < 12; ++g) {
    if (!(mask >> g & 1)) continue;
    if (g == 6) col_vr = col;
    if (g == 10) col_ds = col;
    for (int c = 0; c < 3 && ss_group_cols[g][c]; ++c) ++col;
  }
  if (col_vr < 0 && col_ds < 0) return SQ_SUCCESS;
  FILE *f = fopen(path, "r");
  SQ_CHECK(f, SQ_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
  char line[4096], last[4096] = "";
  while (fgets(line, sizeof(line), f))
    if (line[0] == '-' || (line[0] >= '0' && line[0] <= '9')) memcpy(last, line, sizeof(last));
  fclose(f);
  int n = 0;
  for (char *tok = strtok(last, "\t\n"); tok; tok = strtok(NULL, "\t\n"), ++n) {
    if (n == col_vr) st->vr = strtod(tok, NULL);
    if (n == col_ds) st->ds = strtod(tok, NULL);
  }
  SQ_CHECK(n == col, SQ_ERR_INPUT,
           "%s: its last row holds %d values, not %d: was it written with another fault.output_mask?", path, n, col);
  return SQ_SUCCESS;
}

static int open_stations(sq_fault_output *o, const int64_t *keep) {
  const sq_config *cfg = o->cfg;
  const sq_fault *f = o->f;
  o->nstation = cfg->fault.nstations;
  SQ_CALL(SQ_CALLOC(o->station, o->nstation + 1));
  for (int k = 0; k < o->nstation; ++k) {
    const double *x = cfg->fault.stations[k];
    struct station *st = &o->station[k];
    st->face = -1; /* sq_fault_create placed the station on the face holding it, if that face is ours */
    for (int i = 0; i < f->nlocal_station && st->face < 0; ++i)
      if (f->station[i].id == k) st->face = f->station[i].face, st->index = i;
    int found = st->face >= 0;
    if (o->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, &found, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (!found) { /* only for the message: how far the nearest fault face is */
      int64_t face;
      double chi[2], dist;
      sq_fault_locate(f, o->d, x, &face, chi, &dist);
      if (o->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, &dist, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
      return sq_error_once(
          SQ_ERR_INPUT, __FILE__, __LINE__,
          "%s:%d: fault.stations[%d] (%g, %g, %g) is not on the fault (the nearest fault face is %g m away)", cfg->path,
          cfg->fault.station_line[k], k, x[0], x[1], x[2], dist);
    }
    if (st->face < 0) continue;
    const sq_fault_face *fc = &f->face[st->face];
    char name[64], path[SQ_PATH_MAX + 400];
    station_name(x, fc->frame, name, sizeof(name));
    snprintf(path, sizeof(path), "%s/%s-%s", cfg->output_dir, cfg->output_prefix, name);
    int ierr;
    const int64_t kept = keep ? keep[k] : -1;
    st->rows = kept > 0 ? kept : 0;
    st->scec = open_station_file(path, kept, &ierr);
    SQ_CALL(ierr);
    const int rs = cfg->fault.law != SQ_FRICTION_LSW && !sq_friction_is_kinematic((sq_friction_law)cfg->fault.law);
    if (kept < 0)
      fprintf(st->scec,
              "# problem=%s\n# author=starquake\n# code=starquake\n# code_version=%s\n# element_size=see mesh\n"
              "# time_step=%.6e\n# num_time_steps=%lld\n# location= %.1f km along strike, %.1f km down-dip\n"
              "# depth= %.1f km\n"
              "# Column #1 = Time (s)\n# Column #2 = horizontal slip (m)\n# Column #3 = horizontal slip rate (m/s)\n"
              "# Column #4 = horizontal shear stress (MPa)\n# Column #5 = vertical slip (m)\n"
              "# Column #6 = vertical slip rate (m/s)\n# Column #7 = vertical shear stress (MPa)\n"
              "# Column #8 = normal stress (MPa)\n%s"
              "# horizontal = along strike s = n x e_z; vertical = up-dip (-d); normal stress positive in tension\n"
              "t h-slip h-slip-rate h-shear-stress v-slip v-slip-rate v-shear-stress n-stress%s\n",
              cfg->output_prefix, SQ_VERSION, o->dt, (long long)o->nsteps,
              (x[0] * fc->frame[3] + x[1] * fc->frame[4] + x[2] * fc->frame[5]) / 1000.0,
              station_down_dip(x, fc->frame) / 1000.0, -x[2] / 1000.0,
              rs ? "# Column #9 = log10(state variable)\n" : "", rs ? " psi" : "");
    if (cfg->output_style == SQ_OUTPUT_STYLE_SEISSOL) {
      station_static(o, st);
      snprintf(path, sizeof(path), "%s/%s-faultreceiver-%05d-%05d.dat", cfg->output_dir, cfg->output_prefix, k + 1,
               rank_of(o));
      st->seissol = open_station_file(path, kept, &ierr);
      SQ_CALL(ierr);
      if (kept < 0) seissol_header(o, st, k, x);
      if (kept > 0) SQ_CALL(seissol_resume(o, path, st));
      continue;
    }
    snprintf(path, sizeof(path), "%s/%s-faultreceiver-%05d.dat", cfg->output_dir, cfg->output_prefix, k + 1);
    st->seissol = open_station_file(path, kept, &ierr);
    SQ_CALL(ierr);
    if (kept < 0) /* the station's own position: its values are interpolated there (sq_fault_station_row) */
      fprintf(st->seissol,
              "TITLE = \"starquake fault receiver %d\"\nVARIABLES = \"Time\" \"SRs\" \"SRd\" \"T_s\" \"T_d\" \"P_n\" "
              "\"Mud\" \"StV\" \"Sls\" \"Sld\" \"ASl\" \"PSR\" \"RT\"%s\n# x1 %.10e\n# x2 %.10e\n# x3 %.10e\n",
              k + 1, cfg->fault.thermal_pressurization ? " \"P_f\" \"Tmp\"" : "", x[0], x[1], x[2]);
  }
  return SQ_SUCCESS;
}

/* One row of both station formats from a log row (t, SRs, SRd, Ts, Td, Pn, mu, state, Sls, Sld, ASl, PSR, RT). */
static void station_write(const sq_fault_output *o, const struct station *st, const double *r) {
  const int rs = o->cfg->fault.law != SQ_FRICTION_LSW && !sq_friction_is_kinematic((sq_friction_law)o->cfg->fault.law);
  fprintf(st->scec, "%.10e %.10e %.10e %.10e %.10e %.10e %.10e %.10e", r[0], r[8], r[1], 1e-6 * r[3], -r[9], -r[2],
          -1e-6 * r[4], 1e-6 * r[5]);
  if (rs) fprintf(st->scec, " %.10e", r[7] > 0 ? log10(r[7]) : r[7]);
  fputc('\n', st->scec);
  if (o->cfg->output_style == SQ_OUTPUT_STYLE_SEISSOL) seissol_row(o, (struct station *)st, r);
  else {
    fprintf(st->seissol, "%.10e", r[0]);
    const int ncol = o->cfg->fault.thermal_pressurization ? SQ_FAULT_LOG_COLS : SQ_FAULT_LOG_COLS - 2;
    for (int c = 1; c < ncol; ++c) fprintf(st->seissol, " %.10e", r[c]);
    fputc('\n', st->seissol);
  }
  ++((struct station *)st)->rows;
}

/* Write the rows the rupture tasks logged since the last call (every step of the fault's cluster),
 * thinned to fault.station_interval; `initial`: the row at the start from the initial state. */
static void station_rows(sq_fault_output *o, int initial) {
  const sq_fault *f = o->f;
  const double every = o->cfg->fault.station_interval;
  for (int k = 0; k < o->nstation; ++k) {
    struct station *st = &o->station[k];
    if (st->face < 0) continue;
    if (initial) {
      double r[SQ_FAULT_LOG_COLS];
      sq_fault_record_stations(f->npoint, 1, &f->station[st->index], 0, f->point, o->time, r);
      station_write(o, st, r);
      st->next = o->time + every;
      continue;
    }
    sq_fault_station_log *log = &f->log[k];
    for (int64_t i = 0; i < log->n; ++i) {
      const double *r = log->rows + i * SQ_FAULT_LOG_COLS;
      if (r[0] + 1e-9 * every < st->next) continue;
      station_write(o, st, r);
      st->next = every > 0 ? st->next + every * floor((r[0] - st->next) / every + 1.0 + 1e-9) : r[0];
    }
    log->n = 0;
    fflush(st->scec);
    fflush(st->seissol);
  }
}

static int read_counts(const char *path, int nstation, int64_t *snapshots, int64_t *rows, double *next);

int sq_fault_output_open(sq_fault *f, const sq_disc *d, const sq_config *cfg, int rank, int nranks, double time,
                         int64_t nsteps, double dt, const char *restart, sq_fault_output **out) {
  *out = NULL;
  if (!f) return SQ_SUCCESS;
  sq_fault_output *o;
  SQ_CALL(SQ_CALLOC(o, 1));
  *out = o;
  o->f = f;
  o->d = d;
  o->cfg = cfg;
  o->root = rank == 0;
  o->nranks = nranks;
  o->time = time;
  o->dt = dt;
  o->nsteps = nsteps;
  int64_t snapshots = -1, keep[SQ_MAX_FAULT_STATIONS];
  double next[SQ_MAX_FAULT_STATIONS];
  if (restart) SQ_CALL(read_counts(restart, cfg->fault.nstations, &snapshots, keep, next));
  SQ_CALL(own_rows(o));
  if (cfg->output_format == SQ_OUTPUT_XDMF) SQ_CALL(open_xdmf(o, snapshots));
  SQ_CALL(open_stations(o, restart ? keep : NULL));
  if (restart) {
    for (int k = 0; k < o->nstation; ++k) o->station[k].next = next[k];
    return SQ_SUCCESS;
  }
  station_rows(o, 1);
  return snapshot(o);
}

/* ---------------------------------------------------------------------------- checkpoints */

void sq_fault_checkpoint_path(const char *ckpt, char *out, size_t len) { snprintf(out, len, "%s.fault", ckpt); }

/*
 * The layout of the fault checkpoint's per-point data, one row per fault point:
 *   state     SQ_FRICTION_STATE_SAVED doubles (slip .. work of sq_friction_state), every run: the layout of
 *             the checkpoints written before the optional datasets below existed, which therefore still load;
 *   sigma_pc  the Prakash-Clifton normal stress sigma*, only with the regularisation on (fault.pc_length > 0);
 *   tp        temperature, pore pressure and the SQ_TP_MAX_POINTS Theta_k and Pi_k (sq_tp_state), only with
 *             thermal pressurization.
 * Fields a run does not write keep the values sq_friction_init_state gives them on a restart.
 */
enum { TP_COLS = 2 + 2 * SQ_TP_MAX_POINTS };

/* Does the run carry thermal-pressurization state (the same answer on every rank: some may hold no face)? */
static int fault_has_tp(const sq_fault *f, int nranks) {
  int tp = f->tp != NULL;
  if (nranks > 1) MPI_Allreduce(MPI_IN_PLACE, &tp, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return tp;
}

/* Point @p i's values into (@p to_file) or from one row of each per-point dataset. */
static void point_rows(sq_fault *f, int64_t i, int to_file, double *state, double *sigma_pc, double *tp) {
  sq_friction_state *s = &f->point[i].state;
  if (to_file) {
    memcpy(state, s, sizeof(double) * SQ_FRICTION_STATE_SAVED);
    if (sigma_pc) *sigma_pc = s->sigma_pc;
    if (tp) {
      tp[0] = s->temperature, tp[1] = s->pressure;
      memcpy(tp + 2, &f->tp[i], sizeof(sq_tp_state));
    }
    return;
  }
  memcpy(s, state, sizeof(double) * SQ_FRICTION_STATE_SAVED);
  if (sigma_pc) s->sigma_pc = *sigma_pc;
  if (tp) {
    s->temperature = tp[0], s->pressure = tp[1];
    memcpy(&f->tp[i], tp + 2, sizeof(sq_tp_state));
  }
}

/* The friction state of every fault point, the station rows and the fault snapshots written so far,
 * in PATH (a file next to the main checkpoint): each rank writes the faces whose "-" side it owns. */
int sq_fault_checkpoint_write(const sq_fault_output *o, const char *path, int64_t step) {
  if (!o) return SQ_SUCCESS;
  sq_fault *f = o->f;
  const int ns = SQ_FRICTION_STATE_SAVED, np = f->npoint;
  const int pc = f->opt.pc_length > 0, tp = fault_has_tp(f, o->nranks);
  const int64_t n = o->nown;
  const size_t npt = (size_t)(n * np + 1);
  int64_t *gid = malloc(sizeof(int64_t) * (size_t)(n + 1)), *point_row = malloc(sizeof(int64_t) * npt);
  double *state = malloc(sizeof(double) * npt * ns), *sigma_pc = pc ? malloc(sizeof(double) * npt) : NULL;
  double *tps = tp ? malloc(sizeof(double) * npt * TP_COLS) : NULL;
  int ok = gid && point_row && state && (!pc || sigma_pc) && (!tp || tps);
  if (o->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!ok) {
    free(gid), free(point_row), free(state), free(sigma_pc), free(tps);
    return sq_error_once(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory writing the fault checkpoint '%s'", path);
  }
  for (int64_t k = 0; k < n; ++k) {
    const int64_t i = o->own_face[k];
    gid[k] = f->face[i].gid;
    for (int p = 0; p < np; ++p) {
      const int64_t q = k * np + p;
      point_row[q] = o->own_row[k] * np + p; /* the state has one row per fault point */
      point_rows(f, i * np + p, 1, state + q * ns, pc ? sigma_pc + q : NULL, tp ? tps + q * TP_COLS : NULL);
    }
  }
  int64_t rows[SQ_MAX_FAULT_STATIONS + 1] = {0};
  double next[SQ_MAX_FAULT_STATIONS + 1] = {0};
  for (int k = 0; k < o->nstation; ++k) rows[k] = o->station[k].rows, next[k] = o->station[k].next;
  if (o->nranks > 1) { /* each station lives on one rank; the others hold 0 */
    MPI_Allreduce(MPI_IN_PLACE, rows, SQ_MAX_FAULT_STATIONS, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, next, SQ_MAX_FAULT_STATIONS, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  int64_t snapshots = sq_xdmf_count(o->xdmf);
  const int64_t nst = o->nstation > 0 ? o->nstation : 1;
  const sq_rows faces = {.n = n, .id = o->own_row}, points = {.n = n * np, .id = point_row};
  sq_h5_set sets[8] = {{"gid", 1, o->nglobal, 0, &faces, gid},  {"state", 0, o->nglobal * np, ns, &points, state},
                       {"station_rows", 1, nst, 0, NULL, rows}, {"station_next", 0, nst, 0, NULL, next},
                       {"step", 1, 1, 0, NULL, &step},          {"snapshots", 1, 1, 0, NULL, &snapshots}};
  int nset = 6;
  if (pc) sets[nset++] = (sq_h5_set){"sigma_pc", 0, o->nglobal * np, 0, &points, sigma_pc};
  if (tp) sets[nset++] = (sq_h5_set){"tp", 0, o->nglobal * np, TP_COLS, &points, tps};
  const int ierr = sq_h5_file_write(path, "the fault checkpoint", nset, sets);
  free(gid), free(point_row), free(state), free(sigma_pc), free(tps);
  return ierr;
}

static int read_counts(const char *path, int nstation, int64_t *snapshots, int64_t *rows, double *next) {
  const sq_h5_set sets[] = {{"snapshots", 1, 1, 0, NULL, snapshots},
                            {"station_rows", 1, nstation, 0, NULL, rows},
                            {"station_next", 0, nstation, 0, NULL, next}};
  return sq_h5_file_read(path, "the fault checkpoint", nstation > 0 ? 3 : 1, sets);
}

int sq_fault_checkpoint_read(sq_fault *f, int nranks, const char *path, int64_t step) {
  if (!f) return SQ_SUCCESS;
  const int ns = SQ_FRICTION_STATE_SAVED, np = f->npoint;
  const int pc = f->opt.pc_length > 0, tp = fault_has_tp(f, nranks);
  int64_t saved_step = -1;
  const sq_h5_set step_set = {"step", 1, 1, 0, NULL, &saved_step};
  SQ_CALL(sq_h5_file_read(path, "the fault checkpoint", 1, &step_set));
  if (saved_step != step)
    return sq_error_once(SQ_ERR_INPUT, __FILE__, __LINE__,
                         "the fault checkpoint '%s' is of step %lld, the checkpoint "
                         "of step %lld: the run stopped while writing them; use an older pair",
                         path, (long long)saved_step, (long long)step);
  /* every local face (either side ours) reads its row by global id: any partition restarts */
  int64_t *row = NULL, nglobal = 0;
  SQ_CALL(fault_rows(f, nranks, &row, &nglobal));
  const size_t nf = (size_t)f->nface + 1;
  int64_t *face = malloc(sizeof(int64_t) * nf), *face_row = malloc(sizeof(int64_t) * nf);
  int64_t *gid = malloc(sizeof(int64_t) * nf), *point_row = malloc(sizeof(int64_t) * nf * np);
  double *state = malloc(sizeof(double) * nf * np * ns), *sigma_pc = pc ? malloc(sizeof(double) * nf * np) : NULL;
  double *tps = tp ? malloc(sizeof(double) * nf * np * TP_COLS) : NULL;
  int ok = face && face_row && gid && point_row && state && (!pc || sigma_pc) && (!tp || tps) &&
           faces_by_row(f, row, NULL, face, face_row) == f->nface;
  if (nranks > 1) MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  int ierr = ok ? SQ_SUCCESS
                : sq_error_once(SQ_ERR_MEMORY, __FILE__, __LINE__,
                                "out of memory reading the fault "
                                "checkpoint '%s'",
                                path);
  for (int64_t k = 0; ok && k < f->nface; ++k)
    for (int p = 0; p < np; ++p) point_row[k * np + p] = face_row[k] * np + p;
  const sq_rows faces = {.n = f->nface, .id = face_row}, points = {.n = f->nface * np, .id = point_row};
  sq_h5_set sets[4] = {{"gid", 1, nglobal, 0, &faces, gid}, {"state", 0, nglobal * np, ns, &points, state}};
  int nset = 2;
  if (pc) sets[nset++] = (sq_h5_set){"sigma_pc", 0, nglobal * np, 0, &points, sigma_pc};
  if (tp) sets[nset++] = (sq_h5_set){"tp", 0, nglobal * np, TP_COLS, &points, tps};
  if (!ierr) ierr = sq_h5_file_read(path, "the fault checkpoint", nset, sets);
  int64_t wrong = -1; /* a face of this run the checkpoint holds another face in place of */
  for (int64_t k = 0; !ierr && k < f->nface && wrong < 0; ++k)
    if (gid[k] != f->face[face[k]].gid) wrong = f->face[face[k]].gid;
  if (!ierr && nranks > 1) MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  if (!ierr && wrong >= 0)
    ierr = sq_error_once(SQ_ERR_INPUT, __FILE__, __LINE__,
                         "the fault checkpoint '%s' lacks fault face %lld (mesh "
                         "cell %lld face %lld); restart with the mesh and configuration that wrote it",
                         path, (long long)wrong, (long long)(wrong / 4), (long long)(wrong % 4));
  for (int64_t k = 0; !ierr && k < f->nface; ++k)
    for (int p = 0; p < np; ++p) {
      const int64_t q = k * np + p;
      point_rows(f, face[k] * np + p, 0, state + q * ns, pc ? sigma_pc + q : NULL, tp ? tps + q * TP_COLS : NULL);
    }
  free(face), free(face_row), free(gid), free(point_row), free(state), free(sigma_pc), free(tps);
  SQ_FREE(row);
  return ierr;
}

int sq_fault_output_after(sq_fault_output *o, double time, int snapshot_due) {
  if (!o) return SQ_SUCCESS;
  o->time = time;
  station_rows(o, 0);
  if (snapshot_due) SQ_CALL(snapshot(o));
  return SQ_SUCCESS;
}

static int cmp_cplot(const void *a, const void *b) {
  const double *x = a, *y = b;
  for (int k = 0; k < 3; ++k)
    if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
  return 0;
}

int sq_fault_output_close(sq_fault_output *o) {
  if (!o) return SQ_SUCCESS;
  int ierr = SQ_SUCCESS;
  /* rupture-time contours (SCEC cplot): every ruptured point, along strike and down dip, in metres */
  const sq_fault *f = o->f;
  const sq_config *cfg = o->cfg;
  int64_t n = 0;
  for (int64_t i = 0; i < f->nface; ++i)
    if (f->face[i].owned[0])
      for (int p = 0; p < f->npoint; ++p) n += f->point[i * f->npoint + p].state.rupture_time >= 0;
  double *mine = malloc(sizeof(double) * 3 * (n + 1));
  int64_t r = 0;
  for (int64_t i = 0; i < f->nface; ++i) {
    if (!f->face[i].owned[0]) continue;
    for (int p = 0; p < f->npoint; ++p) {
      const double t = f->point[i * f->npoint + p].state.rupture_time;
      if (t < 0) continue;
      double x[3];
      sq_fault_point_position(f, o->d, i, p, x);
      const double *fr = f->face[i].frame;
      mine[3 * r] = x[0] * fr[3] + x[1] * fr[4] + x[2] * fr[5];
      mine[3 * r + 1] = x[0] * fr[6] + x[1] * fr[7] + x[2] * fr[8];
      mine[3 * r + 2] = t;
      ++r;
    }
  }
  int count = (int)(3 * n), *counts = NULL, *displs = NULL, total = count;
  double *all = mine;
  if (o->nranks > 1) {
    counts = malloc(sizeof(int) * o->nranks), displs = malloc(sizeof(int) * o->nranks);
    MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (o->root) {
      total = 0;
      for (int k = 0; k < o->nranks; ++k) displs[k] = total, total += counts[k];
      all = malloc(sizeof(double) * (total + 1));
    }
    MPI_Gatherv(mine, count, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    free(counts), free(displs);
  }
  if (o->root) {
    char path[SQ_PATH_MAX + 300];
    snprintf(path, sizeof(path), "%s/%s-cplot", cfg->output_dir, cfg->output_prefix);
    FILE *fp = fopen(path, "w");
    if (!fp) ierr = sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s", path, strerror(errno));
    else {
      fprintf(fp,
              "# problem=%s\n# code=starquake %s\n# Column #1 = Distance along strike (m)\n"
              "# Column #2 = Distance down-dip (m)\n# Column #3 = Rupture time (s)\nj k t\n",
              cfg->output_prefix, SQ_VERSION);
      qsort(all, total / 3, 3 * sizeof(double), cmp_cplot); /* the same file on any number of ranks */
      for (int i = 0; i < total / 3; ++i) fprintf(fp, "%.6e %.6e %.6e\n", all[3 * i], all[3 * i + 1], all[3 * i + 2]);
      fclose(fp);
    }
  }
  if (all != mine) free(all);
  free(mine);
  for (int k = 0; k < o->nstation; ++k) {
    if (o->station[k].scec) fclose(o->station[k].scec);
    if (o->station[k].seissol) fclose(o->station[k].seissol);
  }
  SQ_FREE(o->station);
  sq_xdmf_close(o->xdmf);
  SQ_FREE(o->own_face);
  SQ_FREE(o->own_row);
  SQ_FREE(o->values);
  SQ_FREE(o);
  return ierr;
}
