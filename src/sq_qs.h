/**
 * @file sq_qs.h  Quasi-static crustal deformation (elastic): second-order (10-node) tetrahedra built from a
 * linear mesh, the matrix-free element-by-element (EBE) operator y = K x, the first-order (P1) coarse operator,
 * restriction and prolongation between them, boundary conditions per boundary tag, the fault dislocation as
 * equivalent nodal forces of a split-node offset, and the mixed-precision solver: a flexible conjugate gradient
 * in double precision preconditioned by single-precision inner solves (a coarse P1 solve whose prolongation
 * starts a Jacobi-preconditioned P2 solve).  docs/POSTSEISMIC.md describes the method.
 *
 * Node numbering of the P2 mesh: the linear mesh's vertices first (0 .. nvert-1, so the P1 coarse mesh is the
 * leading block), then one node per edge.  Local nodes of a cell: its 4 vertices, then the midpoints of the
 * edges (0,1), (1,2), (0,2), (0,3), (1,3), (2,3).  Vectors are node-major: u[3 * node + component].
 * No StarPU here: runtime/ runs the tile operations below as tasks through sq_qs_ops.
 */
#ifndef SQ_QS_H
#define SQ_QS_H

#include "sq_common.h"
#include "sq_mesh.h"

/** Local nodes of a 10-node tetrahedron, and the local edges' vertices. */
#define SQ_QS_NLOC 10
extern const int sq_qs_edge_vertices[6][2];

/** Per-cell geometry and material, SQ_QS_NGEO reals: d xi_e / d x_d (9, as sq_mesh.jac_inv), volume, lambda, mu. */
#define SQ_QS_NGEO 12

/** A contiguous range of cells with its own node list, the unit of an EBE task: the product of its cells is
 *  accumulated in tile-local rows, then added into the global vector (the reduction). */
typedef struct sq_qs_tile {
  int64_t c0, c1;  /**< cells [c0, c1) */
  int64_t nnode;   /**< distinct P2 nodes of the tile */
  int64_t *node;   /**< nnode: global node of each tile-local node, ascending */
  int64_t *local;  /**< (c1 - c0) x 10: tile-local node of each local node of each cell */
  int64_t ncoarse; /**< tile-local nodes that are vertices (they come first, as node[] is ascending) */
} sq_qs_tile;

/** Boundary condition of the faces of one boundary tag. */
typedef enum {
  SQ_QS_FREE = 0,      /**< traction free */
  SQ_QS_DIRICHLET = 1, /**< displacement given (zero without a Dirichlet function: fixed) */
  SQ_QS_ROLLER = 2     /**< zero normal displacement, free tangential traction (faces normal to an axis) */
} sq_qs_bc_kind;

/** Displacement at a point (Dirichlet data, or a slip vector). */
typedef void (*sq_qs_field_fn)(void *ctx, const double x[3], double u[3]);

/** The second-order mesh, its tiles, boundary conditions and fault offsets. */
typedef struct sq_qs_mesh {
  const sq_mesh *lin; /**< the linear mesh (not owned) */
  int64_t nvert, nedge, nnode, ncell;
  int64_t *cell_node;                 /**< ncell x 10 */
  int64_t *edge_vert;                 /**< nedge x 2 */
  int64_t *vert_edge_ptr, *vert_edge; /**< the edges of each vertex (CSR: nvert + 1 offsets, 2 nedge entries) */
  double *xyz;                        /**< nnode x 3 */
  double *geo;                        /**< ncell x SQ_QS_NGEO */
  float *geo32;                       /**< the same in single precision */
  int ntile;
  sq_qs_tile *tile;
  uint8_t *fixed; /**< 3 nnode: 1 where the displacement component is prescribed */
  double *ubc;    /**< 3 nnode: prescribed values (0 elsewhere) */
  /* fault offsets: the displacement of cell off_cell[k] at its local node off_loc[k] is the continuous field
   * plus off_u[3k..3k+2] (+s/2 on the side the fault normal points into, -s/2 on the other) */
  int64_t noff;
  int64_t *off_cell;
  int8_t *off_loc;
  double *off_u;
  int64_t nfault_face, nfault_node, ntip_node;
  /* one MPI rank's part of a partitioned mesh (sq_qs_mesh_part); NULL for a whole mesh */
  uint8_t *own;   /**< nnode: 1 where this rank owns the node (the lowest rank holding it): its entries count in
                       dot products */
  int64_t *gnode; /**< nnode: the node's number in the whole P2 mesh */
} sq_qs_mesh;

/** @brief Build the P2 mesh of a finalized linear mesh with the Lame parameters of each cell
 *  (@p lambda, @p mu: ncell each), cut into tiles of at most @p tile_size cells. */
