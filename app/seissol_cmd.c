/**
 * @file seissol_cmd.c  SeisSol set-ups on the command line: `starquake parameters.par` (the set-up imported in
 * memory, then run like a native configuration) and `starquake seissol-import parameters.par -o run.yaml`.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sq_app.h"
#include "sq_seissol.h"

int sq_seissol_load(const char *path, const char *const *sets, int nsets, sq_config *cfg) {
  char *yaml = NULL;
  /* every rank imports (no files are written); rank 0 prints the warnings, unless --quiet */
  SQ_CALL(sq_seissol_import(path, NULL, &yaml, sq_sim_mpi_rank() == 0 && sq_verbosity > 0 ? stderr : NULL));
  char dir[SQ_PATH_MAX] = "", name[SQ_PATH_MAX + 32];
  const char *slash = strrchr(path, '/');
  if (slash && (size_t)(slash - path) + 2 < sizeof(dir)) snprintf(dir, sizeof(dir), "%.*s/", (int)(slash - path), path);
  snprintf(name, sizeof(name), "%s (imported)", path);
  const int rc = sq_config_load_text(yaml, name, dir, sets, nsets, cfg);
  if (rc)
    sq_error_more("  the line numbers are those of the imported YAML: `starquake seissol-import %s -o run.yaml` writes "
                  "it",
                  path);
  free(yaml);
  return rc;
}

int sq_cmd_seissol_import(int argc, char **argv) {
  const char *par = NULL, *out = NULL;
  for (int i = 0; i < argc; ++i) {
    if (!strcmp(argv[i], "--keys")) {
      sq_seissol_write_keys(stdout);
      return SQ_SUCCESS;
    }
    if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc) out = argv[++i];
    else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output"))
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "%s needs the YAML file to write after it", argv[i]);
    else if (argv[i][0] == '-' && argv[i][1]) {
      sq_help_print(stdout, "seissol-import");
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "seissol-import: unknown option '%s'", argv[i]);
    } else if (!par) par = argv[i];
    else
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "seissol-import: more than one parameter file ('%s')", argv[i]);
  }
  if (!par) {
    sq_help_print(stdout, "seissol-import");
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "seissol-import: no parameter file given");
  }
  if (!sq_namelist_file_detect(par)) {
    FILE *f = fopen(par, "rb");
    if (!f) return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot open '%s': %s", par, strerror(errno));
    fclose(f);
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "%s: not a SeisSol parameter file: a Fortran namelist starts with a group '&name'", par);
  }
  /* the folder the YAML is read from: the set-up's file names are written relative to it */
  char dir[SQ_PATH_MAX] = ".";
  if (out && strcmp(out, "-")) {
    const char *slash = strrchr(out, '/');
    if (slash) snprintf(dir, sizeof(dir), "%.*s", (int)(slash - out) + (slash == out), out);
  }
  char *yaml = NULL;
  SQ_CALL(sq_seissol_import(par, dir, &yaml, stderr));
  int rc = SQ_SUCCESS;
  if (!out || !strcmp(out, "-")) fputs(yaml, stdout);
  else {
    FILE *f = fopen(out, "w");
    if (!f) rc = sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s", out, strerror(errno));
    else {
      fputs(yaml, f);
      if (fclose(f)) rc = sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s", out, strerror(errno));
      else if (sq_verbosity) printf("starquake: wrote %s from %s\n", out, par);
    }
  }
  free(yaml);
  return rc;
}
