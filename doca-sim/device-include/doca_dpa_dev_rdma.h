/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * doca-sim device-side header: DOCA RDMA seen from a DPA kernel. Written by
 * the doca-rs project from public facts; not NVIDIA's header.
 *
 * A doca_dpa_dev_rdma_t comes from doca_rdma_get_dpa_handle() (doca_rdma.h).
 * The sim runs these operations as a loopback between the DOCA RDMA contexts
 * of one process (see docs/sim-model.md of doca-rs): each moves its data
 * when posted and reports to the DPA completion contexts attached to the two
 * sides.
 */
#ifndef DOCA_DPA_DEV_RDMA_H_
#define DOCA_DPA_DEV_RDMA_H_

#include <doca_dpa_dev.h>
#include <doca_dpa_dev_buf.h>
#include <doca_dpa_dev_sync_event.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The DPA handle of a DOCA RDMA context. */
typedef uint64_t doca_dpa_dev_rdma_t;

/** Reads a remote range into a local one. */
void doca_dpa_dev_rdma_post_read(doca_dpa_dev_rdma_t rdma, uint32_t connection_id, doca_dpa_dev_mmap_t
				dst_mmap_handle, uint64_t dst_addr, doca_dpa_dev_mmap_t src_mmap_handle, uint64_t src_addr, size_t length,
				uint32_t flags);

/** Reads a remote buffer into a local one. */
void doca_dpa_dev_rdma_post_buf_read(doca_dpa_dev_rdma_t rdma, uint32_t connection_id, doca_dpa_dev_buf_t
				dst_buf_handle, doca_dpa_dev_buf_t src_buf_handle, uint32_t flags);

/** Writes a local range to a remote one. */
void doca_dpa_dev_rdma_post_write(doca_dpa_dev_rdma_t rdma, uint32_t connection_id, doca_dpa_dev_mmap_t
				dst_mmap_handle, uint64_t dst_addr, doca_dpa_dev_mmap_t src_mmap_handle, uint64_t src_addr, size_t length,
				uint32_t flags);

/** Writes a local buffer to a remote one. */
void doca_dpa_dev_rdma_post_buf_write(doca_dpa_dev_rdma_t rdma, uint32_t connection_id, doca_dpa_dev_buf_t
				dst_buf_handle, doca_dpa_dev_buf_t src_buf_handle, uint32_t flags);

/** Writes a local range to a remote one, with immediate data. */
void doca_dpa_dev_rdma_post_write_imm(doca_dpa_dev_rdma_t rdma, uint32_t connection_id, doca_dpa_dev_mmap_t
				dst_mmap_handle, uint64_t dst_addr, doca_dpa_dev_mmap_t src_mmap_handle, uint64_t src_addr, size_t length,
				uint32_t immediate, uint32_t flags);

/** Writes a local buffer to a remote one, with immediate data. */
void doca_dpa_dev_rdma_post_buf_write_imm(doca_dpa_dev_rdma_t rdma, uint32_t connection_id, doca_dpa_dev_buf_t
				dst_buf_handle, doca_dpa_dev_buf_t src_buf_handle, uint32_t immediate, uint32_t flags);

/** Sends a local range. */
void doca_dpa_dev_rdma_post_send(doca_dpa_dev_rdma_t rdma, uint32_t connection_id, doca_dpa_dev_mmap_t mmap_handle,
				uint64_t addr, size_t length, uint32_t flags);

/** Sends a local buffer. */
void doca_dpa_dev_rdma_post_buf_send(doca_dpa_dev_rdma_t rdma, uint32_t connection_id, doca_dpa_dev_buf_t
				send_buf_handle, uint32_t flags);

/** Sends a local range with immediate data. */
void doca_dpa_dev_rdma_post_send_imm(doca_dpa_dev_rdma_t rdma, uint32_t connection_id, doca_dpa_dev_mmap_t
				mmap_handle, uint64_t addr, size_t length, uint32_t immediate, uint32_t flags);

/** Sends a local buffer with immediate data. */
void doca_dpa_dev_rdma_post_buf_send_imm(doca_dpa_dev_rdma_t rdma, uint32_t connection_id, doca_dpa_dev_buf_t
				send_buf_handle, uint32_t immediate, uint32_t flags);

/** Posts a receive into a local range. */
void doca_dpa_dev_rdma_post_receive(doca_dpa_dev_rdma_t rdma, doca_dpa_dev_mmap_t mmap_handle, uint64_t addr, size_t
				length);

/** Posts a receive into a local buffer. */
void doca_dpa_dev_rdma_post_buf_receive(doca_dpa_dev_rdma_t rdma, doca_dpa_dev_buf_t receive_buf_handle);

/** Acknowledges received messages. */
void doca_dpa_dev_rdma_receive_ack(doca_dpa_dev_rdma_t rdma, uint32_t num_acked);

/** The work-request index of a completion; in the sim the low 16 bits of the element's user data. */
uint32_t doca_dpa_dev_rdma_completion_get_wr_index(doca_dpa_dev_completion_element_t comp_element);

/** Atomically adds to a remote 64-bit value. */
void doca_dpa_dev_rdma_post_atomic_fetch_add(doca_dpa_dev_rdma_t rdma, uint32_t connection_id, doca_dpa_dev_mmap_t
				dst_mmap_handle, uint64_t dst_addr, uint64_t value, uint32_t flags);

/** Atomically adds to a remote buffer's 64-bit value. */
void doca_dpa_dev_rdma_post_buf_atomic_fetch_add(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
				doca_dpa_dev_buf_t dst_buf_handle, uint64_t value, uint32_t flags);

/** Sets a remote sync event. */
void doca_dpa_dev_rdma_signal_set(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
				doca_dpa_dev_sync_event_remote_net_t remote_sync_event, uint64_t count);

/** Adds to a remote sync event. */
void doca_dpa_dev_rdma_signal_add(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
				doca_dpa_dev_sync_event_remote_net_t remote_sync_event, uint64_t count);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DPA_DEV_RDMA_H_ */
