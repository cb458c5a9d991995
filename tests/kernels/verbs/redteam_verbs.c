/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * The DPA Verbs kernels of tests/redteam_verbs.rs (red-team attacks on the safe
 * DPA Verbs API). They use only what they are given: queue pairs, completions,
 * buffers and the maps of those buffers.
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_buf.h>
#include <doca_dpa_dev_verbs.h>

#include "../sound.h"
#include "write_wr.h"

/* Posts one receive of `len` bytes at `buf` (lkey `map`) on `qp` and commits it;
 * returns the receive's count (0: refused). */
__dpa_rpc__ uint64_t rtv_post_recv(doca_dpa_dev_verbs_qp_t qp, uint64_t *buf, doca_dpa_dev_mmap_t map, uint32_t len)
{
	struct doca_dpa_dev_verbs_recv_wr wr;
	struct doca_dpa_dev_verbs_sge sge;
	uint32_t count;

	sge.addr = (uint64_t)buf;
	sge.length = len;
	sge.lkey = map;
	doca_dpa_dev_verbs_recv_wr_set_sg_list(&wr, &sge);
	doca_dpa_dev_verbs_recv_wr_set_sg_num_sge(&wr, 1);
	count = doca_dpa_dev_verbs_qp_post_recv_wr(qp, &wr);
	doca_dpa_dev_verbs_qp_commit_recv(qp);
	return count;
}

/* Posts one signalled work request `opcode` of `len` bytes with local memory
 * `buf` (lkey `map`) and remote memory `rbuf` (rkey `rmap`) on `qp`, and commits
 * it when `commit`; returns the work request's count (0: refused). */
__dpa_rpc__ uint64_t rtv_post(doca_dpa_dev_verbs_qp_t qp, uint32_t opcode, uint64_t *buf, doca_dpa_dev_mmap_t map,
			      uint32_t len, uint64_t *rbuf, doca_dpa_dev_mmap_t rmap, uint32_t commit)
{
	struct doca_dpa_dev_verbs_send_wr wr;
	struct doca_dpa_dev_verbs_sge sge;
	uint32_t count;

	sge.addr = (uint64_t)buf;
	sge.length = len;
	sge.lkey = map;
	doca_dpa_dev_verbs_send_wr_set_sg_list(&wr, &sge);
	doca_dpa_dev_verbs_send_wr_set_sg_num_sge(&wr, 1);
	doca_dpa_dev_verbs_send_wr_set_send_flags(&wr, DOCA_DPA_DEV_VERBS_SEND_WR_FLAGS_SIGNALED);
	doca_dpa_dev_verbs_send_wr_set_rdma_rkey(&wr, rmap);
	doca_dpa_dev_verbs_send_wr_set_rdma_remote_addr(&wr, (uint64_t)rbuf);
	doca_dpa_dev_verbs_send_wr_set_opcode(&wr, (enum doca_dpa_dev_verbs_send_wr_opcode)opcode);
	doca_dpa_dev_verbs_send_wr_set_imm_data(&wr, 0x1234);
	doca_dpa_dev_verbs_send_wr_set_fence_mode(&wr, DOCA_DPA_DEV_VERBS_SEND_WR_FM_NO_FENCE);
	count = doca_dpa_dev_verbs_qp_post_send_wr(qp, &wr);
	if (commit)
		doca_dpa_dev_verbs_qp_commit_send(qp);
	return count;
}

/* Commits the staged send work requests of `qp`. */
__dpa_rpc__ uint64_t rtv_commit(doca_dpa_dev_verbs_qp_t qp)
{
	doca_dpa_dev_verbs_qp_commit_send(qp);
	return 1;
}

/* The next completion of `comp`, acknowledged: (type + 1) << 32 | immediate, or 0
 * when none arrived within `spins` polls. */
