/**
 * @file sq_source_io.h  Text inputs of sources and receivers: tabulated source time functions,
 * finite-source files of point sub-faults (the layout of SeisSol's FSRM files), and point lists.
 * Every error names the file and the line.  Formats: docs/SOURCES.md.
 */
#ifndef SQ_SOURCE_IO_H
#define SQ_SOURCE_IO_H

#include "sq_source.h"

/**
 * @brief Read a tabulated time function: lines "time value" (strictly increasing times, at least two
 * rows); blank lines and '#' comments are skipped.  Fills stf->kind = SQ_STF_TABLE, nsample, time,
 * value (malloc'd; the caller or the source list frees them).
 */
int sq_read_stf_table(const char *path, sq_stf *stf);

/**
 * @brief Read a finite-source file of point sub-faults and append one point source per sub-fault.
 *
 * Layout (one header line before each block, as in SeisSol's FSRM files):
 *   header; 3 lines M11 M12 M13 / M21 M22 M23 / M31 M32 M33 (moment density per unit slip, local frame);
 *   optional: a header containing "velocity" and a line d1 d2 d3 (force density per unit slip);
 *   header; nsubfaults;
 *   header; nsubfaults lines "x y z strike dip rake area onset";
 *   header; "dt nsamples";
 *   header; nsubfaults x nsamples slip-rate samples (any number per line).
 * The local frame of a sub-fault is (slip direction, normal x slip, normal) from its strike, dip and
 * rake (sq_moment_from_sdr); the source of a sub-fault is area R M R^T and area R d, times the
 * slip-rate series starting at onset.
 */
int sq_read_fsrm(const char *path, sq_source_list *list);

/** @brief Read points "x y z" per line ('#' comments, blank lines skipped); @p line gets each point's line.
 */
int sq_read_points(const char *path, int *n, double **x, int **line);

/** The keys of a CMTSOLUTION file, in its order. */
enum {
  SQ_CMT_EVENT,
  SQ_CMT_TIME_SHIFT,
  SQ_CMT_HDUR,
  SQ_CMT_LAT,
  SQ_CMT_LON,
  SQ_CMT_DEPTH,
  SQ_CMT_MRR,
  SQ_CMT_MTT,
  SQ_CMT_MPP,
  SQ_CMT_MRT,
  SQ_CMT_MRP,
  SQ_CMT_MTP,
  SQ_CMT_NKEYS
};

/** A SPECFEM3D CMTSOLUTION as written: values in the file's units (s, km, dyne cm). */
typedef struct sq_cmtsolution {
  char event[64];             /**< event name */
  double value[SQ_CMT_NKEYS]; /**< by SQ_CMT_* (value[SQ_CMT_EVENT] unused) */
  int line[SQ_CMT_NKEYS];     /**< line of each key */
} sq_cmtsolution;

/**
 * @brief Read a CMTSOLUTION file: a first (PDE) line of free text, then the 12 lines "key: value"
 * (event name, time shift, half duration, latorUTM or latitude, longorUTM or longitude, depth, Mrr,
 * Mtt, Mpp, Mrt, Mrp, Mtp) in any order.  Errors name the file and the line.
 */
int sq_read_cmtsolution(const char *path, sq_cmtsolution *cmt);

/**
 * @brief The location and moment tensor of a CMTSOLUTION in the mesh frame (SPECFEM3D Cartesian,
 * SUPPRESS_UTM_PROJECTION): x = longorUTM (m), y = latorUTM (m), z = -1000 depth (depth in km below
 * z = 0); r = z, theta = -y, phi = x, so M_xx = Mpp, M_yy = Mtt, M_zz = Mrr, M_xy = -Mtp,
 * M_yz = -Mrt, M_xz = Mrp, times 1e-7 (dyne cm to N m).
 */
void sq_cmtsolution_source(const sq_cmtsolution *cmt, double x[3], double moment[6]);

/** Longest "NET.STA" station name, with its terminating zero. */
#define SQ_STATION_NAME 40

/**
 * @brief Read a SPECFEM3D STATIONS file: per line "STATION NETWORK latorUTM longorUTM elevation burial"
 * ('#' comments and blank lines skipped).  Each station is at x = longorUTM, y = latorUTM (m),
 * z = -burial (m below the free surface z = 0; the elevation is read and not used) and named
 * "NETWORK.STATION" (unique in the file).  Errors name the file and the line.
 */
int sq_read_stations(const char *path, int *n, double **x, char (**name)[SQ_STATION_NAME], int **line);

#endif
