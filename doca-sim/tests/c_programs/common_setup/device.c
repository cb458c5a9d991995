/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * A kernel that receives the DPA handle of a remote-net sync event and the
 * handle of a memory map created from an RDMA export, as the samples' kernels
 * do, and reports that both arrived.
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_buf.h>
#include <doca_dpa_dev_sync_event.h>

__dpa_global__ void got_handles(doca_dpa_dev_sync_event_remote_net_t remote, doca_dpa_dev_mmap_t mmap,
				uint64_t addr, doca_dpa_dev_sync_event_t done)
{
	uint64_t *word = (uint64_t *)doca_dpa_dev_mmap_get_external_ptr(mmap, addr);

	DOCA_DPA_DEV_LOG_INFO("remote event handle %s, imported word %#x\n", remote != 0 ? "set" : "unset",
			      (unsigned int)*word);
	doca_dpa_dev_sync_event_update_set(done, 1);
}
