/** @file fuzz_config.c  libFuzzer harness of the YAML configuration loader (sq_config_load_string). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sq_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *yaml = malloc(size + 1);
  if (!yaml) return 0;
  memcpy(yaml, data, size);
  yaml[size] = '\0'; /* the API takes a C string: embedded NULs end it, as they would in a caller */
  sq_config *cfg = malloc(sizeof(*cfg));
  if (cfg) {
    (void)sq_config_load_string(yaml, "fuzz.yaml", cfg);
    /* a loaded config must be usable: evaluate the material rules at a few points */
    const double x[3] = {0.5, 0.5, 0.5};
    (void)sq_config_material_at(cfg, x, 1);
  }
  free(cfg);
  free(yaml);
  return 0;
}
