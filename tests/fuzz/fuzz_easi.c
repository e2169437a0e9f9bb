/** @file fuzz_easi.c  libFuzzer harness of the easi reader (sq_easi_load), and of evaluating what loads. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "sq_easi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[256];
  sq_fuzz_write_temp(data, size, ".yaml", path, sizeof(path));
  sq_easi *m = NULL;
  if (sq_easi_load(path, &m) == 0) {
    /* a loaded model must evaluate or fail cleanly, whatever it gives */
    static const char *const names[] = {"rho", "mu", "lambda", "s_xy", "mu_s", "d_c", "cohesion", "plastCo"};
    const double xyz[9] = {0, 0, 0, 1500, -200, -7500, -1e4, 3e3, 1e3};
    const int group[3] = {0, 1, 7};
    for (int k = 0; k < 8; ++k) {
      double out[3];
      if (sq_easi_provides(m, names[k])) (void)sq_easi_eval(m, 3, xyz, group, 1, &names[k], out);
    }
    sq_easi_free(m);
  }
  unlink(path);
  return 0;
}
