/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Kernels of examples/wait_sync_event.rs.
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_sync_event.h>

/* Launched behind a wait event: records the value the host released it with. */
__dpa_global__ void record_release(uint64_t *out, doca_dpa_dev_sync_event_t release)
{
	uint64_t value = 0;

	doca_dpa_dev_sync_event_get(release, &value);
	*out = value;
}
