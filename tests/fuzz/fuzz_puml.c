/**
 * @file fuzz_puml.c  libFuzzer harnesses of the PUML reader (sq_mesh_read_puml).
 *
 * Two builds of this file:
 * - default (fuzz_puml): the input describes a PUML file -- which datasets exist, their element
 *   types, shapes, the boundary-format attribute, and their contents -- and the harness writes it
 *   with the HDF5 API.  Every file is valid HDF5, so the fuzzer explores our reader's checks
 *   (shapes, types, vertex ranges, boundary codes, orientation, conformity) rather than HDF5's
 *   parser.
 * - -DSQ_FUZZ_PUML_RAW (fuzz_puml_raw): the input bytes are the file, as the brief of a plain
 *   reader fuzzer asks; it mostly exercises libhdf5's own parsing.
 *
 * Layout of a structured input (missing bytes read as zero):
 *   [0] /connect type: 0 u64, 1 i64, 2 i32, 3 f64, 4 missing      [1] /connect shape: 0 n x 4, 1 n x 3, 2 1-D
 *   [2] /geometry: 0 f64 n x 3, 1 f32 n x 3, 2 f64 n x 2, 3 i32 n x 3, 4 missing
 *   [3] /boundary: 0 i32 n, 1 i64 n, 2 i32 n x 4, 3 f64 n, 4 i32 n+1, 5 missing, 6 i16 n
 *   [4] attribute boundary-format: 0 none, 1 "i32", 2 "i64", 3 "i32x4", 4 "bogus", 5 an integer,
 *       6 variable-length "i32"
 *   [5] /group: 0 none, 1 i32 n, 2 f64 n, 3 i32 n+2, 4 i32 n x 2
 *   [6] number of cells (0..63)   [7] number of vertices (0..127)
 *   then nvert x 3 int8 coordinates, ncell x 4 int8 vertex ids (127: 2^40, -128: -1), ncell x 4
 *   boundary codes (int8, 0x7f: 65), ncell group ids (int8).
 */
#include <hdf5.h>
#include <stdint.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "sq_mesh_io.h"

#ifdef SQ_FUZZ_PUML_RAW

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[256];
  sq_fuzz_write_temp(data, size, ".puml.h5", path, sizeof(path));
  sq_mesh *mesh = NULL;
  if (sq_mesh_read_puml(path, &mesh) == SQ_SUCCESS) sq_mesh_destroy(mesh);
  unlink(path);
  return 0;
}

#else

/** Reads the input byte by byte; zeros after its end. */
typedef struct byte_stream {
  const uint8_t *data;
  size_t size, at;
} byte_stream;

static int next_byte(byte_stream *s) { return s->at < s->size ? s->data[s->at++] : 0; }
static int next_int8(byte_stream *s) { return (int8_t)next_byte(s); }

