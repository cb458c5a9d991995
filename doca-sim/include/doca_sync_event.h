/*
 * Reference header written by the doca-rs project from public facts about the
 * DOCA C API; not NVIDIA's header.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */

/**
 * @file doca_sync_event.h
 * @brief Sync events: 64-bit counters shared between the host CPU, the DPA and peers.
 *
 * A sync event is created on the host, told where its publishers (writers)
 * and subscribers (waiters) live, and then started. Typical uses with the DPA:
 *  - gate a kernel launch: CPU publishes, DPA subscribes;
 *  - learn that a launch finished: DPA publishes, CPU subscribes, and the host
 *    waits with one of the wait calls below;
 *  - hand work between kernels: DPA on both sides.
 * An event passed to a kernel-launch call needs no DPA handle; an event passed
 * to a kernel as an argument does (doca_sync_event_get_dpa_handle()).
 *
 * The wait calls have no timeout: they poll until the condition holds. The
 * _yield variants give up the CPU between polls.
 *
 * This reference header leaves out the GPU and doca_buf variants.
 */

#ifndef DOCA_SYNC_EVENT_H_
#define DOCA_SYNC_EVENT_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A sync event. */
struct doca_sync_event;
/** A sync event living on a remote peer, reached over the network. */
struct doca_sync_event_remote_net;
/** A generic DOCA context (see doca_ctx.h). */
struct doca_ctx;
/** Description of a device (see doca_dev.h). */
struct doca_devinfo;
/** An opened device (see doca_dev.h). */
struct doca_dev;
/** A DPA context (see doca_dpa.h). */
struct doca_dpa;

/** A task of a sync event used as a context: read its value. */
struct doca_sync_event_task_get;
/** A task of a sync event used as a context: set its value. */
struct doca_sync_event_task_notify_set;
/** A task of a sync event used as a context: add to its value. */
struct doca_sync_event_task_notify_add;
/** A task of a sync event used as a context: complete once (value AND mask) equals a value. */
struct doca_sync_event_task_wait_eq;
/** A task of a sync event used as a context: complete once (value AND mask) differs from a value. */
struct doca_sync_event_task_wait_neq;
/** A unit of work of a context (see doca_pe.h). */
struct doca_task;

/** How DPA kernels refer to a sync event. */
typedef uint64_t doca_dpa_dev_sync_event_t;

/** How DPA kernels refer to a remote (network) sync event. */
typedef uint64_t doca_dpa_dev_sync_event_remote_net_t;

/**
 * @brief Creates a sync event on the host.
 *
 * @param [out] event receives the event; destroy it with doca_sync_event_destroy().
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * another DOCA error code when it cannot be created.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_create(struct doca_sync_event **event);

/**
 * @brief Destroys a sync event.
 *
 * @param [in] event the event; no kernel or peer may still use it.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL event.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_destroy(struct doca_sync_event *event);

/**
 * @brief Declares that code on the host CPU will update the event.
 *
 * @param [in] event the event, not started.
 * @param [in] dev the device the CPU side works through.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_publisher_location_cpu(struct doca_sync_event *event, struct doca_dev *dev);

/**
 * @brief Declares that DPA kernels of a DPA context will update the event.
 *
 * @param [in] event the event, not started.
 * @param [in] dpa the DPA context.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_publisher_location_dpa(struct doca_sync_event *event, struct doca_dpa *dpa);

/**
 * @brief Declares that a peer across PCIe (the other side of a BlueField) will update the event.
 *
 * @param [in] event the event, not started.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_publisher_location_remote_pci(struct doca_sync_event *event);

/**
 * @brief Declares that a peer across the network will update the event.
 *
 * @param [in] event the event, not started.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_publisher_location_remote_net(struct doca_sync_event *event);

/**
 * @brief Declares that code on the host CPU will wait on the event.
 *
 * @param [in] event the event, not started.
 * @param [in] dev the device the CPU side works through.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_subscriber_location_cpu(struct doca_sync_event *event, struct doca_dev *dev);

/**
 * @brief Declares that DPA kernels of a DPA context will wait on the event.
 *
 * @param [in] event the event, not started.
 * @param [in] dpa the DPA context.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_subscriber_location_dpa(struct doca_sync_event *event, struct doca_dpa *dpa);

/**
 * @brief Declares that a peer across PCIe will wait on the event.
 *
 * @param [in] event the event, not started.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_subscriber_location_remote_pci(struct doca_sync_event *event);

/**
 * @brief Supplies the 64-bit word that holds the event's value, instead of letting the library allocate it.
 *
 * @param [in] event the event, not started.
 * @param [in] addr the caller's storage; it must outlive the event.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_set_addr(struct doca_sync_event *event, uint64_t *addr);

/**
 * @brief Starts the event in standalone mode (it can then no longer be used as a context).
 *
 * @param [in] event the configured event.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL event;
 * another DOCA error code when its configuration is incomplete.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_start(struct doca_sync_event *event);

/**
 * @brief Stops an event started with doca_sync_event_start().
 *
 * @param [in] event the event.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL event.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_stop(struct doca_sync_event *event);

/**
 * @brief The event seen as a generic DOCA context (for the task-based interface).
 *
 * @param [in] event the event.
 * @return its context, or NULL for a NULL event.
 */
