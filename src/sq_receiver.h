/**
 * @file sq_receiver.h  Receivers: points where the solution is sampled in time.
 *
 * A receiver in an element of cluster l is sampled from that element's predictor: the Taylor
 * expansion q(t0 + tau) = sum_i tau^i / i! D^i(xi_r) around the start t0 of each of the element's
 * steps (thesis eq. 3.24), for every sample time j * interval in [t0, t0 + dt_l).  So the samples are
 * exact for the scheme under local time stepping, and each sample is taken by exactly one step: the
 * step boundaries passed in are the same numbers for consecutive steps.
 *
 * Samples collect in a host buffer (slots of n x 9 values, one slot per sample time) until the
 * caller writes them out (sq_receiver_set_consume).  No StarPU here.
 */
#ifndef SQ_RECEIVER_H
#define SQ_RECEIVER_H

#include "sq_source.h"

struct sq_locator;

/** One receiver in its element. */
typedef struct sq_receiver_point {
  int32_t elem;        /**< element index within its tile */
  int32_t index;       /**< receiver number */
  double phi[SQ_MAXB]; /**< psi_k(xi_r) */
} sq_receiver_point;

/** The receivers of one discretisation. */
typedef struct sq_receiver_set {
  int n;
  double *x;                /**< n x 3: locations as given */
  int64_t *cell;            /**< n: containing mesh cell */
  int *owned;               /**< n: this rank writes the receiver (MPI: the rank owning the cell) */
  sq_receiver_point *point; /**< n, sorted by tile, element, index */
  int ntile;
  int *tile_begin; /**< ntile + 1 */
  double interval; /**< sampling interval (> 0) */
  /* sample buffer */
  int64_t first;    /**< sample number of slot 0 */
  int64_t capacity; /**< slots allocated */
  double *samples;  /**< capacity x n x 9 */
  char **name;      /**< NULL, or n names (NULL: numbered), e.g. a station's "NET.STA" */
} sq_receiver_set;

/**
 * @brief Locate @p n receivers at @p x in @p disc; mark their tiles to keep the time derivatives
 * (sq_disc_keep_derivs).  Receivers outside the mesh are an error listing every one of them, with
 * @p origin[i] (e.g. "run.yaml:31" or "stations.txt:4"), and the mesh bounding box.
 * @param first  number of the first sample still to take (0 for a new run; a restart's count)
 */
int sq_receiver_set_create(sq_disc *disc, const struct sq_locator *loc, int n, const double *x,
                           const char *const *origin, double interval, int64_t first, sq_receiver_set **set);
/** Free (NULL is fine). */
void sq_receiver_set_destroy(sq_receiver_set *set);
/** @brief Name receiver @p i (its output files are then named by @p name instead of its number). */
int sq_receiver_set_name(sq_receiver_set *set, int i, const char *name);
/** Number of receivers in tile @p tile. */
static inline int sq_receiver_set_count(const sq_receiver_set *s, int tile) {
  return s ? s->tile_begin[tile + 1] - s->tile_begin[tile] : 0;
}

/** @brief Sample numbers j with j * interval in [t0, t1): [*jb, *je). */
void sq_receiver_samples_in(double interval, double t0, double t1, int64_t *jb, int64_t *je);
/** @brief Make room for every sample before @p t_end (call between syncs only: tasks hold pointers). */
int sq_receiver_set_reserve(sq_receiver_set *set, double t_end);
/** @brief Pointer to the slot of sample @p j (reserved). */
double *sq_receiver_set_slot(const sq_receiver_set *set, int64_t j);
/** @brief Drop the first @p count slots (written out); later samples move down. */
void sq_receiver_set_consume(sq_receiver_set *set, int64_t count);

/**
 * @brief Allocate the time-derivative array if missing and keep the derivatives of tile @p tile
 * (the ader task then stores them).  Pages of tiles that never store derivatives are not touched.
 */
int sq_disc_keep_derivs(sq_disc *disc, int tile);

/**
 * @brief Sample @p n receivers (one tile's) from the tile's derivatives: for j in [jb, je),
 * out[(j - jb) * stride + index * 9 + p] = sum_i tau^i/i! sum_k phi_k D^i_{k,p}, tau = j * interval - t0.
 */
void sq_kernel_receivers(sq_precision prec, int order, int n, const sq_receiver_point *pts, const void *derivs,
                         double t0, double interval, int64_t jb, int64_t je, double *out, int64_t stride);

#endif
