/*
 * Reference header written by the doca-rs project from public facts about the
 * DOCA C API; not NVIDIA's header.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */

/**
 * @file doca_dpa.h
 * @brief Host-side control of the Data Path Accelerator (DPA), DOCA 3.0 shape.
 *
 * A DPA program has two halves: host code using this header, and device code
 * compiled by dpacc into an image that is linked into the host executable and
 * appears there as a struct doca_dpa_app. The host creates one struct doca_dpa
 * per DPA-capable device, attaches the image, starts the context and then:
 *  - launches kernels (asynchronous; completion is reported through a sync event),
 *    or calls RPC functions (blocking);
 *  - allocates and copies DPA heap memory;
 *  - creates persistent DPA threads, activated by DPA completion queues or by
 *    notification completions, optionally in groups and with EU affinity;
 *  - creates hash tables and asynchronous-operation queues for kernels.
 *
 * Objects made from a DPA context (threads, completions, memory, extended
 * contexts, and other DOCA contexts bound to it) must be released before the
 * context is stopped and destroyed. None of these objects is thread-safe.
 *
 * Every function here belongs to the experimental tier and returns a
 * doca_error_t. Calls that need a started context return
 * DOCA_ERROR_BAD_STATE before doca_dpa_start(), and calls on children of a
 * destroyed context return DOCA_ERROR_BAD_STATE too.
 */

#ifndef DOCA_DPA_H_
#define DOCA_DPA_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Description of a device (see doca_dev.h). */
struct doca_devinfo;
/** An opened device (see doca_dev.h). */
struct doca_dev;
/** A sync event (see doca_sync_event.h). */
struct doca_sync_event;
/** A DOCA buffer (from the doca_buf API, not declared in these reference headers). */
struct doca_buf;
/** A DPA context: the host's handle on one device's DPA. */
struct doca_dpa;
/** A hash table living in DPA memory. */
struct doca_dpa_hash_table;
/** A set of execution units (EUs) a DPA thread may run on. */
struct doca_dpa_eu_affinity;
/** A persistent DPA thread. */
struct doca_dpa_thread;
/** A group of DPA threads with ranks. */
struct doca_dpa_tg;
/** A completion queue read by DPA code. */
struct doca_dpa_completion;
/** A queue of asynchronous operations issued by DPA code. */
struct doca_dpa_async_ops;
/** A doorbell that lets one DPA thread wake another, without a completion entry. */
struct doca_dpa_notification_completion;
/** A DPA image built by dpacc; the host sees it as a global named after --app-name. */
struct doca_dpa_app;

/**
 * The type of a device function's host-side stub.
 *
 * This is a function type, not a pointer type: parameters take a
 * doca_dpa_func_t *, so the address of a kernel stub declared as
 * `extern doca_dpa_func_t my_kernel;` can be passed without a cast. The stub
 * only identifies the kernel and must never be called on the host.
 */
typedef void (doca_dpa_func_t)(void);

/** How DPA kernels refer to a DPA context. */
typedef uint64_t doca_dpa_dev_t;
/** An address in DPA heap memory. */
typedef uint64_t doca_dpa_dev_uintptr_t;
/** How DPA kernels refer to a hash table. */
typedef uint64_t doca_dpa_dev_hash_table_t;
/** How DPA kernels refer to a completion queue. */
typedef uint64_t doca_dpa_dev_completion_t;
/** How DPA kernels refer to an asynchronous-operation queue. */
typedef uint64_t doca_dpa_dev_async_ops_t;
/** How DPA kernels refer to a notification completion. */
typedef uint64_t doca_dpa_dev_notification_completion_t;

/*
 * Defined by both the host header and the device header, so that a header
 * shared by host and device code can include either or both (as real
 * programs' shared headers do): the first one included defines it.
 */
#ifndef DOCA_SIM_DEV_LOG_LEVEL_DEFINED_
#define DOCA_SIM_DEV_LOG_LEVEL_DEFINED_
/**
 * @brief How much the device-side log prints; each level includes those above it.
 *
 * The default is DOCA_DPA_DEV_LOG_LEVEL_INFO.
 */
