/**
 * @file postseismic_io.c  Slip patches, a rupture's final slip per fault face, GPS-like stations and surface
 * snapshots of the post-seismic solver (sq_postseismic_io.h).
 */
#include "sq_postseismic_io.h"

#include "output_impl.h"
#include "sq_common.h"
#include "sq_ref.h"
#include "sq_source_io.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI     3.14159265358979323846
#define MAXTOK 16

/* ---- text lines --------------------------------------------------------------------------------- */

typedef struct {
  FILE *f;
  const char *path;
  char *buf;
  size_t cap;
  int line;
  int ntok;
  char *tok[MAXTOK];
} text_reader;

static int text_open(text_reader *r, const char *path, const char *what) {
  memset(r, 0, sizeof(*r));
  r->path = path;
  r->f = fopen(path, "r");
  if (!r->f) return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot open the %s '%s': %s", what, path, strerror(errno));
  return SQ_SUCCESS;
}

static void text_close(text_reader *r) {
  if (r->f) fclose(r->f);
  free(r->buf);
  r->f = NULL, r->buf = NULL;
}

/* The next line with content, split into tokens (comments after '#' dropped); 0 at the end of the file. */
static int text_next(text_reader *r) {
  for (;;) {
    if (getline(&r->buf, &r->cap, r->f) < 0) return 0;
    ++r->line;
    char *hash = strchr(r->buf, '#');
    if (hash) *hash = 0;
    r->ntok = 0;
    char *save = NULL;
    for (char *t = strtok_r(r->buf, " \t\r\n,", &save); t; t = strtok_r(NULL, " \t\r\n,", &save)) {
      if (r->ntok == MAXTOK) break;
      r->tok[r->ntok++] = t;
    }
    if (r->ntok > 0) return 1;
  }
}

/* Token @p k as a finite number, or an error naming the file, line and @p what. */
static int text_number(const text_reader *r, int k, const char *what, double *v) {
  char *end = NULL;
  errno = 0;
  *v = strtod(r->tok[k], &end);
  if (end == r->tok[k] || *end || errno == ERANGE || !isfinite(*v))
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: %s: '%s' is not a finite number", r->path, r->line, what,
                    r->tok[k]);
  return SQ_SUCCESS;
}

/* Grow *p (of *cap items of @p size) to hold n + 1 items. */
static int grow(void **p, int *cap, int n, size_t size) {
  if (n < *cap) return 0;
  const int nc = *cap ? 2 * *cap : 32;
  void *q = realloc(*p, size * (size_t)nc);
  if (!q) return -1;
  *p = q, *cap = nc;
  return 0;
}

/* ---- slip patches ------------------------------------------------------------------------------ */

int sq_ps_read_patches(const char *path, int *n_out, sq_okada_fault **out, int **line_out) {
  static const char *const names[10] = {"x",      "y",     "depth",       "strike",   "dip",
                                        "length", "width", "strike_slip", "dip_slip", "opening"};
  text_reader r;
  SQ_CALL(text_open(&r, path, "slip file"));
  sq_okada_fault *p = NULL;
  int *line = NULL, n = 0, cap = 0, lcap = 0, centre = 0, ierr = SQ_SUCCESS;
  while (!ierr && text_next(&r)) {
    if (!strcmp(r.tok[0], "reference")) {
      if (r.ntok != 2 || (strcmp(r.tok[1], "top") && strcmp(r.tok[1], "centre") && strcmp(r.tok[1], "center")))
        ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: expected 'reference top' or 'reference centre'", path,
                        r.line);
      else centre = strcmp(r.tok[1], "top") != 0;
      continue;
    }
    if (r.ntok != 9 && r.ntok != 10) {
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s:%d: a patch has 9 or 10 columns (x y depth strike dip length width strike_slip dip_slip "
                      "[opening]), found %d",
                      path, r.line, r.ntok);
      break;
    }
    double v[10] = {0};
    for (int k = 0; !ierr && k < r.ntok; ++k) ierr = text_number(&r, k, names[k], &v[k]);
    if (ierr) break;
    if (!(v[5] > 0) || !(v[6] > 0)) {
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: the length (%g) and width (%g) must be positive", path,
                      r.line, v[5], v[6]);
      break;
    }
    if (v[4] < 0 || v[4] > 90) {
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: dip %g is outside [0, 90] degrees", path, r.line, v[4]);
      break;
    }
    sq_okada_fault f = {.x = v[0],
                        .y = v[1],
                        .depth = v[2],
                        .strike_deg = v[3],
                        .dip_deg = v[4],
                        .length = v[5],
                        .width = v[6],
                        .slip = hypot(v[7], v[8]),
                        .opening = v[9]};
    f.rake_deg = f.slip > 0 ? atan2(v[8], v[7]) * 180 / PI : 0;
    if (centre) { /* from the centre to the top edge's centre: half the width up dip */
      const double a = f.strike_deg * PI / 180, d = f.dip_deg * PI / 180, w = f.width / 2;
      f.x -= w * cos(d) * cos(a), f.y += w * cos(d) * sin(a), f.depth -= w * sin(d);
    }
    if (f.depth < -1e-9 * f.width) {
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s:%d: the patch's top edge is %g m above the surface (depth must be >= 0)", path, r.line,
                      -f.depth);
      break;
    }
    if (f.depth < 0) f.depth = 0;
    if (grow((void **)&p, &cap, n, sizeof(*p)) || grow((void **)&line, &lcap, n, sizeof(int))) {
      ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading '%s'", path);
      break;
    }
    p[n] = f, line[n] = r.line, ++n;
  }
  text_close(&r);
  if (!ierr && n == 0) ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: no patches found", path);
  if (ierr) {
    free(p), free(line);
    return ierr;
  }
  *n_out = n, *out = p;
  if (line_out) *line_out = line;
  else free(line);
  return SQ_SUCCESS;
}