int sq_qs_mesh_create(const sq_mesh *lin, const double *lambda, const double *mu, int tile_size, sq_qs_mesh **qm);
void sq_qs_mesh_destroy(sq_qs_mesh *qm);

/**
 * @brief Boundary conditions: @p kind[tag] for the outer faces (no neighbour) of each boundary tag
 * (sq_mesh.face_bc, 0..255); @p dirichlet gives the values of SQ_QS_DIRICHLET faces (NULL: zero).
 * A roller face must be normal to a coordinate axis (error naming the cell and face otherwise).
 */
int sq_qs_set_bc(sq_qs_mesh *qm, const sq_qs_bc_kind kind[256], sq_qs_field_fn dirichlet, void *ctx);

/**
 * @brief The dislocation on the faces tagged SQ_BC_RUPTURE: the jump u(+) - u(-) = slip(x) at each fault node,
 * where + is the side of the fault faces' normals oriented along @p nref; a cell is on the side of its centroid
 * seen from the node along the node's fault normal.  Nodes on the fault's edges inside the domain (tips) take half
 * the slip, the mean of the step there: the jump spreads over the cells around the tip, on both sides of the edge,
 * so that the fault's moment stays right to second order.  Edges on the outer boundary keep the full slip.
 */
int sq_qs_set_fault(sq_qs_mesh *qm, const double nref[3], sq_qs_field_fn slip, void *ctx);

/** @brief Displacement of cell @p c at its local node @p a given the continuous nodal field @p u. */
void sq_qs_cell_displacement(const sq_qs_mesh *qm, const double *u, int64_t c, int a, double out[3]);

/* ---- element and tile kernels (both precisions) ---- */
/** y_e = K_e x_e for one P2 cell (x_e, y_e: 30 node-major values). */
void sq_qs_elem_p2_f64(const double *geo, const double *xe, double *ye);
void sq_qs_elem_p2_f32(const float *geo, const float *xe, float *ye);
/** Cells [c0, c1): y[3 out[c*10+a] + i] += (K_c x)_(a,i) with x gathered through in[c*10+a] (10 nodes for
 *  P2, the first 4 for P1).  @p in and @p out point at cell c0's row.  y is not cleared. */
void sq_qs_ebe_p2_f64(int64_t nc, const int64_t *in, const int64_t *out, const double *geo, const double *x, double *y);
void sq_qs_ebe_p2_f32(int64_t nc, const int64_t *in, const int64_t *out, const float *geo, const float *x, float *y);
void sq_qs_ebe_p1_f64(int64_t nc, const int64_t *in, const int64_t *out, const double *geo, const double *x, double *y);
void sq_qs_ebe_p1_f32(int64_t nc, const int64_t *in, const int64_t *out, const float *geo, const float *x, float *y);
/** Multi-vector EBE (the matrix read once for @p nvec vectors, 1 <= nvec <= SQ_QS_MAXVEC): as above for nvec
 *  vectors interleaved per component, x[(3 node + i) nvec + v] (the 4 time steps' values of one component
 *  consecutive).  y is not cleared. */
#define SQ_QS_MAXVEC 4
void sq_qs_ebe_p2_f64_multi(int64_t nc, const int64_t *in, const int64_t *out, const double *geo, int nvec,
                            const double *x, double *y);
void sq_qs_ebe_p2_f32_multi(int64_t nc, const int64_t *in, const int64_t *out, const float *geo, int nvec,
                            const float *x, float *y);
void sq_qs_ebe_p1_f64_multi(int64_t nc, const int64_t *in, const int64_t *out, const double *geo, int nvec,
                            const double *x, double *y);
void sq_qs_ebe_p1_f32_multi(int64_t nc, const int64_t *in, const int64_t *out, const float *geo, int nvec,
                            const float *x, float *y);
/** Viscoelasticity (sq_qs_visco.h): the strain of one P2 cell's nodal values @p xe (30) at its 4 quadrature
 *  points, eps[6 q + k] with k = (11, 22, 33, 12, 23, 13) (tensor components), and the nodal forces
 *  ye (30) = sum_q w_q B_q^T sigma_q of stresses sig[6 q + k] (same order); ye is overwritten. */
void sq_qs_elem_p2_strain_f64(const double *geo, const double *xe, double *eps);
void sq_qs_elem_p2_stress_forces_f64(const double *geo, const double *sig, double *ye);
/** The diagonal of one cell's P2 (@p p1 0: 30 values) or P1 (@p p1 1: 12 values) stiffness. */
void sq_qs_elem_diag_f64(int p1, const double *geo, double *de);
void sq_qs_elem_diag_f32(int p1, const float *geo, float *de);
/** Diagonal of the P2 (3 nnode) or P1 (3 nvert) operator, assembled over all cells. */
void sq_qs_diag_p2(const sq_qs_mesh *qm, double *d);
void sq_qs_diag_p1(const sq_qs_mesh *qm, double *d);