typedef enum doca_dpa_dev_log_level {
	DOCA_DPA_DEV_LOG_LEVEL_DISABLE = 10, /**< Print nothing. */
	DOCA_DPA_DEV_LOG_LEVEL_ERROR = 30,   /**< Errors only. */
	DOCA_DPA_DEV_LOG_LEVEL_WARNING = 40, /**< Warnings and errors. */
	DOCA_DPA_DEV_LOG_LEVEL_INFO = 50,    /**< Informational messages and above. */
	DOCA_DPA_DEV_LOG_LEVEL_DEBUG = 60,   /**< Everything, debug messages included. */
} doca_dpa_dev_log_level_t;
#endif /* DOCA_SIM_DEV_LOG_LEVEL_DEFINED_ */

/** Width in bits of completion user data: values must be below (1 << 24). */
#define DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA (24)

/* ------------------------------------------------------------------------- */
/* Context and application                                                   */
/* ------------------------------------------------------------------------- */

/**
 * @brief Tells whether a device has a DPA that this library can drive.
 *
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when the device has a usable DPA; DOCA_ERROR_NOT_SUPPORTED
 * when it has none; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_cap_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Creates a DPA context on an opened device.
 *
 * The base context belongs on a physical function (PF); other functions are
 * reached with doca_dpa_device_extend().
 *
 * @param [in] dev the opened device.
 * @param [out] dpa receives the context, not yet started.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_DRIVER when the driver refuses; DOCA_ERROR_NOT_SUPPORTED when the
 * device has no DPA; DOCA_ERROR_NO_MEMORY when allocation fails.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_create(struct doca_dev *dev, struct doca_dpa **dpa);

/**
 * @brief Destroys a DPA context.
 *
 * @param [in] dpa the context.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL context;
 * DOCA_ERROR_DRIVER when the driver refuses; DOCA_ERROR_IN_USE while another
 * DOCA context is still bound to it.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);

/**
 * @brief Starts a DPA context: loads its application and makes it usable.
 *
 * @param [in] dpa the context, configured (doca_dpa_set_app() done).
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_DRIVER when loading fails in the driver; DOCA_ERROR_NO_MEMORY when
 * allocation fails.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_start(struct doca_dpa *dpa);

/**
 * @brief Stops a DPA context.
 *
 * @param [in] dpa the context.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL context;
 * DOCA_ERROR_DRIVER when the driver refuses; DOCA_ERROR_IN_USE while threads,
 * completions or extended contexts made from it still exist.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_stop(struct doca_dpa *dpa);

/**
 * @brief Chooses the dpacc-built image the context will run. Must precede doca_dpa_start().
 *
 * @param [in] dpa the context, not started.
 * @param [in] app the image (the global named by dpacc's --app-name).
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_BAD_STATE when the context is already started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_set_app(struct doca_dpa *dpa, struct doca_dpa_app *app);

/**
 * @brief Reads back the image set with doca_dpa_set_app().
 *
 * @param [in] dpa the context.
 * @param [out] app receives the image.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_get_app(struct doca_dpa *dpa, struct doca_dpa_app **app);

/**
 * @brief Copies an image's name into a caller buffer.
 *
 * @param [in] app the image.
 * @param [out] app_name the buffer to fill.
 * @param [in,out] app_name_len in: the buffer size; out: the length written.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument or
 * a buffer that is too small; DOCA_ERROR_DRIVER when the name cannot be read.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_app_get_name(struct doca_dpa_app *app, char *app_name, uint32_t *app_name_len);

/**
 * @brief Sets how much device code prints to the device log. Must precede doca_dpa_start().
 *
 * @param [in] dpa the context, not started, and not an extended context.
 * @param [in] log_level the level.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_BAD_STATE when the context is already started;
 * DOCA_ERROR_NOT_PERMITTED on an extended context.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_set_log_level(struct doca_dpa *dpa, doca_dpa_dev_log_level_t log_level);

/**
 * @brief Reads the device log level.
 *
 * @param [in] dpa the context.
 * @param [out] log_level receives the level.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_get_log_level(struct doca_dpa *dpa, doca_dpa_dev_log_level_t *log_level);

/**
 * @brief Sends the device log to a file instead of standard output. Must precede doca_dpa_start().
 *
 * @param [in] dpa the context, not started.
 * @param [in] file_path path of the file.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_BAD_STATE when the context is already started; DOCA_ERROR_NO_MEMORY
 * when allocation fails; DOCA_ERROR_OPERATING_SYSTEM when the file cannot be opened.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_log_file_set_path(struct doca_dpa *dpa, const char *file_path);

/**
 * @brief Copies the device log file path into a caller buffer.
 *
 * @param [in] dpa the context.
 * @param [out] file_path the buffer to fill.
 * @param [in,out] file_path_len in: the buffer size; out: the length written.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_NO_MEMORY when allocation fails.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_log_file_get_path(struct doca_dpa *dpa, char *file_path, uint32_t *file_path_len);

/**
 * @brief Sends the device trace to a file. Must precede doca_dpa_start().
 *
 * @param [in] dpa the context, not started.
 * @param [in] file_path path of the file.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_BAD_STATE when the context is already started; DOCA_ERROR_NO_MEMORY
 * when allocation fails; DOCA_ERROR_OPERATING_SYSTEM when the file cannot be opened.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_trace_file_set_path(struct doca_dpa *dpa, const char *file_path);

/**
 * @brief Copies the device trace file path into a caller buffer.
 *
 * @param [in] dpa the context.
 * @param [out] file_path the buffer to fill.
 * @param [in,out] file_path_len in: the buffer size; out: the length written.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_NO_MEMORY when allocation fails.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_trace_file_get_path(struct doca_dpa *dpa, char *file_path, uint32_t *file_path_len);

/**
 * @brief The largest thread count one kernel launch may ask for.
 *
 * @param [in] dpa the context.
 * @param [out] value receives the limit.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_get_max_threads_per_kernel(const struct doca_dpa *dpa, unsigned int *value);

/**
 * @brief How long, in seconds, a kernel may stay scheduled before the runtime may end it.
 *
 * @param [in] dpa the context.
 * @param [out] value receives the limit in seconds.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_get_kernel_max_run_time(const struct doca_dpa *dpa, unsigned long long *value);

/**
 * @brief Extends a started base context to another device function (a VF or SF).
 *
 * The new context comes back already started and must be destroyed before the
 * base context.
 *
 * @param [in] dpa the started base context, itself not an extended one.
 * @param [in] other_dev the device to extend onto.
 * @param [out] extended_dpa receives the extended context.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_BAD_STATE when the base is not started or is itself extended;
 * DOCA_ERROR_NO_MEMORY when allocation fails; DOCA_ERROR_DRIVER when the driver refuses.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_device_extend(struct doca_dpa *dpa, struct doca_dev *other_dev, struct doca_dpa **extended_dpa);

/**
 * @brief Produces the handle DPA kernels use to refer to this context.
 *
 * @param [in] dpa the started context.
 * @param [out] handle receives the handle.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_BAD_STATE when the context is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_get_dpa_handle(struct doca_dpa *dpa, doca_dpa_dev_t *handle);

/**
 * @brief Reads the id of the user access region (UAR) the context uses.
 *
 * @note This call may be missing from some DOCA releases other than 3.0.
 *
 * @param [in] dpa the started context.
 * @param [out] uar_id receives the id.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_BAD_STATE when the context is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_get_uar_id(const struct doca_dpa *dpa, uint32_t *uar_id);

/**
 * @brief Checks, without clearing it, whether device code has hit a fatal error.
 *
 * Once an error is reported the context is unusable and must be destroyed.
 * Crash data is written to doca_dpa_fatal.PID.core and doca_dpa_fatal.PID.crash
 * in the temporary directory, or next to the log file when one is set.
 *
 * @param [in] dpa the context.
 * @return DOCA_SUCCESS when no device error happened; DOCA_ERROR_BAD_STATE when
 * one did; DOCA_ERROR_INVALID_VALUE for a NULL context.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_peek_at_last_error(const struct doca_dpa *dpa);

/* ------------------------------------------------------------------------- */
/* Kernel launches and RPC                                                   */
/* ------------------------------------------------------------------------- */

