/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * doca-sim device-side header: DPA Verbs (libdoca_dpa_dev_verbs, DOCA 3.2 and
 * later). Written by the doca-rs project from public facts about DOCA; not
 * NVIDIA's header.
 *
 * A kernel builds work requests and posts them on a verbs queue pair the host
 * created on the DPA datapath (doca_verbs_qp_get_dpa_handle), then commits
 * them; completions arrive in the DPA completion contexts the queue pair was
 * created with. The work-request structures are opaque, as in DOCA: their
 * fields are set through the accessors below, which in the sim are inline
 * functions over doca-sim's own layout of the same size. Queue pair
 * operations the sim models: post/commit of send and receive work requests
 * (RDMA write, write with immediate, send, send with immediate, read, atomic
 * fetch-and-add) and the queue pair number; see docs/sim-model.md ("DPA Verbs").
 */
#ifndef DOCA_DPA_DEV_VERBS_H_
#define DOCA_DPA_DEV_VERBS_H_

#include <doca_dpa_dev.h>

#if DOCA_SIM_DEV_RELEASE < 302
#error "doca_dpa_dev_verbs.h: DPA Verbs arrived with DOCA 3.2; this build declares an older device API (DOCA_SIM_DEV_RELEASE)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** The DPA handle of a verbs queue pair. */
__dpa_global__ typedef uint64_t doca_dpa_dev_verbs_qp_t;

/** A send work request (opaque; 64 bytes). */
struct doca_dpa_dev_verbs_send_wr {
	uint64_t doca_sim_sg_list;
	uint64_t doca_sim_remote_addr;
	uint64_t doca_sim_compare_add;
	uint64_t doca_sim_swap;
	uint32_t doca_sim_num_sge;
	uint32_t doca_sim_opcode;
	uint32_t doca_sim_flags;
	uint32_t doca_sim_fence;
	uint32_t doca_sim_imm;
	uint32_t doca_sim_rkey;
	uint32_t doca_sim_invalidate_rkey;
	uint32_t doca_sim_reserved;
} __attribute__((__packed__, aligned(8)));

/** A receive work request (opaque; 12 bytes). */
struct doca_dpa_dev_verbs_recv_wr {
	uint64_t doca_sim_sg_list;
	uint32_t doca_sim_num_sge;
} __attribute__((__packed__, aligned(8)));

_Static_assert(sizeof(struct doca_dpa_dev_verbs_send_wr) == 64, "a send work request is 64 bytes");

/** Send work request opcodes. */
enum doca_dpa_dev_verbs_send_wr_opcode {
	DOCA_DPA_DEV_VERBS_SEND_WR_OPCODE_WRITE = 0x8,
	DOCA_DPA_DEV_VERBS_SEND_WR_OPCODE_WRITE_WITH_IMM = 0x9,
	DOCA_DPA_DEV_VERBS_SEND_WR_OPCODE_SEND = 0xA,
	DOCA_DPA_DEV_VERBS_SEND_WR_OPCODE_SEND_WITH_IMM = 0xB,
	DOCA_DPA_DEV_VERBS_SEND_WR_OPCODE_READ = 0x10,
	DOCA_DPA_DEV_VERBS_SEND_WR_OPCODE_ATOMIC_FETCH_ADD = 0x12,
};

/** Send work request flags. */
enum doca_dpa_dev_verbs_send_wr_flags {
	/** Report a completion for this work request. */
	DOCA_DPA_DEV_VERBS_SEND_WR_FLAGS_SIGNALED = 1 << 1,
	/** Ask the receiver's completion to be reported as solicited. */
	DOCA_DPA_DEV_VERBS_SEND_WR_FLAGS_SOLICITED = 1 << 2,
};

/** Fence modes (the sim runs work requests in order, so every mode holds). */
enum doca_dpa_dev_verbs_send_wr_fm {
	DOCA_DPA_DEV_VERBS_SEND_WR_FM_NO_FENCE = 0x0,
	DOCA_DPA_DEV_VERBS_SEND_WR_FM_INITIATOR_SMALL_FENCE = 0x1,
	DOCA_DPA_DEV_VERBS_SEND_WR_FM_FENCE = 0x2,
	DOCA_DPA_DEV_VERBS_SEND_WR_FM_STRONG_ORDERING_FENCE = 0x3,
	DOCA_DPA_DEV_VERBS_SEND_WR_FM_FENCE_AND_INITIATOR_SMALL_FENCE = 0x4,
};

/** The lkey that ends a receive's scatter list before its last slot. */
#ifndef DOCA_DPA_DEV_VERBS_SGE_TERMINATING_LKEY
#define DOCA_DPA_DEV_VERBS_SGE_TERMINATING_LKEY (0x100)
#endif

