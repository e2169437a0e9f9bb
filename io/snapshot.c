/** @file snapshot.c  Wavefield and free-surface snapshots (XDMF + HDF5): the rows each rank writes and the values. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "sq_fields.h"
#include "sq_output.h"
#include "sq_plastic_state.h"
#include "sq_snapshot.h"

struct sq_snapshot_writer {
  const sq_config *cfg;
  const sq_mesh *mesh;
  const sq_disc *disc;
  int rank, nranks;
  sq_xdmf_writer *wave, *surf;
  sq_surface *surface;
  int nfield, field[SQ_NFIELDS];          /* wavefield fields: quantities, then plastic strain and eta */
  int nsurf, surf_field[9];               /* surface quantities */
  double *surf_u, *surf_v, *surf_scratch; /* surface displacement: u and the last v (3 x nface), scratch */
  double surf_t;                          /* time of surf_v */
  double *values[SQ_NFIELDS];             /* scratch, one per field */
  int want_wave;                          /* wavefield snapshots (every rank computes and writes its rows) */
  /* the rows of the HDF5 files this rank writes (parallel HDF5; one rank: all of them): the local
   * indices of what it writes, ascending, and their rows in the files (global numbering) */
  int64_t *own_cell, *own_cell_row; /* the mesh cells it owns */
  sq_rows cell_rows;                /* cell-centred values, topology */
  int64_t *own_vert, *own_vert_row; /* the vertices it writes (sq_mesh.vert_writer) */
  sq_rows vert_rows;                /* geometry and vertex values */
  int64_t *own_face, *own_face_row; /* the free-surface triangles of its cells */
  sq_rows face_rows;
  /* MPI vertex output: each rank's averages over its owned cells, weighted by their count, go to the
   * vertex's writer (MPI_Alltoallv), which divides the sum by the total count */
  double *vertex_count; /* owned cells at each local vertex */
  double *vertex_total; /* cells at each local vertex over all ranks (at the vertices written here) */
  int *send_count, *send_displ, *recv_count, *recv_displ; /* per rank */
  int64_t *send_vert, *recv_vert; /* local vertices sent, in send order; local vertices received */
  double *send_buf, *recv_buf;
};

/* Keep the entries @p local[0..n) (ascending) of a full-size array, packed at its start (in place). */
static void pack_rows(double *values, const int64_t *local, int64_t n) {
  for (int64_t k = 0; k < n; ++k) values[k] = values[local[k]];
}

/* Send @p values (per local vertex, weighted by the counts) to the vertices' writers and add what the
 * others send into @p values. */