int sq_ps_patches_faces(const sq_okada_fault *patches, int npatch, int64_t nface, const double *xyz, double tol,
                        double *slip, double *normal, int64_t *nhit) {
  int64_t hits = 0;
  for (int64_t f = 0; f < nface; ++f) {
    const double *v = &xyz[9 * f];
    const double c[3] = {(v[0] + v[3] + v[6]) / 3, (v[1] + v[4] + v[7]) / 3, (v[2] + v[5] + v[8]) / 3};
    memset(&slip[3 * f], 0, 3 * sizeof(double));
    if (normal) memset(&normal[3 * f], 0, 3 * sizeof(double));
    for (int k = 0; k < npatch; ++k) {
      const sq_okada_fault *p = &patches[k];
      const double a = p->strike_deg * PI / 180, d = p->dip_deg * PI / 180;
      const double s[3] = {sin(a), cos(a), 0}, dd[3] = {cos(a) * cos(d), -sin(a) * cos(d), -sin(d)};
      double n[3];
      sq_okada_normal(p, n);
      const double r[3] = {c[0] - p->x, c[1] - p->y, c[2] + p->depth};
      const double along = r[0] * s[0] + r[1] * s[1], down = r[0] * dd[0] + r[1] * dd[1] + r[2] * dd[2];
      const double off = r[0] * n[0] + r[1] * n[1] + r[2] * n[2];
      if (fabs(off) > tol || fabs(along) > p->length / 2 + tol || down < -tol || down > p->width + tol) continue;
      for (int i = 0; i < 3; ++i) {
        const double h = (v[3 * i] - p->x) * n[0] + (v[3 * i + 1] - p->y) * n[1] + (v[3 * i + 2] + p->depth) * n[2];
        SQ_CHECK(fabs(h) <= tol, SQ_ERR_INPUT,
                 "fault face %lld (centroid (%g, %g, %g)) is not in the plane of slip patch %d: its vertex %d is %g m "
                 "off it (tolerance %g m)",
                 (long long)f, c[0], c[1], c[2], k + 1, i, h, tol);
      }
      sq_okada_slip_vector(p, &slip[3 * f]);
      if (normal) memcpy(&normal[3 * f], n, sizeof(n));
      ++hits;
      break;
    }
  }
  if (nhit) *nhit = hits;
  return SQ_SUCCESS;
}

/* ---- final slip of a rupture ------------------------------------------------------------------- */

struct sq_ps_fault_slip {
  int64_t n;
  double time;
  double *xyz;    /* 9 a face */
  double *slip;   /* 3 a face, global frame */
  double *normal; /* 3 a face */
  double *key;    /* sorted centroid x of each face, with its index in order[] */
  int64_t *order;
};

