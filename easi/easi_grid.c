/**
 * @file easi_grid.c  Regular grids of !ASAGI (netCDF, Debian's libnetcdf) and !SCECFile (SCEC's stress
 * text files), and their interpolation: multilinear between the grid points, or the nearest point;
 * a coordinate outside the grid takes the boundary value (as ASAGI does).
 *
 * ASAGI's layout: the variable has one netCDF dimension per input dimension, the last netCDF dimension
 * being the first input dimension (x fastest); a dimension's coordinate variable of the same name gives
 * its first and last coordinate (without one, the indices).  Several parameters are the members of a
 * compound type, in file order; one parameter may also be a plain numeric variable.
 */
#include "easi_impl.h"

#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sq_egrid_free(sq_egrid *g) {
  free(g->v);
  g->v = NULL;
}

static size_t eg_points(const sq_egrid *g) {
  size_t n = 1;
  for (int d = 0; d < g->nd; ++d) n *= g->n[d];
  return n;
}

static int eg_value(nc_type t, const unsigned char *p, double *v) {
  switch (t) {
  case NC_FLOAT: {
    float f;
    memcpy(&f, p, sizeof(f));
    *v = f;
  } break;
  case NC_DOUBLE: memcpy(v, p, sizeof(double)); break;
  case NC_INT: {
    int i;
    memcpy(&i, p, sizeof(i));
    *v = i;
  } break;
  case NC_SHORT: {
    short s;
    memcpy(&s, p, sizeof(s));
    *v = s;
  } break;
  default: return -1;
  }
  return 0;
}

int sq_egrid_read_netcdf(const char *path, const char *var, int nd, int nparams, sq_egrid *g, char *msg, size_t size) {
  memset(g, 0, sizeof(*g));
  int nc, vid, rc, ndims, dimids[NC_MAX_VAR_DIMS], natts;
  nc_type xtype;
  if ((rc = nc_open(path, NC_NOWRITE, &nc))) {
    snprintf(msg, size, "%s: cannot open as netCDF: %s", path, nc_strerror(rc));
    return -1;
  }
  int fail = 0;
  if ((rc = nc_inq_varid(nc, var, &vid)) || (rc = nc_inq_var(nc, vid, NULL, &xtype, &ndims, dimids, &natts))) {
    snprintf(msg, size, "%s: no variable '%s' ('var' names it): %s", path, var, nc_strerror(rc));
    fail = 1;
  } else if (ndims != nd) {
    snprintf(msg, size, "%s: variable '%s' has %d dimensions, the component's input has %d", path, var, ndims, nd);
    fail = 1;
  }
  g->nd = nd;
  g->nv = nparams;
  for (int k = 0; !fail && k < nd; ++k) {
    int d = nd - 1 - k; /* netCDF's last dimension is the first input dimension */
    char dname[NC_MAX_NAME + 1];
    size_t len;
    int cv;
    nc_inq_dim(nc, dimids[k], dname, &len);
    g->n[d] = len;
    g->lo[d] = 0.0;
    g->hi[d] = (double)len - 1.0;
    if (len == 0) {
      snprintf(msg, size, "%s: dimension '%s' is empty", path, dname);
      fail = 1;
    } else if (nc_inq_varid(nc, dname, &cv) == NC_NOERR) {
      size_t i0 = 0, i1 = len - 1;
      if (nc_get_var1_double(nc, cv, &i0, &g->lo[d]) || nc_get_var1_double(nc, cv, &i1, &g->hi[d])) {
        snprintf(msg, size, "%s: cannot read coordinate variable '%s'", path, dname);
        fail = 1;
      } else if (len > 1 && !(g->hi[d] > g->lo[d])) {
        snprintf(msg, size, "%s: coordinate variable '%s' must increase", path, dname);
        fail = 1;
      }
    }
  }
  size_t npts = fail ? 0 : eg_points(g);
  if (!fail && !(g->v = malloc(npts * (size_t)nparams * sizeof(double)))) {
    snprintf(msg, size, "%s: out of memory for %zu grid points", path, npts);
    fail = 1;
  }
  if (!fail && xtype <= NC_DOUBLE && xtype != NC_CHAR) {
    if (nparams != 1) {
      snprintf(msg, size, "%s: variable '%s' holds one value per point, 'parameters' lists %d", path, var, nparams);
      fail = 1;
    } else if ((rc = nc_get_var_double(nc, vid, g->v))) {
      snprintf(msg, size, "%s: cannot read '%s': %s", path, var, nc_strerror(rc));
      fail = 1;
    }
  } else if (!fail) {
    size_t tsize, nfields;
    int cls;
    if (nc_inq_user_type(nc, xtype, NULL, &tsize, NULL, &nfields, &cls) || cls != NC_COMPOUND) {
      snprintf(msg, size, "%s: variable '%s' is neither numeric nor a compound of numbers", path, var);
      fail = 1;
    } else if ((int)nfields != nparams) {
      snprintf(msg, size, "%s: variable '%s' has %zu members, 'parameters' lists %d", path, var, nfields, nparams);
      fail = 1;
    } else {
      unsigned char *raw = malloc(npts * tsize);
      size_t off[SQ_EASI_MAXDIM];
      nc_type ft[SQ_EASI_MAXDIM];
      for (size_t f = 0; f < nfields && f < SQ_EASI_MAXDIM; ++f)
        nc_inq_compound_field(nc, xtype, (int)f, NULL, &off[f], &ft[f], NULL, NULL);
      if (!raw || (rc = nc_get_var(nc, vid, raw))) {
        snprintf(msg, size, "%s: cannot read '%s'", path, var);
        fail = 1;
      }
      for (size_t p = 0; !fail && p < npts; ++p)
        for (size_t f = 0; !fail && f < nfields; ++f)
          if (eg_value(ft[f], raw + p * tsize + off[f], &g->v[p * nfields + f])) {
            snprintf(msg, size, "%s: member %zu of '%s' is not float, double, int or short", path, f + 1, var);
            fail = 1;
          }
      free(raw);
    }
  }
  nc_close(nc);
  if (fail) sq_egrid_free(g);
  return fail ? -1 : 0;
}

