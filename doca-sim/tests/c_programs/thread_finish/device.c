/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * A DPA thread function without parameters (as NVIDIA's nvqual sample
 * declares them) that finishes on its first activation, and a kernel that
 * notifies it.
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_sync_event.h>

#include "shared.h"

__dpa_global__ void finishing_thread(void)
{
	struct thread_state *st = (struct thread_state *)doca_dpa_dev_thread_get_local_storage();

	st->runs++;
	DOCA_DPA_DEV_LOG_INFO("thread run %u\n", (unsigned int)st->runs);
	doca_dpa_dev_sync_event_update_add(st->ran, 1);
	doca_dpa_dev_thread_finish();
	st->after_finish++;
	DOCA_DPA_DEV_LOG_ERR("returned from doca_dpa_dev_thread_finish\n");
}

__dpa_global__ void notify_thread(doca_dpa_dev_notification_completion_t thread)
{
	doca_dpa_dev_thread_notify(thread);
}