/* Read dataset @p name of @p file as doubles (int64 sets converted) into a new array; its dims in @p dims. */
static int h5_read_all(hid_t file, const char *path, const char *name, int want_ndim, hsize_t *dims, void **data,
                       int integer) {
  h5_quiet q;
  sq_h5_quiet_begin(&q);
  hid_t set = H5Lexists(file, name, H5P_DEFAULT) > 0 ? H5Dopen2(file, name, H5P_DEFAULT) : -1;
  sq_h5_quiet_end(&q);
  if (set < 0) return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: no dataset %s", path, name);
  hid_t space = H5Dget_space(set);
  const int ndim = H5Sget_simple_extent_ndims(space);
  hsize_t d[3] = {1, 1, 1};
  if (ndim != want_ndim || ndim > 3 || H5Sget_simple_extent_dims(space, d, NULL) < 0) {
    H5Sclose(space), H5Dclose(set);
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: dataset %s has %d dimensions, expected %d", path, name, ndim,
                    want_ndim);
  }
  size_t count = 1;
  for (int k = 0; k < ndim; ++k) count *= (size_t)d[k], dims[k] = d[k];
  void *buf = malloc((count ? count : 1) * 8);
  const herr_t st =
      buf ? H5Dread(set, integer ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) : -1;
  H5Sclose(space), H5Dclose(set);
  if (st < 0) {
    free(buf);
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "%s: cannot read dataset %s", path, name);
  }
  *data = buf;
  return SQ_SUCCESS;
}

static void cross(const double a[3], const double b[3], double c[3]) {
  c[0] = a[1] * b[2] - a[2] * b[1], c[1] = a[2] * b[0] - a[0] * b[2], c[2] = a[0] * b[1] - a[1] * b[0];
}

static const double *sort_keys;
static int cmp_key(const void *a, const void *b) {
  const double x = sort_keys[*(const int64_t *)a], y = sort_keys[*(const int64_t *)b];
  return x < y ? -1 : x > y;
}

/* Faces from geometry, topology and the per-face strike and dip slip (dip times dip_sign). */
static int build_slip(sq_ps_fault_slip *s, const char *path, int64_t nnode, const double *geom, const int64_t *topo,
                      const double *ss, const double *ds, double dip_sign) {
  const int64_t n = s->n;
  s->xyz = malloc(sizeof(double) * 9 * (size_t)(n + 1));
  s->slip = malloc(sizeof(double) * 3 * (size_t)(n + 1));
  s->normal = malloc(sizeof(double) * 3 * (size_t)(n + 1));
  s->key = malloc(sizeof(double) * (size_t)(n + 1));
  s->order = malloc(sizeof(int64_t) * (size_t)(n + 1));
  SQ_CHECK(s->xyz && s->slip && s->normal && s->key && s->order, SQ_ERR_MEMORY, "out of memory reading '%s'", path);
  for (int64_t k = 0; k < n; ++k) {
    for (int v = 0; v < 3; ++v) {
      const int64_t node = topo[3 * k + v];
      SQ_CHECK(node >= 0 && node < nnode, SQ_ERR_INPUT, "%s: face %lld names node %lld of %lld", path, (long long)k,
               (long long)node, (long long)nnode);
      for (int c = 0; c < 3; ++c) s->xyz[9 * k + 3 * v + c] = geom[3 * node + c];
    }
    const double *a = &s->xyz[9 * k], *b = a + 3, *c = a + 6;
    const double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double nn[3], st[3], dd[3];
    cross(e1, e2, nn);
    const double len = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
    SQ_CHECK(len > 0, SQ_ERR_INPUT, "%s: face %lld is degenerate (zero area)", path, (long long)k);
    for (int i = 0; i < 3; ++i) nn[i] /= len;
    const double ez[3] = {0, 0, 1};
    cross(nn, ez, st);
    double sl = sqrt(st[0] * st[0] + st[1] * st[1] + st[2] * st[2]);
    if (sl < 1e-10) st[0] = 1, st[1] = st[2] = 0, sl = 1; /* horizontal face, as src/fault.c */
    for (int i = 0; i < 3; ++i) st[i] /= sl;
    cross(nn, st, dd);
    for (int i = 0; i < 3; ++i) {
      s->normal[3 * k + i] = nn[i];
      s->slip[3 * k + i] = ss[k] * st[i] + dip_sign * ds[k] * dd[i];
    }
    s->key[k] = (a[0] + b[0] + c[0]) / 3;
    s->order[k] = k;
  }
  sort_keys = s->key;
  qsort(s->order, (size_t)n, sizeof(int64_t), cmp_key);
  return SQ_SUCCESS;
}

