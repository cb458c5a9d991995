/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * The kernel of examples/dpa_verbs.rs: posts RDMA writes on a DPA Verbs queue
 * pair the host created and connected, one at a time, waiting for each one's
 * completion on the queue pair's DPA completion context.
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_buf.h>
#include <doca_dpa_dev_verbs.h>

/*
 * Fills src[0..count) with first, first + 1, ... and writes each value with its
 * own signalled RDMA write on `qp` to the same slot of the peer's `dst` (map
 * `dst_map`), reading it from `src` (map `src_map`). Returns how many writes
 * completed (each completion acknowledged on `comp`).
 */
__dpa_rpc__ uint64_t verbs_write_values(doca_dpa_dev_verbs_qp_t qp, doca_dpa_dev_completion_t comp, uint64_t *src,
					doca_dpa_dev_mmap_t src_map, uint64_t *dst, doca_dpa_dev_mmap_t dst_map,
					uint32_t count, uint64_t first)
{
	struct doca_dpa_dev_verbs_send_wr wr;
	struct doca_dpa_dev_verbs_sge sge;
	doca_dpa_dev_completion_element_t e;
	uint64_t completed = 0;

	for (uint32_t i = 0; i < count; i++) {
		src[i] = first + i;
		sge.addr = (uint64_t)(src + i);
		sge.length = sizeof(uint64_t);
		sge.lkey = src_map;
		doca_dpa_dev_verbs_send_wr_set_sg_list(&wr, &sge);
		doca_dpa_dev_verbs_send_wr_set_sg_num_sge(&wr, 1);
		doca_dpa_dev_verbs_send_wr_set_send_flags(&wr, DOCA_DPA_DEV_VERBS_SEND_WR_FLAGS_SIGNALED);
		doca_dpa_dev_verbs_send_wr_set_rdma_rkey(&wr, dst_map);
		doca_dpa_dev_verbs_send_wr_set_rdma_remote_addr(&wr, (uint64_t)(dst + i));
		doca_dpa_dev_verbs_send_wr_set_opcode(&wr, DOCA_DPA_DEV_VERBS_SEND_WR_OPCODE_WRITE);
		doca_dpa_dev_verbs_send_wr_set_fence_mode(&wr, DOCA_DPA_DEV_VERBS_SEND_WR_FM_NO_FENCE);
		doca_dpa_dev_verbs_qp_post_send_wr(qp, &wr);
		doca_dpa_dev_verbs_qp_commit_send(qp);
		while (!doca_dpa_dev_get_completion(comp, &e))
			;
		doca_dpa_dev_completion_ack(comp, 1);
		completed++;
	}
	return completed;
}
