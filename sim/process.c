/**
 * @file process.c  What this process runs on: its MPI rank among the ranks, the cores it binds to, and
 * StarPU (started once, paused while host loops use the cores).
 */
#include <stdlib.h>

#include <hwloc.h>
#include <starpu_mpi.h>

#include "sq_sim.h"

static int starpu_started = 0;

/* Ranks that share a node and were started unbound (mpirun --bind-to none, a launcher without binding)
 * would each put their StarPU workers and the StarPU-MPI progression thread on the node's first cores:
 * several busy-polling threads per core, which slow every rank on the node down.
 * Unless the user chose the cores (STARPU_WORKERS_CPUID/COREID/GETBIND), a rank that the launcher bound
 * keeps that binding (STARPU_WORKERS_GETBIND=1), and an unbound rank binds itself to its share of the
 * node's cores first.  Returns a line for the start-up summary in @p desc. */
static void bind_rank_share(char *desc, size_t len) {
  desc[0] = 0;
  if (getenv("STARPU_WORKERS_CPUID") || getenv("STARPU_WORKERS_COREID") || getenv("STARPU_WORKERS_GETBIND")) {
    snprintf(desc, len, "as set by STARPU_WORKERS_*");
    return;
  }
  MPI_Comm node;
  int lrank = 0, lsize = 1;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &lrank);
  MPI_Comm_size(node, &lsize);
  MPI_Comm_free(&node);
  if (lsize == 1) return;
  hwloc_topology_t topo;
  int herr = hwloc_topology_init(&topo);
  if (!herr && (herr = hwloc_topology_load(topo))) hwloc_topology_destroy(topo);
  if (herr) {
    snprintf(desc, len, "%d ranks on this node, left unbound (hwloc failed to read the topology)", lsize);
    return;
  }
  hwloc_bitmap_t mine = hwloc_bitmap_alloc(), share = hwloc_bitmap_alloc();
  const int ncore = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  const int bound = hwloc_get_cpubind(topo, mine, HWLOC_CPUBIND_PROCESS) == 0 &&
                    !hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(topo), mine);
  /* a StarPU-MPI rank needs two cores at least: one worker, one progression thread */
  const int bound_cores = bound ? hwloc_get_nbobjs_inside_cpuset_by_type(topo, mine, HWLOC_OBJ_CORE) : 0;
  if (bound && bound_cores >= 2) {
    setenv("STARPU_WORKERS_GETBIND", "1", 1);
    sq_set_threads(bound_cores);
    snprintf(desc, len, "%d ranks on this node, each on the %d cores its launcher bound it to", lsize, bound_cores);
  } else if (bound || ncore < 2 * lsize) {
    snprintf(desc, len,
             "%d ranks on this node with fewer than 2 cores each: StarPU's threads of the ranks share the cores",
             lsize);
  } else {
    const int first = (int)((int64_t)lrank * ncore / lsize), last = (int)((int64_t)(lrank + 1) * ncore / lsize);
    for (int c = first; c < last; ++c)
      hwloc_bitmap_or(share, share, hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, c)->cpuset);
    if (hwloc_set_cpubind(topo, share, HWLOC_CPUBIND_PROCESS) == 0) {
      setenv("STARPU_WORKERS_GETBIND", "1", 1);
      sq_set_threads(last - first);
      snprintf(desc, len, "%d ranks on this node, unbound by the launcher: each binds itself to %d of its %d cores",
               lsize, last - first, ncore);
    } else
      snprintf(desc, len, "%d ranks on this node, unbound (binding to cores %d-%d failed)", lsize, first, last - 1);
  }
  hwloc_bitmap_free(mine);
  hwloc_bitmap_free(share);
  hwloc_topology_destroy(topo);
}

/* StarPU-MPI on several ranks.  The ranks share StarPU's bus performance files (the perf-model directory and host
 * name are set per node type, docs/PRODUCTION.md): a rank whose worker set differs from the files' calibrates the
 * bus and rewrites them, and a rank reading them meanwhile aborts on a half-written file.  Rank 0 therefore starts
 * StarPU alone, and the others, which then find the files it wrote, after it.  Not with FxT traces, whose
 * start-up synchronises every rank. */
