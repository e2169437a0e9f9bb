/**
 * @file sq_mesh_hash.h  Faces by their sorted vertex triple: the sort and the hash that the mesh
 * finalisation (mesh.c), the Gmsh reader (gmsh_read.c, gmsh_build.c) and the distributed face matching
 * (app/distmesh.c) share.  Internal to the mesh code.
 */
#ifndef SQ_MESH_HASH_H
#define SQ_MESH_HASH_H

#include <stdint.h>

/** Ascending order of a vertex triple: a face's identity whatever its orientation. */
static inline void sq_sort3(int64_t k[3]) {
  int64_t t;
  if (k[0] > k[1]) {
    t = k[0];
    k[0] = k[1];
    k[1] = t;
  }
  if (k[1] > k[2]) {
    t = k[1];
    k[1] = k[2];
    k[2] = t;
  }
  if (k[0] > k[1]) {
    t = k[0];
    k[0] = k[1];
    k[1] = t;
  }
}

/** A 64-bit finaliser (murmur3's): every input bit reaches every output bit. */
static inline uint64_t sq_mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

/** Hash of a sorted vertex triple. */
static inline uint64_t sq_hash3(const int64_t k[3]) {
  return sq_mix64((uint64_t)k[0] * 0x9E3779B97F4A7C15ULL ^ sq_mix64((uint64_t)k[1] + 0x632BE59BD9B4E019ULL) ^
                  ((uint64_t)k[2] * 0xC2B2AE3D27D4EB4FULL));
}

#endif