int sq_ps_fault_slip_read(const char *path, int seissol_convention, sq_ps_fault_slip **out) {
  *out = NULL;
  h5_quiet q;
  sq_h5_quiet_begin(&q);
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  sq_h5_quiet_end(&q);
  SQ_CHECK(file >= 0, SQ_ERR_IO, "cannot open the fault output '%s' (HDF5)", path);
  sq_ps_fault_slip *s = calloc(1, sizeof(*s));
  double *geom = NULL, *ss = NULL, *ds = NULL, *times = NULL;
  int64_t *topo = NULL;
  hsize_t gd[3], td[3], sd[3], dd[3];
  int ierr = s ? SQ_SUCCESS : sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading '%s'", path);
  const int seissol = !ierr && H5Lexists(file, "mesh0", H5P_DEFAULT) > 0;
  if (!ierr && !seissol) {
    ierr = h5_read_all(file, path, "/mesh/geometry", 2, gd, (void **)&geom, 0);
    if (!ierr) ierr = h5_read_all(file, path, "/mesh/topology", 2, td, (void **)&topo, 1);
    int64_t last = -1;
    for (int64_t k = 0; !ierr; ++k) {
      char g[32];
      snprintf(g, sizeof(g), "step_%06lld", (long long)k);
      if (H5Lexists(file, g, H5P_DEFAULT) <= 0) break;
      last = k;
    }
    if (!ierr && last < 0) ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: no snapshot (step_000000)", path);
    char name[64];
    if (!ierr) {
      snprintf(name, sizeof(name), "/step_%06lld/slip_strike", (long long)last);
      ierr = h5_read_all(file, path, name, 1, sd, (void **)&ss, 0);
    }
    if (!ierr) {
      snprintf(name, sizeof(name), "/step_%06lld/slip_dip", (long long)last);
      ierr = h5_read_all(file, path, name, 1, dd, (void **)&ds, 0);
    }
    if (!ierr) {
      snprintf(name, sizeof(name), "step_%06lld", (long long)last);
      hid_t g = H5Gopen2(file, name, H5P_DEFAULT);
      s->time = 0;
      if (g < 0 || sq_h5_attr_read(g, "time", H5T_NATIVE_DOUBLE, &s->time) < 0)
        ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: group %s has no attribute 'time'", path, name);
      if (g >= 0) H5Gclose(g);
    }
  } else if (!ierr) {
    double *all_s = NULL, *all_d = NULL;
    ierr = h5_read_all(file, path, "/mesh0/geometry", 2, gd, (void **)&geom, 0);
    if (!ierr) ierr = h5_read_all(file, path, "/mesh0/connect", 2, td, (void **)&topo, 1);
    if (!ierr) ierr = h5_read_all(file, path, "/mesh0/Sls", 2, sd, (void **)&all_s, 0);
    if (!ierr) ierr = h5_read_all(file, path, "/mesh0/Sld", 2, dd, (void **)&all_d, 0);
    if (!ierr) ierr = h5_read_all(file, path, "/time", 1, gd + 2, (void **)&times, 0);
    if (!ierr && (sd[0] == 0 || sd[0] != dd[0] || sd[1] != dd[1] || gd[2] != sd[0]))
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s: /mesh0/Sls (%llu x %llu), /mesh0/Sld (%llu x %llu) and /time (%llu) disagree or are empty",
                      path, (unsigned long long)sd[0], (unsigned long long)sd[1], (unsigned long long)dd[0],
                      (unsigned long long)dd[1], (unsigned long long)gd[2]);
    if (!ierr) { /* the last snapshot's row */
      const size_t last = (size_t)sd[0] - 1, nf = (size_t)sd[1];
      ss = malloc(sizeof(double) * (nf + 1)), ds = malloc(sizeof(double) * (nf + 1));
      if (!ss || !ds) ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading '%s'", path);
      for (size_t k = 0; !ierr && k < nf; ++k) ss[k] = all_s[last * nf + k], ds[k] = all_d[last * nf + k];
      if (!ierr) s->time = times[last];
      sd[0] = dd[0] = nf;
    }
    free(all_s), free(all_d);
  }
  if (!ierr && (gd[1] != 3 || td[1] != 3 || sd[0] != td[0] || dd[0] != td[0]))
    ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "%s: geometry (%llu x %llu), triangles (%llu x %llu) and slip (%llu, %llu) do not fit together",
                    path, (unsigned long long)gd[0], (unsigned long long)gd[1], (unsigned long long)td[0],
                    (unsigned long long)td[1], (unsigned long long)sd[0], (unsigned long long)dd[0]);
  if (!ierr) {
    s->n = (int64_t)td[0];
    ierr = build_slip(s, path, (int64_t)gd[0], geom, topo, ss, ds, seissol && !seissol_convention ? -1.0 : 1.0);
  }
  H5Fclose(file);
  free(geom), free(topo), free(ss), free(ds), free(times);
  if (ierr) {
    sq_ps_fault_slip_free(s);
    return ierr;
  }
  *out = s;
  return SQ_SUCCESS;
}

