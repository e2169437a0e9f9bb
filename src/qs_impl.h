/**
 * @file qs_impl.h  The quasi-static element kernels, written once for both precisions: included by
 * qs_kernels.c with SQ_REAL (float or double), SQ_FN(name) (the precision suffix) and SQ_FNM(name) (the suffix of
 * the multi-vector products) defined.
 *
 * The 10-node tetrahedron's shape functions in barycentric coordinates L: vertex a: L_a (2 L_a - 1); edge (i, j):
 * 4 L_i L_j.  The stiffness integrand is quadratic on a straight-sided cell, so the 4-point rule of degree 2 is
 * exact.  A P1 cell's gradients are constant: one point.
 */

/* d xi_k / d x (k = 1..3) from geo; d L_0 / d x = -(their sum). */
static inline void SQ_FN(qs_bary_grad)(const SQ_REAL *geo, SQ_REAL g[4][3]) {
  for (int d = 0; d < 3; ++d) {
    g[1][d] = geo[d];
    g[2][d] = geo[3 + d];
    g[3][d] = geo[6 + d];
    g[0][d] = -(g[1][d] + g[2][d] + g[3][d]);
  }
}

/* y_a += w (sigma(x) . G_a) with the strain of x from gradients G (n nodes). */
static inline void SQ_FN(qs_point)(int n, const SQ_REAL (*G)[3], SQ_REAL w, SQ_REAL lam, SQ_REAL mu, const SQ_REAL *xe,
                                   SQ_REAL *ye) {
  SQ_REAL h[3][3] = {{0}};
  for (int a = 0; a < n; ++a)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) h[i][j] += xe[3 * a + i] * G[a][j];
  const SQ_REAL tr = h[0][0] + h[1][1] + h[2][2];
  SQ_REAL s[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) s[i][j] = w * (mu * (h[i][j] + h[j][i]) + (i == j ? lam * tr : 0));
  for (int a = 0; a < n; ++a)
    for (int i = 0; i < 3; ++i) ye[3 * a + i] += s[i][0] * G[a][0] + s[i][1] * G[a][1] + s[i][2] * G[a][2];
}

/* Gradients of the 10 shape functions at quadrature point q. */
static inline void SQ_FN(qs_p2_grad)(const SQ_REAL g[4][3], int q, SQ_REAL G[10][3]) {
  const double qa = 0.5854101966249685, qb = 0.1381966011250105;
  SQ_REAL L[4];
  for (int k = 0; k < 4; ++k) L[k] = (SQ_REAL)(k == q ? qa : qb);
  for (int a = 0; a < 4; ++a)
    for (int d = 0; d < 3; ++d) G[a][d] = (4 * L[a] - 1) * g[a][d];
  for (int e = 0; e < 6; ++e) {
    const int i = sq_qs_edge_vertices[e][0], j = sq_qs_edge_vertices[e][1];
    for (int d = 0; d < 3; ++d) G[4 + e][d] = 4 * (L[i] * g[j][d] + L[j] * g[i][d]);
  }
}

void SQ_FN(sq_qs_elem_p2)(const SQ_REAL *geo, const SQ_REAL *xe, SQ_REAL *ye) {
  SQ_REAL g[4][3], G[10][3];
  SQ_FN(qs_bary_grad)(geo, g);
  const SQ_REAL w = geo[9] / 4;
  for (int k = 0; k < 30; ++k) ye[k] = 0;
  for (int q = 0; q < 4; ++q) {
    SQ_FN(qs_p2_grad)(g, q, G);
    SQ_FN(qs_point)(10, (const SQ_REAL(*)[3])G, w, geo[10], geo[11], xe, ye);
  }
}