__dpa_rpc__ uint64_t rtv_poll(doca_dpa_dev_completion_t comp, uint64_t spins)
{
	doca_dpa_dev_completion_element_t e;

	for (uint64_t i = 0; i < spins; i++) {
		if (doca_dpa_dev_get_completion(comp, &e)) {
			uint64_t r = ((uint64_t)doca_dpa_dev_get_completion_type(e) + 1) << 32 |
				     doca_dpa_dev_get_completion_immediate(e);
			doca_dpa_dev_completion_ack(comp, 1);
			return r;
		}
	}
	return 0;
}

/* Posts and commits `n` signalled RDMA writes of src[0] to dst[0] on `qp`
 * without ever reading a completion; returns how many posts were taken. */
__dpa_rpc__ uint64_t rtv_write_n(doca_dpa_dev_verbs_qp_t qp, uint64_t *src, doca_dpa_dev_mmap_t src_map, uint64_t *dst,
				 doca_dpa_dev_mmap_t dst_map, uint32_t n, uint32_t commit_each)
{
	uint64_t taken = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (verbs_post_write(qp, src, src_map, dst, dst_map, DOCA_DPA_DEV_VERBS_SEND_WR_FLAGS_SIGNALED))
			taken++;
		if (commit_each)
			doca_dpa_dev_verbs_qp_commit_send(qp);
	}
	doca_dpa_dev_verbs_qp_commit_send(qp);
	return taken;
}

/* Every instance writes its rank + 1 to dst[rank] (unsignalled) on one shared
 * `qp`, from src[rank], then adds one to *done. */
__dpa_global__ void rtv_write_rank(doca_dpa_dev_verbs_qp_t qp, uint64_t *src, doca_dpa_dev_mmap_t src_map, uint64_t *dst,
				   doca_dpa_dev_mmap_t dst_map, uint64_t *done)
{
	unsigned int rank = doca_dpa_dev_thread_rank();

	src[rank] = rank + 1;
	verbs_post_write(qp, src + rank, src_map, dst + rank, dst_map, 0);
	doca_dpa_dev_verbs_qp_commit_send(qp);
	__atomic_fetch_add(done, 1, __ATOMIC_RELEASE);
}

/* Waits for *go, then posts one signalled RDMA write of src[0] to dst[0] on `qp`
 * and stores its completion ((type + 1) << 32 | immediate, or 0 when none came
 * within `spins` polls) in out[0]. */
__dpa_global__ void rtv_hold_write(uint64_t *go, doca_dpa_dev_verbs_qp_t qp, doca_dpa_dev_completion_t comp,
				   uint64_t *src, doca_dpa_dev_mmap_t src_map, uint64_t *dst, doca_dpa_dev_mmap_t dst_map,
				   uint64_t *out)
{
	doca_dpa_dev_completion_element_t e;

	sound_wait_for(go);
	verbs_post_write(qp, src, src_map, dst, dst_map, DOCA_DPA_DEV_VERBS_SEND_WR_FLAGS_SIGNALED);
	doca_dpa_dev_verbs_qp_commit_send(qp);
	out[0] = 0;
	for (int i = 0; i < 1000000; i++) {
		if (doca_dpa_dev_get_completion(comp, &e)) {
			out[0] = ((uint64_t)doca_dpa_dev_get_completion_type(e) + 1) << 32 |
				 doca_dpa_dev_get_completion_immediate(e);
			doca_dpa_dev_completion_ack(comp, 1);
			break;
		}
		doca_dpa_dev_yield();
	}
}

/* A DPA struct holding a queue pair (tests/redteam_verbs.rs keeps it in a DpaBox). */
struct rtv_qp_box {
	doca_dpa_dev_verbs_qp_t qp;
};

/* The queue pair number of the queue pair in `box`. */
__dpa_rpc__ uint64_t rtv_box_qpn(struct rtv_qp_box *box)
{
	return doca_dpa_dev_verbs_qp_get_qpn(box->qp);
}