/**
 * @brief Launches a kernel on a number of DPA threads; on completion, sets an event to a value.
 *
 * The call returns once the launch is submitted. The kernel starts once
 * wait_event has reached wait_threshold; when it has finished, comp_event is
 * set to comp_count. The variadic arguments are the kernel's parameters and
 * must each have exactly the C type the kernel declares.
 *
 * @param [in] dpa the started context.
 * @param [in] wait_event event to wait for before starting, or NULL.
 * @param [in] wait_threshold value wait_event must reach; only 0 to 254 is valid.
 * @param [in] comp_event event updated when the kernel finishes, or NULL.
 * @param [in] comp_count value comp_event is set to.
 * @param [in] num_threads number of DPA threads to run the kernel on, at most
 * doca_dpa_get_max_threads_per_kernel().
 * @param [in] func address of the kernel's host stub.
 * @return DOCA_SUCCESS on submission; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_DRIVER when the driver refuses; DOCA_ERROR_BAD_STATE when the
 * context is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_kernel_launch_update_set(struct doca_dpa *dpa, struct doca_sync_event *wait_event,
					       uint64_t wait_threshold, struct doca_sync_event *comp_event,
					       uint64_t comp_count, unsigned int num_threads, doca_dpa_func_t *func,
					       ...);

/**
 * @brief Launches a kernel like doca_dpa_kernel_launch_update_set(), but adds comp_count to comp_event.
 *
 * @param [in] dpa the started context.
 * @param [in] wait_event event to wait for before starting, or NULL.
 * @param [in] wait_threshold value wait_event must reach; only 0 to 254 is valid.
 * @param [in] comp_event event updated when the kernel finishes, or NULL.
 * @param [in] comp_count amount added to comp_event.
 * @param [in] num_threads number of DPA threads to run the kernel on, at most
 * doca_dpa_get_max_threads_per_kernel().
 * @param [in] func address of the kernel's host stub.
 * @return DOCA_SUCCESS on submission; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_DRIVER when the driver refuses; DOCA_ERROR_BAD_STATE when the
 * context is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_kernel_launch_update_add(struct doca_dpa *dpa, struct doca_sync_event *wait_event,
					       uint64_t wait_threshold, struct doca_sync_event *comp_event,
					       uint64_t comp_count, unsigned int num_threads, doca_dpa_func_t *func,
					       ...);

/**
 * @brief Runs a device RPC function and waits for its 64-bit result.
 *
 * The device function must be an RPC function returning uint64_t. The
 * variadic arguments are its parameters, each with its exact C type.
 *
 * @param [in] dpa the started context.
 * @param [in] func address of the RPC function's host stub.
 * @param [out] retval receives the function's return value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_DRIVER when the call fails in the driver; DOCA_ERROR_BAD_STATE when
 * the context is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_rpc(struct doca_dpa *dpa, doca_dpa_func_t *func, uint64_t *retval, ...);

/* ------------------------------------------------------------------------- */
/* DPA heap memory (every call here blocks until done)                       */
/* ------------------------------------------------------------------------- */

