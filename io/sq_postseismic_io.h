/**
 * @file sq_postseismic_io.h  Inputs and outputs of the post-seismic solver (docs/postseismic-closed-forms.md):
 *  - slip files of rectangular patches (Okada dislocations, src/sq_okada.h);
 *  - the final slip of a starquake rupture, read from its fault output file (io/fault_output.c) and handed out
 *    per fault face of a mesh;
 *  - GPS-like stations (a list of names and positions) and their displacement time series (one CSV per station);
 *  - surface displacement snapshots (XDMF + HDF5 triangles, io/xdmf.c) for InSAR-like maps.
 * Every input error names the file and line (or dataset, or face).  No StarPU here.
 */
#ifndef SQ_POSTSEISMIC_IO_H
#define SQ_POSTSEISMIC_IO_H

#include <stdint.h>

#include "sq_okada.h"
#include "sq_output.h"

/* ---- slip patches ------------------------------------------------------------------------------ */

/**
 * @brief Read a slip file of rectangular patches.  One patch per line, whitespace-separated:
 *   x y depth strike dip length width strike_slip dip_slip [opening]
 * (metres, degrees; strike clockwise from north, dip 0..90 down to the right of the strike; strike_slip > 0
 * left-lateral and dip_slip > 0 reverse: the hanging wall's motion, rake = atan2(dip_slip, strike_slip)).
 * (x, y, depth) is the centre of the patch's top edge, or, after a line `reference centre`, the patch's centre
 * (`reference top` switches back).  '#' starts a comment; blank lines are skipped.  A patch must lie below
 * the surface (top edge depth >= 0).  @p line (may be NULL) gets each patch's line number.
 */
int sq_ps_read_patches(const char *path, int *n, sq_okada_fault **patches, int **line);

/**
 * @brief The slip of @p npatch patches handed to the faces of a mesh (@p xyz: three vertices a face, 9 values):
 * a face whose vertices lie in a patch's plane (within @p tol, a length) and whose centroid lies in the patch
 * gets the patch's slip vector (sq_okada_slip_vector) in @p slip and the patch's normal (into the hanging wall,
 * the "+" side) in @p normal (may be NULL); the first such patch wins.  Other faces get zeros.  *@p nhit (may
 * be NULL) counts the faces that got a patch.  A face whose centroid lies in a patch's plane and rectangle but
 * whose vertices leave the plane is an error naming the face and the patch.
 */
int sq_ps_patches_faces(const sq_okada_fault *patches, int npatch, int64_t nface, const double *xyz, double tol,
                        double *slip, double *normal, int64_t *nhit);

/* ---- final slip of a rupture ------------------------------------------------------------------- */

/** The final slip of a rupture, per fault face of its fault output (opaque). */
typedef struct sq_ps_fault_slip sq_ps_fault_slip;

/**
 * @brief Read the last snapshot of a fault output file `PREFIX-fault.h5` (either layout of io/fault_output.c):
 * native (/mesh/geometry, /mesh/topology, /step_KKKKKK/slip_strike, slip_dip) or SeisSol's (output.style
 * seissol: /mesh0/geometry, /mesh0/connect, /mesh0/Sls, /mesh0/Sld, /time).  Each face's frame follows
 * docs/RUPTURE.md: n = the triangle's normal (its vertex order), strike s = n x e_z / |n x e_z| (e_x when
 * horizontal), down-dip d = n x s; the slip vector is slip_strike s + slip_dip d, the motion of the side n
 * points to ("+") relative to the other.  SeisSol's layout holds the dip slip with SeisSol's sign: pass
 * @p seissol_convention 1 when the run used fault.reference_convention: seissol, 0 for native (the values
 * are then negated back); the native layout ignores it.  Not collective (plain HDF5 reads of the whole file).
 */
int sq_ps_fault_slip_read(const char *path, int seissol_convention, sq_ps_fault_slip **out);
/** Faces in the file. */
int64_t sq_ps_fault_slip_nface(const sq_ps_fault_slip *s);
/** Time of the snapshot read. */
double sq_ps_fault_slip_time(const sq_ps_fault_slip *s);
/**
 * @brief The slip of the file's face @p k: its vertices @p xyz (9, may be NULL), slip vector @p slip (3,
 * global frame) and "+" normal @p normal (3, may be NULL).
 */
void sq_ps_fault_slip_face(const sq_ps_fault_slip *s, int64_t k, double *xyz, double *slip, double *normal);
/**
 * @brief The slip vector per face of a mesh: @p xyz holds the three vertices of each of @p nface faces (9
 * values a face, any vertex order); each is matched to the file's face with the same vertices (within @p tol,
 * a length, e.g. 1e-6 of the smallest edge) and gets its slip vector (@p slip, 3 a face) and "+" normal
 * (@p normal, 3 a face, may be NULL).  A face not in the file is an error naming it.
 */
