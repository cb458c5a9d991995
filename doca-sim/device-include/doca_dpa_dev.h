/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * doca-sim device-side header: the part of the DPA device API that the
 * software DPA implements, declared with the names and types DPA kernels use,
 * so the same kernel source builds with dpacc for hardware and with the host
 * compiler for the sim. Written by the doca-rs project from public facts;
 * not NVIDIA's header.
 */
#ifndef DOCA_DPA_DEV_H_
#define DOCA_DPA_DEV_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * These headers split and guard their declarations as DOCA 3.0's device headers
 * do, so a kernel that compiles here compiles with dpacc too: doca_dpa_dev_mmap_t
 * is only in doca_dpa_dev_buf.h; enum doca_dpa_dev_log_level is defined here and,
 * unguarded, in the host doca_dpa.h (a translation unit includes one of the two,
 * as a header shared by host and device code does with DOCA_DPA_DEVICE); dpacc's
 * intrinsics (dpaintrin.h) are the kernel's to include.
 *
 * DOCA_SIM_DEV_RELEASE: the DOCA release (major * 100 + minor) whose device API
 * these headers declare. By default that of the reference headers (3.3); a
 * declaration newer than 3.0 is only there for a release that has it, as it is
 * only in a newer real header. -DDOCA_SIM_DEV_RELEASE=300 declares what DOCA
 * 3.0's device headers declare.
 *
 * DOCA_SIM_DEV_NO_SIM_EXTRAS: when defined, nothing of doca-sim's own is
 * declared either: DOCA_SIM_DEVICE stays undefined (kernels take their hardware
 * branches) and doca_sim_dev.h refuses to be included. doca-sim's
 * tests/strict_device_headers.rs compiles every kernel of the repository with
 * both, that is with only what real DOCA 3.0 declares.
 */
#ifndef DOCA_SIM_DEV_RELEASE
#define DOCA_SIM_DEV_RELEASE 303
#endif

/** Compiling DPA device code (here: for the sim, on the host). */
#ifndef DOCA_DPA_DEVICE
#define DOCA_DPA_DEVICE
#endif
#ifndef DOCA_SIM_DEV_NO_SIM_EXTRAS
/** doca-sim only: marks the sim build of device code (dpacc does not define it). */
#define DOCA_SIM_DEVICE 1
#endif

/** A kernel or DPA thread entry point; nothing special on the host. */
#define __dpa_global__
/** An RPC function (returns uint64_t to doca_dpa_rpc). */
#define __dpa_rpc__
/** Forces inlining, as the device header does. */
#ifndef __forceinline
#define __forceinline static inline __attribute__((always_inline))
#endif
/** Forces inlining (newer device headers define it when it is not defined). */
#ifndef __always_inline
#define __always_inline __attribute__((always_inline))
#endif

typedef uint64_t doca_dpa_dev_t;
typedef uint64_t doca_dpa_dev_uintptr_t;
typedef uint64_t doca_dpa_dev_hash_table_t;
typedef uint64_t doca_dpa_dev_completion_t;
typedef uint64_t doca_dpa_dev_async_ops_t;
typedef uint64_t doca_dpa_dev_notification_completion_t;
typedef uint64_t doca_dpa_dev_completion_element_t;

/*
 * Defined by the host header doca_dpa.h too, and, as in DOCA 3.0, guarded in
 * neither: a translation unit includes one of the two.
 */
/** Device log levels, most severe first. */
typedef enum doca_dpa_dev_log_level {
	DOCA_DPA_DEV_LOG_LEVEL_DISABLE = 10,
	DOCA_DPA_DEV_LOG_LEVEL_ERROR = 30,
	DOCA_DPA_DEV_LOG_LEVEL_WARNING = 40,
	DOCA_DPA_DEV_LOG_LEVEL_INFO = 50,
	DOCA_DPA_DEV_LOG_LEVEL_DEBUG = 60,
} doca_dpa_dev_log_level_t;

/** Kinds of completion elements. */
typedef enum {
	DOCA_DPA_DEV_COMP_SEND = 0x0,
	DOCA_DPA_DEV_COMP_RECV_RDMA_WRITE_IMM = 0x1,
	DOCA_DPA_DEV_COMP_RECV_SEND = 0x2,
	DOCA_DPA_DEV_COMP_RECV_SEND_IMM = 0x3,
	DOCA_DPA_DEV_COMP_SEND_ERR = 0xD,
	DOCA_DPA_DEV_COMP_RECV_ERR = 0xE,
} doca_dpa_dev_completion_type_t;

/** Flags of the device-side post calls (doca_dpa_dev_buf.h, doca_dpa_dev_rdma.h). */
enum doca_dpa_dev_submit_flag {
	DOCA_DPA_DEV_SUBMIT_FLAG_NONE = 0U,		     /**< Post now. */
	DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH = (1U << 0),	     /**< Post this one and those held back. */
	DOCA_DPA_DEV_SUBMIT_FLAG_OPTIMIZE_REPORTS = (1U << 1), /**< Report completions in fewer elements. */
};

/**
 * Selects the device (a context or one of its extensions, by its DPA handle)
 * the calling thread's following device calls act on. In the sim: the handle
 * must name the running context or another extension of the same base (a
 * device fault otherwise); the sim's device calls act the same on each.
 */