/**
 * @brief Allocates DPA heap memory. The memory is not zeroed.
 *
 * @param [in] dpa the started context.
 * @param [in] size bytes to allocate.
 * @param [out] dev_ptr receives the DPA address, or 0 when the call fails.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_DRIVER when the allocation fails; DOCA_ERROR_BAD_STATE when the
 * context is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_mem_alloc(struct doca_dpa *dpa, size_t size, doca_dpa_dev_uintptr_t *dev_ptr);

/**
 * @brief Frees DPA heap memory. No kernel may still be using it.
 *
 * @param [in] dpa the started context.
 * @param [in] dev_ptr an address returned by doca_dpa_mem_alloc().
 * @return DOCA_SUCCESS on success; DOCA_ERROR_DRIVER when the driver refuses;
 * DOCA_ERROR_BAD_STATE when the context is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_mem_free(struct doca_dpa *dpa, doca_dpa_dev_uintptr_t dev_ptr);

/**
 * @brief Copies host memory into DPA heap memory.
 *
 * @param [in] dpa the started context.
 * @param [in] dst_ptr destination DPA address.
 * @param [in] src_ptr source host buffer (declared non-const).
 * @param [in] size bytes to copy.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_DRIVER when the copy fails; DOCA_ERROR_BAD_STATE when the context
 * is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_h2d_memcpy(struct doca_dpa *dpa, doca_dpa_dev_uintptr_t dst_ptr, void *src_ptr, size_t size);

/**
 * @brief Copies from the start of a DOCA buffer into DPA heap memory.
 *
 * @param [in] dpa the started context.
 * @param [in] dst_ptr destination DPA address.
 * @param [in] buf source buffer; copying begins at its start.
 * @param [in] size bytes to copy.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_DRIVER when the copy fails; DOCA_ERROR_BAD_STATE when the context
 * is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_h2d_buf_memcpy(struct doca_dpa *dpa, doca_dpa_dev_uintptr_t dst_ptr, struct doca_buf *buf,
				     size_t size);

/**
 * @brief Copies DPA heap memory into host memory.
 *
 * @param [in] dpa the started context.
 * @param [out] dst_ptr destination host buffer.
 * @param [in] src_ptr source DPA address.
 * @param [in] size bytes to copy.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_DRIVER when the copy fails; DOCA_ERROR_BAD_STATE when the context
 * is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_d2h_memcpy(struct doca_dpa *dpa, void *dst_ptr, doca_dpa_dev_uintptr_t src_ptr, size_t size);

/**
 * @brief Copies DPA heap memory into a DOCA buffer.
 *
 * @param [in] dpa the started context.
 * @param [out] buf destination buffer.
 * @param [in] src_ptr source DPA address.
 * @param [in] size bytes to copy.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_DRIVER when the copy fails; DOCA_ERROR_BAD_STATE when the context
 * is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_d2h_buf_memcpy(struct doca_dpa *dpa, struct doca_buf *buf, doca_dpa_dev_uintptr_t src_ptr,
				     size_t size);

/**
 * @brief Fills DPA heap memory with a byte value.
 *
 * @param [in] dpa the started context.
 * @param [in] dev_ptr DPA address to start at.
 * @param [in] value the byte value, given as an int.
 * @param [in] size bytes to fill.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_DRIVER when the operation fails; DOCA_ERROR_BAD_STATE when the
 * context is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_memset(struct doca_dpa *dpa, doca_dpa_dev_uintptr_t dev_ptr, int value, size_t size);

/* ------------------------------------------------------------------------- */
/* Hash tables                                                               */
/* ------------------------------------------------------------------------- */