static int starpu_mpi_start(struct starpu_conf *conf) {
#ifdef STARPU_USE_FXT
  return starpu_mpi_init_conf(NULL, NULL, 0, MPI_COMM_WORLD, conf);
#else
  const int first = sq_sim_mpi_rank() == 0;
  int ret = 0;
  if (first) ret = starpu_mpi_init_conf(NULL, NULL, 0, MPI_COMM_WORLD, conf);
  MPI_Barrier(MPI_COMM_WORLD);
  if (!first) ret = starpu_mpi_init_conf(NULL, NULL, 0, MPI_COMM_WORLD, conf);
  return ret;
#endif
}

int sq_sim_starpu_start(const char *sched, int cpu_task_threads) {
  if (starpu_started) return SQ_SUCCESS;
  sq_runtime_set_cpu_task_threads(cpu_task_threads);
  char binding[160] = "";
  if (sq_sim_mpi_nranks() > 1) bind_rank_share(binding, sizeof(binding));
  if (binding[0] && sq_sim_mpi_rank() == 0 && sq_verbosity >= 1) {
    printf("  binding    %s\n", binding);
    fflush(stdout);
  }
  struct starpu_conf conf;
  starpu_conf_init(&conf);
  if (sq_verbosity < 2) setenv("STARPU_SILENT", "1", 0);
  /* submission blocks while this many tasks wait: enough to keep every worker fed, few enough that a
   * stop's cancelled tasks drain in about a second (docs/PRODUCTION.md, "How long a stop takes") */
  setenv("STARPU_LIMIT_MAX_SUBMITTED_TASKS", "10000", 0);
  setenv("STARPU_LIMIT_MIN_SUBMITTED_TASKS", "9000", 0);
  /* no write-back of a GPU's dirty buffers merely to keep 5-10 % of them clean: StarPU does it in that GPU's driver
   * thread, which meanwhile neither ends nor starts the GPU's tasks, and the time integrals, derivatives and LTS
   * buffers are never read on the host while stepping (docs/PERFORMANCE.md, "Local time stepping"); eviction when a
   * GPU is full still writes back what it evicts */
  setenv("STARPU_MINIMUM_CLEAN_BUFFERS", "0", 0);
  setenv("STARPU_TARGET_CLEAN_BUFFERS", "0", 0);
  if (!getenv("STARPU_SCHED") && sched && sched[0]) conf.sched_policy_name = sched;
  else if (!getenv("STARPU_SCHED")) conf.sched_policy_name = "lws";
  /* MPI was initialised by main(); with several ranks StarPU-MPI drives the halo messages (its
   * progression thread takes a core), on one rank plain StarPU keeps every core for workers */
  const int ret = sq_sim_mpi_nranks() > 1 ? starpu_mpi_start(&conf) : starpu_init(&conf);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "StarPU initialisation failed (%d): check STARPU_* environment variables", ret);
  starpu_started = sq_sim_mpi_nranks() > 1 ? 2 : 1;
  return SQ_SUCCESS;
}

void sq_sim_starpu_stop(void) {
  if (starpu_started == 2) starpu_mpi_shutdown();
  else if (starpu_started == 1) starpu_shutdown();
  starpu_started = 0;
}

void sq_sim_hold_errors(void) {
  if (sq_sim_mpi_nranks() > 1 && sq_sim_mpi_rank() > 0) sq_error_hold(1);
}

int sq_sim_release_errors(int ierr) {
  sq_error_hold(0);
  if (sq_sim_mpi_nranks() < 2) return ierr;
  int root_failed = sq_sim_mpi_rank() == 0 && ierr != 0;
  MPI_Bcast(&root_failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (ierr && !root_failed) sq_error_release(); /* this rank failed alone: its message is news */
  else sq_error_discard();
  return ierr;
}

int sq_sim_mpi_rank(void) {
  int r = 0, init = 0;
  MPI_Initialized(&init);
  if (init) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int sq_sim_mpi_nranks(void) {
  int n = 1, init = 0;
  MPI_Initialized(&init);
  if (init) MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

void sq_sim_workers_pause(void) {
  if (starpu_started) starpu_pause();
}

void sq_sim_workers_resume(void) {
  if (starpu_started) starpu_resume();
}
