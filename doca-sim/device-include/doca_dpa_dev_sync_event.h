/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * doca-sim device-side header: sync events seen from a DPA kernel. Written by
 * the doca-rs project from public facts; not NVIDIA's header.
 */
#ifndef DOCA_DPA_DEV_SYNC_EVENT_H_
#define DOCA_DPA_DEV_SYNC_EVENT_H_

#include <doca_dpa_dev.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t doca_dpa_dev_sync_event_t;
/** The DPA handle of a sync event reached over the network (doca_dpa_dev_rdma.h signals it). */
typedef uint64_t doca_dpa_dev_sync_event_remote_net_t;

/** Reads the event's value. */
void doca_dpa_dev_sync_event_get(doca_dpa_dev_sync_event_t dpa_dev_se_handle, uint64_t *value);
/** Atomically adds to the event's value. */
void doca_dpa_dev_sync_event_update_add(doca_dpa_dev_sync_event_t dpa_dev_se_handle, uint64_t value);
/** Sets the event's value. */
void doca_dpa_dev_sync_event_update_set(doca_dpa_dev_sync_event_t dpa_dev_se_handle, uint64_t value);
/** Waits until (event value & mask) > value. */
void doca_dpa_dev_sync_event_wait_gt(doca_dpa_dev_sync_event_t dpa_dev_se_handle, uint64_t value, uint64_t mask);
/**
 * Posts, on async ops, a wait until the event's value is greater than `value`
 * (both at most 254); the attached completion context then reports it, which
 * activates its thread. For DPA threads only.
 */
void doca_dpa_dev_sync_event_post_wait_gt(doca_dpa_dev_async_ops_t async_ops_handle,
					  doca_dpa_dev_sync_event_t wait_se_handle, uint64_t value);
/**
 * Posts, on async ops, a wait until the event's value differs from `value`;
 * the attached completion context then reports it, which activates its
 * thread. For DPA threads only.
 */
void doca_dpa_dev_sync_event_post_wait_ne(doca_dpa_dev_async_ops_t async_ops_handle,
					  doca_dpa_dev_sync_event_t wait_se_handle, uint64_t value);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DPA_DEV_SYNC_EVENT_H_ */
