/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Kernels of the dpa_verbs_traffic program: RPCs that post one work request
 * on a verbs queue pair, commit it and report its completion.
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_verbs.h>

/* Waits for the next element of `comp`, acknowledges it and returns it as
 * type << 56 | immediate << 16 | WQE counter. */
static uint64_t next_completion(doca_dpa_dev_completion_t comp)
{
	doca_dpa_dev_completion_element_t e;

	while (!doca_dpa_dev_get_completion(comp, &e))
		;
	doca_dpa_dev_completion_ack(comp, 1);
	return ((uint64_t)doca_dpa_dev_get_completion_type(e) << 56) |
	       ((uint64_t)doca_dpa_dev_get_completion_immediate(e) << 16) |
	       doca_dpa_dev_completion_element_get_wqe_counter(e);
}

/* Posts and commits one signalled send work request on `qp` from
 * [local, +len) (map lkey) to remote/rkey, with `imm` as the immediate and as
 * an atomic's addend, and returns its completion, with bit 63 set when the
 * completion's WQE counter is the count the post returned. */
__dpa_rpc__ uint64_t post_one(doca_dpa_dev_verbs_qp_t qp, doca_dpa_dev_completion_t comp, uint32_t opcode,
			      uint64_t local, uint32_t lkey, uint32_t len, uint64_t remote, uint32_t rkey, uint32_t imm)
{
	struct doca_dpa_dev_verbs_send_wr wr;
	struct doca_dpa_dev_verbs_sge sge = {.addr = local, .length = len, .lkey = lkey};
	uint32_t count;
	uint64_t c;

	doca_dpa_dev_verbs_send_wr_set_sg_list(&wr, &sge);
	doca_dpa_dev_verbs_send_wr_set_sg_num_sge(&wr, 1);
	doca_dpa_dev_verbs_send_wr_set_opcode(&wr, (enum doca_dpa_dev_verbs_send_wr_opcode)opcode);
	doca_dpa_dev_verbs_send_wr_set_send_flags(&wr, DOCA_DPA_DEV_VERBS_SEND_WR_FLAGS_SIGNALED);
	doca_dpa_dev_verbs_send_wr_set_fence_mode(&wr, DOCA_DPA_DEV_VERBS_SEND_WR_FM_NO_FENCE);
	doca_dpa_dev_verbs_send_wr_set_rdma_remote_addr(&wr, remote);
	doca_dpa_dev_verbs_send_wr_set_rdma_rkey(&wr, rkey);
	doca_dpa_dev_verbs_send_wr_set_imm_data(&wr, imm);
	doca_dpa_dev_verbs_send_wr_set_atomic_compare_add(&wr, imm);
	count = doca_dpa_dev_verbs_qp_post_send_wr(qp, &wr);
	doca_dpa_dev_verbs_qp_commit_send(qp);
	c = next_completion(comp);
	return (c & 0xffff) == (count & 0xffff) ? c | (1ull << 63) : c;
}

/* Posts and commits a receive into [local, +len) (map lkey); its count. */
__dpa_rpc__ uint64_t post_receive(doca_dpa_dev_verbs_qp_t qp, uint64_t local, uint32_t lkey, uint32_t len)
{
	struct doca_dpa_dev_verbs_recv_wr wr;
	struct doca_dpa_dev_verbs_sge sge = {.addr = local, .length = len, .lkey = lkey};
	uint32_t count;

	doca_dpa_dev_verbs_recv_wr_set_sg_list(&wr, &sge);
	doca_dpa_dev_verbs_recv_wr_set_sg_num_sge(&wr, 1);
	count = doca_dpa_dev_verbs_qp_post_recv_wr(qp, &wr);
	doca_dpa_dev_verbs_qp_commit_recv(qp);
	return count;
}

/* The next completion of `comp` (see next_completion). */
__dpa_rpc__ uint64_t take_completion(doca_dpa_dev_completion_t comp)
{
	return next_completion(comp);
}

/* The queue pair's number, as the device sees it. */
__dpa_rpc__ uint64_t qp_number(doca_dpa_dev_verbs_qp_t qp)
{
	return doca_dpa_dev_verbs_qp_get_qpn(qp);
}
