/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Stand-in for rdma-core's <infiniband/mlx5dv.h>, written by the doca-rs
 * project for running NVIDIA's DPA samples on doca-sim: only the receive WQE
 * data segment, whose size dpa_verbs_initiator_target uses to size its
 * queue pair's ring (rdma-core's layout).
 */
#ifndef DOCA_SIM_STANDIN_INFINIBAND_MLX5DV_H_
#define DOCA_SIM_STANDIN_INFINIBAND_MLX5DV_H_

#include <infiniband/verbs.h>

/** A scatter/gather entry of an mlx5 work queue element (16 bytes). */
struct mlx5_wqe_data_seg {
	__be32 byte_count;
	__be32 lkey;
	__be64 addr;
};

#endif /* DOCA_SIM_STANDIN_INFINIBAND_MLX5DV_H_ */
