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

/** @brief Physical point of reference point @p xi in cell @p cell. */
void sq_mesh_ref_to_phys(const sq_mesh *mesh, int64_t cell, const double xi[3], double x[3]);

#endif
