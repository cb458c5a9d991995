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

#ifdef __cplusplus
}
#endif

#endif /* DOCA_SYNC_EVENT_H_ */
