/** @file outputs.c  Energies, receivers, snapshots and checkpoints of a run, and restarts. */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sq_fault_app.h"
#include "sq_fields.h"
#include "sq_outputs.h"
#include "sq_plasticity_app.h"

/** Flush the receiver buffer at the next event once it holds this much. */
#define SQ_RECEIVER_BUFFER_LIMIT ((size_t)64 << 20)

struct sq_outputs {
  sq_sim *s;
  const sq_config *cfg;
  int root;
  int64_t nsteps;
  double dt;
  int64_t out_every, flush_every, ckpt_every; /* in sync intervals; 0: never */
  FILE *energy;
  int64_t energy_rows;
  sq_receiver_writer *rec;
  sq_xdmf_writer *wave, *surf;
  sq_surface *surface;
  int nfield, field[SQ_NFIELDS]; /* wavefield fields: quantities, then plastic strain and eta */
  int nsurf, surf_field[9];      /* surface quantities */
  double *values[SQ_NFIELDS];    /* scratch, one per field */
  char ckpt[SQ_PATH_MAX + 300];
  char blowup[SQ_PATH_MAX + 300]; /* the diagnosis checkpoint of a blow-up */
  sq_fault_output *fault;   /* fault snapshots, stations, cplot (NULL without a fault) */
  int want_wave;            /* wavefield snapshots (every rank computes and writes its rows) */
  /* the rows of the HDF5 files this rank writes (parallel HDF5; one rank: all of them): the local
   * indices of what it writes, ascending, and their rows in the files (global numbering) */
  int64_t *own_cell, *own_cell_row;  /* the mesh cells it owns */
  sq_rows cell_rows;                 /* cell-centred values, topology */
  int64_t *own_vert, *own_vert_row;  /* the vertices it writes (sq_mesh.vert_writer) */
  sq_rows vert_rows;                 /* geometry and vertex values */
  int64_t *own_face, *own_face_row;  /* the free-surface triangles of its cells */
  sq_rows face_rows;
  /* MPI vertex output: each rank's averages over its owned cells, weighted by their count, go to the
   * vertex's writer (MPI_Alltoallv), which divides the sum by the total count */
  double *vertex_count;     /* owned cells at each local vertex */
  double *vertex_total;     /* cells at each local vertex over all ranks (at the vertices written here) */
  int *send_count, *send_displ, *recv_count, *recv_displ; /* per rank */
  int64_t *send_vert, *recv_vert;   /* local vertices sent, in send order; local vertices received */
  double *send_buf, *recv_buf;
};

static int mkdir_p(const char *path) {
  char buf[SQ_PATH_MAX];
  snprintf(buf, sizeof(buf), "%s", path);
  for (char *p = buf + 1; *p; ++p) {
    if (*p != '/')
      continue;
    *p = 0;
    if (mkdir(buf, 0777) && errno != EEXIST)
      return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot create directory '%s': %s", buf,
                      strerror(errno));
    *p = '/';
  }
  if (mkdir(buf, 0777) && errno != EEXIST)
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot create directory '%s': %s", buf, strerror(errno));
  return SQ_SUCCESS;
}

static int64_t every(double interval, double dt, int64_t fallback) {
  return interval > 0 ? (int64_t)fmax(1.0, floor(interval / dt + 0.5)) : fallback;
}

/* Energies summed over ranks: total (the solver's quadrature), kinetic and elastic (exact). */
static void energies(const sq_sim *s, double e[3]) {
  e[0] = sq_sim_energy(s);
  sq_sim_energy_split(s, &e[1], &e[2]);
}