void SQ_FN(sq_qs_ebe_p2)(int64_t nc, const int64_t *in, const int64_t *out, const SQ_REAL *geo, const SQ_REAL *x,
                         SQ_REAL *y) {
  for (int64_t c = 0; c < nc; ++c) {
    SQ_REAL xe[30], ye[30];
    for (int a = 0; a < 10; ++a)
      for (int i = 0; i < 3; ++i) xe[3 * a + i] = x[3 * in[10 * c + a] + i];
    SQ_FN(sq_qs_elem_p2)(geo + SQ_QS_NGEO * c, xe, ye);
    for (int a = 0; a < 10; ++a)
      for (int i = 0; i < 3; ++i) y[3 * out[10 * c + a] + i] += ye[3 * a + i];
  }
}

void SQ_FN(sq_qs_ebe_p1)(int64_t nc, const int64_t *in, const int64_t *out, const SQ_REAL *geo, const SQ_REAL *x,
                         SQ_REAL *y) {
  for (int64_t c = 0; c < nc; ++c) {
    const SQ_REAL *gc = geo + SQ_QS_NGEO * c;
    SQ_REAL g[4][3], xe[12], ye[12] = {0};
    SQ_FN(qs_bary_grad)(gc, g);
    for (int a = 0; a < 4; ++a)
      for (int i = 0; i < 3; ++i) xe[3 * a + i] = x[3 * in[10 * c + a] + i];
    SQ_FN(qs_point)(4, (const SQ_REAL(*)[3])g, gc[9], gc[10], gc[11], xe, ye);
    for (int a = 0; a < 4; ++a)
      for (int i = 0; i < 3; ++i) y[3 * out[10 * c + a] + i] += ye[3 * a + i];
  }
}

void SQ_FN(sq_qs_tile_apply)(const sq_qs_mesh *qm, int t, int p1, const SQ_REAL *x, SQ_REAL *yt) {
  const sq_qs_tile *tl = qm->tile + t;
  const int64_t n = p1 ? tl->ncoarse : tl->nnode, nc = tl->c1 - tl->c0;
  for (int64_t k = 0; k < 3 * n; ++k) yt[k] = 0;
  const SQ_REAL *geo = SQ_GEO(qm) + SQ_QS_NGEO * tl->c0;
  if (p1) SQ_FN(sq_qs_ebe_p1)(nc, qm->cell_node + 10 * tl->c0, tl->local, geo, x, yt);
  else SQ_FN(sq_qs_ebe_p2)(nc, qm->cell_node + 10 * tl->c0, tl->local, geo, x, yt);
}

void SQ_FN(sq_qs_tile_reduce)(const sq_qs_mesh *qm, int t, int p1, const SQ_REAL *yt, SQ_REAL *y) {
  const sq_qs_tile *tl = qm->tile + t;
  const int64_t n = p1 ? tl->ncoarse : tl->nnode;
  for (int64_t k = 0; k < n; ++k)
    for (int i = 0; i < 3; ++i) y[3 * tl->node[k] + i] += yt[3 * k + i];
}

void SQ_FN(sq_qs_elem_diag)(int p1, const SQ_REAL *geo, SQ_REAL *de) {
  SQ_REAL g[4][3], G[10][3];
  SQ_FN(qs_bary_grad)(geo, g);
  const int n = p1 ? 4 : 10, nq = p1 ? 1 : 4;
  const SQ_REAL lam = geo[10], mu = geo[11], w = geo[9] / nq;
  for (int k = 0; k < 3 * n; ++k) de[k] = 0;
  for (int q = 0; q < nq; ++q) {
    if (p1) {
      for (int a = 0; a < 4; ++a)
        for (int d = 0; d < 3; ++d) G[a][d] = g[a][d];
    } else SQ_FN(qs_p2_grad)(g, q, G);
    for (int a = 0; a < n; ++a) {
      const SQ_REAL gg = G[a][0] * G[a][0] + G[a][1] * G[a][1] + G[a][2] * G[a][2];
      for (int i = 0; i < 3; ++i) de[3 * a + i] += w * (mu * gg + (lam + mu) * G[a][i] * G[a][i]);
    }
  }
}

/* qs_point for SQ_QS_MAXVEC vectors at once, the vector innermost (xe[3 a + i][v], ye likewise), so that the
 * vectors' arithmetic runs in SIMD lanes; each vector's operations are qs_point's, in the same order. */
