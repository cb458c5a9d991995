/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * The DOCA RDMA kernels of the tests (tests/rdma_flows.rs, tests/soundness.rs,
 * tests/api_fuzz.rs), built only where the install has DOCA RDMA (see
 * tests/kernels-pkg/build.rs).
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_rdma.h>
#include <doca_dpa_dev_sync_event.h>

#include "../sound.h"

#define RDMA_FLAGS (DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH | DOCA_DPA_DEV_SUBMIT_FLAG_OPTIMIZE_REPORTS)

/*
 * One-sided: writes `len` bytes from `src` (local map `lmap`) to `raddr` of the
 * peer's map `rmap` on connection `connection_id`, then adds 1 to the peer's
 * remote event `signal` on the same connection (after the write: RC keeps them in
 * order).
 */
__dpa_global__ void rdma_write_signal(doca_dpa_dev_rdma_t rdma, uint32_t connection_id, doca_dpa_dev_mmap_t rmap,
				      uint64_t raddr, doca_dpa_dev_mmap_t lmap, doca_dpa_dev_uintptr_t src, uint64_t len,
				      doca_dpa_dev_sync_event_remote_net_t signal)
{
	doca_dpa_dev_rdma_post_write(rdma, connection_id, rmap, raddr, lmap, src, len, RDMA_FLAGS);
	doca_dpa_dev_rdma_signal_add(rdma, connection_id, signal, 1);
}

/* Posts a receive of `len` bytes into `buf` (map `map`). */
__dpa_global__ void rdma_receive(doca_dpa_dev_rdma_t rdma, doca_dpa_dev_mmap_t map, doca_dpa_dev_uintptr_t buf,
				 uint64_t len)
{
	doca_dpa_dev_rdma_post_receive(rdma, map, buf, len);
}

/* Sends `len` bytes of `buf` (map `map`) on connection `connection_id`. */
__dpa_global__ void rdma_send(doca_dpa_dev_rdma_t rdma, uint32_t connection_id, doca_dpa_dev_mmap_t map,
			      doca_dpa_dev_uintptr_t buf, uint64_t len)
{
	doca_dpa_dev_rdma_post_send(rdma, connection_id, map, buf, len, RDMA_FLAGS);
}

/*
 * Drains `comp`: the number of elements, and the immediate (or byte count) of
 * the last, in out[0] and out[1].
 */
__dpa_global__ void rdma_drain(doca_dpa_dev_completion_t comp, doca_dpa_dev_uintptr_t out)
{
	uint64_t *o = (uint64_t *)out;
	doca_dpa_dev_completion_element_t e;

	o[0] = 0;
	while (doca_dpa_dev_get_completion(comp, &e)) {
		o[0]++;
		o[1] = doca_dpa_dev_get_completion_immediate(e);
		doca_dpa_dev_completion_ack(comp, 1);
	}
}

/*
 * Waits for *go, then uses the RDMA context (acknowledges no receive: a
 * device fault if the context is gone) and sets out[0].
 */
__dpa_global__ void sound_hold_rdma(doca_dpa_dev_uintptr_t go, doca_dpa_dev_rdma_t rdma, doca_dpa_dev_uintptr_t out)
{
	sound_wait_for(go);
	doca_dpa_dev_rdma_receive_ack(rdma, 0);
	((uint64_t *)out)[0] = 1;
}

/*
 * Waits for *go, then writes and signals through the remote map and event it was
 * given (rdma_write_signal), and sets out[0].
 */
__dpa_global__ void sound_hold_remote(doca_dpa_dev_uintptr_t go, doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
				      doca_dpa_dev_mmap_t rmap, uint64_t raddr, doca_dpa_dev_mmap_t lmap,
				      doca_dpa_dev_uintptr_t src, doca_dpa_dev_sync_event_remote_net_t signal,
				      doca_dpa_dev_uintptr_t out)
{
	sound_wait_for(go);
	doca_dpa_dev_rdma_post_write(rdma, connection_id, rmap, raddr, lmap, src, sizeof(uint64_t), RDMA_FLAGS);
	doca_dpa_dev_rdma_signal_add(rdma, connection_id, signal, 1);
	((uint64_t *)out)[0] = 1;
}
