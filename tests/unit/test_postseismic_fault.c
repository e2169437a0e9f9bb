/** @file test_postseismic_fault.c  The final slip of a real fault output (io/fault_output.c on the Gmsh test mesh
 * with an embedded fault, tests/meshes/fault.geo) read back per mesh face by io/postseismic_io.c: the face's
 * "+" normal and slip vector in the global frame agree with the fault's own frame (src/fault.c), for the native
 * layout and for SeisSol's layout under both reference conventions; the mesh's free-surface triangles. */
#include "sq_check.h"
#include "sq_test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sq_config.h"
#include "sq_fault.h"
#include "sq_fault_output.h"
#include "sq_mesh_io.h"
#include "sq_postseismic_io.h"
#include "sq_ref.h"

static char mesh_path[4096];
static const sq_material unit = {.rho = 1.0, .lambda = 2.0, .mu = 1.0};

static int init_point(void *ctx, int64_t n, const double *x, const double *frame, const int *group,
                      sq_fault_point *pt) {
  (void)ctx, (void)x, (void)frame, (void)group;
  for (int64_t p = 0; p < n; ++p) {
    memset(&pt[p], 0, sizeof(pt[p]));
    pt[p].param = (sq_friction_params){.mu_s = 0.6, .mu_d = 0.5, .d_c = 1, .forced_time = SQ_FRICTION_NEVER};
    pt[p].traction0[0] = -1.0;
  }
  return SQ_SUCCESS;
}