/** A tile's product into its local rows: yt (3 tile nnode, or 3 ncoarse for P1) = K_tile x. */
void sq_qs_tile_apply_f64(const sq_qs_mesh *qm, int t, int p1, const double *x, double *yt);
void sq_qs_tile_apply_f32(const sq_qs_mesh *qm, int t, int p1, const float *x, float *yt);
/** The reduction: y += the tile's local rows. */
void sq_qs_tile_reduce_f64(const sq_qs_mesh *qm, int t, int p1, const double *yt, double *y);
void sq_qs_tile_reduce_f32(const sq_qs_mesh *qm, int t, int p1, const float *yt, float *y);
/** Restriction r_c = P^T r over the vertices [v0, v1): each vertex's value plus half of each of its edges' (a gather
 *  through vert_edge); @p rc points at vertex v0's row.  @p vert_edge_ptr, @p vert_edge: sq_qs_mesh's. */
void sq_qs_restrict_range_f32(int64_t nvert, const int64_t *vert_edge_ptr, const int64_t *vert_edge, int64_t v0,
                              int64_t v1, const float *r, float *rc);
/** Prolongation z = P z_c over the P2 nodes [n0, n1): a vertex takes its value, an edge the mean of its vertices';
 *  @p z points at node n0's row.  @p edge_vert: sq_qs_mesh's. */
void sq_qs_prolong_range_f32(int64_t nvert, const int64_t *edge_vert, int64_t n0, int64_t n1, const float *zc,
                             float *z);
/** Both over the whole mesh. */
void sq_qs_restrict_f32(const sq_qs_mesh *qm, const float *r, float *rc);
void sq_qs_prolong_f32(const sq_qs_mesh *qm, const float *zc, float *z);
/** The transfers of @p nvec vectors interleaved per component (x[(3 node + i) nvec + v]); nvec 1: the above. */
void sq_qs_restrict_range_f32_multi(int64_t nvert, const int64_t *vert_edge_ptr, const int64_t *vert_edge, int nvec,
                                    int64_t v0, int64_t v1, const float *r, float *rc);
void sq_qs_prolong_range_f32_multi(int64_t nvert, const int64_t *edge_vert, int nvec, int64_t n0, int64_t n1,
                                   const float *zc, float *z);

/** The operator products the solver uses, each returning an error code; NULL members: the serial loops. */
typedef struct sq_qs_ops {
  void *ctx;
  int (*apply_f64)(void *ctx, const double *x, double *y);      /**< y = K x, P2, double */
  int (*apply_f32)(void *ctx, const float *x, float *y);        /**< y = K x, P2, single */
  int (*apply_coarse_f32)(void *ctx, const float *x, float *y); /**< y = K_c x, P1, single */
  int (*restrict_f32)(void *ctx, const float *r, float *rc);    /**< rc = P^T r */
  int (*prolong_f32)(void *ctx, const float *zc, float *z);     /**< z = P zc */
  /* MPI, with their own context @p comm; NULL members: one rank.  Products and the right-hand side's forces are
   * rank-local sums over the rank's cells; exchange_* then sums the entries of the nodes shared with other ranks,
   * so that every rank holds the assembled value (the same bits on every rank).  @p y holds @p nval values per
   * node (3 for one vector, 3 nvec for nvec interleaved vectors) over the P2 nodes (@p p1 0) or the vertices
   * (@p p1 1). */
  void *comm;
  int (*exchange_f64)(void *comm, int p1, int nval, double *y);
  int (*exchange_f32)(void *comm, int p1, int nval, float *y);
  int (*allreduce)(void *comm, double *v, int n); /**< v[0..n) = its sum over the ranks, the same on every rank */
  /* the same for nvec (1 .. SQ_QS_MAXVEC) vectors interleaved per component, x[(3 node + i) nvec + v], the matrix
   * read once for the nvec vectors (sq_qs_solve_multi) */
  int (*apply_f64_multi)(void *ctx, int nvec, const double *x, double *y);
  int (*apply_f32_multi)(void *ctx, int nvec, const float *x, float *y);
  int (*apply_coarse_f32_multi)(void *ctx, int nvec, const float *x, float *y);
  int (*restrict_f32_multi)(void *ctx, int nvec, const float *r, float *rc);
  int (*prolong_f32_multi)(void *ctx, int nvec, const float *zc, float *z);
} sq_qs_ops;

/** The hooks above, doing nothing for @p ops NULL or a NULL member. */
int sq_qs_exchange_f64(const sq_qs_ops *ops, int p1, int nval, double *y);
int sq_qs_exchange_f32(const sq_qs_ops *ops, int p1, int nval, float *y);
int sq_qs_allreduce(const sq_qs_ops *ops, double *v, int n);
/** This rank's share of the dot product of @p a and @p b (@p n entries, @p nval per node): the entries of the
 *  nodes it owns (sq_qs_mesh.own; all for a whole mesh), summed in double; sq_qs_allreduce gives the whole. */
