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

#include <stddef.h>
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
/** The DPA side of a sync event (declared by DOCA; no function here takes it). */
struct doca_dpa_sync_event;
/** A generic DOCA context (see doca_ctx.h). */
struct doca_ctx;
/** A task of some context (doca_pe.h). */
struct doca_task;
/** Description of a device (see doca_dev.h). */
struct doca_devinfo;
/** An opened device (see doca_dev.h). */
struct doca_dev;
/** A DPA context (see doca_dpa.h). */
struct doca_dpa;

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
 * Everything else of the 3.0 sync event surface. doca-sim models remote-net
 * events as a loopback inside one process (an exported event can be
 * re-created from its export by this process, and its DPA handle is a real
 * handle); PCI and GPU exports, caller buffers and the progress-engine tasks
 * are not modelled (DOCA_ERROR_NOT_SUPPORTED, with capability queries that
 * say so). No task can be allocated, so the task accessors that cannot fail
 * do nothing or answer zero.
 */

/** A buffer of DOCA Core's buffer inventory (not modelled by doca-sim). */
struct doca_buf;
/** A GPU device (not modelled by doca-sim). */
struct doca_gpu;
/** The GPU side of a sync event (declared by DOCA; not modelled by doca-sim). */
struct doca_gpu_sync_event;
/** A GPU-side handle of a sync event. */
typedef uint64_t doca_gpu_dev_sync_event_t;
/** A GPU-side handle of a remote-net sync event. */
typedef uint64_t doca_gpu_dev_sync_event_remote_net_t;

/** A task reading an event's value through a progress engine. */
struct doca_sync_event_task_get;
/** A task setting an event's value. */
struct doca_sync_event_task_notify_set;
/** A task adding to an event's value. */
struct doca_sync_event_task_notify_add;
/** A task waiting until an event's masked value equals a value. */
struct doca_sync_event_task_wait_eq;
/** A task waiting until an event's masked value differs from a value. */
struct doca_sync_event_task_wait_neq;

/** Completion callback of a get task. */
typedef void (*doca_sync_event_task_get_completion_cb_t)(struct doca_sync_event_task_get *task,
							 union doca_data task_user_data,
							 union doca_data ctx_user_data);
/** Completion callback of a notify-set task. */
typedef void (*doca_sync_event_task_notify_set_completion_cb_t)(struct doca_sync_event_task_notify_set *task,
								union doca_data task_user_data,
								union doca_data ctx_user_data);
/** Completion callback of a notify-add task. */
typedef void (*doca_sync_event_task_notify_add_completion_cb_t)(struct doca_sync_event_task_notify_add *task,
								union doca_data task_user_data,
								union doca_data ctx_user_data);
/** Completion callback of a wait-eq task. */
typedef void (*doca_sync_event_task_wait_eq_completion_cb_t)(struct doca_sync_event_task_wait_eq *task,
							     union doca_data task_user_data,
							     union doca_data ctx_user_data);
/** Completion callback of a wait-neq task. */
typedef void (*doca_sync_event_task_wait_neq_completion_cb_t)(struct doca_sync_event_task_wait_neq *task,
							      union doca_data task_user_data,
							      union doca_data ctx_user_data);