/**
 * @brief Creates a hash table in DPA memory for kernels to use.
 *
 * @param [in] dpa the started context.
 * @param [in] num_entries capacity; rounded up to a power of two.
 * @param [out] ht receives the table.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_BAD_STATE when the context is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_hash_table_create(struct doca_dpa *dpa, unsigned int num_entries,
					struct doca_dpa_hash_table **ht);

/**
 * @brief Destroys a hash table.
 *
 * @param [in] ht the table.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL table;
 * DOCA_ERROR_BAD_STATE when its context is not started or already destroyed.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_hash_table_destroy(struct doca_dpa_hash_table *ht);

/**
 * @brief Produces the handle DPA kernels use to reach a hash table.
 *
 * @param [in] ht the table.
 * @param [out] ht_handle receives the handle.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_hash_table_get_dpa_handle(struct doca_dpa_hash_table *ht,
						doca_dpa_dev_hash_table_t *ht_handle);

/* ------------------------------------------------------------------------- */
/* Cores, execution units and affinity                                       */
/* ------------------------------------------------------------------------- */

/**
 * @brief Number of DPA cores.
 *
 * @param [in] dpa the context.
 * @param [out] num_cores receives the count.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_get_core_num(struct doca_dpa *dpa, unsigned int *num_cores);

/**
 * @brief Number of execution units (EUs, hardware threads) per DPA core.
 *
 * @param [in] dpa the context.
 * @param [out] eus_per_core receives the count.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_get_num_eus_per_core(struct doca_dpa *dpa, unsigned int *eus_per_core);

/**
 * @brief Number of execution units this process may use.
 *
 * @param [in] dpa the context.
 * @param [out] total_num_eus receives the count.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_get_total_num_eus_available(struct doca_dpa *dpa, unsigned int *total_num_eus);

/**
 * @brief Creates an empty EU affinity.
 *
 * @param [in] dpa the context.
 * @param [out] affinity receives the affinity.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_eu_affinity_create(struct doca_dpa *dpa, struct doca_dpa_eu_affinity **affinity);

/**
 * @brief Destroys an EU affinity.
 *
 * @param [in] affinity the affinity.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_BAD_STATE when its context was destroyed.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_eu_affinity_destroy(struct doca_dpa_eu_affinity *affinity);

/**
 * @brief Makes the affinity name one execution unit.
 *
 * @param [in] affinity the affinity.
 * @param [in] eu_id the execution unit.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_eu_affinity_set(struct doca_dpa_eu_affinity *affinity, unsigned int eu_id);

/**
 * @brief Empties the affinity.
 *
 * @param [in] affinity the affinity.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_eu_affinity_clear(struct doca_dpa_eu_affinity *affinity);

/**
 * @brief Reads the execution unit the affinity names.
 *
 * @param [in] affinity the affinity.
 * @param [out] eu_id receives the execution unit.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_eu_affinity_get(struct doca_dpa_eu_affinity *affinity, unsigned int *eu_id);

/* ------------------------------------------------------------------------- */
/* Persistent DPA threads                                                    */
/* ------------------------------------------------------------------------- */

