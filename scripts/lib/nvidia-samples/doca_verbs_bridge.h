/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Stand-in for DOCA's doca_verbs_bridge.h, written by the doca-rs project for
 * running NVIDIA's DPA samples on doca-sim. dpa_verbs_initiator_target
 * includes it and calls none of its functions, so it declares none.
 */
#ifndef DOCA_SIM_STANDIN_DOCA_VERBS_BRIDGE_H_
#define DOCA_SIM_STANDIN_DOCA_VERBS_BRIDGE_H_

#include <doca_verbs.h>

#endif /* DOCA_SIM_STANDIN_DOCA_VERBS_BRIDGE_H_ */