DOCA_EXPERIMENTAL
struct doca_ctx *doca_sync_event_as_ctx(struct doca_sync_event *event);

/**
 * @brief Produces the handle DPA kernels use to reach the event.
 *
 * Only the host CPU can produce it, and the DPA context must have been added
 * as a publisher or a subscriber.
 *
 * @param [in] event the started event.
 * @param [in] dpa the DPA context the kernels run on.
 * @param [out] dpa_dev_se_handle receives the handle.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_NOT_SUPPORTED when export to the DPA is not possible;
 * DOCA_ERROR_NO_MEMORY when allocation fails.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_get_dpa_handle(struct doca_sync_event *event, struct doca_dpa *dpa,
					    doca_dpa_dev_sync_event_t *dpa_dev_se_handle);

/**
 * @brief Tells whether a device can export sync events to its DPA.
 *
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when supported; DOCA_ERROR_NOT_SUPPORTED when not;
 * DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_is_export_to_dpa_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Produces the handle DPA kernels use to reach a remote (network) sync event.
 *
 * @param [in] event the remote event.
 * @param [in] dpa the DPA context the kernels run on.
 * @param [out] dpa_remote_event receives the handle.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * another DOCA error code when the handle cannot be produced.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_remote_net_get_dpa_handle(struct doca_sync_event_remote_net *event,
						       struct doca_dpa *dpa,
						       doca_dpa_dev_sync_event_remote_net_t *dpa_remote_event);

/**
 * @brief Reads the event's current value.
 *
 * @param [in] event the started event.
 * @param [out] value receives the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_get(struct doca_sync_event *event, uint64_t *value);

/**
 * @brief Atomically adds to the event's value.
 *
 * @param [in] event the started event.
 * @param [in] value the amount to add.
 * @param [out] fetched receives the value the event held before the addition.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL event.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_update_add(struct doca_sync_event *event, uint64_t value, uint64_t *fetched);

/**
 * @brief Overwrites the event's value.
 *
 * @param [in] event the started event.
 * @param [in] value the new value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL event.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_update_set(struct doca_sync_event *event, uint64_t value);

/**
 * @brief Busy-waits until (event value AND mask) is greater than value. No timeout.
 *
 * @param [in] event the started event.
 * @param [in] value the threshold.
 * @param [in] mask the bits of the event value to compare.
 * @return DOCA_SUCCESS once the condition holds; DOCA_ERROR_INVALID_VALUE for a NULL event.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_gt(struct doca_sync_event *event, uint64_t value, uint64_t mask);

/**
 * @brief Like doca_sync_event_wait_gt(), yielding the CPU between polls.
 *
 * @param [in] event the started event.
 * @param [in] value the threshold.
 * @param [in] mask the bits of the event value to compare.
 * @return DOCA_SUCCESS once the condition holds; DOCA_ERROR_INVALID_VALUE for a NULL event.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_gt_yield(struct doca_sync_event *event, uint64_t value, uint64_t mask);

/**
 * @brief Busy-waits until (event value AND mask) equals value. No timeout.
 *
 * @param [in] event the started event.
 * @param [in] value the value to wait for.
 * @param [in] mask the bits of the event value to compare.
 * @return DOCA_SUCCESS once the condition holds; DOCA_ERROR_INVALID_VALUE for a NULL event.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_eq(struct doca_sync_event *event, uint64_t value, uint64_t mask);

/**
 * @brief Like doca_sync_event_wait_eq(), yielding the CPU between polls.
 *
 * @param [in] event the started event.
 * @param [in] value the value to wait for.
 * @param [in] mask the bits of the event value to compare.
 * @return DOCA_SUCCESS once the condition holds; DOCA_ERROR_INVALID_VALUE for a NULL event.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_eq_yield(struct doca_sync_event *event, uint64_t value, uint64_t mask);

/**
 * @brief Busy-waits until (event value AND mask) differs from value. No timeout.
 *
 * @param [in] event the started event.
 * @param [in] value the value to move away from.
 * @param [in] mask the bits of the event value to compare.
 * @return DOCA_SUCCESS once the condition holds; DOCA_ERROR_INVALID_VALUE for a NULL event.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_neq(struct doca_sync_event *event, uint64_t value, uint64_t mask);

/**
 * @brief Like doca_sync_event_wait_neq(), yielding the CPU between polls.
 *
 * @param [in] event the started event.
 * @param [in] value the value to move away from.
 * @param [in] mask the bits of the event value to compare.
 * @return DOCA_SUCCESS once the condition holds; DOCA_ERROR_INVALID_VALUE for a NULL event.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_neq_yield(struct doca_sync_event *event, uint64_t value, uint64_t mask);

/*
 * Tasks. A sync event can also be driven as a DOCA context: connect
 * doca_sync_event_as_ctx() to a progress engine, configure each task type with
 * its *_set_conf() (callbacks and the size of its pool) while the context is
 * idle, start it with doca_ctx_start(), then allocate tasks with *_alloc_init(),
 * submit them as doca_task (doca_task_submit()) and let doca_pe_progress() run
 * their callbacks. A task that completed is freed with doca_task_free() or
 * submitted again.
 */