int64_t sq_ps_fault_slip_nface(const sq_ps_fault_slip *s) { return s->n; }
double sq_ps_fault_slip_time(const sq_ps_fault_slip *s) { return s->time; }

void sq_ps_fault_slip_face(const sq_ps_fault_slip *s, int64_t k, double *xyz, double *slip, double *normal) {
  if (xyz) memcpy(xyz, &s->xyz[9 * k], 9 * sizeof(double));
  if (slip) memcpy(slip, &s->slip[3 * k], 3 * sizeof(double));
  if (normal) memcpy(normal, &s->normal[3 * k], 3 * sizeof(double));
}

/* Do faces a and b (9 values each) have the same three vertices, in any order, within tol? */
static int same_face(const double *a, const double *b, double tol) {
  for (int i = 0; i < 3; ++i) {
    int found = 0;
    for (int j = 0; j < 3 && !found; ++j)
      found = fabs(a[3 * i] - b[3 * j]) <= tol && fabs(a[3 * i + 1] - b[3 * j + 1]) <= tol &&
              fabs(a[3 * i + 2] - b[3 * j + 2]) <= tol;
    if (!found) return 0;
  }
  return 1;
}

int sq_ps_fault_slip_faces(const sq_ps_fault_slip *s, int64_t nface, const double *xyz, double tol, double *slip,
                           double *normal) {
  SQ_CHECK(tol >= 0, SQ_ERR_INPUT, "negative matching tolerance %g", tol);
  for (int64_t f = 0; f < nface; ++f) {
    const double *a = &xyz[9 * f];
    const double cx = (a[0] + a[3] + a[6]) / 3;
    /* the first file face with centroid x >= cx - tol, then those up to cx + tol */
    int64_t lo = 0, hi = s->n;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (s->key[s->order[mid]] < cx - tol) lo = mid + 1;
      else hi = mid;
    }
    int64_t hit = -1;
    for (int64_t k = lo; k < s->n && s->key[s->order[k]] <= cx + tol; ++k)
      if (same_face(a, &s->xyz[9 * s->order[k]], tol)) {
        hit = s->order[k];
        break;
      }
    SQ_CHECK(hit >= 0, SQ_ERR_INPUT,
             "fault face %lld (vertices (%g, %g, %g), (%g, %g, %g), (%g, %g, %g)) is not in the fault output "
             "(tolerance %g m)",
             (long long)f, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], tol);
    memcpy(&slip[3 * f], &s->slip[3 * hit], 3 * sizeof(double));
    if (normal) memcpy(&normal[3 * f], &s->normal[3 * hit], 3 * sizeof(double));
  }
  return SQ_SUCCESS;
}

void sq_ps_fault_slip_free(sq_ps_fault_slip *s) {
  if (!s) return;
  free(s->xyz), free(s->slip), free(s->normal), free(s->key), free(s->order);
  free(s);
}

/* ---- GPS-like stations ------------------------------------------------------------------------- */

static int valid_name(const char *s) {
  if (!*s) return 0;
  for (; *s; ++s)
    if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_' && *s != '-') return 0;
  return 1;
}