/**
 * @brief Re-creates, on this side of a PCI link, an event exported with
 * doca_sync_event_export_to_remote_pci().
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] dev the device to create it on.
 * @param [in] data the export blob.
 * @param [in] sz its length.
 * @param [out] event receives the event.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_create_from_export(struct doca_dev *dev, const uint8_t *data, size_t sz,
					       struct doca_sync_event **event);

/**
 * @brief Tells whether doca_sync_event_create_from_export() can be used on a device.
 *
 * doca-sim: DOCA_ERROR_NOT_SUPPORTED (PCI exports are not modelled).
 *
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when supported; DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_is_create_from_export_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Creates the remote side of an event exported with
 * doca_sync_event_export_to_remote_net().
 *
 * doca-sim: the export must come from this process (a loopback); the remote
 * event refers to the exported event, which must still exist.
 *
 * @param [in] dev the device to reach the event through.
 * @param [in] data the export blob.
 * @param [in] sz its length.
 * @param [out] event receives the remote event; destroy it with doca_sync_event_remote_net_destroy().
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument or a
 * blob that is not an export; DOCA_ERROR_NOT_FOUND when the exported event is gone.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_remote_net_create_from_export(struct doca_dev *dev, const uint8_t *data, size_t sz,
							  struct doca_sync_event_remote_net **event);

/**
 * @brief Tells whether remote-net events can be created from an export on a device.
 *
 * doca-sim: DOCA_SUCCESS for devices that export sync events to a DPA.
 *
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when supported; DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_remote_net_is_create_from_export_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Destroys a remote-net event; its DPA handles stop being valid.
 *
 * @param [in] event the remote event.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL or unknown event.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_remote_net_destroy(struct doca_sync_event_remote_net *event);

/**
 * @brief Declares that a GPU will update the event.
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] event the event.
 * @param [in] gpu the GPU.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_publisher_location_gpu(struct doca_sync_event *event, struct doca_gpu *gpu);

/**
 * @brief Declares that a GPU will wait on the event.
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] event the event.
 * @param [in] gpu the GPU.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_subscriber_location_gpu(struct doca_sync_event *event, struct doca_gpu *gpu);

/**
 * @brief Backs the event's value with a DOCA buffer.
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] event the event.
 * @param [in] buf the buffer.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_set_doca_buf(struct doca_sync_event *event, struct doca_buf *buf);

/**
 * @brief Tells whether get tasks can be used on a device.
 *
 * doca-sim: DOCA_ERROR_NOT_SUPPORTED (tasks are not modelled).
 *
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when supported; DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_task_get_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the get tasks of an event (before start).
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] event the event.
 * @param [in] completion_cb called when a task succeeds.
 * @param [in] error_cb called when a task fails.
 * @param [in] num_tasks how many tasks may be allocated at once.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_get_set_conf(struct doca_sync_event *event,
						doca_sync_event_task_get_completion_cb_t completion_cb,
						doca_sync_event_task_get_completion_cb_t error_cb, uint32_t num_tasks);

/**
 * @brief Allocates a task that reads the event's value into *ret_val_ptr.
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] event the event.
 * @param [in] ret_val_ptr where the value goes.
 * @param [in] user_data the task's user data.
 * @param [out] task receives the task.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_get_alloc_init(struct doca_sync_event *event, uint64_t *ret_val_ptr,
						 union doca_data user_data, struct doca_sync_event_task_get **task);

/**
 * @brief The generic task behind a get task.
 *
 * doca-sim: no such task exists; returns NULL.
 *
 * @param [in] task the task.
 * @return the task as a struct doca_task.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_sync_event_task_get_as_doca_task(struct doca_sync_event_task_get *task);

/**
 * @brief Sets the result pointer of a task.
 *
 * doca-sim: no such task exists; does nothing.
 *
 * @param [in] task the task.
 * @param [in] ret_val_ptr the new value.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_get_set_ret_val_ptr(struct doca_sync_event_task_get *task, uint64_t *ret_val_ptr);

/**
 * @brief The result pointer of a task.
 *
 * doca-sim: no such task exists; returns NULL.
 *
 * @param [in] task the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
uint64_t *doca_sync_event_task_get_get_ret_val_ptr(const struct doca_sync_event_task_get *task);

/**
 * @brief Tells whether notify-set tasks can be used on a device.
 *
 * doca-sim: DOCA_ERROR_NOT_SUPPORTED (tasks are not modelled).
 *
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when supported; DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_task_notify_set_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the notify-set tasks of an event (before start).
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] event the event.
 * @param [in] completion_cb called when a task succeeds.
 * @param [in] error_cb called when a task fails.
 * @param [in] num_tasks how many tasks may be allocated at once.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_notify_set_set_conf(struct doca_sync_event *event,
						doca_sync_event_task_notify_set_completion_cb_t completion_cb,
						doca_sync_event_task_notify_set_completion_cb_t error_cb, uint32_t num_tasks);

/**
 * @brief Allocates a task that sets the event's value.
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] event the event.
 * @param [in] set_val the value to set.
 * @param [in] user_data the task's user data.
 * @param [out] task receives the task.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_notify_set_alloc_init(struct doca_sync_event *event, uint64_t set_val,
							union doca_data user_data,
							struct doca_sync_event_task_notify_set **task);

/**
 * @brief The generic task behind a notify-set task.
 *
 * doca-sim: no such task exists; returns NULL.
 *
 * @param [in] task the task.
 * @return the task as a struct doca_task.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_sync_event_task_notify_set_as_doca_task(struct doca_sync_event_task_notify_set *task);

/**
 * @brief Sets the value to set of a task.
 *
 * doca-sim: no such task exists; does nothing.
 *
 * @param [in] task the task.
 * @param [in] set_val the new value.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_notify_set_set_set_val(struct doca_sync_event_task_notify_set *task, uint64_t set_val);

/**
 * @brief The value to set of a task.
 *
 * doca-sim: no such task exists; returns 0.
 *
 * @param [in] task the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_notify_set_get_set_val(const struct doca_sync_event_task_notify_set *task);

/**
 * @brief Tells whether notify-add tasks can be used on a device.
 *
 * doca-sim: DOCA_ERROR_NOT_SUPPORTED (tasks are not modelled).
 *
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when supported; DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_task_notify_add_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the notify-add tasks of an event (before start).
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] event the event.
 * @param [in] completion_cb called when a task succeeds.
 * @param [in] error_cb called when a task fails.
 * @param [in] num_tasks how many tasks may be allocated at once.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_notify_add_set_conf(struct doca_sync_event *event,
						doca_sync_event_task_notify_add_completion_cb_t completion_cb,
						doca_sync_event_task_notify_add_completion_cb_t error_cb, uint32_t num_tasks);

/**
 * @brief Allocates a task that adds to the event's value.
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] event the event.
 * @param [in] inc_val the value to add.
 * @param [in] fetched_val_ptr where the previous value goes.
 * @param [in] user_data the task's user data.
 * @param [out] task receives the task.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_notify_add_alloc_init(struct doca_sync_event *event, uint64_t inc_val,
							uint64_t *fetched_val_ptr, union doca_data user_data,
							struct doca_sync_event_task_notify_add **task);

/**
 * @brief The generic task behind a notify-add task.
 *
 * doca-sim: no such task exists; returns NULL.
 *
 * @param [in] task the task.
 * @return the task as a struct doca_task.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_sync_event_task_notify_add_as_doca_task(struct doca_sync_event_task_notify_add *task);

/**
 * @brief Sets the value to add of a task.
 *
 * doca-sim: no such task exists; does nothing.
 *
 * @param [in] task the task.
 * @param [in] inc_val the new value.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_notify_add_set_inc_val(struct doca_sync_event_task_notify_add *task, uint64_t inc_val);

/**
 * @brief The value to add of a task.
 *
 * doca-sim: no such task exists; returns 0.
 *
 * @param [in] task the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_notify_add_get_inc_val(const struct doca_sync_event_task_notify_add *task);

/**
 * @brief Sets the previous-value pointer of a task.
 *
 * doca-sim: no such task exists; does nothing.
 *
 * @param [in] task the task.
 * @param [in] fetched_val_ptr the new value.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_notify_add_set_fetched_val_ptr(struct doca_sync_event_task_notify_add *task, uint64_t *fetched_val_ptr);

/**
 * @brief The previous-value pointer of a task.
 *
 * doca-sim: no such task exists; returns NULL.
 *
 * @param [in] task the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
uint64_t *doca_sync_event_task_notify_add_get_fetched_val_ptr(const struct doca_sync_event_task_notify_add *task);

/**
 * @brief Tells whether wait-eq tasks can be used on a device.
 *
 * doca-sim: DOCA_ERROR_NOT_SUPPORTED (tasks are not modelled).
 *
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when supported; DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_task_wait_eq_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the wait-eq tasks of an event (before start).
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] event the event.
 * @param [in] completion_cb called when a task succeeds.
 * @param [in] error_cb called when a task fails.
 * @param [in] num_tasks how many tasks may be allocated at once.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_wait_eq_set_conf(struct doca_sync_event *event,
						doca_sync_event_task_wait_eq_completion_cb_t completion_cb,
						doca_sync_event_task_wait_eq_completion_cb_t error_cb, uint32_t num_tasks);

/**
 * @brief Allocates a task that waits on the event's masked value.
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] event the event.
 * @param [in] wait_val the value compared with.
 * @param [in] mask the mask applied to the event's value.
 * @param [in] user_data the task's user data.
 * @param [out] task receives the task.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_wait_eq_alloc_init(struct doca_sync_event *event, uint64_t wait_val, uint64_t mask,
						     union doca_data user_data, struct doca_sync_event_task_wait_eq **task);

/**
 * @brief The generic task behind a wait-eq task.
 *
 * doca-sim: no such task exists; returns NULL.
 *
 * @param [in] task the task.
 * @return the task as a struct doca_task.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_sync_event_task_wait_eq_as_doca_task(struct doca_sync_event_task_wait_eq *task);

/**
 * @brief Sets the value compared with of a task.
 *
 * doca-sim: no such task exists; does nothing.
 *
 * @param [in] task the task.
 * @param [in] wait_val the new value.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_wait_eq_set_wait_val(struct doca_sync_event_task_wait_eq *task, uint64_t wait_val);

/**
 * @brief The value compared with of a task.
 *
 * doca-sim: no such task exists; returns 0.
 *
 * @param [in] task the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_wait_eq_get_wait_val(const struct doca_sync_event_task_wait_eq *task);

/**
 * @brief Sets the mask of a task.
 *
 * doca-sim: no such task exists; does nothing.
 *
 * @param [in] task the task.
 * @param [in] mask the new value.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_wait_eq_set_mask(struct doca_sync_event_task_wait_eq *task, uint64_t mask);

/**
 * @brief The mask of a task.
 *
 * doca-sim: no such task exists; returns 0.
 *
 * @param [in] task the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_wait_eq_get_mask(const struct doca_sync_event_task_wait_eq *task);

/**
 * @brief Tells whether wait-neq tasks can be used on a device.
 *
 * doca-sim: DOCA_ERROR_NOT_SUPPORTED (tasks are not modelled).
 *
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when supported; DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_task_wait_neq_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Configures the wait-neq tasks of an event (before start).
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] event the event.
 * @param [in] completion_cb called when a task succeeds.
 * @param [in] error_cb called when a task fails.
 * @param [in] num_tasks how many tasks may be allocated at once.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_wait_neq_set_conf(struct doca_sync_event *event,
						doca_sync_event_task_wait_neq_completion_cb_t completion_cb,
						doca_sync_event_task_wait_neq_completion_cb_t error_cb, uint32_t num_tasks);

/**
 * @brief Allocates a task that waits on the event's masked value.
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] event the event.
 * @param [in] wait_val the value compared with.
 * @param [in] mask the mask applied to the event's value.
 * @param [in] user_data the task's user data.
 * @param [out] task receives the task.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_wait_neq_alloc_init(struct doca_sync_event *event, uint64_t wait_val, uint64_t mask,
						     union doca_data user_data, struct doca_sync_event_task_wait_neq **task);

/**
 * @brief The generic task behind a wait-neq task.
 *
 * doca-sim: no such task exists; returns NULL.
 *
 * @param [in] task the task.
 * @return the task as a struct doca_task.
 */
