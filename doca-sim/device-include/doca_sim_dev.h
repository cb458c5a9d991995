/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * doca-sim only: device functions that exist in the software DPA and nowhere
 * else. Kernels that use them must guard the calls with
 * `#ifdef DOCA_SIM_DEVICE` so they still build with dpacc.
 */
#ifndef DOCA_SIM_DEV_H_
#define DOCA_SIM_DEV_H_

#include <doca_dpa_dev.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Makes the context fatal as a device exception would, and ends the instance. */
void doca_sim_dev_fault(const char *reason);

/**
 * Posts a completion element, as a producer context (RDMA, RDMI) would.
 * Returns 0, or a DOCA error code: BAD_STATE (not started), INVALID_VALUE
 * (user data >= 2^24), FULL (overrun; the context turns fatal).
 */
int doca_sim_dev_completion_post(doca_dpa_dev_completion_t dpa_comp_handle, uint32_t type, uint32_t user_data,
				 uint32_t immediate);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_SIM_DEV_H_ */
