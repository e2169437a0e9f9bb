/** @file fuzz_gmsh.c  libFuzzer harness of the Gmsh reader (sq_mesh_read_gmsh, all four variants). */
#include <stdint.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "sq_mesh_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[256];
  sq_fuzz_write_temp(data, size, ".msh", path, sizeof(path));
  sq_mesh *mesh = NULL;
  if (sq_mesh_read_gmsh(path, &mesh) == SQ_SUCCESS && mesh) sq_mesh_destroy(mesh);
  unlink(path);
  return 0;
}