/* A SPECFEM3D STATIONS file (6 columns on its first line) read by sq_read_stations. */
static int read_specfem_stations(const char *path, int *n_out, sq_ps_station **out) {
  int n = 0, *line = NULL;
  double *x = NULL;
  char(*name)[SQ_STATION_NAME] = NULL;
  SQ_CALL(sq_read_stations(path, &n, &x, &name, &line));
  sq_ps_station *st = calloc((size_t)(n > 0 ? n : 1), sizeof(*st));
  int ierr = st ? SQ_SUCCESS : sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading '%s'", path);
  for (int k = 0; !ierr && k < n; ++k) {
    snprintf(st[k].name, sizeof(st[k].name), "%s", name[k]);
    memcpy(st[k].x, &x[3 * k], sizeof(st[k].x));
    st[k].line = line[k];
    if (!valid_name(st[k].name))
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s:%d: station name '%s': use letters, digits, '.', '_' or '-'", path, line[k], st[k].name);
  }
  free(x), free(name), free(line);
  if (ierr) {
    free(st);
    return ierr;
  }
  *n_out = n, *out = st;
  return SQ_SUCCESS;
}

int sq_ps_read_stations(const char *path, int *n_out, sq_ps_station **out) {
  text_reader r;
  SQ_CALL(text_open(&r, path, "station file"));
  if (text_next(&r) && r.ntok == 6) {
    text_close(&r);
    return read_specfem_stations(path, n_out, out);
  }
  rewind(r.f);
  r.line = 0;
  sq_ps_station *st = NULL;
  int n = 0, cap = 0, ierr = SQ_SUCCESS;
  while (!ierr && text_next(&r)) {
    if (r.ntok != 3 && r.ntok != 4) {
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: a station is 'NAME x y [z]', found %d columns", path,
                      r.line, r.ntok);
      break;
    }
    if (strlen(r.tok[0]) >= SQ_PS_STATION_NAME || !valid_name(r.tok[0])) {
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s:%d: station name '%s': use 1 to %d letters, digits, '.', '_' or '-'", path, r.line, r.tok[0],
                      SQ_PS_STATION_NAME - 1);
      break;
    }
    if (grow((void **)&st, &cap, n, sizeof(*st))) {
      ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading '%s'", path);
      break;
    }
    sq_ps_station *s = &st[n];
    memset(s, 0, sizeof(*s));
    snprintf(s->name, sizeof(s->name), "%s", r.tok[0]);
    s->line = r.line;
    static const char *const what[3] = {"x", "y", "z"};
    for (int k = 1; !ierr && k < r.ntok; ++k) ierr = text_number(&r, k, what[k - 1], &s->x[k - 1]);
    if (!ierr && s->x[2] > 0)
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: station %s is above the surface (z = %g > 0)", path,
                      r.line, s->name, s->x[2]);
    for (int k = 0; !ierr && k < n; ++k)
      if (!strcmp(st[k].name, s->name))
        ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: station %s is also on line %d", path, r.line, s->name,
                        st[k].line);
    if (!ierr) ++n;
  }
  text_close(&r);
  if (!ierr && n == 0) ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: no stations found", path);
  if (ierr) {
    free(st);
    return ierr;
  }
  *n_out = n, *out = st;
  return SQ_SUCCESS;
}

struct sq_ps_station_writer {
  int n;
  char (*path)[SQ_OUT_PATH];
};

int sq_ps_station_writer_open(const char *dir, const char *prefix, int n, const sq_ps_station *st,
                              sq_ps_station_writer **out) {
  *out = NULL;
  sq_ps_station_writer *w = calloc(1, sizeof(*w));
  if (w) w->path = calloc((size_t)(n > 0 ? n : 1), sizeof(*w->path));
  if (!w || !w->path) {
    free(w);
    return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory opening the station files");
  }
  w->n = n;
  for (int k = 0; k < n; ++k) {
    snprintf(w->path[k], SQ_OUT_PATH, "%s/%s-gps-%s.csv", dir, prefix, st[k].name);
    FILE *f = fopen(w->path[k], "w");
    if (!f) {
      const int ierr = sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s", w->path[k], strerror(errno));
      sq_ps_station_writer_close(w);
      return ierr;
    }
    fprintf(f, "# station %s at x = %.17g m (east), y = %.17g m (north), z = %.17g m (up)\n", st[k].name, st[k].x[0],
            st[k].x[1], st[k].x[2]);
    fprintf(f, "# displacement from the earthquake on (m); time (s, and Julian years of %.0f s)\n", SQ_PS_YEAR);
    fprintf(f, "time_s,time_yr,u_east_m,u_north_m,u_up_m\n");
    if (fclose(f)) {
      const int ierr = sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s", w->path[k], strerror(errno));
      sq_ps_station_writer_close(w);
      return ierr;
    }
  }
  *out = w;
  return SQ_SUCCESS;
}