DOCA_EXPERIMENTAL
struct doca_task *doca_sync_event_task_wait_neq_as_doca_task(struct doca_sync_event_task_wait_neq *task);

/**
 * @brief Sets the value compared with of a task.
 *
 * doca-sim: no such task exists; does nothing.
 *
 * @param [in] task the task.
 * @param [in] wait_val the new value.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_wait_neq_set_wait_val(struct doca_sync_event_task_wait_neq *task, uint64_t wait_val);

/**
 * @brief The value compared with of a task.
 *
 * doca-sim: no such task exists; returns 0.
 *
 * @param [in] task the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_wait_neq_get_wait_val(const struct doca_sync_event_task_wait_neq *task);

/**
 * @brief Sets the mask of a task.
 *
 * doca-sim: no such task exists; does nothing.
 *
 * @param [in] task the task.
 * @param [in] mask the new value.
 */
DOCA_EXPERIMENTAL
void doca_sync_event_task_wait_neq_set_mask(struct doca_sync_event_task_wait_neq *task, uint64_t mask);

/**
 * @brief The mask of a task.
 *
 * doca-sim: no such task exists; returns 0.
 *
 * @param [in] task the task.
 * @return the value.
 */
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_wait_neq_get_mask(const struct doca_sync_event_task_wait_neq *task);

