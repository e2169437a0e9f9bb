/**
 * @file nrf.c  NRF finite sources (SeisSol's netCDF sub-fault files, written by its rconv tool): the
 * compound variables are read as raw records and their fields picked out by name and offset, as the
 * file's own type declares them, so the reader does not depend on a memory layout.
 */
#include <math.h>
#include <netcdf.h>
#include <stdlib.h>
#include <string.h>

#include "sq_nrf.h"

/* The field of a compound record: its byte offset (nested fields added up). */
typedef struct nrf_field {
  size_t off;
} nrf_field;

/* Field @p name of compound type @p type: a scalar double (vec = 0) or a compound {x, y, z} of doubles
 * (vec = 1, off[0..2]).  @p present is set to 0 for a missing field when @p optional. */
static int nrf_find_field(const char *path, int nc, nc_type type, const char *var, const char *name, int vec,
                          int optional, nrf_field *off, int *present) {
  int idx, ndims, rc;
  size_t offset;
  nc_type ft;
  if (present) *present = 1;
  if ((rc = nc_inq_compound_fieldindex(nc, type, name, &idx))) {
    if (optional && present) {
      *present = 0;
      return SQ_SUCCESS;
    }
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: variable '%s' has no field '%s' (an NRF file needs it)",
                    path, var, name);
  }
  nc_inq_compound_field(nc, type, idx, NULL, &offset, &ft, &ndims, NULL);
  if (ndims != 0)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: field '%s' of '%s' is an array; expected a %s", path, name,
                    var, vec ? "{x, y, z} compound" : "double");
  if (!vec) {
    if (ft != NC_DOUBLE)
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: field '%s' of '%s' must be a double (netCDF type %d)",
                      path, name, var, (int)ft);
    off[0].off = offset;
    return SQ_SUCCESS;
  }
  int cls = 0;
  if (ft <= NC_MAX_ATOMIC_TYPE || nc_inq_user_type(nc, ft, NULL, NULL, NULL, NULL, &cls) || cls != NC_COMPOUND)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: field '%s' of '%s' must be a compound {x, y, z} of doubles",
                    path, name, var);
  static const char *const xyz[3] = {"x", "y", "z"};
  char sub[64];
  snprintf(sub, sizeof(sub), "%s.%s", var, name);
  for (int d = 0; d < 3; ++d) {
    SQ_CALL(nrf_find_field(path, nc, ft, sub, xyz[d], 0, 0, &off[d], NULL));
    off[d].off += offset;
  }
  return SQ_SUCCESS;
}

static double nrf_get(const unsigned char *rec, nrf_field f) {
  double v;
  memcpy(&v, rec + f.off, sizeof(v));
  return v;
}

/* A one-dimensional-or-more variable by name: its id, type and dimension lengths. */
static int nrf_var(const char *path, int nc, const char *name, int want_ndims, int *id, nc_type *type, size_t len[2]) {
  int ndims, dims[NC_MAX_VAR_DIMS], rc;
  if ((rc = nc_inq_varid(nc, name, id)))
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: no variable '%s' (an NRF file needs it): %s", path, name,
                    nc_strerror(rc));
  nc_inq_var(nc, *id, NULL, type, &ndims, dims, NULL);
  if (ndims != want_ndims)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: variable '%s' has %d dimensions; an NRF file has %d", path,
                    name, ndims, want_ndims);
  for (int d = 0; d < ndims; ++d) nc_inq_dimlen(nc, dims[d], &len[d]);
  return SQ_SUCCESS;
}

/* A compound variable of one dimension: its records (malloc'd) and record size. */
static int nrf_compound(const char *path, int nc, const char *name, size_t n, nc_type *type, unsigned char **raw,
                        size_t *rsize) {
  int id, cls = 0, rc;
  size_t len[2], size = 0;
  SQ_CALL(nrf_var(path, nc, name, 1, &id, type, len));
  if (len[0] != n)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: '%s' holds %zu records, 'centres' %zu", path, name, len[0],
                    n);
  if (*type <= NC_MAX_ATOMIC_TYPE || nc_inq_user_type(nc, *type, NULL, &size, NULL, NULL, &cls) || cls != NC_COMPOUND)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "%s: variable '%s' must be of a compound type (an NRF file written by rconv)", path, name);
  *rsize = size;
  *raw = malloc(size * (n > 0 ? n : 1));
  SQ_CHECK(*raw, SQ_ERR_MEMORY, "out of memory reading '%s' of %s", name, path);
  if (n > 0 && (rc = nc_get_var(nc, id, *raw)))
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: cannot read '%s': %s", path, name, nc_strerror(rc));
  return SQ_SUCCESS;
}

/* Sub-fault fields, in the order of SF_*. */
enum { SF_TINIT, SF_DT, SF_MU, SF_AREA, SF_TAN1, SF_TAN2 = SF_TAN1 + 3, SF_NORMAL = SF_TAN2 + 3, SF_N = SF_NORMAL + 3 };