int sq_ps_station_writer_append(sq_ps_station_writer *w, double time, const double *u) {
  for (int k = 0; k < w->n; ++k) {
    FILE *f = fopen(w->path[k], "a");
    SQ_CHECK(f, SQ_ERR_IO, "cannot append to '%s': %s", w->path[k], strerror(errno));
    fprintf(f, "%.15e,%.15e,%.15e,%.15e,%.15e\n", time, time / SQ_PS_YEAR, u[3 * k], u[3 * k + 1], u[3 * k + 2]);
    SQ_CHECK(!fclose(f), SQ_ERR_IO, "cannot append to '%s': %s", w->path[k], strerror(errno));
  }
  return SQ_SUCCESS;
}

void sq_ps_station_writer_close(sq_ps_station_writer *w) {
  if (!w) return;
  free(w->path);
  free(w);
}

int sq_ps_station_read(const char *path, int64_t max, double *time, double *u, int64_t *count) {
  text_reader r;
  SQ_CALL(text_open(&r, path, "station series"));
  int64_t n = 0;
  int ierr = SQ_SUCCESS, header = 0;
  while (!ierr && text_next(&r)) {
    if (!header) { /* the column header */
      header = 1;
      if (r.ntok == 5 && !strcmp(r.tok[0], "time_s")) continue;
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: expected the header 'time_s,time_yr,u_east_m,...'",
                      path, r.line);
      break;
    }
    if (r.ntok != 5) {
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: expected 5 columns, found %d", path, r.line, r.ntok);
      break;
    }
    if (n >= max) {
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s:%d: more than %lld rows", path, r.line, (long long)max);
      break;
    }
    double v[5];
    for (int k = 0; !ierr && k < 5; ++k) ierr = text_number(&r, k, "value", &v[k]);
    if (ierr) break;
    time[n] = v[0], u[3 * n] = v[2], u[3 * n + 1] = v[3], u[3 * n + 2] = v[4];
    ++n;
  }
  text_close(&r);
  *count = n;
  return ierr;
}

/* ---- surface snapshots ------------------------------------------------------------------------- */

int sq_ps_surface_triangles(const sq_mesh *m, int64_t *nnode_out, double **xyz_out, int64_t **vert_out,
                            int64_t *ntri_out, int64_t **tri_out) {
  *nnode_out = *ntri_out = 0;
  *xyz_out = NULL, *vert_out = NULL, *tri_out = NULL;
  SQ_CHECK(!m->global_id, SQ_ERR_INPUT, "%s: the free-surface triangles need the whole mesh, not one rank's part",
           m->source);
  int64_t ntri = 0;
  for (int64_t k = 0; k < 4 * m->ncell; ++k) ntri += m->face_bc[k] == SQ_BC_FREE;
  SQ_CHECK(ntri > 0, SQ_ERR_INPUT, "%s: the mesh has no free-surface face", m->source);
  int64_t *node_of = malloc(sizeof(int64_t) * (size_t)m->nvert), *tri = malloc(sizeof(int64_t) * 3 * (size_t)ntri);
  if (!node_of || !tri) {
    free(node_of), free(tri);
    return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory collecting the free surface");
  }
  for (int64_t v = 0; v < m->nvert; ++v) node_of[v] = -1;
  int64_t nnode = 0, t = 0;
  for (int64_t c = 0; c < m->ncell; ++c)
    for (int f = 0; f < 4; ++f) {
      if (m->face_bc[4 * c + f] != SQ_BC_FREE) continue;
      for (int i = 0; i < 3; ++i) {
        const int64_t v = m->cell_vert[4 * c + sq_ref_face_vertices[f][i]];
        if (node_of[v] < 0) node_of[v] = nnode++;
        tri[3 * t + i] = node_of[v];
      }
      ++t;
    }
  double *xyz = malloc(sizeof(double) * 3 * (size_t)nnode);
  int64_t *vert = malloc(sizeof(int64_t) * (size_t)nnode);
  if (!xyz || !vert) {
    free(node_of), free(tri), free(xyz), free(vert);
    return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory collecting the free surface");
  }
  for (int64_t v = 0; v < m->nvert; ++v)
    if (node_of[v] >= 0) {
      vert[node_of[v]] = v;
      for (int i = 0; i < 3; ++i) xyz[3 * node_of[v] + i] = m->vert[3 * v + i];
    }
  free(node_of);
  *nnode_out = nnode, *xyz_out = xyz, *vert_out = vert, *ntri_out = ntri, *tri_out = tri;
  return SQ_SUCCESS;
}

