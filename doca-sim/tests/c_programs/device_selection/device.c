/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * One kernel, so the DPA context has an application to start with.
 */
#include <doca_dpa_dev.h>

__dpa_global__ void selection_kernel(void)
{
	DOCA_DPA_DEV_LOG_INFO("running on the extended context\n");
}