/** Write a dataset of @p rank (1 or 2) with dims @p d0 x @p d1 from @p buf (memory type @p mtype). */
static void write_dataset(hid_t file, const char *name, hid_t ftype, hid_t mtype, int rank, hsize_t d0, hsize_t d1,
                          const void *buf) {
  hsize_t dims[2] = {d0, d1};
  hid_t space = H5Screate_simple(rank, dims, NULL);
  hid_t dset = H5Dcreate2(file, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (d0 * (rank == 2 ? d1 : 1) > 0) H5Dwrite(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
  H5Dclose(dset);
  H5Sclose(space);
}

static void write_string_attr(hid_t file, const char *value, int variable) {
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, variable ? H5T_VARIABLE : strlen(value));
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t attr = H5Acreate2(file, "boundary-format", type, space, H5P_DEFAULT, H5P_DEFAULT);
  if (variable) H5Awrite(attr, type, &value);
  else H5Awrite(attr, type, value);
  H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  byte_stream s = {data, size, 0};
  const int connect_kind = next_byte(&s) % 5, connect_shape = next_byte(&s) % 3;
  const int geometry_kind = next_byte(&s) % 5, boundary_kind = next_byte(&s) % 7;
  const int attr_kind = next_byte(&s) % 7, group_kind = next_byte(&s) % 5;
  const int64_t ncell = next_byte(&s) % 64, nvert = next_byte(&s) % 128;

  static double geometry[128 * 3];
  static int64_t connect[64 * 4], group64[66 * 2];
  static uint64_t boundary64[64];
  static int32_t boundary32[64 * 4 + 1], group32[66 * 2];
  static double real[64 * 4 + 2];
  for (int64_t i = 0; i < 3 * nvert; ++i) geometry[i] = next_int8(&s);
  for (int64_t i = 0; i < 4 * ncell; ++i) {
    const int v = next_int8(&s);
    connect[i] = v == 127 ? (int64_t)1 << 40 : v == -128 ? -1 : v;
  }
  for (int64_t c = 0; c < ncell; ++c) {
    boundary64[c] = 0;
    for (int f = 0; f < 4; ++f) {
      int code = next_int8(&s);
      if (code == 127) code = 65;
      boundary32[4 * c + f] = code;
      boundary64[c] |= (uint64_t)(uint16_t)(int16_t)code << (16 * f);
    }
  }
  for (int64_t c = 0; c < ncell + 2; ++c) group32[2 * c] = group32[2 * c + 1] = next_int8(&s);

  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  char path[256];
  sq_fuzz_write_temp(data, 0, ".puml.h5", path, sizeof(path));
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0) abort();

  /* /connect */
  const int crank = connect_shape == 2 ? 1 : 2;
  const hsize_t ccols = connect_shape == 1 ? 3 : 4, crows = connect_shape == 2 ? 4 * ncell : ncell;
  if (connect_kind < 2) {
    write_dataset(file, "/connect", connect_kind == 0 ? H5T_STD_U64LE : H5T_STD_I64LE, H5T_NATIVE_INT64, crank, crows,
                  ccols, connect);
  } else if (connect_kind == 2) {
    static int32_t c32[64 * 4];
    for (int64_t i = 0; i < 4 * ncell; ++i) c32[i] = (int32_t)connect[i];
    write_dataset(file, "/connect", H5T_STD_I32LE, H5T_NATIVE_INT32, crank, crows, ccols, c32);
  } else if (connect_kind == 3) {
    for (int64_t i = 0; i < 4 * ncell; ++i) real[i] = (double)connect[i];
    write_dataset(file, "/connect", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, crank, crows, ccols, real);
  }
  /* /geometry */
  if (geometry_kind == 0 || geometry_kind == 1)
    write_dataset(file, "/geometry", geometry_kind == 0 ? H5T_IEEE_F64LE : H5T_IEEE_F32LE, H5T_NATIVE_DOUBLE, 2, nvert,
                  3, geometry);
  else if (geometry_kind == 2)
    write_dataset(file, "/geometry", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, nvert, 2, geometry);
  else if (geometry_kind == 3) {
    static int32_t g32[128 * 3];
    for (int64_t i = 0; i < 3 * nvert; ++i) g32[i] = (int32_t)geometry[i];
    write_dataset(file, "/geometry", H5T_STD_I32LE, H5T_NATIVE_INT32, 2, nvert, 3, g32);
  }
  /* /boundary, coded as the format asks */
  static int32_t packed[64 + 1];
  for (int64_t c = 0; c < ncell + 1; ++c) {
    uint32_t w = 0;
    for (int f = 0; f < 4 && c < ncell; ++f) w |= (uint32_t)(uint8_t)boundary32[4 * c + f] << (8 * f);
    packed[c] = (int32_t)w;
  }
  switch (boundary_kind) {
  case 0: write_dataset(file, "/boundary", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, ncell, 1, packed); break;
  case 1: write_dataset(file, "/boundary", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, ncell, 1, boundary64); break;
  case 2: write_dataset(file, "/boundary", H5T_STD_I32LE, H5T_NATIVE_INT32, 2, ncell, 4, boundary32); break;
  case 3:
    for (int64_t c = 0; c < ncell; ++c) real[c] = packed[c];
    write_dataset(file, "/boundary", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, ncell, 1, real);
    break;
  case 4: write_dataset(file, "/boundary", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, ncell + 1, 1, packed); break;
  case 6: write_dataset(file, "/boundary", H5T_STD_I16LE, H5T_NATIVE_INT32, 1, ncell, 1, packed); break;
  default: break;
  }
  /* boundary-format attribute */
  static const char *const names[] = {NULL, "i32", "i64", "i32x4", "bogus"};
  if (attr_kind >= 1 && attr_kind <= 4) write_string_attr(file, names[attr_kind], 0);
  else if (attr_kind == 6) write_string_attr(file, "i32", 1);
  else if (attr_kind == 5) {
    const int value = 32;
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attr = H5Acreate2(file, "boundary-format", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, H5T_NATIVE_INT, &value);
    H5Aclose(attr);
    H5Sclose(space);
  }
  /* /group */
  for (int64_t c = 0; c < 2 * (ncell + 2); ++c) group64[c] = group32[c];
  if (group_kind == 1) write_dataset(file, "/group", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, ncell, 1, group32);
  else if (group_kind == 2) {
    for (int64_t c = 0; c < ncell; ++c) real[c] = group32[c];
    write_dataset(file, "/group", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, ncell, 1, real);
  } else if (group_kind == 3) write_dataset(file, "/group", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, ncell + 2, 1, group32);
  else if (group_kind == 4) write_dataset(file, "/group", H5T_STD_I64LE, H5T_NATIVE_INT64, 2, ncell, 2, group64);
  H5Fclose(file);

  sq_mesh *mesh = NULL;
  if (sq_mesh_read_puml(path, &mesh) == SQ_SUCCESS) sq_mesh_destroy(mesh);
  unlink(path);
  return 0;
}

#endif