/** Called when a get task completes or fails. */
typedef void (*doca_sync_event_task_get_completion_cb_t)(struct doca_sync_event_task_get *task,
							 union doca_data task_user_data,
							 union doca_data ctx_user_data);
/** Called when a notify-set task completes or fails. */
typedef void (*doca_sync_event_task_notify_set_completion_cb_t)(struct doca_sync_event_task_notify_set *task,
								union doca_data task_user_data,
								union doca_data ctx_user_data);
/** Called when a notify-add task completes or fails. */
typedef void (*doca_sync_event_task_notify_add_completion_cb_t)(struct doca_sync_event_task_notify_add *task,
								union doca_data task_user_data,
								union doca_data ctx_user_data);
/** Called when a wait-equal task completes or fails. */
typedef void (*doca_sync_event_task_wait_eq_completion_cb_t)(struct doca_sync_event_task_wait_eq *task,
							     union doca_data task_user_data,
							     union doca_data ctx_user_data);
/** Called when a wait-not-equal task completes or fails. */
typedef void (*doca_sync_event_task_wait_neq_completion_cb_t)(struct doca_sync_event_task_wait_neq *task,
							      union doca_data task_user_data,
							      union doca_data ctx_user_data);

/**
 * @brief Whether sync events of this device accept get tasks.
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when they do; DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_task_get_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures get tasks: their callbacks and how many may be allocated at once.
 * The event's context must be idle.
 * @param [in] event the event.
 * @param [in] completion_cb called on success.
 * @param [in] error_cb called on failure.
 * @param [in] num_tasks the size of the task pool (not 0).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a bad argument; DOCA_ERROR_BAD_STATE
 * when the context is not idle.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_get_set_conf(struct doca_sync_event *event,
					       doca_sync_event_task_get_completion_cb_t completion_cb,
					       doca_sync_event_task_get_completion_cb_t error_cb,
					       uint32_t num_tasks);

/**
 * @brief Allocates a get task from the pool: on completion the event's value is written
 * to *ret_val_ptr. The event's context must be running.
 * @param [in] event the event.
 * @param [in] ret_val_ptr where the value goes.
 * @param [in] user_data the task's user data.
 * @param [out] task receives the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_NO_MEMORY when the pool is exhausted;
 * DOCA_ERROR_BAD_STATE when the context is not running; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_get_alloc_init(struct doca_sync_event *event, uint64_t *ret_val_ptr,
						 union doca_data user_data,
						 struct doca_sync_event_task_get **task);

/**
 * @brief The task as a generic doca_task.
 * @param [in] task the task.
 * @return the same task.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_sync_event_task_get_as_doca_task(struct doca_sync_event_task_get *task);

/**
 * @brief Sets where the value of a get task goes.
 * @param [in] task the task.
 * @param [in] ret_val_ptr the destination.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_get_set_ret_val_ptr(struct doca_sync_event_task_get *task, uint64_t *ret_val_ptr);

/**
 * @brief Where the value of a get task goes.
 * @param [in] task the task.
 * @return the destination.
 */
DOCA_EXPERIMENTAL
uint64_t *doca_sync_event_task_get_get_ret_val_ptr(const struct doca_sync_event_task_get *task);

