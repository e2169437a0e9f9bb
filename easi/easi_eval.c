/**
 * @file easi_eval.c  Loading an easi model and evaluating it per point, as easi does: a filter passes the
 * point on only if it accepts it; a map computes its outputs, which are its children's inputs; a list of
 * children gives the point to the first child that accepts it; !Switch sends each parameter to the case
 * that lists it; a component without children gives its outputs as the parameters.  Points are
 * independent: OpenMP threads share the read-only tree, each with its own Lua states.
 */
#include "easi_impl.h"
#include "sq_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  sq_elua *lua;
  char msg[SQ_EASI_MSG];
  const sq_ecomp *rejected; /**< the last filter that refused the point */
} ev_ctx;

static int ev_index(int n, char *const *names, const char *name) {
  for (int i = 0; i < n; ++i)
    if (strcmp(names[i], name) == 0) return i;
  return -1;
}

static int ev_missing(ev_ctx *cx, const sq_ecomp *c, const char *name) {
  char list[256] = "";
  for (int i = 0; i < c->nout; ++i) {
    strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
    strncat(list, c->out[i], sizeof(list) - strlen(list) - 1);
  }
  snprintf(cx->msg, sizeof(cx->msg), "%s:%d: %s does not give parameter '%s' (it gives: %s)", c->file, c->line, c->tag,
           name, list[0] ? list : "nothing");
  return -1;
}

static int ev(const sq_ecomp *c, ev_ctx *cx, const double *in, int group, int nw, const char *const *want, double *out);

/* outputs idx[0..n-1] of map @p c at input @p in */
static int ev_map(const sq_ecomp *c, ev_ctx *cx, const double *in, int group, int n, const int *idx, double *res) {
  switch (c->kind) {
  case SQ_EC_CONSTANT:
    for (int k = 0; k < n; ++k) res[k] = c->val[idx[k]];
    return 0;
  case SQ_EC_FUNCTION:
    for (int k = 0; k < n; ++k)
      if (sq_efunc_run(c->fn[idx[k]], in, &res[k])) {
        snprintf(cx->msg, sizeof(cx->msg), "%s:%d: !FunctionMap: the function of '%s' ended without 'return'", c->file,
                 c->line, c->out[idx[k]]);
        return -1;
      }
    return 0;
  case SQ_EC_LUA: return sq_elua_eval(cx->lua, c, in, n, idx, res, cx->msg, sizeof(cx->msg));
  case SQ_EC_AFFINE:
    for (int k = 0; k < n; ++k) {
      const double *row = c->val + (size_t)idx[k] * (size_t)(c->nin + 1);
      double s = row[c->nin];
      for (int j = 0; j < c->nin; ++j) s += row[j] * in[j];
      res[k] = s;
    }
    return 0;
  case SQ_EC_POLY:
    for (int k = 0; k < n; ++k) {
      size_t o = 0;
      for (int i = 0; i < idx[k]; ++i) o += (size_t)c->ncoef[i];
      double s = 0.0;
      for (int i = 0; i < c->ncoef[idx[k]]; ++i) s = s * in[0] + c->val[o + (size_t)i];
      res[k] = s;
    }
    return 0;
  case SQ_EC_LAYERED: {
    double z;
    const char *name = c->map->out[0];
    int r = ev(c->map, cx, in, group, 1, &name, &z);
    if (r) return r;
    /* easi's segments, the first that holds z wins: (-inf, n0] the first node's values, [n_i, n_i+1]
     * the interpolation, [n_last, inf) the last node's values */
    int nn = c->nnodes, seg = nn; /* seg s: between node s-1 and node s */
    for (int s = 0; s <= nn; ++s) {
      double lo = s > 0 ? c->nodes[s - 1] : -INFINITY, hi = s < nn ? c->nodes[s] : INFINITY;
      if (z >= lo && z <= hi) {
        seg = s;
        break;
      }
    }
    if (isnan(z)) {
      snprintf(cx->msg, sizeof(cx->msg), "%s:%d: !LayeredModel: the layer coordinate is NaN", c->file, c->line);
      return -1;
    }
    for (int k = 0; k < n; ++k) {
      int col = c->perm[idx[k]];
      const double *lo = seg > 0 ? c->val + (size_t)(seg - 1) * (size_t)c->nout : NULL;
      const double *hi = seg < nn ? c->val + (size_t)seg * (size_t)c->nout : NULL;
      if (!lo) res[k] = hi[col];
      else if (!hi) res[k] = lo[col];
      else if (c->interp == SQ_EI_LOWER) res[k] = lo[col];
      else if (c->interp == SQ_EI_UPPER) res[k] = hi[col];
      else {
        double a = c->nodes[seg - 1], b = c->nodes[seg];
        res[k] = lo[col] + (hi[col] - lo[col]) * (z - a) / (b - a);
      }
    }
    return 0;
  }
  case SQ_EC_EVAL: {
    double all[SQ_EASI_MAXDIM];
    int r = ev(c->model, cx, in, group, c->nout, (const char *const *)c->out, all);
    if (r) return r;
    for (int k = 0; k < n; ++k) res[k] = all[idx[k]];
    return 0;
  }
  case SQ_EC_SCEC:
  case SQ_EC_ASAGI: {
    double all[SQ_EASI_MAXDIM];
    sq_egrid_eval(&c->grid, in, c->interp, all);
    for (int k = 0; k < n; ++k) res[k] = all[c->perm[idx[k]]];
    return 0;
  }
  default: return -1;
  }
}

