/**
 * @file sq_meshio_test.h  What the two files of the mesh reader suite share (test_meshio.c: fixtures, helpers,
 * Gmsh and command-line tests; meshio_puml.c: the PUML tests).
 */
#ifndef SQ_MESHIO_TEST_H
#define SQ_MESHIO_TEST_H

#include "sq_check.h"
#include "sq_mesh_io.h"

#include <check.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef SQ_SRCDIR
#define SQ_SRCDIR "."
#endif
#ifndef SQ_BUILDDIR
#define SQ_BUILDDIR "."
#endif

/** Fixtures shared by all tests (made once in main, before Check forks the tests). */
typedef struct meshio_fixtures {
  char tmp[256];         /* scratch folder */
  int gmsh_ok;           /* every .geo meshed in every variant */
  char gmsh_error[4096]; /* why not */
  char real_puml[1024];  /* tpv13_training.puml.h5, or "" when absent */
} meshio_fixtures;
extern meshio_fixtures fx;

enum { NVARIANT = 4, NGEO = 3 };
enum { GEO_BOX = 0, GEO_REFINED = 1, GEO_FAULT = 2 };
extern const int face_vertices[4][3];
extern const char *variant_name[NVARIANT];
extern const char *variant_flags[NVARIANT];
extern const char *geo_name[NGEO];

typedef struct capture {
  int saved;
  FILE *tmp;
} capture;

void gmsh_path(char *buf, size_t len, int geo, int variant);
void tmp_path(char *buf, size_t len, const char *name);
double now(void);
void make_gmsh_fixtures(void);
void find_real_puml(void);
void require_gmsh(void);
int have_real_puml(const char *test);
sq_mesh *read_ok(const char *path);
void capture_start(capture *c);
void capture_stop(capture *c, char *buf, size_t len);
void expect_read_error(const char *path, const char *const *needles);
const double *vtx(const sq_mesh *m, int64_t cell, int local);
void expect_same_mesh(const sq_mesh *a, const sq_mesh *b, const char *what);
void expect_same_mesh_rounded(const sq_mesh *a, const sq_mesh *b, double rel, const char *what);
void count_codes(const sq_mesh *m, int64_t count[7]);
void expect_consistent(const sq_mesh *m, double expected_volume);
void expect_box_boundary(const sq_mesh *m, const double lo[3], const double hi[3], const int plane_code[6]);
sq_mesh *read_variants(int geo);

long file_size(const char *path);
void copy_prefix(const char *from, const char *to, long nbytes);
sq_mesh *puml_source_mesh(char *name, size_t len);

/** @brief Add @p test to @p s as a case of its own named @p name. */
void meshio_add_case(Suite *s, const char *name, const TTest *test);
/** @brief Add the PUML cases (meshio_puml.c). */
void meshio_add_puml_cases(Suite *s);

#endif