void doca_dpa_dev_device_set(doca_dpa_dev_t dpa_handle);
/** Rank of the calling thread among the threads of its launch (or group). */
unsigned int doca_dpa_dev_thread_rank(void);
/** Number of threads running the calling kernel. */
unsigned int doca_dpa_dev_num_threads(void);
/** Local storage address of the calling DPA thread. */
doca_dpa_dev_uintptr_t doca_dpa_dev_thread_get_local_storage(void);
/** Lets other threads run; in the sim it also ends the instance once its context is fatal. */
void doca_dpa_dev_yield(void);
/** Ends this activation of a DPA thread; it runs again on its next completion or notification. */
void doca_dpa_dev_thread_reschedule(void);
/** Ends a DPA thread for good. */
void doca_dpa_dev_thread_finish(void);
/** Wakes the thread bound to a notification completion. */
void doca_dpa_dev_thread_notify(doca_dpa_dev_notification_completion_t comp_handle);
/** Prints a formatted line to the context's device log. */
void doca_dpa_dev_log(doca_dpa_dev_log_level_t log_level, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
/** Records five values in the trace. */
void doca_dpa_dev_trace(uint64_t arg1, uint64_t arg2, uint64_t arg3, uint64_t arg4, uint64_t arg5);
/** Flushes the trace. */
void doca_dpa_dev_trace_flush(void);

#define DOCA_DPA_DEV_LOG_ERR(...) doca_dpa_dev_log(DOCA_DPA_DEV_LOG_LEVEL_ERROR, __VA_ARGS__)
#define DOCA_DPA_DEV_LOG_WARN(...) doca_dpa_dev_log(DOCA_DPA_DEV_LOG_LEVEL_WARNING, __VA_ARGS__)
#define DOCA_DPA_DEV_LOG_INFO(...) doca_dpa_dev_log(DOCA_DPA_DEV_LOG_LEVEL_INFO, __VA_ARGS__)
#define DOCA_DPA_DEV_LOG_DBG(...) doca_dpa_dev_log(DOCA_DPA_DEV_LOG_LEVEL_DEBUG, __VA_ARGS__)

/** Takes the next completion element; returns non-zero when one was available. */
int doca_dpa_dev_get_completion(doca_dpa_dev_completion_t dpa_comp_handle,
				doca_dpa_dev_completion_element_t *comp_element);
/** Type of a completion element. */
doca_dpa_dev_completion_type_t doca_dpa_dev_get_completion_type(doca_dpa_dev_completion_element_t comp_element);
/** User data of a completion element. */
uint32_t doca_dpa_dev_get_completion_user_data(doca_dpa_dev_completion_element_t comp_element);
/** Immediate data of a completion element. */
uint32_t doca_dpa_dev_get_completion_immediate(doca_dpa_dev_completion_element_t comp_element);
#if DOCA_SIM_DEV_RELEASE >= 302
/*
 * Completion-element accessors of newer DOCA (3.2 and later; not in 3.0's
 * header, hence the release guard). The sim's
 * producers (RDMI, doca_sim_dev_completion_post) give an element a type, a
 * 24-bit user data and a 32-bit immediate only; what the accessors derive
 * from them is said for each.
 */
/** Opcode of the send WQE that completed; the sim's producers post no WQEs: 0. */
uint32_t doca_dpa_dev_completion_element_get_swqe_opcode(doca_dpa_dev_completion_element_t comp_element);
/** Shared receive queue number; the sim has no SRQs: 0. */
uint32_t doca_dpa_dev_completion_element_get_srqn(doca_dpa_dev_completion_element_t comp_element);
/** Queue pair number; the sim's producers have no QPs: 0. */
uint32_t doca_dpa_dev_completion_element_get_qpn(doca_dpa_dev_completion_element_t comp_element);
/** WQE counter; in the sim the low 16 bits of the user data (the work-request index its producers put there). */
uint32_t doca_dpa_dev_completion_element_get_wqe_counter(doca_dpa_dev_completion_element_t comp_element);
/** Bytes received; in the sim the immediate of a RECV_SEND element (its producers' length), 0 otherwise. */
uint32_t doca_dpa_dev_completion_element_get_received_bytes(doca_dpa_dev_completion_element_t comp_element);
/** Error syndrome; in the sim 1 for SEND_ERR and RECV_ERR elements, 0 otherwise. */
uint32_t doca_dpa_dev_completion_element_get_error_syndrome(doca_dpa_dev_completion_element_t comp_element);
/** Vendor error syndrome; in the sim the immediate of an error element, 0 otherwise. */
uint32_t doca_dpa_dev_completion_element_get_vendor_error_syndrome(doca_dpa_dev_completion_element_t comp_element);
/** Completion timestamp; the sim keeps none: 0. */
uint64_t doca_dpa_dev_completion_element_get_timestamp(doca_dpa_dev_completion_element_t comp_element);
#endif /* DOCA_SIM_DEV_RELEASE >= 302 */
/** Releases completion elements that were read. */
void doca_dpa_dev_completion_ack(doca_dpa_dev_completion_t dpa_comp_handle, uint64_t num_comp);
/** Asks to be woken by the next completion. */
void doca_dpa_dev_completion_request_notification(doca_dpa_dev_completion_t dpa_comp_handle);

/** Maps a key to a value. */
void doca_dpa_dev_hash_table_add(doca_dpa_dev_hash_table_t ht_handle, uint32_t key, uint64_t value);
/** Removes a key. */
void doca_dpa_dev_hash_table_remove(doca_dpa_dev_hash_table_t ht_handle, uint32_t key);
/** Finds a key; non-zero when found. */
int doca_dpa_dev_hash_table_find(doca_dpa_dev_hash_table_t ht_handle, uint32_t key, uint64_t *value);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DPA_DEV_H_ */