static int ev_accepts(const sq_ecomp *c, const double *in, int group) {
  switch (c->kind) {
  case SQ_EC_GROUP:
    for (int i = 0; i < c->ngroups; ++i)
      if (c->groups[i] == group) return 1;
    return 0;
  case SQ_EC_CUBOID:
    for (int j = 0; j < c->nin; ++j)
      if (!(in[j] >= c->lim[2 * j] && in[j] <= c->lim[2 * j + 1])) return 0;
    return 1;
  case SQ_EC_SPHERE: {
    double r2 = 0.0;
    for (int j = 0; j < c->nin; ++j) r2 += (in[j] - c->lim[j]) * (in[j] - c->lim[j]);
    return r2 <= c->radius * c->radius;
  }
  default: return 1;
  }
}

static int ev_switch(const sq_ecomp *c, ev_ctx *cx, const double *in, int group, int nw, const char *const *want,
                     double *out) {
  int found[SQ_EASI_MAXDIM] = {0};
  for (int i = 0; i < c->nchild; ++i) {
    const char *sub[SQ_EASI_MAXDIM];
    int pos[SQ_EASI_MAXDIM], ns = 0;
    for (int k = 0; k < nw; ++k)
      if (ev_index(c->nkeys[i], c->keys[i], want[k]) >= 0) {
        sub[ns] = want[k];
        pos[ns++] = k;
        found[k] = 1;
      }
    if (!ns) continue;
    double res[SQ_EASI_MAXDIM];
    int r = ev(c->child[i], cx, in, group, ns, sub, res);
    if (r) return r;
    for (int k = 0; k < ns; ++k) out[pos[k]] = res[k];
  }
  for (int k = 0; k < nw; ++k)
    if (!found[k]) {
      snprintf(cx->msg, sizeof(cx->msg), "%s:%d: !Switch has no case for parameter '%s'", c->file, c->line, want[k]);
      return -1;
    }
  return 0;
}

/* 0: values in out; 1: the point is not accepted; -1: error in cx->msg */
static int ev(const sq_ecomp *c, ev_ctx *cx, const double *in, int group, int nw, const char *const *want,
              double *out) {
  double mine[SQ_EASI_MAXDIM];
  const double *vals = in;
  int idx[SQ_EASI_MAXDIM];
  switch (c->kind) {
  case SQ_EC_SWITCH: return ev_switch(c, cx, in, group, nw, want, out);
  case SQ_EC_GROUP:
  case SQ_EC_CUBOID:
  case SQ_EC_SPHERE:
    if (!ev_accepts(c, in, group)) {
      cx->rejected = c;
      return 1;
    }
    break;
  case SQ_EC_ANY:
  case SQ_EC_IDENTITY: break;
  default:
    if (c->nchild == 0) { /* a leaf map: only what is wanted */
      for (int k = 0; k < nw; ++k)
        if ((idx[k] = ev_index(c->nout, c->out, want[k])) < 0) return ev_missing(cx, c, want[k]);
      return ev_map(c, cx, in, group, nw, idx, out);
    }
    for (int k = 0; k < c->nout; ++k) idx[k] = k;
    int r = ev_map(c, cx, in, group, c->nout, idx, mine);
    if (r) return r;
    vals = mine;
    break;
  }
  if (c->nchild == 0) {
    for (int k = 0; k < nw; ++k) {
      int j = ev_index(c->nout, c->out, want[k]);
      if (j < 0) return ev_missing(cx, c, want[k]);
      out[k] = vals[j];
    }
    return 0;
  }
  for (int i = 0; i < c->nchild; ++i) {
    int r = ev(c->child[i], cx, vals, group, nw, want, out);
    if (r != 1) return r;
  }
  return 1;
}

static int pv(const sq_ecomp *c, const char *name) {
  if (c->kind == SQ_EC_SWITCH) {
    for (int i = 0; i < c->nchild; ++i)
      if (ev_index(c->nkeys[i], c->keys[i], name) >= 0) return pv(c->child[i], name);
    return 0;
  }
  if (c->nchild == 0) return ev_index(c->nout, c->out, name) >= 0;
  for (int i = 0; i < c->nchild; ++i)
    if (pv(c->child[i], name)) return 1;
  return 0;
}

int sq_easi_provides(const sq_easi *m, const char *name) { return m && m->root && pv(m->root, name); }