START_TEST(real_fault_output) {
  snprintf(mesh_path, sizeof(mesh_path), "%s/tests/unit/postseismic-fault.msh", SQ_BUILDDIR);
  char cmd[16384];
  snprintf(cmd, sizeof(cmd), "gmsh -3 -clmax 0.3 -format msh22 %s/tests/meshes/fault.geo -o %s > /dev/null 2>&1",
           SQ_SRCDIR, mesh_path);
  ck_assert_msg(system(cmd) == 0, "gmsh failed: %s", cmd);
  sq_mesh *mesh = NULL;
  ck_assert_int_eq(sq_mesh_read(mesh_path, &mesh), 0);
  sq_material *mat = malloc(sizeof(sq_material) * mesh->ncell);
  for (int64_t c = 0; c < mesh->ncell; ++c) mat[c] = unit;
  const sq_disc_options opt = {
      .order = 2, .precision = SQ_F64, .cfl = 0.5, .tile_size = 16, .max_clusters = 1, .rupture = 1};
  sq_disc *d = NULL;
  ck_assert_int_eq(sq_disc_create(mesh, mat, &opt, &d), 0);
  /* the reference point on the x < 0 side for one fault, x > 0 for the other: both normals occur across runs */
  for (int side = 0; side < 2; ++side) {
    const sq_fault_options fo = {.law = SQ_FRICTION_LSW, .reference = {side ? 1.0 : -1.0, 0.0, -0.5}};
    sq_fault *f = NULL;
    ck_assert_int_eq(sq_fault_create(d, &fo, init_point, NULL, &f), 0);
    ck_assert_int_gt(f->nface, 10);
    /* a slip that differs from face to face */
    for (int64_t i = 0; i < f->nface; ++i)
      for (int p = 0; p < f->npoint; ++p) {
        f->point[i * f->npoint + p].state.slip[0] = 0.3 + 0.1 * (double)(i % 7);
        f->point[i * f->npoint + p].state.slip[1] = -0.2 + 0.05 * (double)(i % 5);
      }
    for (int layout = 0; layout < 3; ++layout) { /* native; SeisSol's with the native / SeisSol convention */
      sq_config *cfg = calloc(1, sizeof(*cfg));
      snprintf(cfg->output_dir, sizeof(cfg->output_dir), "%s/tests/unit/postseismic-out-%d", SQ_BUILDDIR,
               (int)getpid());
      mkdir(cfg->output_dir, 0755);
      snprintf(cfg->output_prefix, sizeof(cfg->output_prefix), "r%d%d", side, layout);
      cfg->output_format = SQ_OUTPUT_XDMF;
      cfg->output_style = layout ? SQ_OUTPUT_STYLE_SEISSOL : SQ_OUTPUT_STYLE_NATIVE;
      cfg->fault.output_mask = (1 << 11) - 1;
      cfg->fault.reference_convention = layout == 2 ? SQ_FAULT_REF_SEISSOL : SQ_FAULT_REF_NATIVE;
      sq_fault_output *o = NULL;
      ck_assert_int_eq(sq_fault_output_open(f, d, cfg, 0, 1, 1.5, 1, 1.0, NULL, &o), 0);
      ck_assert_int_eq(sq_fault_output_close(o), 0);
      char path[8192];
      snprintf(path, sizeof(path), "%s/%s-fault.h5", cfg->output_dir, cfg->output_prefix);
      sq_ps_fault_slip *s = NULL;
      ck_assert_int_eq(sq_ps_fault_slip_read(path, layout == 2, &s), 0);
      ck_assert_int_eq(sq_ps_fault_slip_nface(s), f->nface);
      EXPECT_NEAR(sq_ps_fault_slip_time(s), 1.5, 0);
      /* the mesh's fault faces, their vertices in the "+" element's order (another order than the file's) */
      double *xyz = malloc(sizeof(double) * 9 * f->nface), *slip = malloc(sizeof(double) * 3 * f->nface),
             *normal = malloc(sizeof(double) * 3 * f->nface);
      for (int64_t i = 0; i < f->nface; ++i) {
        const sq_fault_face *fc = &f->face[i];
        const int64_t c = d->cell_of[fc->elem[1]];
        for (int v = 0; v < 3; ++v)
          for (int x = 0; x < 3; ++x)
            xyz[9 * i + 3 * v + x] = mesh->vert[mesh->cell_vert[c * 4 + sq_ref_face_vertices[fc->face[1]][v]] * 3 + x];
      }
      ck_assert_int_eq(sq_ps_fault_slip_faces(s, f->nface, xyz, 1e-9, slip, normal), 0);
      for (int64_t i = 0; i < f->nface; ++i) {
        const double *fr = f->face[i].frame;
        const double ss = 0.3 + 0.1 * (double)(i % 7), ds = -0.2 + 0.05 * (double)(i % 5);
        for (int k = 0; k < 3; ++k) {
          EXPECT_MSG(fabs(normal[3 * i + k] - fr[k]) < 1e-12, "side %d layout %d face %lld: normal_%d %g, frame %g",
                     side, layout, (long long)i, k, normal[3 * i + k], fr[k]);
          const double want = ss * fr[3 + k] + ds * fr[6 + k];
          EXPECT_MSG(fabs(slip[3 * i + k] - want) < 1e-12, "side %d layout %d face %lld: slip_%d %g, expected %g", side,
                     layout, (long long)i, k, slip[3 * i + k], want);
        }
      }
      free(xyz), free(slip), free(normal);
      sq_ps_fault_slip_free(s);
      snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cfg->output_dir);
      ck_assert_int_eq(system(cmd), 0);
      free(cfg);
    }
    sq_fault_destroy(f);
  }
  /* the free surface z = 0 of the box [-1, 1]^2 x [-1, 0]: area 4, outward normals +z, every node used */
  int64_t nnode, ntri, *vert, *tri;
  double *xyz;
  ck_assert_int_eq(sq_ps_surface_triangles(mesh, &nnode, &xyz, &vert, &ntri, &tri), 0);
  ck_assert_int_gt(ntri, 8);
  double area = 0;
  int *used = calloc((size_t)nnode, sizeof(int));
  for (int64_t k = 0; k < nnode; ++k) {
    EXPECT_NEAR(xyz[3 * k + 2], 0, 1e-12);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(xyz[3 * k + i], mesh->vert[3 * vert[k] + i], 0);
  }
  for (int64_t t = 0; t < ntri; ++t) {
    const double *a = &xyz[3 * tri[3 * t]], *b = &xyz[3 * tri[3 * t + 1]], *c = &xyz[3 * tri[3 * t + 2]];
    const double nz = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    ck_assert(nz > 0);
    area += nz / 2;
    for (int i = 0; i < 3; ++i) used[tri[3 * t + i]] = 1;
  }
  EXPECT_NEAR(area, 4, 1e-12);
  for (int64_t k = 0; k < nnode; ++k) ck_assert(used[k]);
  free(used), free(xyz), free(vert), free(tri);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
  free(mat);
  remove(mesh_path);
}
END_TEST

int main(void) {
  const TTest *const tests[] = {real_fault_output, NULL};
  return sq_test_run(sq_test_suite("postseismic_fault", 120, tests), 1);
}