static int energy_row(sq_outputs *o) {
  double e[3], fe[2] = {0, 0};
  energies(o->s, e);
  if (o->s->fault) { /* frictional work and seismic moment */
    sq_fault_energies(o->s->fault, o->s->disc, &fe[0], &fe[1]);
    if (o->s->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, fe, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  ++o->energy_rows; /* counted on every rank: the checkpoint's attributes are the same everywhere */
  if (!o->energy)
    return SQ_SUCCESS;
  fprintf(o->energy, "%.10e,%.10e,%.10e,%.10e", o->s->time, e[0], e[1], e[2]);
  if (o->s->fault) fprintf(o->energy, ",%.10e,%.10e", fe[0], fe[1]);
  fputc('\n', o->energy);
  fflush(o->energy);
  SQ_CHECK(!ferror(o->energy), SQ_ERR_IO, "cannot write the energy file in '%s'", o->cfg->output_dir);
  return SQ_SUCCESS;
}

/* Keep the entries @p local[0..n) (ascending) of a full-size array, packed at its start (in place). */
static void pack_rows(double *values, const int64_t *local, int64_t n) {
  for (int64_t k = 0; k < n; ++k) values[k] = values[local[k]];
}

/* Send @p values (per local vertex, weighted by the counts) to the vertices' writers and add what the
 * others send into @p values. */
static void vertex_exchange(const sq_outputs *o, double *values) {
  const int nr = o->s->nranks;
  const int64_t nsend = o->send_displ[nr - 1] + o->send_count[nr - 1];
  const int64_t nrecv = o->recv_displ[nr - 1] + o->recv_count[nr - 1];
  for (int64_t k = 0; k < nsend; ++k) o->send_buf[k] = values[o->send_vert[k]];
  MPI_Alltoallv(o->send_buf, o->send_count, o->send_displ, MPI_DOUBLE, o->recv_buf, o->recv_count, o->recv_displ,
                MPI_DOUBLE, MPI_COMM_WORLD);
  for (int64_t k = 0; k < nrecv; ++k) values[o->recv_vert[k]] += o->recv_buf[k];
}

/*
 * Vertex averages over every rank's cells, for the vertices this rank writes, packed at the start of
 * @p values: each rank's averages over its own cells are weighted by its count of cells at the vertex,
 * summed at the vertex's writer and divided by the total count.
 */
static void vertex_values_share(const sq_outputs *o, double *values) {
  if (o->s->nranks < 2) return; /* one rank: its averages are the averages, and it writes them all */
  const int64_t n = o->s->mesh->nvert;
  for (int64_t v = 0; v < n; ++v) values[v] *= o->vertex_count[v];
  vertex_exchange(o, values);
  for (int64_t v = 0; v < n; ++v) values[v] = o->vertex_total[v] > 0 ? values[v] / o->vertex_total[v] : 0.0;
  pack_rows(values, o->own_vert, o->vert_rows.n);
}

static int snapshots(sq_outputs *o) {
  const sq_disc *d = o->s->disc;
  const char *names[SQ_NFIELDS];
  const double *vals[SQ_NFIELDS];
  if (o->want_wave) {
    const int vertex = o->cfg->output_vertex;
    for (int i = 0; i < o->nfield; ++i) {
      names[i] = sq_plasticity_field_name(o->field[i]);
      if (o->field[i] >= SQ_FIELD_EP_XX) /* plastic strain and eta: per element */
        sq_plasticity_field_values(o->s, o->field[i], vertex, o->values[i]);
      else if (vertex)
        sq_fields_vertex_values(d, o->field[i], o->values[i]);
      else
        sq_fields_cell_average(d, o->field[i], o->values[i]);
      if (vertex) vertex_values_share(o, o->values[i]);
      else pack_rows(o->values[i], o->own_cell, o->cell_rows.n);
      vals[i] = o->values[i];
    }
    SQ_CALL(sq_xdmf_write(o->wave, o->s->time, o->nfield, names, vals, vertex ? SQ_XDMF_NODE : SQ_XDMF_CELL,
                          vertex ? &o->vert_rows : &o->cell_rows));
  }
  if (o->surface) {
    for (int i = 0; i < o->nsurf; ++i) {
      names[i] = sq_quantity_names[o->surf_field[i]];
      sq_fields_surface_values(d, o->surface, o->surf_field[i], o->values[i]);
      pack_rows(o->values[i], o->own_face, o->face_rows.n);
      vals[i] = o->values[i];
    }
    SQ_CALL(sq_xdmf_write(o->surf, o->s->time, o->nsurf, names, vals, SQ_XDMF_CELL, &o->face_rows));
  }
  return SQ_SUCCESS;
}

/* Write the receiver samples before the current time. */
static int flush_receivers(sq_outputs *o) {
  sq_receiver_set *r = o->s->receivers;
  if (!r || !o->rec)
    return SQ_SUCCESS;
  int64_t jb, je;
  sq_receiver_samples_in(r->interval, 0.0, o->s->time, &jb, &je);
  const int64_t count = je - r->first;
  if (count <= 0)
    return SQ_SUCCESS;
  SQ_CALL(sq_receiver_writer_append(o->rec, r->first, count, r->samples));
  sq_receiver_set_consume(r, count);
  return SQ_SUCCESS;
}

static int checkpoint_to(sq_outputs *o, int64_t done, const char *path) {
  const sq_sim *s = o->s;
  int64_t samples = sq_receiver_writer_count(o->rec);
  if (s->nranks > 1) MPI_Allreduce(MPI_IN_PLACE, &samples, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  const sq_checkpoint_info info = {.time = s->time,
                                   .dt = o->dt,
                                   .plan_t0 = s->plan_t0,
                                   .plan_step0 = s->plan_step0,
                                   .steps = done,
                                   .nsteps = o->nsteps,
                                   .order = s->disc->opt.order,
                                   .precision = (int)s->disc->opt.precision,
                                   .ncell = sq_mesh_ncell_global(s->mesh),
                                   .receiver_samples = samples,
                                   .energy_rows = o->energy_rows,
                                   .wavefield_steps = sq_xdmf_count(o->wave),
                                   .surface_steps = sq_xdmf_count(o->surf)};
  const sq_checkpoint_field plastic = {.name = "plastic_strain", .ncol = SQ_PLASTIC_STRAIN_COLS,
                                       .data = s->plastic ? s->plastic->strain : NULL};
  if (o->fault) { /* the friction state goes next to the checkpoint, first: a restart checks the pair's step */
    char fault_ckpt[SQ_PATH_MAX + 320];
    sq_fault_checkpoint_path(path, fault_ckpt, sizeof(fault_ckpt));
    SQ_CALL(sq_fault_checkpoint_write(o->fault, fault_ckpt, done));
  }
  /* every rank writes the rows of its own cells (parallel HDF5) */
  SQ_CALL(sq_checkpoint_write_fields(path, s->disc, &info, s->plastic ? 1 : 0, &plastic));
  if (sq_verbosity >= 2)
    fprintf(stderr, "checkpoint: %s (t=%.6g, step %lld)\n", path, s->time, (long long)done);
  return SQ_SUCCESS;
}

static int checkpoint(sq_outputs *o, int64_t done) { return checkpoint_to(o, done, o->ckpt); }

int sq_outputs_blowup_checkpoint(sq_outputs *o, int64_t done, const char **path) {
  const sq_config *cfg = o->cfg;
  const char *dir = cfg->checkpoint_dir[0] ? cfg->checkpoint_dir : cfg->output_dir;
  snprintf(o->blowup, sizeof(o->blowup), "%s/%s-blowup.h5", dir, cfg->output_prefix);
  if (o->root) SQ_CALL(mkdir_p(dir));
  SQ_CALL(checkpoint_to(o, done, o->blowup));
  *path = o->blowup;
  return SQ_SUCCESS;
}

int sq_outputs_need_fields(const sq_outputs *o, int64_t done, int stop) {
  const int last = done == o->nsteps;
  return last || stop || done % o->out_every == 0 || (o->ckpt_every > 0 && done % o->ckpt_every == 0);
}

/* The rows of the snapshot files this rank writes: its cells, the vertices it writes (with the plan
 * that combines the ranks' vertex averages), the free-surface triangles of its cells. */
static int snapshot_rows(sq_outputs *o) {
  const sq_sim *s = o->s;
  const sq_mesh *m = s->mesh;
  const sq_disc *d = s->disc;
  int64_t n = 0;
  for (int64_t c = 0; c < m->ncell; ++c) n += d->elem_of[c] >= 0 && !d->is_ghost[d->elem_of[c]];
  SQ_CALL(SQ_CALLOC(o->own_cell, n > 0 ? n : 1));
  SQ_CALL(SQ_CALLOC(o->own_cell_row, n > 0 ? n : 1));
  o->cell_rows = (sq_rows){.n = n, .id = o->own_cell_row};
  n = 0;
  for (int64_t c = 0; c < m->ncell; ++c)
    if (d->elem_of[c] >= 0 && !d->is_ghost[d->elem_of[c]])
      o->own_cell[n] = c, o->own_cell_row[n++] = sq_mesh_global_cell(m, c);
  n = 0;
  for (int64_t v = 0; v < m->nvert; ++v) n += !m->vert_writer || m->vert_writer[v] == s->rank;
  SQ_CALL(SQ_CALLOC(o->own_vert, n > 0 ? n : 1));
  SQ_CALL(SQ_CALLOC(o->own_vert_row, n > 0 ? n : 1));
  o->vert_rows = (sq_rows){.n = n, .id = o->own_vert_row};
  n = 0;
  for (int64_t v = 0; v < m->nvert; ++v)
    if (!m->vert_writer || m->vert_writer[v] == s->rank) o->own_vert[n] = v, o->own_vert_row[n++] = sq_mesh_global_vert(m, v);
  if (o->cfg->output_surface) {
    SQ_CALL(sq_surface_create(m, &o->surface));
    SQ_CALL(SQ_CALLOC(o->own_face, o->surface->nface > 0 ? o->surface->nface : 1));
    SQ_CALL(SQ_CALLOC(o->own_face_row, o->surface->nface > 0 ? o->surface->nface : 1));
    n = 0;
    for (int64_t i = 0; i < o->surface->nface; ++i) {
      const int64_t c = o->surface->cell[i], e = d->elem_of[c];
      if (e < 0 || d->is_ghost[e]) continue;
      int64_t row = i;
      if (m->surface_first) { /* global numbering: the cell's first face, then its faces in order */
        row = m->surface_first[c];
        for (int f = 0; f < o->surface->face[i]; ++f)
          row += m->face_bc[c * 4 + f] == SQ_BC_FREE && m->face_neighbor[c * 4 + f] < 0;
      }
      o->own_face[n] = i, o->own_face_row[n++] = row;
    }
    o->face_rows = (sq_rows){.n = n, .id = o->own_face_row};
  }
  if (s->nranks > 1 && o->cfg->output_vertex && o->nfield > 0) {
    const int nr = s->nranks;
    SQ_CALL(SQ_CALLOC(o->vertex_count, m->nvert > 0 ? m->nvert : 1));
    SQ_CALL(SQ_CALLOC(o->vertex_total, m->nvert > 0 ? m->nvert : 1));
    SQ_CALL(SQ_CALLOC(o->send_count, nr));
    SQ_CALL(SQ_CALLOC(o->send_displ, nr));
    SQ_CALL(SQ_CALLOC(o->recv_count, nr));
    SQ_CALL(SQ_CALLOC(o->recv_displ, nr));
    for (int64_t c = 0; c < m->ncell; ++c) {
      const int64_t e = d->elem_of[c];
      if (e >= 0 && !d->is_ghost[e])
        for (int v = 0; v < 4; ++v) o->vertex_count[m->cell_vert[c * 4 + v]] += 1.0;
    }
    /* the vertices at our cells that another rank writes, grouped by writer (ascending local = global) */
    for (int64_t v = 0; v < m->nvert; ++v)
      if (o->vertex_count[v] > 0 && m->vert_writer[v] != s->rank) o->send_count[m->vert_writer[v]]++;
    int64_t nsend = 0;
    for (int r = 0; r < nr; ++r) o->send_displ[r] = (int)nsend, nsend += o->send_count[r];
    SQ_CALL(SQ_CALLOC(o->send_vert, nsend + 1));
    SQ_CALL(SQ_CALLOC(o->send_buf, nsend + 1));
    int64_t *gid;
    SQ_CALL(SQ_CALLOC(gid, nsend + 1));
    int *fill;
    SQ_CALL(SQ_CALLOC(fill, nr));
    for (int64_t v = 0; v < m->nvert; ++v)
      if (o->vertex_count[v] > 0 && m->vert_writer[v] != s->rank) {
        const int r = m->vert_writer[v], k = o->send_displ[r] + fill[r]++;
        o->send_vert[k] = v, gid[k] = m->vert_global[v];
      }
    MPI_Alltoall(o->send_count, 1, MPI_INT, o->recv_count, 1, MPI_INT, MPI_COMM_WORLD);
    int64_t nrecv = 0;
    for (int r = 0; r < nr; ++r) o->recv_displ[r] = (int)nrecv, nrecv += o->recv_count[r];
    SQ_CALL(SQ_CALLOC(o->recv_vert, nrecv + 1));
    SQ_CALL(SQ_CALLOC(o->recv_buf, nrecv + 1));
    MPI_Alltoallv(gid, o->send_count, o->send_displ, MPI_INT64_T, o->recv_vert, o->recv_count, o->recv_displ,
                  MPI_INT64_T, MPI_COMM_WORLD);
    for (int64_t k = 0; k < nrecv; ++k) { /* global -> local: we write it, so we hold it */
      int64_t lo = 0, hi = m->nvert - 1;
      while (lo < hi) {
        const int64_t mid = (lo + hi) / 2;
        if (m->vert_global[mid] < o->recv_vert[k]) lo = mid + 1;
        else hi = mid;
      }
      SQ_CHECK(m->nvert > 0 && m->vert_global[lo] == o->recv_vert[k], SQ_ERR_INTERNAL,
               "vertex output: rank %d was sent vertex %lld, which it does not hold", s->rank,
               (long long)o->recv_vert[k]);
      o->recv_vert[k] = lo;
    }
    SQ_FREE(gid);
    SQ_FREE(fill);
    memcpy(o->vertex_total, o->vertex_count, sizeof(double) * (size_t)m->nvert);
    vertex_exchange(o, o->vertex_total);
  }
  return SQ_SUCCESS;
}

int sq_outputs_open(sq_sim *s, int64_t nsteps, double dt, const sq_checkpoint_info *restart,
                    sq_outputs **out) {
  sq_outputs *o;
  SQ_CALL(SQ_CALLOC(o, 1));
  *out = o;
  const sq_config *cfg = &s->cfg;
  o->s = s;
  o->cfg = cfg;
  o->root = s->rank == 0;
  o->nsteps = nsteps;
  o->dt = dt;
  o->out_every = every(cfg->output_interval, dt, nsteps);
  o->flush_every = every(cfg->receiver_flush, dt, 0);
  o->ckpt_every = every(cfg->checkpoint_interval, dt, 0);
  if (!restart) { /* the plan of a new run starts now; a restart keeps the checkpoint's */
    s->plan_t0 = s->time;
    s->plan_step0 = s->steps;
    s->plan_dt = dt;
  }
  if (sq_verbosity >= 1 && o->root) { /* which HDF5 writes the files, and how */
    char hdf5[96];
    sq_output_hdf5_describe(hdf5, sizeof(hdf5));
    if (s->nranks > 1)
      printf("  output     %s/, %s: each of the %d ranks writes its own rows\n", cfg->output_dir, hdf5,
             s->nranks);
    else
      printf("  output     %s/, %s\n", cfg->output_dir, hdf5);
    fflush(stdout);
  }
  /* energies */
  char path[SQ_PATH_MAX + 300];
  snprintf(path, sizeof(path), "%s/%s-energy.csv", cfg->output_dir, cfg->output_prefix);
  if (o->root) {
    if (restart)
      SQ_CALL(sq_text_truncate(path, 1, restart->energy_rows));
    o->energy = fopen(path, restart ? "a" : "w");
    if (!o->energy)
      return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s", path, strerror(errno));
    if (!restart)
      fprintf(o->energy, "time,energy,kinetic,elastic%s\n", s->fault ? ",frictional_work,seismic_moment" : "");
  }
  o->energy_rows = restart ? restart->energy_rows : 0;
  if (!restart)
    SQ_CALL(energy_row(o));
  /* receivers: each rank writes the receivers in its cells, text files and their columns of the HDF5 file */
  if (s->receivers)
    SQ_CALL(sq_receiver_writer_open(cfg->output_dir, cfg->output_prefix, s->receivers->n, s->receivers->x,
                                    s->receivers->owned, s->receivers->interval, cfg->receiver_hdf5,
                                    restart ? restart->receiver_samples : -1, &o->rec));
  /* snapshots */
  for (int p = 0; p < SQ_NFIELDS; ++p)
    if (cfg->output_fields & (1 << p))
      o->field[o->nfield++] = p;
  if (cfg->output_surface) { /* the surface shows the quantities only */
    for (int i = 0; i < o->nfield; ++i)
      if (o->field[i] < 9)
        o->surf_field[o->nsurf++] = o->field[i];
    if (o->nsurf == 0)
      for (int p = 6; p < 9; ++p)
        o->surf_field[o->nsurf++] = p;
  }
  /* every rank computes the values of its own cells and writes its rows of the files (parallel HDF5) */
  const int want = cfg->output_format == SQ_OUTPUT_XDMF && (o->nfield > 0 || cfg->output_surface);
  if (want) {
    const sq_mesh *m = s->mesh;
    const int64_t nval = m->ncell > m->nvert ? m->ncell : m->nvert;
    for (int i = 0; i < SQ_NFIELDS; ++i)
      SQ_CALL(SQ_CALLOC(o->values[i], nval > 0 ? nval : 1));
    SQ_CALL(snapshot_rows(o));
    /* each rank writes the geometry of the vertices it writes and the topology of its cells, in global
     * vertex numbers */
    double *node;
    int64_t *topo;
    const int64_t ntri = o->surface ? o->face_rows.n : 0;
    SQ_CALL(SQ_CALLOC(node, 3 * o->vert_rows.n + 1));
    SQ_CALL(SQ_CALLOC(topo, 4 * o->cell_rows.n + 3 * ntri + 1));
    for (int64_t k = 0; k < o->vert_rows.n; ++k) memcpy(&node[3 * k], &m->vert[3 * o->own_vert[k]], 3 * sizeof(double));
    for (int64_t k = 0; k < o->cell_rows.n; ++k)
      for (int v = 0; v < 4; ++v) topo[4 * k + v] = sq_mesh_global_vert(m, m->cell_vert[4 * o->own_cell[k] + v]);
    o->want_wave = o->nfield > 0;
    int ierr = SQ_SUCCESS;
    if (o->want_wave)
      ierr = sq_xdmf_open(cfg->output_dir, cfg->output_prefix, "wavefield", sq_mesh_nvert_global(m), node,
                          &o->vert_rows, sq_mesh_ncell_global(m), 4, topo, &o->cell_rows,
                          restart ? restart->wavefield_steps : -1, &o->wave);
    if (!ierr && cfg->output_surface) {
      for (int64_t k = 0; k < ntri; ++k)
        for (int v = 0; v < 3; ++v) topo[3 * k + v] = sq_mesh_global_vert(m, o->surface->tri[3 * o->own_face[k] + v]);
      ierr = sq_xdmf_open(cfg->output_dir, cfg->output_prefix, "surface", sq_mesh_nvert_global(m), node,
                          &o->vert_rows, m->surface_first ? m->nsurface_global : o->surface->nface, 3, topo,
                          &o->face_rows, restart ? restart->surface_steps : -1, &o->surf);
    }
    SQ_FREE(node);
    SQ_FREE(topo);
    SQ_CALL(ierr);
    if (!restart)
      SQ_CALL(snapshots(o));
  }
  /* fault */
  char fault_ckpt[SQ_PATH_MAX + 320];
  {
    const char *cdir = cfg->checkpoint_dir[0] ? cfg->checkpoint_dir : cfg->output_dir;
    char main_ckpt[SQ_PATH_MAX + 300];
    snprintf(main_ckpt, sizeof(main_ckpt), "%s/%s-checkpoint.h5", cdir, cfg->output_prefix);
    sq_fault_checkpoint_path(s->restart_path[0] ? s->restart_path : main_ckpt, fault_ckpt, sizeof(fault_ckpt));
  }
  SQ_CALL(sq_fault_output_open(s, nsteps, dt, restart ? fault_ckpt : NULL, &o->fault));
  /* checkpoints */
  const char *dir = cfg->checkpoint_dir[0] ? cfg->checkpoint_dir : cfg->output_dir;
  snprintf(o->ckpt, sizeof(o->ckpt), "%s/%s-checkpoint.h5", dir, cfg->output_prefix);
  if (o->root && (o->ckpt_every > 0 || cfg->checkpoint_dir[0]))
    SQ_CALL(mkdir_p(dir));
  return SQ_SUCCESS;
}

int64_t sq_outputs_steps_to_event(const sq_outputs *o, int64_t done) {
  int64_t n = o->nsteps - done;
  const int64_t ev[3] = {o->out_every, o->flush_every, o->ckpt_every};
  for (int k = 0; k < 3; ++k)
    if (ev[k] > 0 && ev[k] - done % ev[k] < n)
      n = ev[k] - done % ev[k];
  const int64_t nf = sq_fault_output_steps_to_event(o->fault, done);
  if (nf < n) n = nf;
  return n > 0 ? n : 1;
}

int sq_outputs_prepare(sq_outputs *o, int64_t done, int64_t n) {
  if (!o->s->receivers)
    return SQ_SUCCESS;
  return sq_receiver_set_reserve(o->s->receivers, sq_sim_time_at(o->s, done + n));
}

int sq_outputs_after(sq_outputs *o, int64_t done, int stop, const char **ckpt_path) {
  const int last = done == o->nsteps;
  if (done % o->out_every == 0 || last) {
    SQ_CALL(energy_row(o));
    SQ_CALL(snapshots(o));
  }
  SQ_CALL(sq_fault_output_after(o->fault, done));
  const int ckpt = !last && (stop || (o->ckpt_every > 0 && done % o->ckpt_every == 0));
  const sq_receiver_set *r = o->s->receivers;
  const int big = r && (size_t)r->capacity * r->n * 9 * sizeof(double) > SQ_RECEIVER_BUFFER_LIMIT;
  if (last || ckpt || big || (o->flush_every > 0 && done % o->flush_every == 0))
    SQ_CALL(flush_receivers(o));
  if (ckpt) {
    if (o->energy)
      fflush(o->energy);
    SQ_CALL(checkpoint(o, done));
    if (ckpt_path)
      *ckpt_path = o->ckpt;
  }
  return SQ_SUCCESS;
}

size_t sq_outputs_memory(const sq_outputs *o) {
  size_t bytes = 0;
  const sq_receiver_set *r = o->s->receivers;
  if (r)
    bytes += (size_t)r->capacity * r->n * 9 * sizeof(double) + (size_t)r->n * sizeof(sq_receiver_point);
  if (o->values[0]) {
    const sq_mesh *m = o->s->mesh;
    bytes += SQ_NFIELDS * sizeof(double) * (size_t)(m->ncell > m->nvert ? m->ncell : m->nvert);
  }
  return bytes;
}

void sq_outputs_close(sq_outputs *o) {
  if (!o)
    return;
  if (o->energy)
    fclose(o->energy);
  sq_fault_output_close(o->fault);
  sq_receiver_writer_close(o->rec);
  sq_xdmf_close(o->wave);
  sq_xdmf_close(o->surf);
  sq_surface_destroy(o->surface);
  for (int i = 0; i < SQ_NFIELDS; ++i)
    SQ_FREE(o->values[i]);
  SQ_FREE(o->vertex_count);
  SQ_FREE(o->vertex_total);
  SQ_FREE(o->own_cell);
  SQ_FREE(o->own_cell_row);
  SQ_FREE(o->own_vert);
  SQ_FREE(o->own_vert_row);
  SQ_FREE(o->own_face);
  SQ_FREE(o->own_face_row);
  SQ_FREE(o->send_count);
  SQ_FREE(o->send_displ);
  SQ_FREE(o->recv_count);
  SQ_FREE(o->recv_displ);
  SQ_FREE(o->send_vert);
  SQ_FREE(o->recv_vert);
  SQ_FREE(o->send_buf);
  SQ_FREE(o->recv_buf);
  SQ_FREE(o);
}

int sq_outputs_restart(sq_sim *s, const char *path, sq_checkpoint_info *info) {
  SQ_CHECK(s->steps == 0, SQ_ERR_INTERNAL, "a restart must come before the first step");
  const sq_checkpoint_field plastic = {.name = "plastic_strain", .ncol = SQ_PLASTIC_STRAIN_COLS,
                                       .data = s->plastic ? s->plastic->strain : NULL};
  SQ_CALL(sq_checkpoint_read_fields(path, s->disc, info, s->plastic ? 1 : 0, &plastic));
  snprintf(s->restart_path, sizeof(s->restart_path), "%s", path);
  if (s->fault) {
    char fault_ckpt[SQ_PATH_MAX + 320];
    sq_fault_checkpoint_path(path, fault_ckpt, sizeof(fault_ckpt));
    SQ_CALL(sq_fault_checkpoint_read(s, fault_ckpt, info->steps));
  }
  s->time = info->time;
  s->steps = info->steps;
  s->plan_t0 = info->plan_t0;
  s->plan_step0 = info->plan_step0;
  s->plan_dt = info->dt;
  const double t_end = sq_sim_time_at(s, info->nsteps), want = s->cfg.end_time;
  SQ_CHECK(fabs(t_end - want) <= 1e-9 * fmax(1.0, fabs(want)), SQ_ERR_INPUT,
           "the checkpoint '%s' belongs to a run ending at t = %.9g, but %s sets equations.end_time = %.9g; "
           "restart with the configuration that wrote it",
           path, t_end, s->cfg.path, want);
  SQ_CHECK(info->steps >= 0 && info->steps < info->nsteps, SQ_ERR_INPUT,
           "the checkpoint '%s' is at step %lld of %lld: nothing is left to run", path,
           (long long)info->steps, (long long)info->nsteps);
  if (s->receivers)
    s->receivers->first = info->receiver_samples;
  return SQ_SUCCESS;
}