/**
 * @brief Creates a DPA thread.
 *
 * @param [in] dpa the context.
 * @param [out] dpa_thread receives the thread, not started.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_NO_MEMORY when allocation fails.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_create(struct doca_dpa *dpa, struct doca_dpa_thread **dpa_thread);

/**
 * @brief Destroys a DPA thread.
 *
 * @param [in] dpa_thread the thread.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL thread;
 * DOCA_ERROR_BAD_STATE when its context was destroyed.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_destroy(struct doca_dpa_thread *dpa_thread);

/**
 * @brief Sets the function the thread runs and its single 64-bit argument.
 *
 * The device function takes exactly one uint64_t.
 *
 * @param [in] dpa_thread the thread, not started.
 * @param [in] func address of the function's host stub.
 * @param [in] arg the argument passed on every activation.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_BAD_STATE when the thread is already started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_set_func_arg(struct doca_dpa_thread *dpa_thread, doca_dpa_func_t *func, uint64_t arg);

/**
 * @brief Reads back the function and argument of a thread.
 *
 * @param [in] dpa_thread the thread.
 * @param [out] func receives the function's stub address.
 * @param [out] arg receives the argument.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_get_func_arg(struct doca_dpa_thread *dpa_thread, doca_dpa_func_t **func, uint64_t *arg);

/**
 * @brief Gives the thread a block of DPA heap memory as its local storage.
 *
 * @param [in] dpa_thread the thread, not started.
 * @param [in] dev_ptr the DPA address of the block.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_BAD_STATE when the thread is already started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_set_local_storage(struct doca_dpa_thread *dpa_thread, doca_dpa_dev_uintptr_t dev_ptr);

/**
 * @brief Reads the thread's local storage address.
 *
 * @param [in] dpa_thread the thread.
 * @param [out] dev_ptr receives the DPA address.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_get_local_storage(struct doca_dpa_thread *dpa_thread, doca_dpa_dev_uintptr_t *dev_ptr);

/**
 * @brief Pins the thread to the execution unit of an affinity.
 *
 * Without this the placement is left to the runtime.
 *
 * @param [in] dpa_thread the thread, not started.
 * @param [in] affinity the affinity.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_BAD_STATE when the thread is already started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_set_affinity(struct doca_dpa_thread *dpa_thread,
					  const struct doca_dpa_eu_affinity *affinity);

/**
 * @brief Reads the affinity set on a thread.
 *
 * @param [in] dpa_thread the thread.
 * @param [out] affinity receives the affinity.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_get_affinity(struct doca_dpa_thread *dpa_thread,
					  const struct doca_dpa_eu_affinity **affinity);

/**
 * @brief Starts a thread; it does not run until doca_dpa_thread_run() and an activation.
 *
 * @param [in] dpa_thread the thread, with its function set.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL thread;
 * DOCA_ERROR_BAD_STATE when no function is set or the context is not started or
 * was destroyed; DOCA_ERROR_DRIVER when the driver refuses.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_start(struct doca_dpa_thread *dpa_thread);

/**
 * @brief Stops a thread.
 *
 * @param [in] dpa_thread the thread.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL thread;
 * DOCA_ERROR_BAD_STATE when its context was destroyed.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_stop(struct doca_dpa_thread *dpa_thread);

/**
 * @brief Marks a started thread runnable, so that activations reach it.
 *
 * @param [in] dpa_thread the thread, started and attached to a completion or a
 * notification completion.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL thread;
 * DOCA_ERROR_BAD_STATE when the thread is not started or not attached.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_run(struct doca_dpa_thread *dpa_thread);

/**
 * @brief Reads a started thread's id (used, for example, to bind a verbs CQ to it).
 *
 * @param [in] dpa_thread the started thread.
 * @param [out] dpa_thread_id receives the id.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_BAD_STATE when the thread is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_get_id(struct doca_dpa_thread *dpa_thread, uint32_t *dpa_thread_id);

/* ------------------------------------------------------------------------- */
/* Thread groups                                                             */
/* ------------------------------------------------------------------------- */

