/**
 * @file sq_fields.h  Values of the discrete solution for output: cell averages, vertex values, the
 * free-surface triangles, and the kinetic/elastic energy split.  Everything is in mesh order (cell
 * index, vertex index), independent of the solver's element ordering.  No StarPU here.
 */
#ifndef SQ_FIELDS_H
#define SQ_FIELDS_H

#include "sq_solver.h"

/** Output names of the 9 quantities, in the order of sq_physics.h. */
extern const char *const sq_quantity_names[9];

/** @brief Index 0..8 of quantity @p name ("s_xx" ... "v3"), or -1. */
int sq_quantity_index(const char *name);

/** @brief Cell averages of quantity @p p, out[cell] in mesh order (psi_0 is constant: Q_0 psi_0). */
void sq_fields_cell_average(const sq_disc *disc, int p, double *out);

/**
 * @brief Vertex values of quantity @p p: each cell's polynomial evaluated at its vertices,
 * averaged over the cells sharing the vertex; out[vertex] in mesh order.
 */
void sq_fields_vertex_values(const sq_disc *disc, int p, double *out);

/** The free-surface triangles (faces tagged SQ_BC_FREE). */
typedef struct sq_surface {
  int64_t nface;
  int64_t *cell; /**< nface: mesh cell */
  int8_t *face;  /**< nface: local face 0..3 */
  int64_t *tri;  /**< nface x 3: mesh vertex ids, ordered outward */
} sq_surface;

/** @brief Collect the free-surface faces of @p mesh (in cell order). */
int sq_surface_create(const sq_mesh *mesh, sq_surface **surface);
/** Free (NULL is fine). */
void sq_surface_destroy(sq_surface *surface);
/** @brief Quantity @p p at the centroid of each surface triangle: out[face]. */
void sq_fields_surface_values(const sq_disc *disc, const sq_surface *surface, int p, double *out);

/** @brief Kinetic (1/2 rho |v|^2) and elastic (1/2 sigma : eps) energy of the dofs. */
void sq_fields_energy(const sq_disc *disc, double *kinetic, double *elastic);

#endif
