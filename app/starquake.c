/** @file starquake.c  Command-line entry point: the sub-commands, --help of each, --version. */
#include <mpi.h>
#include <string.h>

#include "sq_app.h"
#include "sq_commit.h" /* SQ_GIT_COMMIT, written by the build (app/Makefile.am) */

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif
#ifndef SQ_STARPU_VERSION
#define SQ_STARPU_VERSION "unknown"
#endif

/* The build configuration.  MPI_Get_library_version may be called before MPI_Init. */
static void print_version(void) {
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len = 0;
  MPI_Get_library_version(mpi, &len);
  mpi[strcspn(mpi, "\n")] = '\0';
  printf("starquake %s\n", PACKAGE_VERSION);
  printf("  commit      %s\n", SQ_GIT_COMMIT);
  printf("  precisions  single, double\n");
#ifdef SQ_USE_CUDA
  printf("  CUDA        yes\n");
#else
  printf("  CUDA        no\n");
#endif
  printf("  MPI         %s (MPI %d.%d)\n", mpi, MPI_VERSION, MPI_SUBVERSION);
  printf("  StarPU      %s\n", SQ_STARPU_VERSION);
#ifdef SQ_USE_XSMM
  printf("  libxsmm     yes\n");
#else
  printf("  libxsmm     no\n");
#endif
}

/* The command that `starquake ARGS... --help` asks about ("run", "verify planewave", ...; NULL: all). */
static const char *help_topic(int argc, char **argv, char *buf, size_t size) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) return NULL;
  if ((!strcmp(argv[1], "verify") || !strcmp(argv[1], "mesh")) && argc > 2 && argv[2][0] != '-') {
    snprintf(buf, size, "%s %s", argv[1], argv[2]);
    return buf;
  }
  if (!strcmp(argv[1], "verify") || !strcmp(argv[1], "mesh")) return NULL;
  if (!strcmp(argv[1], "config-reference")) return "config-reference";
  if (!strcmp(argv[1], "seissol-import")) return "seissol-import";
  if (!strcmp(argv[1], "probe")) return "probe";
  if (!strcmp(argv[1], "postseismic")) return "postseismic";
  return "run";
}

int main(int argc, char **argv) {
  if (argc < 2) {
    sq_help_print(stdout, NULL);
    return 1;
  }
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      char buf[128];
      const char *topic = help_topic(argc, argv, buf, sizeof(buf));
      if (topic && sq_help_print(stdout, topic))
        return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "no such command: starquake %s (see starquake --help)",
                        topic) != 0;
      if (!topic) sq_help_print(stdout, NULL);
      return 0;
    }
  }
  if (!strcmp(argv[1], "--help-man")) {
    sq_help_man(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "--version")) {
    print_version();
    return 0;
  }
  if (!strcmp(argv[1], "config-reference"))
    return sq_config_write_reference(stdout) ? 1 : 0; /* docs/CONFIG_REFERENCE.md */
  if (!strcmp(argv[1], "seissol-import")) return sq_cmd_seissol_import(argc - 2, argv + 2) ? 1 : 0;
  int provided;
  /* StarPU-MPI's progression thread and our reductions (energies, hashes) call MPI concurrently */
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int ierr;
  if (!strcmp(argv[1], "verify")) ierr = sq_cmd_verify(argc - 2, argv + 2);
  else if (!strcmp(argv[1], "mesh")) ierr = sq_cmd_mesh(argc - 2, argv + 2);
  else if (!strcmp(argv[1], "probe")) ierr = sq_cmd_probe(argc - 2, argv + 2);
  else if (!strcmp(argv[1], "postseismic")) ierr = sq_cmd_postseismic(argc - 2, argv + 2);
  else if (!strcmp(argv[1], "run")) ierr = sq_cmd_run(argc - 2, argv + 2); /* starquake run CONFIG */
  else ierr = sq_cmd_run(argc - 1, argv + 1);
  /* never leave other ranks waiting; a stop is agreed on by every rank, which all end here */
  if (ierr && ierr != SQ_STOPPED && sq_sim_mpi_nranks() > 1) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Finalize();
  return ierr ? 1 : 0;
}