/**
 * @brief Whether sync events of this device accept notify-set tasks.
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when they do; DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_task_notify_set_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures notify-set tasks, as doca_sync_event_task_get_set_conf().
 * @param [in] event the event.
 * @param [in] completion_cb called on success.
 * @param [in] error_cb called on failure.
 * @param [in] num_tasks the size of the task pool (not 0).
 * @return as doca_sync_event_task_get_set_conf().
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_notify_set_set_conf(struct doca_sync_event *event,
						      doca_sync_event_task_notify_set_completion_cb_t completion_cb,
						      doca_sync_event_task_notify_set_completion_cb_t error_cb,
						      uint32_t num_tasks);

/**
 * @brief Allocates a notify-set task: on completion the event's value is set_val.
 * @param [in] event the event.
 * @param [in] set_val the value to set.
 * @param [in] user_data the task's user data.
 * @param [out] task receives the task.
 * @return as doca_sync_event_task_get_alloc_init().
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_notify_set_alloc_init(struct doca_sync_event *event, uint64_t set_val,
							union doca_data user_data,
							struct doca_sync_event_task_notify_set **task);

/**
 * @brief The task as a generic doca_task.
 * @param [in] task the task.
 * @return the same task.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_sync_event_task_notify_set_as_doca_task(struct doca_sync_event_task_notify_set *task);

/**
 * @brief Sets the value a notify-set task sets.
 * @param [in] task the task.
 * @param [in] set_val the value.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_notify_set_set_set_val(struct doca_sync_event_task_notify_set *task, uint64_t set_val);

/**
 * @brief The value a notify-set task sets.
 * @param [in] task the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_notify_set_get_set_val(const struct doca_sync_event_task_notify_set *task);

/**
 * @brief Whether sync events of this device accept notify-add tasks.
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when they do; DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_task_notify_add_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures notify-add tasks, as doca_sync_event_task_get_set_conf().
 * @param [in] event the event.
 * @param [in] completion_cb called on success.
 * @param [in] error_cb called on failure.
 * @param [in] num_tasks the size of the task pool (not 0).
 * @return as doca_sync_event_task_get_set_conf().
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_notify_add_set_conf(struct doca_sync_event *event,
						      doca_sync_event_task_notify_add_completion_cb_t completion_cb,
						      doca_sync_event_task_notify_add_completion_cb_t error_cb,
						      uint32_t num_tasks);

/**
 * @brief Allocates a notify-add task: on completion inc_val is added to the event's value
 * and the value before is written to *fetched_val_ptr.
 * @param [in] event the event.
 * @param [in] inc_val what to add.
 * @param [in] fetched_val_ptr where the previous value goes.
 * @param [in] user_data the task's user data.
 * @param [out] task receives the task.
 * @return as doca_sync_event_task_get_alloc_init().
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_notify_add_alloc_init(struct doca_sync_event *event, uint64_t inc_val,
							uint64_t *fetched_val_ptr, union doca_data user_data,
							struct doca_sync_event_task_notify_add **task);

/**
 * @brief The task as a generic doca_task.
 * @param [in] task the task.
 * @return the same task.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_sync_event_task_notify_add_as_doca_task(struct doca_sync_event_task_notify_add *task);

/**
 * @brief Sets what a notify-add task adds.
 * @param [in] task the task.
 * @param [in] inc_val the increment.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_notify_add_set_inc_val(struct doca_sync_event_task_notify_add *task, uint64_t inc_val);

/**
 * @brief What a notify-add task adds.
 * @param [in] task the task.
 * @return the increment.
 */
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_notify_add_get_inc_val(const struct doca_sync_event_task_notify_add *task);

/**
 * @brief Sets where a notify-add task writes the previous value.
 * @param [in] task the task.
 * @param [in] fetched_val_ptr the destination.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_notify_add_set_fetched_val_ptr(struct doca_sync_event_task_notify_add *task,
							 uint64_t *fetched_val_ptr);

/**
 * @brief Where a notify-add task writes the previous value.
 * @param [in] task the task.
 * @return the destination.
 */
DOCA_EXPERIMENTAL
uint64_t *doca_sync_event_task_notify_add_get_fetched_val_ptr(const struct doca_sync_event_task_notify_add *task);