static int nrf_finite(const double *v, int n) {
  for (int i = 0; i < n; ++i)
    if (!isfinite(v[i])) return 0;
  return 1;
}

static int nrf_check_subfault(const char *path, size_t i, const double *c, const double *f, const size_t *o0,
                              const size_t *o1, const size_t *nsample, double *const rate[3]) {
  static const char *const name[3] = {"tan1", "tan2", "normal"};
  if (!nrf_finite(c, 3))
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: subfaults[%zu]: its centre (%g, %g, %g) is not finite", path,
                    i, c[0], c[1], c[2]);
  if (!nrf_finite(f, SF_N))
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "%s: subfaults[%zu]: tinit, timestep, mu, area, tan1, tan2 and normal must be finite (NaN or inf "
                    "found)",
                    path, i);
  if (!(f[SF_AREA] > 0))
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: subfaults[%zu]: area must be > 0, got %g", path, i,
                    f[SF_AREA]);
  if (!(f[SF_MU] >= 0))
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: subfaults[%zu]: mu must be >= 0 (0: the material's), got %g",
                    path, i, f[SF_MU]);
  for (int k = 0; k < 3; ++k) {
    const double *v = &f[SF_TAN1 + 3 * k];
    if (!(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] > 0))
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: subfaults[%zu]: %s is the zero vector", path, i, name[k]);
  }
  for (int k = 0; k < 3; ++k) {
    if (o1[k] < o0[k] || o1[k] > nsample[k])
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "%s: subfaults[%zu]: sroffsets give samples %zu..%zu of sliprates%d, which holds %zu", path, i,
                      o0[k], o1[k], k + 1, nsample[k]);
    if (o1[k] > o0[k] + 1 && !(f[SF_DT] > 0))
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: subfaults[%zu]: timestep must be > 0, got %g", path, i,
                      f[SF_DT]);
    for (size_t j = o0[k]; j < o1[k]; ++j)
      if (!isfinite(rate[k][j]))
        return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: subfaults[%zu]: slip-rate sample %zu along %s is %g",
                        path, i, j - o0[k], name[k], rate[k][j]);
  }
  return SQ_SUCCESS;
}

/* The point sources of sub-fault @p i: one per direction with a series of >= 2 samples, not all zero. */
static int nrf_push(const char *path, size_t i, const double *c, const double *f, const size_t *o0, const size_t *o1,
                    double *const rate[3], sq_source_list *list) {
  static const char *const name[3] = {"tan1", "tan2", "normal"};
  for (int k = 0; k < 3; ++k) {
    const size_t ns = o1[k] - o0[k];
    int nonzero = 0;
    for (size_t j = o0[k]; j < o1[k]; ++j) nonzero |= rate[k][j] != 0.0;
    if (ns < 2 || !nonzero) continue; /* no slip along this direction */
    sq_point_source src;
    memset(&src, 0, sizeof(src));
    src.kind = SQ_SOURCE_SLIP;
    memcpy(src.x, c, sizeof(src.x));
    src.area = f[SF_AREA];
    src.mu = f[SF_MU];
    memcpy(src.normal, &f[SF_NORMAL], sizeof(src.normal));
    memcpy(src.slip, &f[SF_TAN1 + 3 * k], sizeof(src.slip));
    src.stf.kind = SQ_STF_TABLE;
    src.stf.onset = f[SF_TINIT];
    src.stf.nsample = (int64_t)ns;
    src.stf.time = malloc(ns * sizeof(double));
    src.stf.value = malloc(ns * sizeof(double));
    if (!src.stf.time || !src.stf.value) {
      free(src.stf.time);
      free(src.stf.value);
      return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading '%s'", path);
    }
    for (size_t j = 0; j < ns; ++j) {
      src.stf.time[j] = (double)j * f[SF_DT];
      src.stf.value[j] = rate[k][o0[k] + j];
    }
    snprintf(src.origin, sizeof(src.origin), "%.100s: subfaults[%zu] (slip along %s)", path, i, name[k]);
    const int ierr = sq_source_list_push(list, &src);
    if (ierr) {
      free(src.stf.time);
      free(src.stf.value);
      return ierr;
    }
  }
  return SQ_SUCCESS;
}