int sq_ps_fault_slip_faces(const sq_ps_fault_slip *s, int64_t nface, const double *xyz, double tol, double *slip,
                           double *normal);
/** Free (NULL is fine). */
void sq_ps_fault_slip_free(sq_ps_fault_slip *s);

/* ---- GPS-like stations ------------------------------------------------------------------------- */

/** Longest station name, with its terminating zero. */
#define SQ_PS_STATION_NAME 40

/** A station: name and position (z = 0: the free surface). */
typedef struct {
  char name[SQ_PS_STATION_NAME];
  double x[3];
  int line; /**< its line in the station file */
} sq_ps_station;

/**
 * @brief Read a station file: per line `NAME x y [z]` (metres; z defaults to 0, the free surface; z <= 0).
 * Names: letters, digits, '.', '_', '-', unique in the file.  '#' comments and blank lines are skipped.  A
 * SPECFEM3D STATIONS file (6 columns, as the receivers read it: sq_read_stations) is accepted too: station
 * NET.STA at x = longorUTM, y = latorUTM, z = -burial.
 */
int sq_ps_read_stations(const char *path, int *n, sq_ps_station **stations);

/** Station time series files of one run (opaque). */
typedef struct sq_ps_station_writer sq_ps_station_writer;

/** Seconds in the year of the time series' second time column (Julian year). */
#define SQ_PS_YEAR 31557600.0

/**
 * @brief Create `DIR/PREFIX-gps-NAME.csv` per station: two '#' lines (station name and position, units), the
 * column header `time_s,time_yr,u_east_m,u_north_m,u_up_m`, then one row per sample (%.15e).
 */
int sq_ps_station_writer_open(const char *dir, const char *prefix, int n, const sq_ps_station *stations,
                              sq_ps_station_writer **w);
/** @brief Append the sample at @p time (s) of every station: @p u holds n x 3 displacements (x east, y north,
 * z up). */
int sq_ps_station_writer_append(sq_ps_station_writer *w, double time, const double *u);
/** Close and free (NULL is fine). */
void sq_ps_station_writer_close(sq_ps_station_writer *w);
/**
 * @brief Read a station CSV back: up to @p max rows into @p time (s) and @p u (3 a row); *@p count gets the
 * rows read.  Errors name the file and line.
 */
int sq_ps_station_read(const char *path, int64_t max, double *time, double *u, int64_t *count);

/* ---- surface snapshots ------------------------------------------------------------------------- */

/**
 * @brief The free surface of a whole (not distributed) mesh as triangles: every face with SQ_BC_FREE, its
 * vertices in the order of sq_ref_face_vertices (normal (b - a) x (c - a) outward), renumbered to the
 * @p *nnode nodes that occur.  Allocates @p *xyz (nnode x 3), @p *vert (nnode: the mesh vertex of each node,
 * to gather nodal values) and @p *tri (ntri x 3); the caller frees them.  A mesh without a free surface is an
 * error.
 */
int sq_ps_surface_triangles(const sq_mesh *mesh, int64_t *nnode, double **xyz, int64_t **vert, int64_t *ntri,
                            int64_t **tri);

/** A surface displacement series (opaque). */
typedef struct sq_ps_surface sq_ps_surface;

/**
 * @brief Start a surface displacement series `DIR/PREFIX-surface.xdmf` + `DIR/PREFIX-surface.h5` (sq_xdmf_open's
 * layout: /mesh/geometry, /mesh/topology of the triangles @p tri of the nodes @p xyz; @p node_rows, @p tri_rows
 * NULL: every row, written by rank 0).  Collective under MPI.
 */
int sq_ps_surface_open(const char *dir, const char *prefix, int64_t nnode, const double *xyz, const sq_rows *node_rows,
                       int64_t ntri, const int64_t *tri, const sq_rows *tri_rows, sq_ps_surface **s);
/**
 * @brief Write the snapshot at @p time (group /step_KKKKKK, attribute time): @p u holds the displacement (3 a
 * node, x east, y north, z up) of the rows @p rows (NULL: every node), written as the node fields u_east,
 * u_north, u_up.  Collective under MPI.
 */
int sq_ps_surface_write(sq_ps_surface *s, double time, const double *u, const sq_rows *rows);
/** Snapshots written. */
int64_t sq_ps_surface_count(const sq_ps_surface *s);
/** Close and free (NULL is fine). */
void sq_ps_surface_close(sq_ps_surface *s);
/**
 * @brief Read snapshot @p step of a surface series' HDF5 file back: its time and the @p nnode x 3 displacement
 * (either may be NULL).  Errors name the file and dataset.
 */
int sq_ps_surface_read(const char *h5path, int64_t step, int64_t nnode, double *time, double *u);

#endif