static void vertex_exchange(const sq_snapshot_writer *o, double *values) {
  const int nr = o->nranks;
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
static void vertex_values_share(const sq_snapshot_writer *o, double *values) {
  if (o->nranks < 2) return; /* one rank: its averages are the averages, and it writes them all */
  const int64_t n = o->mesh->nvert;
  for (int64_t v = 0; v < n; ++v) values[v] *= o->vertex_count[v];
  vertex_exchange(o, values);
  for (int64_t v = 0; v < n; ++v) values[v] = o->vertex_total[v] > 0 ? values[v] / o->vertex_total[v] : 0.0;
  pack_rows(values, o->own_vert, o->vert_rows.n);
}

/* Output name of wavefield field @p field (0..8: the quantities, SQ_FIELD_EP_XX..SQ_FIELD_ETA: plastic). */
static const char *field_name(int field) {
  static const char *const names[] = {"ep_xx", "ep_yy", "ep_zz", "ep_xy", "ep_yz", "ep_xz", "eta"};
  if (field >= 0 && field < 9) return sq_quantity_names[field];
  if (field >= SQ_FIELD_EP_XX && field <= SQ_FIELD_ETA) return names[field - SQ_FIELD_EP_XX];
  return "?";
}

/* Plastic field @p field (SQ_FIELD_EP_XX..SQ_FIELD_ETA) of the owned cells: the cell values in mesh order
 * (@p vertex 0), or at each vertex the average over the owned cells around it. */
static void plastic_field_values(const sq_disc *d, const sq_mesh *m, const double *strain, int field, int vertex,
                                 double *out) {
  const int col = field - SQ_FIELD_EP_XX;
  if (!vertex) {
    for (int64_t c = 0; c < m->ncell; ++c) {
      const int64_t e = d->elem_of[c];
      out[c] = e >= 0 && !d->is_ghost[e] ? strain[SQ_PLASTIC_STRAIN_COLS * e + col] : 0.0;
    }
    return;
  }
  int *count = calloc((size_t)(m->nvert > 0 ? m->nvert : 1), sizeof(int));
  memset(out, 0, sizeof(double) * (size_t)m->nvert);
  for (int64_t c = 0; c < m->ncell; ++c) {
    const int64_t e = d->elem_of[c];
    if (e < 0 || d->is_ghost[e]) continue;
    for (int v = 0; v < 4; ++v) {
      const int64_t id = m->cell_vert[c * 4 + v];
      out[id] += strain[SQ_PLASTIC_STRAIN_COLS * e + col];
      if (count) count[id]++;
    }
  }
  for (int64_t v = 0; v < m->nvert; ++v)
    if (count && count[v] > 0) out[v] /= count[v];
  free(count);
}

static int snapshots(sq_snapshot_writer *o, double time, const double *plastic_strain) {
  const sq_disc *d = o->disc;
  const char *names[SQ_NFIELDS];
  const double *vals[SQ_NFIELDS];
  if (o->want_wave) {
    const int vertex = o->cfg->output_vertex;
    for (int i = 0; i < o->nfield; ++i) {
      names[i] = field_name(o->field[i]);
      if (o->field[i] >= SQ_FIELD_EP_XX) /* plastic strain and eta: per element */
        plastic_field_values(d, o->mesh, plastic_strain, o->field[i], vertex, o->values[i]);
      else if (vertex) sq_fields_vertex_values(d, o->field[i], o->values[i]);
      else sq_fields_cell_average(d, o->field[i], o->values[i]);
      if (vertex) vertex_values_share(o, o->values[i]);
      else pack_rows(o->values[i], o->own_cell, o->cell_rows.n);
      vals[i] = o->values[i];
    }
    SQ_CALL(sq_xdmf_write(o->wave, time, o->nfield, names, vals, vertex ? SQ_XDMF_NODE : SQ_XDMF_CELL,
                          vertex ? &o->vert_rows : &o->cell_rows));
  }
  if (o->surface) {
    for (int i = 0; i < o->nsurf; ++i) {
      names[i] = sq_quantity_names[o->surf_field[i]];
      sq_fields_surface_values(d, o->surface, o->surf_field[i], o->values[i]);
      pack_rows(o->values[i], o->own_face, o->face_rows.n);
      vals[i] = o->values[i];
    }
    int n = o->nsurf;
    for (int c = 0; o->surf_u && c < 3; ++c, ++n) { /* u1..u3 after the quantities */
      static const char *const unames[3] = {"u1", "u2", "u3"};
      names[n] = unames[c];
      memcpy(o->values[n], o->surf_u + (size_t)c * o->surface->nface, sizeof(double) * (size_t)o->surface->nface);
      pack_rows(o->values[n], o->own_face, o->face_rows.n);
      vals[n] = o->values[n];
    }
    SQ_CALL(sq_xdmf_write(o->surf, time, n, names, vals, SQ_XDMF_CELL, &o->face_rows));
  }
  return SQ_SUCCESS;
}

/* The rows of the snapshot files this rank writes: its cells, the vertices it writes (with the plan
 * that combines the ranks' vertex averages), the free-surface triangles of its cells. */
static int snapshot_rows(sq_snapshot_writer *o) {
  const sq_mesh *m = o->mesh;
  const sq_disc *d = o->disc;
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
  for (int64_t v = 0; v < m->nvert; ++v) n += !m->vert_writer || m->vert_writer[v] == o->rank;
  SQ_CALL(SQ_CALLOC(o->own_vert, n > 0 ? n : 1));
  SQ_CALL(SQ_CALLOC(o->own_vert_row, n > 0 ? n : 1));
  o->vert_rows = (sq_rows){.n = n, .id = o->own_vert_row};
  n = 0;
  for (int64_t v = 0; v < m->nvert; ++v)
    if (!m->vert_writer || m->vert_writer[v] == o->rank)
      o->own_vert[n] = v, o->own_vert_row[n++] = sq_mesh_global_vert(m, v);
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
  if (o->nranks > 1 && o->cfg->output_vertex && o->nfield > 0) {
    const int nr = o->nranks;
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
      if (o->vertex_count[v] > 0 && m->vert_writer[v] != o->rank) o->send_count[m->vert_writer[v]]++;
    int64_t nsend = 0;
    for (int r = 0; r < nr; ++r) o->send_displ[r] = (int)nsend, nsend += o->send_count[r];
    SQ_CALL(SQ_CALLOC(o->send_vert, nsend + 1));
    SQ_CALL(SQ_CALLOC(o->send_buf, nsend + 1));
    int64_t *gid;
    SQ_CALL(SQ_CALLOC(gid, nsend + 1));
    int *fill;
    SQ_CALL(SQ_CALLOC(fill, nr));
    for (int64_t v = 0; v < m->nvert; ++v)
      if (o->vertex_count[v] > 0 && m->vert_writer[v] != o->rank) {
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
               "vertex output: rank %d was sent vertex %lld, which it does not hold", o->rank,
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

int sq_snapshot_open(const sq_config *cfg, const sq_mesh *m, const sq_disc *d, int rank, int nranks, double time,
                     const double *plastic_strain, const int64_t restart_steps[2], sq_snapshot_writer **out) {
  sq_snapshot_writer *o;
  SQ_CALL(SQ_CALLOC(o, 1));
  *out = o;
  o->cfg = cfg;
  o->mesh = m;
  o->disc = d;
  o->rank = rank;
  o->nranks = nranks;
  for (int p = 0; p < SQ_NFIELDS; ++p)
    if (cfg->output_fields & (1 << p)) o->field[o->nfield++] = p;
  if (cfg->output_surface) { /* the surface shows the quantities only */
    for (int i = 0; i < o->nfield; ++i)
      if (o->field[i] < 9) o->surf_field[o->nsurf++] = o->field[i];
    if (o->nsurf == 0)
      for (int p = 6; p < 9; ++p) o->surf_field[o->nsurf++] = p;
  }
  /* every rank computes the values of its own cells and writes its rows of the files (parallel HDF5) */
  const int want = cfg->output_format == SQ_OUTPUT_XDMF && (o->nfield > 0 || cfg->output_surface);
  if (!want) return SQ_SUCCESS;
  const int64_t nval = m->ncell > m->nvert ? m->ncell : m->nvert;
  for (int i = 0; i < SQ_NFIELDS; ++i) SQ_CALL(SQ_CALLOC(o->values[i], nval > 0 ? nval : 1));
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
  const int seissol = cfg->output_style == SQ_OUTPUT_STYLE_SEISSOL; /* SeisSol's HDF5 layout (its names are ours) */
  if (o->want_wave)
    ierr = sq_xdmf_open_style(cfg->output_dir, cfg->output_prefix, seissol ? "" : "wavefield", sq_mesh_nvert_global(m),
                              node, &o->vert_rows, sq_mesh_ncell_global(m), 4, topo, &o->cell_rows, seissol,
                              restart_steps ? restart_steps[0] : -1, &o->wave);
  if (!ierr && cfg->output_surface) {
    for (int64_t k = 0; k < ntri; ++k)
      for (int v = 0; v < 3; ++v) topo[3 * k + v] = sq_mesh_global_vert(m, o->surface->tri[3 * o->own_face[k] + v]);
    ierr = sq_xdmf_open_style(cfg->output_dir, cfg->output_prefix, "surface", sq_mesh_nvert_global(m), node,
                              &o->vert_rows, m->surface_first ? m->nsurface_global : o->surface->nface, 3, topo,
                              &o->face_rows, seissol, restart_steps ? restart_steps[1] : -1, &o->surf);
  }
  SQ_FREE(node);
  SQ_FREE(topo);
  SQ_CALL(ierr);
  if (cfg->output_surface_displacement && o->surface) { /* u = 0 at the start, v of the initial state */
    const size_t n = 3 * (size_t)(o->surface->nface > 0 ? o->surface->nface : 1);
    SQ_CALL(SQ_CALLOC(o->surf_u, n));
    SQ_CALL(SQ_CALLOC(o->surf_v, n));
    SQ_CALL(SQ_CALLOC(o->surf_scratch, n));
    for (int c = 0; c < 3; ++c)
      sq_fields_surface_values(d, o->surface, 6 + c, o->surf_v + (size_t)c * o->surface->nface);
    o->surf_t = time;
  }
  if (!restart_steps) SQ_CALL(snapshots(o, time, plastic_strain));
  return SQ_SUCCESS;
}

int sq_snapshot_integrate(sq_snapshot_writer *o, double time) {
  if (!o->surf_u) return SQ_SUCCESS;
  const int64_t nface = o->surface->nface;
  for (int c = 0; c < 3; ++c) sq_fields_surface_values(o->disc, o->surface, 6 + c, o->surf_scratch + (size_t)c * nface);
  const double half = 0.5 * (time - o->surf_t);
  for (int64_t k = 0; k < 3 * nface; ++k) {
    o->surf_u[k] += half * (o->surf_v[k] + o->surf_scratch[k]);
    o->surf_v[k] = o->surf_scratch[k];
  }
  o->surf_t = time;
  return SQ_SUCCESS;
}

int sq_snapshot_write(sq_snapshot_writer *w, double time, const double *plastic_strain) {
  return snapshots(w, time, plastic_strain);
}

int64_t sq_snapshot_wavefield_steps(const sq_snapshot_writer *w) { return sq_xdmf_count(w->wave); }

int64_t sq_snapshot_surface_steps(const sq_snapshot_writer *w) { return sq_xdmf_count(w->surf); }

size_t sq_snapshot_memory(const sq_snapshot_writer *w) {
  if (!w->values[0]) return 0;
  const sq_mesh *m = w->mesh;
  return SQ_NFIELDS * sizeof(double) * (size_t)(m->ncell > m->nvert ? m->ncell : m->nvert);
}

void sq_snapshot_close(sq_snapshot_writer *o) {
  if (!o) return;
  sq_xdmf_close(o->wave);
  sq_xdmf_close(o->surf);
  sq_surface_destroy(o->surface);
  SQ_FREE(o->surf_u);
  SQ_FREE(o->surf_v);
  SQ_FREE(o->surf_scratch);
  for (int i = 0; i < SQ_NFIELDS; ++i) SQ_FREE(o->values[i]);
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