double sq_qs_dot_local_f64(const sq_qs_mesh *qm, int nval, int64_t n, const double *a, const double *b);
double sq_qs_dot_local_f32(const sq_qs_mesh *qm, int nval, int64_t n, const float *a, const float *b);
/** The inverse Jacobi diagonals of the inner solves, assembled across ranks through @p ops: @p dinv (3 nnode) of the
 *  P2 operator and @p dinv_c (3 nvert) of the P1 one in single precision, 0 at prescribed components, and
 *  @p fixed_c (3 nvert) the prescribed components of the coarse mesh; @p work: 3 nnode doubles. */
int sq_qs_jacobi_inverse(const sq_qs_mesh *qm, const sq_qs_ops *ops, double *work, float *dinv, float *dinv_c,
                         uint8_t *fixed_c);

/** The single-precision preconditioner's arrays of the CG solvers (sq_qs_solve, sq_qs_solve_multi), for @p nv
 *  vectors interleaved. */
typedef struct sq_qs_precond {
  float *dinv, *dinv_c;                         /**< inverse diagonals per component, 0 at prescribed ones */
  uint8_t *fixed_c;                             /**< prescribed components of the coarse mesh (the vertices') */
  float *rf, *zf, *rc, *zc, *cr, *cz, *cp, *cq; /**< inner vectors (sized for the P2 mesh) */
} sq_qs_precond;
/** Allocate @p pc's arrays for @p nv vectors (zeroed) and fill its inverse diagonals (sq_qs_jacobi_inverse, with
 *  @p work as there); on failure what was allocated is freed. */
int sq_qs_precond_create(const sq_qs_mesh *qm, const sq_qs_ops *ops, int nv, double *work, sq_qs_precond *pc);
void sq_qs_precond_destroy(sq_qs_precond *pc);

/** Solver settings and results. */
typedef struct sq_qs_solver_opts {
  double tol;        /**< relative residual of the outer solve (double precision) */
  int max_outer;     /**< outer iterations at most */
  double inner_tol;  /**< relative residual of the inner P2 solve (single precision) */
  int max_inner;     /**< inner P2 iterations per preconditioner application */
  double coarse_tol; /**< relative residual of the inner P1 solve */
  int max_coarse;    /**< inner P1 iterations per preconditioner application */
  int verbose;       /**< print the outer residual per iteration to stderr */
  int use_start;     /**< 1: u holds the start value of the free components on entry (else: zero) */
  double ref_norm;   /**< > 0: the tolerance is relative to max(|b|, ref_norm), |b| the right-hand side's norm */
  /* results */
  int outer_iters;
  int64_t inner_iters, coarse_iters;
  double rel_residual; /**< final relative residual, recomputed in double */
} sq_qs_solver_opts;

void sq_qs_solver_opts_default(sq_qs_solver_opts *o);

/**
 * @brief Solve the elastic problem: @p u (3 nnode) gets the continuous field (add the fault offsets per cell with
 * sq_qs_cell_displacement); the right-hand side is the fault's equivalent forces and the Dirichlet lift, plus
 * @p f (3 nnode nodal forces; NULL: none).  @p ops: NULL for the serial loops.
 * Fails with SQ_ERR_NUMERIC when the outer tolerance is not reached.
 */
int sq_qs_solve(const sq_qs_mesh *qm, const sq_qs_ops *ops, const double *f, double *u, sq_qs_solver_opts *o);

/**
 * @brief The same solve for @p nvec right-hand sides together (1 <= nvec <= SQ_QS_MAXVEC; src/qs_solve_multi.c):
 * one flexible CG whose products are multi-vector products (each element read once for the nvec vectors), each
 * vector with its own alpha and beta in the outer and in both inner loops.  Convergence is judged on vector 0 (the
 * papers' Algorithm 2 for four time steps): every loop, outer and inner, ends when vector 0 meets its tolerance;
 * another vector stops being updated once it meets its own (or its search direction breaks down).
 * @p f (NULL: none) and @p u are interleaved per component, x[(3 node + i) nvec + v]; with o->use_start, u holds
 * the start values of all vectors.  The results (iterations: each multi-vector iteration counted once;
 * rel_residual: vector 0's, recomputed in double) are those of the vector-0 solve.  @p max_pass > 0: return
 * (successfully) after that many outer iterations even if vector 0 has not converged, rel_residual then being its
 * recurrence residual (a pass of the multi-step window, sq_qs_visco.h); 0: until it converges.
 */
int sq_qs_solve_multi(const sq_qs_mesh *qm, const sq_qs_ops *ops, int nvec, const double *f, double *u,
                      sq_qs_solver_opts *o, int max_pass);

#endif