int sq_read_nrf(const char *path, sq_source_list *list) {
  int nc, rc;
  if ((rc = nc_open(path, NC_NOWRITE, &nc)))
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "%s: cannot open as netCDF (an NRF file): %s", path,
                    nc_strerror(rc));
  unsigned char *craw = NULL, *sraw = NULL;
  unsigned long long *offs = NULL;
  double *rate[3] = {NULL, NULL, NULL};
  nc_type ctype, stype, otype;
  size_t len[2], n = 0, nsample[3] = {0, 0, 0}, csize = 0, ssize = 0;
  int cid;
  int ierr = nrf_var(path, nc, "centres", 1, &cid, &ctype, len);
  if (!ierr) n = len[0];
  nrf_field cf[3], sf[SF_N];
  int has_mu = 1;
  if (!ierr) ierr = nrf_compound(path, nc, "centres", n, &ctype, &craw, &csize);
  if (!ierr) ierr = nrf_find_field(path, nc, ctype, "centres", "x", 0, 0, &cf[0], NULL);
  if (!ierr) ierr = nrf_find_field(path, nc, ctype, "centres", "y", 0, 0, &cf[1], NULL);
  if (!ierr) ierr = nrf_find_field(path, nc, ctype, "centres", "z", 0, 0, &cf[2], NULL);
  if (!ierr) ierr = nrf_compound(path, nc, "subfaults", n, &stype, &sraw, &ssize);
  if (!ierr) ierr = nrf_find_field(path, nc, stype, "subfaults", "tinit", 0, 0, &sf[SF_TINIT], NULL);
  if (!ierr) ierr = nrf_find_field(path, nc, stype, "subfaults", "timestep", 0, 0, &sf[SF_DT], NULL);
  if (!ierr) ierr = nrf_find_field(path, nc, stype, "subfaults", "mu", 0, 1, &sf[SF_MU], &has_mu);
  if (!ierr) ierr = nrf_find_field(path, nc, stype, "subfaults", "area", 0, 0, &sf[SF_AREA], NULL);
  if (!ierr) ierr = nrf_find_field(path, nc, stype, "subfaults", "tan1", 1, 0, &sf[SF_TAN1], NULL);
  if (!ierr) ierr = nrf_find_field(path, nc, stype, "subfaults", "tan2", 1, 0, &sf[SF_TAN2], NULL);
  if (!ierr) ierr = nrf_find_field(path, nc, stype, "subfaults", "normal", 1, 0, &sf[SF_NORMAL], NULL);
  int oid;
  if (!ierr) ierr = nrf_var(path, nc, "sroffsets", 2, &oid, &otype, len);
  if (!ierr && (len[0] != n + 1 || len[1] != 3))
    ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "%s: 'sroffsets' is %zu x %zu; for %zu sub-faults an NRF file has %zu x 3", path, len[0], len[1], n,
                    n + 1);
  if (!ierr && (otype < NC_BYTE || otype > NC_UINT64 || otype == NC_CHAR || otype == NC_FLOAT || otype == NC_DOUBLE))
    ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: 'sroffsets' must be of an integer type (netCDF type %d)",
                    path, (int)otype);
  if (!ierr && !(offs = malloc(sizeof(*offs) * 3 * (n + 1))))
    ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading %s", path);
  if (!ierr && (rc = nc_get_var_ulonglong(nc, oid, offs)))
    ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: cannot read 'sroffsets': %s", path, nc_strerror(rc));
  for (int k = 0; k < 3 && !ierr; ++k) {
    char name[16];
    snprintf(name, sizeof(name), "sliprates%d", k + 1);
    int rid;
    nc_type rtype;
    ierr = nrf_var(path, nc, name, 1, &rid, &rtype, len);
    if (!ierr && (rtype < NC_BYTE || rtype > NC_UINT64 || rtype == NC_CHAR))
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: '%s' must be numeric (netCDF type %d)", path, name,
                      (int)rtype);
    if (ierr) break;
    nsample[k] = len[0];
    rate[k] = malloc(sizeof(double) * (nsample[k] > 0 ? nsample[k] : 1));
    if (!rate[k]) ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading %s", path);
    else if (nsample[k] > 0 && (rc = nc_get_var_double(nc, rid, rate[k])))
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: cannot read '%s': %s", path, name, nc_strerror(rc));
  }
  nc_close(nc);
  if (!ierr && n == 0) ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: the NRF file holds no sub-faults", path);
  const int before = list->n;
  for (size_t i = 0; i < n && !ierr; ++i) {
    double c[3], f[SF_N];
    size_t o0[3], o1[3];
    for (int d = 0; d < 3; ++d) c[d] = nrf_get(craw + i * csize, cf[d]);
    for (int k = 0; k < SF_N; ++k) f[k] = k == SF_MU && !has_mu ? 0.0 : nrf_get(sraw + i * ssize, sf[k]);
    for (int k = 0; k < 3; ++k) o0[k] = (size_t)offs[3 * i + k], o1[k] = (size_t)offs[3 * (i + 1) + k];
    ierr = nrf_check_subfault(path, i, c, f, o0, o1, nsample, rate);
    if (!ierr) ierr = nrf_push(path, i, c, f, o0, o1, rate, list);
  }
  if (!ierr && list->n == before)
    ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s: no sub-fault has a slip-rate series with non-zero samples",
                    path);
  free(craw), free(sraw), free(offs);
  for (int k = 0; k < 3; ++k) free(rate[k]);
  return ierr;
}