static const char *const surface_fields[3] = {"u_east", "u_north", "u_up"};

struct sq_ps_surface {
  sq_xdmf_writer *xdmf;
  int64_t nnode;
  double *col; /* 3 x rows: the three components apart */
  int64_t cap;
};

int sq_ps_surface_open(const char *dir, const char *prefix, int64_t nnode, const double *xyz, const sq_rows *node_rows,
                       int64_t ntri, const int64_t *tri, const sq_rows *tri_rows, sq_ps_surface **out) {
  *out = NULL;
  sq_ps_surface *s = calloc(1, sizeof(*s));
  SQ_CHECK(s, SQ_ERR_MEMORY, "out of memory opening the surface snapshots");
  s->nnode = nnode;
  const int ierr = sq_xdmf_open(dir, prefix, "surface", nnode, xyz, node_rows, ntri, 3, tri, tri_rows, -1, &s->xdmf);
  if (ierr) {
    free(s);
    return ierr;
  }
  *out = s;
  return SQ_SUCCESS;
}

int sq_ps_surface_write(sq_ps_surface *s, double time, const double *u, const sq_rows *rows) {
  const int64_t n = rows ? rows->n : s->nnode;
  if (3 * n > s->cap) {
    free(s->col);
    s->cap = 3 * n;
    s->col = malloc(sizeof(double) * (size_t)(s->cap + 1));
  }
  const int bad = sq_io_agree(s->col ? 0 : -1);
  if (bad) return io_error(SQ_ERR_MEMORY, __LINE__, "out of memory writing a surface snapshot");
  for (int64_t k = 0; k < n; ++k)
    for (int c = 0; c < 3; ++c) s->col[c * n + k] = u[3 * k + c];
  const double *cols[3] = {s->col, s->col + n, s->col + 2 * n};
  return sq_xdmf_write(s->xdmf, time, 3, surface_fields, cols, SQ_XDMF_NODE, rows);
}

int64_t sq_ps_surface_count(const sq_ps_surface *s) { return sq_xdmf_count(s->xdmf); }

void sq_ps_surface_close(sq_ps_surface *s) {
  if (!s) return;
  sq_xdmf_close(s->xdmf);
  free(s->col);
  free(s);
}

int sq_ps_surface_read(const char *h5path, int64_t step, int64_t nnode, double *time, double *u) {
  h5_quiet q;
  sq_h5_quiet_begin(&q);
  hid_t file = H5Fopen(h5path, H5F_ACC_RDONLY, H5P_DEFAULT);
  sq_h5_quiet_end(&q);
  SQ_CHECK(file >= 0, SQ_ERR_IO, "cannot open the surface snapshots '%s' (HDF5)", h5path);
  char g[32];
  snprintf(g, sizeof(g), "step_%06lld", (long long)step);
  int ierr = SQ_SUCCESS;
  if (H5Lexists(file, g, H5P_DEFAULT) <= 0)
    ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: no snapshot %lld (group %s)", h5path, (long long)step, g);
  if (!ierr && time) {
    hid_t grp = H5Gopen2(file, g, H5P_DEFAULT);
    if (grp < 0 || sq_h5_attr_read(grp, "time", H5T_NATIVE_DOUBLE, time) < 0)
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: group %s has no attribute 'time'", h5path, g);
    if (grp >= 0) H5Gclose(grp);
  }
  for (int c = 0; !ierr && u && c < 3; ++c) {
    char name[64];
    snprintf(name, sizeof(name), "/%s/%s", g, surface_fields[c]);
    hsize_t dims[1];
    double *v = NULL;
    ierr = h5_read_all(file, h5path, name, 1, dims, (void **)&v, 0);
    if (!ierr && (int64_t)dims[0] != nnode)
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: %s has %llu values, expected %lld", h5path, name,
                      (unsigned long long)dims[0], (long long)nnode);
    for (int64_t k = 0; !ierr && k < nnode; ++k) u[3 * k + c] = v[k];
    free(v);
  }
  H5Fclose(file);
  return ierr;
}
