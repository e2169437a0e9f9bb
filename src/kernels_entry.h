/**
 * @file kernels_entry.h  The entry points of the element kernels of one precision, which kernels_impl.h
 * defines in each instantiation (kernels_f32.c, kernels_f64.c) and the dispatchers of kernels.c call.
 */
#ifndef SQ_KERNELS_ENTRY_H
#define SQ_KERNELS_ENTRY_H

#include "sq_kernels.h"

#define SQ_DECLARE_KERNEL_ENTRIES(P)                                                                                   \
  void sq_internal_ader_entry_##P(sq_gemm_impl, int, int64_t, const void *, const void *, const void *, double,        \
                                  void *, void *);                                                                     \
  void sq_internal_local_entry_##P(sq_gemm_impl, int, int64_t, const void *, const void *, const void *, const void *, \
                                   void *);                                                                            \
  void sq_internal_neighbor_entry_##P(sq_gemm_impl, int, int64_t, const void *, const sq_face_link *, const void *,    \
                                      const void *const *, const double *, const double *, void *);                    \
  void sq_internal_taylor_entry_##P(int, int64_t, const void *, double, double, void *);                               \
  void sq_internal_pack_entry_##P(const sq_ref *, void *);                                                             \
  void sq_internal_accumulate_entry_##P(int, int64_t, const void *, int, void *);                                      \
  const char *sq_internal_gemm_name_entry_##P(void);                                                                   \
  void sq_internal_flops_entry_##P(sq_gemm_impl, int, double[3]);                                                      \
  void sq_internal_ader_ane_entry_##P(sq_gemm_impl, int, int, int64_t, const void *, const void *, const void *,       \
                                      const void *, double, void *, void *, void *);                                   \
  void sq_internal_ane_source_entry_##P(int, int, int64_t, const void *, void *);                                      \
  void sq_internal_ane_shift_entry_##P(int, int, int64_t, const void *, const void *, int, void *);                    \
  void sq_internal_ane_coef_entry_##P(int64_t, const double *, void *);

SQ_DECLARE_KERNEL_ENTRIES(f32)
SQ_DECLARE_KERNEL_ENTRIES(f64)

#endif