/**
 * @brief Exports the event to the other side of a PCI link.
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] event the event.
 * @param [in] dev the device of the link.
 * @param [out] data receives the export blob.
 * @param [out] sz receives its length.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_export_to_remote_pci(struct doca_sync_event *event, struct doca_dev *dev,
						 const uint8_t **data, size_t *sz);

/**
 * @brief Tells whether events can be exported over PCI from a device.
 *
 * doca-sim: DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when supported; DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_is_export_to_remote_pci_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Produces the handle GPU code uses to reach the event.
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] event the event.
 * @param [in] gpu the GPU.
 * @param [out] gpu_dev_se receives the handle.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_get_gpu_handle(struct doca_sync_event *event, struct doca_gpu *gpu,
					   doca_gpu_dev_sync_event_t **gpu_dev_se);

/**
 * @brief Tells whether events can be exported to a GPU.
 *
 * doca-sim: DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when supported; DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_is_export_to_gpu_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Exports a started event whose publisher is a network peer, for
 * doca_sync_event_remote_net_create_from_export().
 *
 * doca-sim: the blob names the event inside this process and stays valid
 * until the event is destroyed.
 *
 * @param [in] event the event.
 * @param [out] data receives the export blob.
 * @param [out] sz receives its length.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_BAD_STATE when the event is not started; DOCA_ERROR_NOT_PERMITTED when
 * no remote-net publisher location was added.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_export_to_remote_net(struct doca_sync_event *event, const uint8_t **data, size_t *sz);

/**
 * @brief Tells whether events can be exported for network peers.
 *
 * doca-sim: DOCA_SUCCESS for devices that export sync events to a DPA.
 *
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when supported; DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_is_export_to_remote_net_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Tells whether remote-net events can be handed to the DPA of a device.
 *
 * doca-sim: DOCA_SUCCESS for devices that export sync events to a DPA.
 *
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when supported; DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_remote_net_is_export_to_dpa_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Produces the handle GPU code uses to reach a remote-net event.
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] event the remote event.
 * @param [in] gpu the GPU.
 * @param [out] gpu_remote_event receives the handle.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_remote_net_get_gpu_handle(struct doca_sync_event_remote_net *event, struct doca_gpu *gpu,
						      doca_gpu_dev_sync_event_remote_net_t *gpu_remote_event);

/**
 * @brief Tells whether remote-net events can be handed to a GPU.
 *
 * doca-sim: DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when supported; DOCA_ERROR_NOT_SUPPORTED otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_remote_net_is_export_to_gpu_supported(const struct doca_devinfo *devinfo);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_SYNC_EVENT_H_ */
