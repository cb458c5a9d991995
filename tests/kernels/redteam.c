/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Kernels of tests/redteam.rs.
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_sync_event.h>

/*
 * An RPC that polls `go` (yielding between looks) until the host sets it above
 * 0, then writes 1..=8 into data: a function that stays runnable on its EU (not
 * blocked in a device wait) while the host holds it, so that on a crowded host it
 * waits for a CPU.
 */
__dpa_rpc__ uint64_t redteam_poll_rpc(doca_dpa_dev_sync_event_t go, uint64_t *data)
{
	uint64_t v = 0;

	for (;;) {
		doca_dpa_dev_sync_event_get(go, &v);
		if (v > 0)
			break;
		doca_dpa_dev_yield();
	}
	for (int i = 0; i < 8; i++)
		data[i] = i + 1;
	return 8;
}