/**
 * @brief Creates an empty thread group with a fixed number of ranks.
 *
 * @param [in] dpa the context.
 * @param [in] num_threads number of ranks.
 * @param [out] tg receives the group.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_group_create(struct doca_dpa *dpa, unsigned int num_threads, struct doca_dpa_tg **tg);

/**
 * @brief Destroys a thread group.
 *
 * @param [in] tg the group.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL group.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_group_destroy(struct doca_dpa_tg *tg);

/**
 * @brief Reads the number of ranks of a group.
 *
 * @param [in] tg the group.
 * @param [out] num_threads receives the count.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_group_get_num_threads(struct doca_dpa_tg *tg, unsigned int *num_threads);

/**
 * @brief Puts a thread at a rank of a group.
 *
 * Both the thread and the group must still be unstarted.
 *
 * @param [in] tg the group.
 * @param [in] thread the thread, in no other group.
 * @param [in] rank from 0 to the group size minus one.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_BAD_STATE when the context is not started or was destroyed, when
 * the group or the thread is already started, or when the thread is already in a group.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_group_set_thread(struct doca_dpa_tg *tg, struct doca_dpa_thread *thread,
					      unsigned int rank);

/**
 * @brief Starts a group once every rank holds a started thread.
 *
 * @param [in] tg the group.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL group;
 * DOCA_ERROR_BAD_STATE when a rank is unset or its thread is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_group_start(struct doca_dpa_tg *tg);

/**
 * @brief Stops a thread group.
 *
 * @param [in] tg the group.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL group.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_thread_group_stop(struct doca_dpa_tg *tg);

/* ------------------------------------------------------------------------- */
/* DPA completion queues                                                     */
/* ------------------------------------------------------------------------- */

/**
 * @brief Creates a completion queue that DPA code reads.
 *
 * Producer contexts (RDMA, comch, verbs, RDMI) attach to it before they start;
 * kernels poll it. It is not how a host learns that a kernel launch finished.
 *
 * @param [in] dpa the context.
 * @param [in] queue_size number of entries; rounded up to a power of two.
 * @param [out] dpa_comp receives the queue, not started.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_completion_create(struct doca_dpa *dpa, unsigned int queue_size,
					struct doca_dpa_completion **dpa_comp);

/**
 * @brief Destroys a completion queue.
 *
 * @param [in] dpa_comp the queue.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL queue.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_completion_destroy(struct doca_dpa_completion *dpa_comp);

/**
 * @brief Reads the queue's size (after rounding).
 *
 * @param [in] dpa_comp the queue.
 * @param [out] queue_size receives the size.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_completion_get_queue_size(struct doca_dpa_completion *dpa_comp, unsigned int *queue_size);

/**
 * @brief Binds the queue to a DPA thread, which is activated whenever an entry arrives.
 *
 * Optional: without it, device code polls the queue itself.
 *
 * @param [in] dpa_comp the queue, not started.
 * @param [in] dpa_thread the thread to activate.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_BAD_STATE when the queue is already started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_completion_set_thread(struct doca_dpa_completion *dpa_comp,
					    struct doca_dpa_thread *dpa_thread);

/**
 * @brief Reads the thread bound to the queue.
 *
 * @param [in] dpa_comp the queue.
 * @param [out] dpa_thread receives the thread.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_completion_get_thread(struct doca_dpa_completion *dpa_comp,
					    struct doca_dpa_thread **dpa_thread);

/**
 * @brief Starts a completion queue.
 *
 * @param [in] dpa_comp the queue.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL queue;
 * DOCA_ERROR_BAD_STATE when the context is not started or was destroyed, or when
 * a bound thread is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_completion_start(struct doca_dpa_completion *dpa_comp);

/**
 * @brief Stops a completion queue.
 *
 * @param [in] dpa_comp the queue.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL queue.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_completion_stop(struct doca_dpa_completion *dpa_comp);

/**
 * @brief Produces the handle DPA kernels use to poll the queue.
 *
 * @param [in] dpa_comp the started queue.
 * @param [out] handle receives the handle.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_BAD_STATE when the queue is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_completion_get_dpa_handle(struct doca_dpa_completion *dpa_comp,
						doca_dpa_dev_completion_t *handle);

/* ------------------------------------------------------------------------- */
/* Asynchronous-operation queues                                             */
/* ------------------------------------------------------------------------- */