/**
 * @brief Whether sync events of this device accept wait-equal tasks.
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when they do; DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_task_wait_eq_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures wait-equal tasks, as doca_sync_event_task_get_set_conf().
 * @param [in] event the event.
 * @param [in] completion_cb called on success.
 * @param [in] error_cb called on failure.
 * @param [in] num_tasks the size of the task pool (not 0).
 * @return as doca_sync_event_task_get_set_conf().
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_wait_eq_set_conf(struct doca_sync_event *event,
						   doca_sync_event_task_wait_eq_completion_cb_t completion_cb,
						   doca_sync_event_task_wait_eq_completion_cb_t error_cb,
						   uint32_t num_tasks);

/**
 * @brief Allocates a wait-equal task: it completes once (value AND mask) equals wait_val.
 * A counter that passes wait_val between two looks is never seen equal: waiting with
 * wait-not-equal on the last value seen is the robust form.
 * @param [in] event the event.
 * @param [in] wait_val the value to wait for.
 * @param [in] mask the bits of the value compared.
 * @param [in] user_data the task's user data.
 * @param [out] task receives the task.
 * @return as doca_sync_event_task_get_alloc_init().
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_wait_eq_alloc_init(struct doca_sync_event *event, uint64_t wait_val,
						     uint64_t mask, union doca_data user_data,
						     struct doca_sync_event_task_wait_eq **task);

/**
 * @brief The task as a generic doca_task.
 * @param [in] task the task.
 * @return the same task.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_sync_event_task_wait_eq_as_doca_task(struct doca_sync_event_task_wait_eq *task);

/**
 * @brief Sets the value a wait-equal task waits for.
 * @param [in] task the task.
 * @param [in] wait_val the value.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_wait_eq_set_wait_val(struct doca_sync_event_task_wait_eq *task, uint64_t wait_val);

/**
 * @brief The value a wait-equal task waits for.
 * @param [in] task the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_wait_eq_get_wait_val(const struct doca_sync_event_task_wait_eq *task);

/**
 * @brief Sets the mask of a wait-equal task.
 * @param [in] task the task.
 * @param [in] mask the mask.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_wait_eq_set_mask(struct doca_sync_event_task_wait_eq *task, uint64_t mask);

/**
 * @brief The mask of a wait-equal task.
 * @param [in] task the task.
 * @return the mask.
 */
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_wait_eq_get_mask(const struct doca_sync_event_task_wait_eq *task);

/**
 * @brief Whether sync events of this device accept wait-not-equal tasks.
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when they do; DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_task_wait_neq_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures wait-not-equal tasks, as doca_sync_event_task_get_set_conf().
 * @param [in] event the event.
 * @param [in] completion_cb called on success.
 * @param [in] error_cb called on failure.
 * @param [in] num_tasks the size of the task pool (not 0).
 * @return as doca_sync_event_task_get_set_conf().
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_wait_neq_set_conf(struct doca_sync_event *event,
						    doca_sync_event_task_wait_neq_completion_cb_t completion_cb,
						    doca_sync_event_task_wait_neq_completion_cb_t error_cb,
						    uint32_t num_tasks);

/**
 * @brief Allocates a wait-not-equal task: it completes once (value AND mask) differs from
 * wait_val.
 * @param [in] event the event.
 * @param [in] wait_val the value to move away from.
 * @param [in] mask the bits of the value compared.
 * @param [in] user_data the task's user data.
 * @param [out] task receives the task.
 * @return as doca_sync_event_task_get_alloc_init().
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_wait_neq_alloc_init(struct doca_sync_event *event, uint64_t wait_val,
						      uint64_t mask, union doca_data user_data,
						      struct doca_sync_event_task_wait_neq **task);

/**
 * @brief The task as a generic doca_task.
 * @param [in] task the task.
 * @return the same task.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_sync_event_task_wait_neq_as_doca_task(struct doca_sync_event_task_wait_neq *task);

/**
 * @brief Sets the value a wait-not-equal task moves away from.
 * @param [in] task the task.
 * @param [in] wait_val the value.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_wait_neq_set_wait_val(struct doca_sync_event_task_wait_neq *task, uint64_t wait_val);

/**
 * @brief The value a wait-not-equal task moves away from.
 * @param [in] task the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_wait_neq_get_wait_val(const struct doca_sync_event_task_wait_neq *task);

/**
 * @brief Sets the mask of a wait-not-equal task.
 * @param [in] task the task.
 * @param [in] mask the mask.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_wait_neq_set_mask(struct doca_sync_event_task_wait_neq *task, uint64_t mask);

/**
 * @brief The mask of a wait-not-equal task.
 * @param [in] task the task.
 * @return the mask.
 */
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_wait_neq_get_mask(const struct doca_sync_event_task_wait_neq *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_SYNC_EVENT_H_ */
