/**
 * @file sq_locate.h  Point location in a tetrahedral mesh: which cell contains a point, and where in
 * the reference element.  A uniform bucket grid over the cells' bounding boxes keeps a query at a
 * few cell tests.  Ties (a point on a shared face, edge or vertex) go to the cell in which the point
 * lies deepest, then to the lowest cell index, so that the answer never depends on the bucket order.
 */
#ifndef SQ_LOCATE_H
#define SQ_LOCATE_H

#include "sq_mesh.h"

/** Opaque point locator over one mesh (the mesh must outlive it). */
typedef struct sq_locator sq_locator;

/** @brief Build a locator for the finalized mesh @p mesh. */
int sq_locator_create(const sq_mesh *mesh, sq_locator **loc);
/** Free (NULL is fine). */
void sq_locator_destroy(sq_locator *loc);

/**
 * @brief Cell containing @p x, or -1 when no cell does (up to a relative tolerance of 1e-9 of the
 * cell size, so points on the boundary are inside).
 * @param xi  if not NULL: reference coordinates of @p x in that cell, clamped into the tetrahedron
 */
int64_t sq_locator_find(const sq_locator *loc, const double x[3], double xi[3]);

/** Returned by sq_locator_find for a point that sq_locator_decide gave to another process. */
#define SQ_LOCATE_ELSEWHERE (-2)

/**
 * @brief As sq_locator_find, ignoring sq_locator_decide, and with the point's depth in the cell
 * (its smallest barycentric coordinate; -INFINITY when not found) in @p depth (may be NULL): the
 * deepest cell wins, ties go to the lowest cell index.  Processes holding parts of one mesh compare
 * depths, then global cell ids, to agree on one cell.
 */
int64_t sq_locator_find_depth(const sq_locator *loc, const double x[3], double xi[3], double *depth);

/**
 * @brief Fix the answers of sq_locator_find for the points @p x[0..n) (3 coordinates each, matched
 * exactly): @p cell[i] (a local cell, -1 outside the whole mesh, or SQ_LOCATE_ELSEWHERE: inside a
 * cell of another process).  Used when several MPI ranks each hold a part of the mesh.
 */
int sq_locator_decide(sq_locator *loc, int n, const double *x, const int64_t *cell);

/** @brief Physical point of reference point @p xi in cell @p cell. */
void sq_mesh_ref_to_phys(const sq_mesh *mesh, int64_t cell, const double xi[3], double x[3]);

#endif
