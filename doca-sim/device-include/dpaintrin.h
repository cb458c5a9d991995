/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * doca-sim device-side header: the basics of dpacc's DPA intrinsics that
 * kernels commonly use, as host code for the sim (host memory is coherent,
 * so the fences are plain compiler and CPU fences). Written by the doca-rs
 * project from public facts; not NVIDIA's header. As with dpacc, a kernel that
 * uses the intrinsics includes it (doca_dpa_dev.h does not).
 */
#ifndef DPAINTRIN_H_
#define DPAINTRIN_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Memory spaces and orderings of __dpa_thread_fence(). */
#define __DPA_MEMORY 0 /**< DPA memory. */
#define __DPA_MMIO 1   /**< Memory-mapped I/O. */
#define __DPA_SYSTEM 2 /**< Everything. */
#define __DPA_R 1      /**< Reads. */
#define __DPA_W 2      /**< Writes. */
#define __DPA_RW 3     /**< Reads and writes. */

/**
 * doca-sim only (no DOCA release or dpacc has it): the sim's cycle counter, in
 * nanoseconds, behind the counters below. Kernels call __dpa_thread_cycles(),
 * never this.
 */
uint64_t doca_sim_dev_cycles(void);

/** Keeps the compiler from moving memory accesses across this point. */
static inline void __dpa_compiler_barrier(void)
{
	__asm__ __volatile__("" ::: "memory");
}
/** Orders the accesses of `pred` before those of `succ` in `space`: a full fence in the sim. */
#define __dpa_thread_fence(space, pred, succ) ((void)(space), (void)(pred), (void)(succ), __atomic_thread_fence(__ATOMIC_SEQ_CST))
/** Cycle counter (the sim counts nanoseconds). */
static inline uint64_t __dpa_thread_cycles(void)
{
	return doca_sim_dev_cycles();
}
/** Timer (the sim counts nanoseconds, like its cycle counter). */
static inline uint64_t __dpa_thread_time(void)
{
	return doca_sim_dev_cycles();
}
/** Instructions retired; the sim cannot count them and answers its cycle counter. */
static inline uint64_t __dpa_thread_inst_ret(void)
{
	return doca_sim_dev_cycles();
}
/** Makes this thread's writes to host memory visible; host memory is coherent in the sim. */
static inline void __dpa_thread_window_writeback(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
/** Drops stale reads of host memory; host memory is coherent in the sim. */
static inline void __dpa_thread_window_read_inv(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
/** Makes this thread's writes to DPA memory visible. */
static inline void __dpa_thread_memory_writeback(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

#ifdef __cplusplus
}
#endif

#endif /* DPAINTRIN_H_ */
