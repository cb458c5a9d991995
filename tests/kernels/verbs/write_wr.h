/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Shared by the DPA Verbs kernels of the tests (verbs.c, redteam_verbs.c).
 */
#ifndef DOCA_RS_TESTS_WRITE_WR_H
#define DOCA_RS_TESTS_WRITE_WR_H

#include <doca_dpa_dev.h>
#include <doca_dpa_dev_verbs.h>

/* Posts (without committing) one RDMA write of the 8 bytes at `src` (local key
 * `src_map`) to `dst` (remote key `dst_map`) on `qp`, with `flags` (0 or
 * DOCA_DPA_DEV_VERBS_SEND_WR_FLAGS_SIGNALED); returns the post's count (0:
 * refused). The work request is built at the post, so nothing here outlives it. */
static inline uint32_t verbs_post_write(doca_dpa_dev_verbs_qp_t qp, uint64_t *src, doca_dpa_dev_mmap_t src_map,
					uint64_t *dst, doca_dpa_dev_mmap_t dst_map, uint32_t flags)
{
	struct doca_dpa_dev_verbs_send_wr wr;
	struct doca_dpa_dev_verbs_sge sge;

	sge.addr = (uint64_t)src;
	sge.length = sizeof(uint64_t);
	sge.lkey = src_map;
	doca_dpa_dev_verbs_send_wr_set_sg_list(&wr, &sge);
	doca_dpa_dev_verbs_send_wr_set_sg_num_sge(&wr, 1);
	doca_dpa_dev_verbs_send_wr_set_send_flags(&wr, flags);
	doca_dpa_dev_verbs_send_wr_set_rdma_rkey(&wr, dst_map);
	doca_dpa_dev_verbs_send_wr_set_rdma_remote_addr(&wr, (uint64_t)dst);
	doca_dpa_dev_verbs_send_wr_set_opcode(&wr, DOCA_DPA_DEV_VERBS_SEND_WR_OPCODE_WRITE);
	doca_dpa_dev_verbs_send_wr_set_fence_mode(&wr, DOCA_DPA_DEV_VERBS_SEND_WR_FM_NO_FENCE);
	return doca_dpa_dev_verbs_qp_post_send_wr(qp, &wr);
}

#endif