int sq_egrid_read_scec(const char *path, sq_egrid *g, char *msg, size_t size) {
  memset(g, 0, sizeof(*g));
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(msg, size, "%s: cannot open the SCEC stress file", path);
    return -1;
  }
  int seed[2], hi[2], nx, nz;
  double hx, hz, d[4];
  if (fscanf(f, "%d %d", &seed[0], &seed[1]) != 2 || fscanf(f, "%d %d %lf %lf", &nx, &nz, &hx, &hz) != 4 ||
      fscanf(f, "%d %d %lf %lf %lf %lf", &hi[0], &hi[1], &d[0], &d[1], &d[2], &d[3]) != 6 || nx < 1 || nz < 1 ||
      nx > 100000 || nz > 100000 || !(hx > 0) || !(hz > 0)) {
    fclose(f);
    snprintf(msg, size, "%s: not a SCEC stress file (seed line, 'nx nz length width', hypocentre line)", path);
    return -1;
  }
  g->nd = 2;
  g->nv = 8;
  g->n[0] = (size_t)nx + 1;
  g->n[1] = (size_t)nz + 1;
  g->hi[0] = hx;
  g->hi[1] = hz;
  size_t npts = g->n[0] * g->n[1];
  if (!(g->v = calloc(npts * 8, sizeof(double)))) {
    fclose(f);
    snprintf(msg, size, "%s: out of memory", path);
    return -1;
  }
  for (size_t p = 0; p < npts; ++p) {
    int i, j;
    double r[12];
    int got = fscanf(f, "%d %d", &i, &j);
    for (int k = 0; k < 12; ++k) got += fscanf(f, "%lf", &r[k]) == 1;
    if (got != 14 || i < 0 || j < 0 || (size_t)i >= g->n[0] || (size_t)j >= g->n[1]) {
      fclose(f);
      sq_egrid_free(g);
      snprintf(msg, size, "%s: grid point %zu of %zu is missing or out of range", path, p + 1, npts);
      return -1;
    }
    /* columns: x, z, normal, strike shear, dip shear, 2 ratios, mu_s, mu_d, d_c, cohesion, rupture time */
    double *v = g->v + ((size_t)j * g->n[0] + (size_t)i) * 8;
    v[6] = r[2];
    v[7] = r[3];
    v[5] = r[4];
    v[4] = r[7];
    v[3] = r[8];
    v[1] = r[9];
    v[0] = r[10];
    v[2] = r[11];
  }
  fclose(f);
  return 0;
}

void sq_egrid_eval(const sq_egrid *g, const double *x, int interp, double *res) {
  size_t i0[3] = {0, 0, 0};
  double w[3] = {0, 0, 0};
  for (int d = 0; d < g->nd; ++d) {
    double t = g->n[d] > 1 ? (x[d] - g->lo[d]) / (g->hi[d] - g->lo[d]) * (double)(g->n[d] - 1) : 0.0;
    if (!(t > 0.0)) t = 0.0; /* also NaN */
    if (t > (double)(g->n[d] - 1)) t = (double)(g->n[d] - 1);
    if (interp == SQ_EI_NEAREST) t = floor(t + 0.5);
    size_t i = (size_t)t;
    if (g->n[d] > 1 && i > g->n[d] - 2) i = g->n[d] - 2;
    i0[d] = i;
    w[d] = t - (double)i;
  }
  for (int k = 0; k < g->nv; ++k) res[k] = 0.0;
  for (int corner = 0; corner < (1 << g->nd); ++corner) {
    double wt = 1.0;
    size_t idx = 0, stride = 1;
    for (int d = 0; d < g->nd; ++d) {
      int up = (corner >> d) & 1;
      if (up && g->n[d] == 1) {
        wt = 0.0;
        break;
      }
      wt *= up ? w[d] : 1.0 - w[d];
      idx += (i0[d] + (size_t)up) * stride;
      stride *= g->n[d];
    }
    if (wt == 0.0) continue;
    for (int k = 0; k < g->nv; ++k) res[k] += wt * g->v[idx * (size_t)g->nv + k];
  }
}
