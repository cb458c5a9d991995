/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * A DPA thread that reschedules itself on every notification.
 */
#include <doca_dpa_dev.h>

__dpa_global__ void idle_thread(uint64_t arg)
{
	(void)arg;
	doca_dpa_dev_thread_reschedule();
}
