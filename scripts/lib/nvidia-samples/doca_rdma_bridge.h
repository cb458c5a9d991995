/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Stand-in for DOCA's doca_rdma_bridge.h (the bridge from DOCA devices to
 * rdma-core objects), written by the doca-rs project for running NVIDIA's
 * DPA samples on doca-sim, which models no rdma-core objects: the one call
 * dpa_verbs_initiator_target makes, answered by harness.c with an ibv_pd of
 * the stand-in <infiniband/verbs.h>.
 */
#ifndef DOCA_SIM_STANDIN_DOCA_RDMA_BRIDGE_H_
#define DOCA_SIM_STANDIN_DOCA_RDMA_BRIDGE_H_

#include <infiniband/verbs.h>

#include <doca_dev.h>
#include <doca_error.h>

/** The protection domain of an open device (owned by the device). */
doca_error_t doca_rdma_bridge_get_dev_pd(const struct doca_dev *dev, struct ibv_pd **pd);

#endif /* DOCA_SIM_STANDIN_DOCA_RDMA_BRIDGE_H_ */