/** A scatter/gather element: memory of a map (lkey: the map's DPA handle in the sim). */
struct doca_dpa_dev_verbs_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

/*
 * Accessors of the work requests: each setter has a getter that returns what
 * was set. An atomic's remote address and key are the work request's remote
 * address and key.
 *
 * DOCA_SIM_VERBS_FIELD(KIND, NAME, FIELD, TYPE) defines
 * doca_dpa_dev_verbs_KIND_wr_set_NAME and _get_NAME over the sim's FIELD.
 */
#define DOCA_SIM_VERBS_FIELD(kind, name, field, type)                                                       \
	static inline void doca_dpa_dev_verbs_##kind##_wr_set_##name(struct doca_dpa_dev_verbs_##kind##_wr *wr, \
								      type value)                             \
	{                                                                                                   \
		wr->doca_sim_##field = (__typeof__(wr->doca_sim_##field))(uintptr_t)value;                  \
	}                                                                                                   \
	static inline type doca_dpa_dev_verbs_##kind##_wr_get_##name(struct doca_dpa_dev_verbs_##kind##_wr *wr) \
	{                                                                                                   \
		return (type)(uintptr_t)wr->doca_sim_##field;                                               \
	}

DOCA_SIM_VERBS_FIELD(send, sg_list, sg_list, struct doca_dpa_dev_verbs_sge *)
DOCA_SIM_VERBS_FIELD(send, sg_num_sge, num_sge, uint32_t)
DOCA_SIM_VERBS_FIELD(send, opcode, opcode, enum doca_dpa_dev_verbs_send_wr_opcode)
DOCA_SIM_VERBS_FIELD(send, send_flags, flags, unsigned int)
DOCA_SIM_VERBS_FIELD(send, fence_mode, fence, enum doca_dpa_dev_verbs_send_wr_fm)
DOCA_SIM_VERBS_FIELD(send, imm_data, imm, uint32_t)
DOCA_SIM_VERBS_FIELD(send, invalidate_rkey, invalidate_rkey, uint32_t)
DOCA_SIM_VERBS_FIELD(send, rdma_remote_addr, remote_addr, uint64_t)
DOCA_SIM_VERBS_FIELD(send, rdma_rkey, rkey, uint32_t)
DOCA_SIM_VERBS_FIELD(send, atomic_remote_addr, remote_addr, uint64_t)
DOCA_SIM_VERBS_FIELD(send, atomic_compare_add, compare_add, uint64_t)
DOCA_SIM_VERBS_FIELD(send, atomic_swap, swap, uint64_t)
DOCA_SIM_VERBS_FIELD(send, atomic_rkey, rkey, uint32_t)
DOCA_SIM_VERBS_FIELD(recv, sg_list, sg_list, struct doca_dpa_dev_verbs_sge *)
DOCA_SIM_VERBS_FIELD(recv, sg_num_sge, num_sge, uint32_t)
#undef DOCA_SIM_VERBS_FIELD

/** Stages a send work request; its count (compare with a completion's WQE counter), 0 on failure. */
uint32_t doca_dpa_dev_verbs_qp_post_send_wr(doca_dpa_dev_verbs_qp_t verbs_qp, struct doca_dpa_dev_verbs_send_wr *send_wr);
/** Stages a receive work request; its count, 0 on failure. */
uint32_t doca_dpa_dev_verbs_qp_post_recv_wr(doca_dpa_dev_verbs_qp_t verbs_qp, struct doca_dpa_dev_verbs_recv_wr *recv_wr);
/** Hands the staged send work requests to the queue pair (in the sim they run now, in order). */
void doca_dpa_dev_verbs_qp_commit_send(doca_dpa_dev_verbs_qp_t verbs_qp);
/** As doca_dpa_dev_verbs_qp_commit_send, without the memory fence (the sim needs none). */
void doca_dpa_dev_verbs_qp_lw_commit_send(doca_dpa_dev_verbs_qp_t verbs_qp);
/** Makes the staged receives available to arriving messages. */
void doca_dpa_dev_verbs_qp_commit_recv(doca_dpa_dev_verbs_qp_t verbs_qp);
/** As doca_dpa_dev_verbs_qp_commit_recv, without the memory fence. */
void doca_dpa_dev_verbs_qp_lw_commit_recv(doca_dpa_dev_verbs_qp_t verbs_qp);
/** The queue pair's number. */
uint32_t doca_dpa_dev_verbs_qp_get_qpn(doca_dpa_dev_verbs_qp_t verbs_qp);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DPA_DEV_VERBS_H_ */