/**
 * @brief Creates a queue on which DPA code issues asynchronous operations.
 *
 * @param [in] dpa the context.
 * @param [in] queue_size number of entries; rounded up to a power of two.
 * @param [in] user_data a caller value stored with the queue.
 * @param [out] async_ops receives the queue, not started.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_async_ops_create(struct doca_dpa *dpa, unsigned int queue_size, uint64_t user_data,
				       struct doca_dpa_async_ops **async_ops);

/**
 * @brief Destroys an asynchronous-operation queue.
 *
 * @param [in] async_ops the queue.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL queue.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_async_ops_destroy(struct doca_dpa_async_ops *async_ops);

/**
 * @brief Reads the queue's size (after rounding).
 *
 * @param [in] async_ops the queue.
 * @param [out] queue_size receives the size.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_async_ops_get_queue_size(struct doca_dpa_async_ops *async_ops, unsigned int *queue_size);

/**
 * @brief Reads the user data given at creation.
 *
 * @param [in] async_ops the queue.
 * @param [out] user_data receives the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_async_ops_get_user_data(struct doca_dpa_async_ops *async_ops, uint64_t *user_data);

/**
 * @brief Names the completion queue that receives the operations' completions.
 *
 * @param [in] async_ops the queue, not started.
 * @param [in] dpa_comp the completion queue.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_BAD_STATE when the queue is already started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_async_ops_attach(struct doca_dpa_async_ops *async_ops, struct doca_dpa_completion *dpa_comp);

/**
 * @brief Starts an asynchronous-operation queue.
 *
 * @param [in] async_ops the queue.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL queue;
 * DOCA_ERROR_BAD_STATE when the context is not started or was destroyed, or when
 * no started completion queue is attached.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_async_ops_start(struct doca_dpa_async_ops *async_ops);

/**
 * @brief Stops an asynchronous-operation queue.
 *
 * @param [in] async_ops the queue.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL queue.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_async_ops_stop(struct doca_dpa_async_ops *async_ops);

/**
 * @brief Produces the handle DPA kernels use to issue operations on the queue.
 *
 * @param [in] async_ops the started queue.
 * @param [out] handle receives the handle.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_BAD_STATE when the queue is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_async_ops_get_dpa_handle(struct doca_dpa_async_ops *async_ops,
					       doca_dpa_dev_async_ops_t *handle);

/* ------------------------------------------------------------------------- */
/* Notification completions                                                  */
/* ------------------------------------------------------------------------- */

/**
 * @brief Creates a notification completion bound to a thread: other DPA code can wake that thread.
 *
 * @param [in] dpa the context.
 * @param [in] dpa_thread the thread to wake; fixed for the object's lifetime.
 * @param [out] notify_comp receives the object, not started.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_notification_completion_create(struct doca_dpa *dpa, struct doca_dpa_thread *dpa_thread,
						     struct doca_dpa_notification_completion **notify_comp);

/**
 * @brief Destroys a notification completion.
 *
 * @param [in] notify_comp the object.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_notification_completion_destroy(struct doca_dpa_notification_completion *notify_comp);

/**
 * @brief Reads the thread a notification completion wakes.
 *
 * @param [in] notify_comp the object.
 * @param [out] dpa_thread receives the thread.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_notification_completion_get_thread(struct doca_dpa_notification_completion *notify_comp,
							 struct doca_dpa_thread **dpa_thread);

/**
 * @brief Starts a notification completion.
 *
 * @param [in] notify_comp the object.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_BAD_STATE when the context is not started or was destroyed, or when
 * the thread is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_notification_completion_start(struct doca_dpa_notification_completion *notify_comp);

/**
 * @brief Stops a notification completion.
 *
 * @param [in] notify_comp the object.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_notification_completion_stop(struct doca_dpa_notification_completion *notify_comp);

/**
 * @brief Produces the handle DPA code uses to wake the bound thread.
 *
 * @param [in] notify_comp the started object.
 * @param [out] handle receives the handle.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_BAD_STATE when the object is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_dpa_notification_completion_get_dpa_handle(struct doca_dpa_notification_completion *notify_comp,
							     doca_dpa_dev_notification_completion_t *handle);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DPA_H_ */
