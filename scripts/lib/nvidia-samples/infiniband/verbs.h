/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Stand-in for rdma-core's <infiniband/verbs.h>, written by the doca-rs
 * project for running NVIDIA's DPA samples on doca-sim: only what
 * dpa_verbs_initiator_target uses (a GID, a protection domain's device
 * context, ibv_query_gid), with rdma-core's layouts for those types. The
 * harness (harness.c) answers ibv_query_gid; see docs/sim-model.md ("DPA
 * Verbs") for why rdma-core is stood in for rather than installed.
 */
#ifndef DOCA_SIM_STANDIN_INFINIBAND_VERBS_H_
#define DOCA_SIM_STANDIN_INFINIBAND_VERBS_H_

#include <errno.h> /* rdma-core's header includes it; the sample relies on that */
#include <stdint.h>
#include <linux/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A port's GID: 16 bytes, or the subnet prefix and interface id. */
union ibv_gid {
	uint8_t raw[16];
	struct {
		__be64 subnet_prefix;
		__be64 interface_id;
	} global;
};

/** An opened device (the stand-in keeps only its name). */
struct ibv_context {
	char doca_sim_ibdev_name[64];
};

/** A protection domain: rdma-core's first two fields. */
struct ibv_pd {
	struct ibv_context *context;
	uint32_t handle;
};

/** The GID at `index` of port `port_num` (ports count from 1): 0, or -1 with errno set. */
int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_SIM_STANDIN_INFINIBAND_VERBS_H_ */