/* Lua states for one evaluating thread: a kept set, or new ones */
static sq_elua *lua_take(const sq_easi *cm) {
  sq_easi *m = (sq_easi *)cm; /* the pool is the only part that changes; the lock guards it */
  sq_elua *L = NULL;
  pthread_mutex_lock(&m->lock);
  if (m->npool > 0) L = m->pool[--m->npool];
  pthread_mutex_unlock(&m->lock);
  return L ? L : sq_elua_new(m);
}

static void lua_give(const sq_easi *cm, sq_elua *L) {
  sq_easi *m = (sq_easi *)cm;
  if (!L) return;
  pthread_mutex_lock(&m->lock);
  if (m->npool == m->cappool) {
    int cap = m->cappool ? 2 * m->cappool : 8;
    sq_elua **p = realloc(m->pool, (size_t)cap * sizeof(*p));
    if (p) m->pool = p, m->cappool = cap;
  }
  if (m->npool < m->cappool) m->pool[m->npool++] = L, L = NULL;
  pthread_mutex_unlock(&m->lock);
  sq_elua_free(L);
}

void sq_easi_free(sq_easi *m) {
  if (!m) return;
  for (int i = 0; i < m->npool; ++i) sq_elua_free(m->pool[i]);
  free(m->pool);
  pthread_mutex_destroy(&m->lock);
  sq_ecomp_free(m->root);
  for (int i = 0; i < m->nfiles; ++i) free(m->files[i]);
  free(m->files);
  free(m->luac);
  free(m);
}

int sq_easi_load(const char *path, sq_easi **model) {
  *model = NULL;
  sq_easi *m = calloc(1, sizeof(*m));
  SQ_CHECK(m, SQ_ERR_MEMORY, "out of memory for easi model %s", path);
  pthread_mutex_init(&m->lock, NULL);
  char msg[SQ_EASI_MSG];
  if (sq_easi_parse(path, m, msg, sizeof(msg))) {
    sq_easi_free(m);
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s", msg);
  }
  *model = m;
  return SQ_SUCCESS;
}

int sq_easi_eval(const sq_easi *m, int64_t npt, const double *xyz, const int *group, int nnames,
                 const char *const *names, double *out) {
  return sq_easi_eval_first_bad(m, npt, xyz, group, nnames, names, out, NULL);
}

int sq_easi_eval_first_bad(const sq_easi *m, int64_t npt, const double *xyz, const int *group, int nnames,
                           const char *const *names, double *out, int64_t *firstbad) {
  if (firstbad) *firstbad = npt;
  SQ_CHECK(m && m->root, SQ_ERR_INTERNAL, "sq_easi_eval: no model");
  SQ_CHECK(nnames >= 0 && nnames <= SQ_EASI_MAXDIM, SQ_ERR_INTERNAL, "sq_easi_eval: %d parameters at once", nnames);
  if (npt <= 0 || nnames == 0) return SQ_SUCCESS;
  int64_t bad = npt;
  int nomem = 0;
  char badmsg[SQ_EASI_MSG + 160] = "";
  /* a few points (a caller going point by point): no threads */
#ifdef _OPENMP
#pragma omp parallel if (npt > 64)
#endif
  {
    ev_ctx *cx = calloc(1, sizeof(*cx));
    if (cx) cx->lua = lua_take(m);
    int64_t mybad = npt;
    char mymsg[SQ_EASI_MSG + 160] = "";
    if (!cx || !cx->lua) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
      nomem = 1;
    }
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 64)
#endif
    for (int64_t p = 0; p < npt; ++p) {
      if (mybad < npt || !cx || !cx->lua) continue;
      const double *x = xyz + 3 * p;
      int g = group ? group[p] : 0;
      cx->rejected = NULL;
      int r = ev(m->root, cx, x, g, nnames, names, out + p * nnames);
      if (r == 0) continue;
      mybad = p;
      if (r == 1 && cx->rejected)
        snprintf(mymsg, sizeof(mymsg),
                 "easi model %s: no component accepts the point (%g, %g, %g) of group %d (the last that refused it: "
                 "%s:%d: %s)",
                 m->files[0], x[0], x[1], x[2], g, cx->rejected->file, cx->rejected->line, cx->rejected->tag);
      else if (r == 1)
        snprintf(mymsg, sizeof(mymsg), "easi model %s: no component accepts the point (%g, %g, %g) of group %d",
                 m->files[0], x[0], x[1], x[2], g);
      else
        snprintf(mymsg, sizeof(mymsg), "easi model %s at the point (%g, %g, %g) of group %d: %s", m->files[0], x[0],
                 x[1], x[2], g, cx->msg);
    }
#ifdef _OPENMP
#pragma omp critical(sq_easi_eval_error)
#endif
    if (mybad < bad) {
      bad = mybad;
      memcpy(badmsg, mymsg, sizeof(badmsg));
    }
    if (cx) lua_give(m, cx->lua);
    free(cx);
  }
  SQ_CHECK(!nomem, SQ_ERR_MEMORY, "out of memory evaluating easi model %s", m->files[0]);
  if (firstbad) *firstbad = bad;
  if (bad < npt) return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s", badmsg);
  return SQ_SUCCESS;
}
