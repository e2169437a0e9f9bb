/**
 * @file sq_plastic_state.h  The plasticity data of one rank's discretisation: per local element the
 * material parameters, the initial stress and the accumulated plastic strain, stored in element order so
 * that every tile owns a contiguous block (the runtime registers them tile by tile, like the dofs).
 *
 * The correction runs after each element update (thesis ch. 8): in the task graph as a `plasticity`
 * task right after a tile's neighbour task, in the serial reference by sq_plastic_state_step_serial
 * after sq_disc_correct_serial.  Both call sq_plasticity_tile on the same blocks, so they agree bitwise.
 * Ghost elements (other ranks' cells) carry the arrays but are never corrected here: their owner does it.
 */
#ifndef SQ_PLASTIC_STATE_H
#define SQ_PLASTIC_STATE_H

#include "sq_plasticity.h"
#include "sq_solver.h"

/** Columns of the plastic strain block: e_xx, e_yy, e_zz, e_xy, e_yz, e_xz (tensor components), eta. */
#define SQ_PLASTIC_STRAIN_COLS 7

/** Per-element plasticity data of a discretisation (all arrays nelem rows, local element order). */
typedef struct sq_plastic_state {
  sq_plasticity_ref *ref; /**< nodal basis of the order (V, V^-1; eq. 8.2-8.3) */
  sq_precision precision; /**< the working precision of the dofs */
  int64_t nelem;
  void *initial_stress;    /**< nelem rows of 6 x B: the initial stress at each element's B nodal points, in the
                                working precision (component p of node i at [p*B + i], as the dofs' stress
                                columns; sq_plasticity_stress_set / _get, sq_plastic_state_stress) */
  size_t stress_row_bytes; /**< bytes of one element's row of initial_stress: 6 B sizeof(real) */
  double *params;          /**< nelem x 3: cohesion, bulk friction, relaxation time Tv */
  double *mu;              /**< nelem: shear modulus (eq. 2.33) */
  double *strain;          /**< nelem x SQ_PLASTIC_STRAIN_COLS: accumulated plastic strain and eta */
  uint8_t *yielded;        /**< nelem: 1 if the element yielded in its last update */
  void *ref_pack;          /**< V then V^-1 (B x B each, column-major) in the working precision: the
                                matrices a device body reads (sq_plastic_state_ref_view rebuilds the ref) */
  size_t ref_pack_bytes;
  int64_t yield_updates; /**< element updates that yielded, over the run (statistics) */
} sq_plastic_state;

/**
 * @brief Allocate the state for @p disc: zero initial stress, strain and parameters, mu from the
 * elements' materials, and the nodal reference data of the disc's order.  The caller fills
 * initial_stress (sq_plastic_state_stress, sq_plasticity_stress_set) and params (validated with
 * sq_plasticity_check_params) before the first step.
 */
int sq_plastic_state_create(const sq_disc *disc, sq_plastic_state **out);

/** @brief The row of local element @p e in initial_stress (6 x B reals of the working precision). */
void *sq_plastic_state_stress(const sq_plastic_state *ps, int64_t e);

/**
 * @brief The physical coordinates of the B nodal points of local element @p e (the reference nodes
 * sq_plasticity_ref.node mapped by the element's affine map, as sq_mesh_ref_to_phys does) into @p xyz
 * (B x 3, point-major): where the initial stress is evaluated.
 */
void sq_plastic_state_node_points(const sq_plastic_state *ps, const sq_disc *disc, int64_t e, double *xyz);

/**
 * @brief The initial stress of local element @p e at reference point @p xi: the polynomial that
 * interpolates its nodal values (V^-1 to the modes, then the basis at xi), in double.  At a nodal point
 * it is the nodal value; a constant (centroid) initial stress gives that constant everywhere.
 */
void sq_plastic_state_stress_at(const sq_plastic_state *ps, int64_t e, const double xi[3], double stress[6]);
/** Free everything (NULL is fine). */
void sq_plastic_state_destroy(sq_plastic_state *ps);

/** @brief Host bytes of the per-element arrays (nodal initial stress, parameters, mu, strain, flags); 0 for NULL. */
size_t sq_plastic_state_bytes(const sq_plastic_state *ps);

/**
 * @brief Correct the owned elements of every tile after a global step of size @p dt (serial reference,
 * GTS): the same calls, in the same per-element order, as the plasticity tasks of the graph (with attenuation,
 * the memory variables shifted around the correction by sq_kernel_ane_shift, as the plasticity_ane codelet).
 * @return the number of elements that yielded in this step.
 */
int64_t sq_plastic_state_step_serial(sq_plastic_state *ps, sq_disc *disc, double dt);

/**
 * @brief Correct the @p n elements of one block (a tile): thin wrapper of sq_plasticity_tile that reads
 * V and V^-1 from @p ref_pack (a copy of sq_plastic_state.ref_pack), so that a codelet needs no pointer
 * into host-only data.  Arrays are the tile's rows of the state's arrays.
 * @return the number of elements that yielded.
 */
int64_t sq_plastic_state_block(sq_precision prec, int order, double psi0, const void *ref_pack, int64_t n, void *dofs,
                               const void *initial_stress, const double *params, const double *mu, double dt,
                               double *strain, uint8_t *yielded);

#endif