static inline void SQ_FN(qs_point_v)(int n, const SQ_REAL (*G)[3], SQ_REAL w, SQ_REAL lam, SQ_REAL mu,
                                     const SQ_REAL (*xe)[SQ_QS_MAXVEC], SQ_REAL (*ye)[SQ_QS_MAXVEC]) {
  enum { V = SQ_QS_MAXVEC };
  SQ_REAL h[3][3][V] = {{{0}}};
  for (int a = 0; a < n; ++a)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int v = 0; v < V; ++v) h[i][j][v] += xe[3 * a + i][v] * G[a][j];
  SQ_REAL tr[V], s[3][3][V];
  for (int v = 0; v < V; ++v) tr[v] = h[0][0][v] + h[1][1][v] + h[2][2][v];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int v = 0; v < V; ++v) s[i][j][v] = w * (mu * (h[i][j][v] + h[j][i][v]) + (i == j ? lam * tr[v] : 0));
  for (int a = 0; a < n; ++a)
    for (int i = 0; i < 3; ++i)
      for (int v = 0; v < V; ++v)
        ye[3 * a + i][v] += s[i][0][v] * G[a][0] + s[i][1][v] * G[a][1] + s[i][2][v] * G[a][2];
}

void SQ_FNM(sq_qs_ebe_p2)(int64_t nc, const int64_t *in, const int64_t *out, const SQ_REAL *geo, int nvec,
                          const SQ_REAL *x, SQ_REAL *y) {
  for (int64_t c = 0; c < nc; ++c) {
    const SQ_REAL *gc = geo + SQ_QS_NGEO * c;
    SQ_REAL g[4][3], G[10][3], xe[30][SQ_QS_MAXVEC] = {{0}}, ye[30][SQ_QS_MAXVEC] = {{0}};
    SQ_FN(qs_bary_grad)(gc, g);
    for (int a = 0; a < 10; ++a)
      for (int i = 0; i < 3; ++i)
        for (int v = 0; v < nvec; ++v) xe[3 * a + i][v] = x[(3 * in[10 * c + a] + i) * nvec + v];
    for (int q = 0; q < 4; ++q) {
      SQ_FN(qs_p2_grad)(g, q, G);
      SQ_FN(qs_point_v)(10, (const SQ_REAL(*)[3])G, gc[9] / 4, gc[10], gc[11], (const SQ_REAL(*)[SQ_QS_MAXVEC])xe, ye);
    }
    for (int a = 0; a < 10; ++a)
      for (int i = 0; i < 3; ++i)
        for (int v = 0; v < nvec; ++v) y[(3 * out[10 * c + a] + i) * nvec + v] += ye[3 * a + i][v];
  }
}

void SQ_FNM(sq_qs_ebe_p1)(int64_t nc, const int64_t *in, const int64_t *out, const SQ_REAL *geo, int nvec,
                          const SQ_REAL *x, SQ_REAL *y) {
  for (int64_t c = 0; c < nc; ++c) {
    const SQ_REAL *gc = geo + SQ_QS_NGEO * c;
    SQ_REAL g[4][3], xe[12][SQ_QS_MAXVEC] = {{0}}, ye[12][SQ_QS_MAXVEC] = {{0}};
    SQ_FN(qs_bary_grad)(gc, g);
    for (int a = 0; a < 4; ++a)
      for (int i = 0; i < 3; ++i)
        for (int v = 0; v < nvec; ++v) xe[3 * a + i][v] = x[(3 * in[10 * c + a] + i) * nvec + v];
    SQ_FN(qs_point_v)(4, (const SQ_REAL(*)[3])g, gc[9], gc[10], gc[11], (const SQ_REAL(*)[SQ_QS_MAXVEC])xe, ye);
    for (int a = 0; a < 4; ++a)
      for (int i = 0; i < 3; ++i)
        for (int v = 0; v < nvec; ++v) y[(3 * out[10 * c + a] + i) * nvec + v] += ye[3 * a + i][v];
  }
}
