/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * DPA Verbs: two queue pairs on one DPA context's datapath, made as NVIDIA's
 * dpa_verbs_initiator_target makes them (external UMEMs and a UAR on the
 * DPA, DPA completion contexts) and connected to each other. RPCs post work
 * requests on them; the program prints each completion and what arrived, and
 * checks the lifecycle errors on the way. It tears down as the sample does:
 * UMEMs and UAR before the queue pairs made with them.
 */
#include <string.h>

#include <doca_mmap.h>
#include <doca_uar.h>
#include <doca_umem.h>
#include <doca_verbs.h>

#include "check.h"

extern struct doca_dpa_app *dpa_verbs_traffic_app;
doca_dpa_func_t post_one;
doca_dpa_func_t post_receive;
doca_dpa_func_t take_completion;
doca_dpa_func_t qp_number;

/* The opcodes of enum doca_dpa_dev_verbs_send_wr_opcode (a device header). */
#define OP_WRITE 0x8u
#define OP_SEND 0xAu
#define OP_SEND_WITH_IMM 0xBu
#define OP_READ 0x10u
#define OP_ATOMIC_FETCH_ADD 0x12u

#define ALL_ACCESS                                                                                           \
	(DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |         \
	 DOCA_ACCESS_FLAG_RDMA_ATOMIC)

struct side {
	struct doca_verbs_qp *qp;
	struct doca_dpa_completion *comp;
	doca_dpa_dev_verbs_qp_t qp_handle;
	doca_dpa_dev_completion_t comp_handle;
	struct doca_umem *ring, *dbr;
	doca_dpa_dev_uintptr_t ring_mem, dbr_mem;
};

static struct doca_umem *dpa_umem(struct doca_dpa *dpa, size_t size, doca_dpa_dev_uintptr_t *mem)
{
	struct doca_umem *umem = NULL;

	CHECK(doca_dpa_mem_alloc(dpa, size, mem));
	EXPECT(DOCA_ERROR_INVALID_VALUE, doca_umem_dpa_create(dpa, *mem, size + 4096, ALL_ACCESS, &umem));
	CHECK(doca_umem_dpa_create(dpa, *mem, size, ALL_ACCESS, &umem));
	return umem;
}

static struct side side(struct doca_dpa *dpa, struct doca_verbs_context *vctx, struct doca_verbs_pd *pd,
			struct doca_uar *uar, uint32_t qp_type)
{
	struct side s;
	struct doca_verbs_qp_init_attr *init = NULL;

	CHECK(doca_dpa_completion_create(dpa, 16, &s.comp));
	CHECK(doca_dpa_completion_start(s.comp));
	CHECK(doca_dpa_completion_get_dpa_handle(s.comp, &s.comp_handle));
	s.ring = dpa_umem(dpa, 8192, &s.ring_mem);
	s.dbr = dpa_umem(dpa, 64, &s.dbr_mem);
	CHECK(doca_verbs_qp_init_attr_create(&init));
	CHECK(doca_verbs_qp_init_attr_set_pd(init, pd));
	CHECK(doca_verbs_qp_init_attr_set_sq_wr(init, 8));
	CHECK(doca_verbs_qp_init_attr_set_rq_wr(init, 8));
	CHECK(doca_verbs_qp_init_attr_set_send_max_sges(init, 1));
	CHECK(doca_verbs_qp_init_attr_set_receive_max_sges(init, 1));
	CHECK(doca_verbs_qp_init_attr_set_qp_type(init, qp_type));
	CHECK(doca_verbs_qp_init_attr_set_external_datapath_en(init, 1));
	CHECK(doca_verbs_qp_init_attr_set_external_umem(init, s.ring, 0));
	CHECK(doca_verbs_qp_init_attr_set_external_dbr_umem(init, s.dbr, 0));
	CHECK(doca_verbs_qp_init_attr_set_external_uar(init, uar));
	CHECK(doca_verbs_qp_init_attr_set_send_dpa_completion(init, s.comp));
	CHECK(doca_verbs_qp_init_attr_set_receive_dpa_completion(init, s.comp));
	CHECK(doca_verbs_qp_create(vctx, init, &s.qp));
	CHECK(doca_verbs_qp_init_attr_destroy(init));
	CHECK(doca_verbs_qp_get_dpa_handle(s.qp, dpa, &s.qp_handle));
	return s;
}

/* Moves `s` to `state`, connected to `peer` from RTR on; rnr_retry only when not 0. */
static void modify(struct side *s, enum doca_verbs_qp_state state, uint32_t peer, uint16_t rnr_retry)
{
	struct doca_verbs_qp_attr *attr = NULL;
	int mask = DOCA_VERBS_QP_ATTR_NEXT_STATE;

	CHECK(doca_verbs_qp_attr_create(&attr));
	CHECK(doca_verbs_qp_attr_set_next_state(attr, state));
	if (state == DOCA_VERBS_QP_STATE_INIT) {
		CHECK(doca_verbs_qp_attr_set_allow_remote_write(attr, 1));
		CHECK(doca_verbs_qp_attr_set_allow_remote_read(attr, 1));
		mask |= DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_WRITE | DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_READ;
	}
	if (state == DOCA_VERBS_QP_STATE_RTR) {
		CHECK(doca_verbs_qp_attr_set_dest_qp_num(attr, peer));
		mask |= DOCA_VERBS_QP_ATTR_DEST_QP_NUM;
	}
	if (state == DOCA_VERBS_QP_STATE_RTS && rnr_retry) {
		CHECK(doca_verbs_qp_attr_set_rnr_retry(attr, rnr_retry));
		mask |= DOCA_VERBS_QP_ATTR_RNR_RETRY;
	}
	EXPECT(DOCA_ERROR_INVALID_VALUE, doca_verbs_qp_attr_set_rnr_retry(attr, 8));
	CHECK(doca_verbs_qp_modify(s->qp, attr, mask));
	CHECK(doca_verbs_qp_attr_destroy(attr));
}

/* What doca_verbs_qp_modify answers to moving `s` to `state` with no other attribute. */
static doca_error_t try_modify(struct side *s, enum doca_verbs_qp_state state)
{
	struct doca_verbs_qp_attr *attr = NULL;
	doca_error_t err;

	CHECK(doca_verbs_qp_attr_create(&attr));
	CHECK(doca_verbs_qp_attr_set_next_state(attr, state));
	err = doca_verbs_qp_modify(s->qp, attr, DOCA_VERBS_QP_ATTR_NEXT_STATE);
	CHECK(doca_verbs_qp_attr_destroy(attr));
	return err;
}

/* Connects `a` and `b` from any state (RST -> INIT -> RTR -> RTS), `b` with `rnr_b`:
 * a work request that fails moves its queue pair (and a reliable responder) to the
 * error state, and this is the way back. */
static void connect_pair(struct side *a, struct side *b, uint16_t rnr_b)
{
	enum doca_verbs_qp_state states[] = {DOCA_VERBS_QP_STATE_RST, DOCA_VERBS_QP_STATE_INIT,
					     DOCA_VERBS_QP_STATE_RTR, DOCA_VERBS_QP_STATE_RTS};

	for (int i = 0; i < 4; i++) {
		modify(a, states[i], doca_verbs_qp_get_qpn(b->qp), 0);
		modify(b, states[i], doca_verbs_qp_get_qpn(a->qp), rnr_b);
	}
}

static void destroy_side(struct doca_dpa *dpa, struct side *s)
{
	CHECK(doca_umem_destroy(s->ring));
	CHECK(doca_umem_destroy(s->dbr));
	CHECK(doca_dpa_mem_free(dpa, s->ring_mem));
	CHECK(doca_dpa_mem_free(dpa, s->dbr_mem));
	CHECK(doca_verbs_qp_destroy(s->qp));
	CHECK(doca_dpa_completion_stop(s->comp));
	CHECK(doca_dpa_completion_destroy(s->comp));
}

static struct doca_mmap *map(struct doca_dev *dev, void *mem, size_t len, uint32_t access, doca_dpa_dev_mmap_t *handle)
{
	struct doca_mmap *m = NULL;

	CHECK(doca_mmap_create(&m));
	CHECK(doca_mmap_set_memrange(m, mem, len));
	CHECK(doca_mmap_set_permissions(m, access));
	CHECK(doca_mmap_add_dev(m, dev));
	CHECK(doca_mmap_start(m));
	CHECK(doca_mmap_dev_get_dpa_handle(m, dev, handle));
	return m;
}

/* Prints a completion as post_one / take_completion return it. */
static void print_completion(const char *what, uint64_t c)
{
	printf("%s: completion type 0x%x, immediate 0x%x%s\n", what, (unsigned int)((c >> 56) & 0x7f),
	       (unsigned int)((c >> 16) & 0xffffffff), (c >> 63) ? ", counter of its post" : "");
}

int main(void)
{
	struct doca_dev *dev = open_dpa_device();
	struct doca_dpa *dpa = start_dpa(dev, dpa_verbs_traffic_app);
	struct doca_verbs_context *vctx = NULL;
	struct doca_verbs_pd *pd = NULL;
	struct doca_uar *uar = NULL;
	uint64_t local[4] = {0x1122334455667788ull, 0x99aabbccddeeff00ull, 0, 0};
	uint64_t remote[4] = {0};
	uint64_t readonly[1] = {0};
	doca_dpa_dev_mmap_t local_h, remote_h, readonly_h;
	uint64_t ret = 0, qpn = 0;

	CHECK(doca_verbs_context_create(doca_dev_as_devinfo(dev), DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE, &vctx));
	CHECK(doca_verbs_pd_create(vctx, &pd));
	CHECK(doca_uar_dpa_create(dpa, &uar));
	struct doca_mmap *lm = map(dev, local, sizeof(local), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, &local_h);
	struct doca_mmap *rm = map(dev, remote, sizeof(remote), ALL_ACCESS, &remote_h);
	struct doca_mmap *om = map(dev, readonly, sizeof(readonly), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, &readonly_h);

	struct side a = side(dpa, vctx, pd, uar, DOCA_VERBS_QP_TYPE_RC);
	struct side b = side(dpa, vctx, pd, uar, DOCA_VERBS_QP_TYPE_RC);
	CHECK(doca_dpa_rpc(dpa, &qp_number, &qpn, a.qp_handle));
	ASSERT(qpn == doca_verbs_qp_get_qpn(a.qp) && qpn != 0);

	/* Before the queue pairs are connected, a work request is flushed with an error. */
	CHECK(doca_dpa_rpc(dpa, &post_one, &ret, a.qp_handle, a.comp_handle,
			   OP_WRITE, (uint64_t)(uintptr_t)&local[0], local_h,
			   (uint32_t)8, (uint64_t)(uintptr_t)&remote[0], remote_h, (uint32_t)0));
	print_completion("write before RTS", ret);

	connect_pair(&a, &b, 7);

	CHECK(doca_dpa_rpc(dpa, &post_one, &ret, a.qp_handle, a.comp_handle,
			   OP_WRITE, (uint64_t)(uintptr_t)&local[0], local_h,
			   (uint32_t)8, (uint64_t)(uintptr_t)&remote[0], remote_h, (uint32_t)0));
	print_completion("write", ret);
	printf("write: remote[0] = 0x%llx\n", (unsigned long long)remote[0]);

	CHECK(doca_dpa_rpc(dpa, &post_one, &ret, a.qp_handle, a.comp_handle,
			   OP_READ, (uint64_t)(uintptr_t)&local[2], local_h,
			   (uint32_t)8, (uint64_t)(uintptr_t)&remote[0], remote_h, (uint32_t)0));
	print_completion("read", ret);
	printf("read: local[2] = 0x%llx\n", (unsigned long long)local[2]);

	CHECK(doca_dpa_rpc(dpa, &post_one, &ret, a.qp_handle, a.comp_handle, OP_ATOMIC_FETCH_ADD,
			   (uint64_t)(uintptr_t)&local[3], local_h, (uint32_t)8, (uint64_t)(uintptr_t)&remote[0], remote_h,
			   (uint32_t)5));
	print_completion("fetch and add", ret);
	printf("fetch and add: old value 0x%llx, remote[0] = 0x%llx\n", (unsigned long long)local[3],
	       (unsigned long long)remote[0]);
	remote[0] -= 5;

	CHECK(doca_dpa_rpc(dpa, &post_receive, &ret, b.qp_handle, (uint64_t)(uintptr_t)&remote[1], remote_h,
			   (uint32_t)16));
	CHECK(doca_dpa_rpc(dpa, &post_one, &ret, a.qp_handle, a.comp_handle,
			   OP_SEND, (uint64_t)(uintptr_t)&local[0], local_h,
			   (uint32_t)16, (uint64_t)0, (uint32_t)0, (uint32_t)0));
	print_completion("send", ret);
	CHECK(doca_dpa_rpc(dpa, &take_completion, &ret, b.comp_handle));
	print_completion("send at the target", ret);
	printf("send: remote[1..3] = 0x%llx 0x%llx\n", (unsigned long long)remote[1], (unsigned long long)remote[2]);

	CHECK(doca_dpa_rpc(dpa, &post_receive, &ret, b.qp_handle, (uint64_t)(uintptr_t)&remote[3], remote_h,
			   (uint32_t)8));
	CHECK(doca_dpa_rpc(dpa, &post_one, &ret, a.qp_handle, a.comp_handle,
			   OP_SEND_WITH_IMM, (uint64_t)(uintptr_t)&local[1],
			   local_h, (uint32_t)8, (uint64_t)0, (uint32_t)0, (uint32_t)0xabc));
	print_completion("send with immediate", ret);
	CHECK(doca_dpa_rpc(dpa, &take_completion, &ret, b.comp_handle));
	print_completion("send with immediate at the target", ret);

	/* A key without remote write permission, and a send no receive waits for
	 * (the initiator's rnr_retry is 0): errors for the initiator. */
	CHECK(doca_dpa_rpc(dpa, &post_one, &ret, a.qp_handle, a.comp_handle,
			   OP_WRITE, (uint64_t)(uintptr_t)&local[0], local_h,
			   (uint32_t)8, (uint64_t)(uintptr_t)&readonly[0], readonly_h, (uint32_t)0));
	print_completion("write to a map without remote write", ret);
	/* The error moved both queue pairs to the error state: the host cannot move
	 * them to RTS, and a work request posted now is flushed, nothing written. */
	EXPECT(DOCA_ERROR_BAD_STATE, try_modify(&a, DOCA_VERBS_QP_STATE_RTS));
	EXPECT(DOCA_ERROR_BAD_STATE, try_modify(&b, DOCA_VERBS_QP_STATE_RTS));
	CHECK(doca_dpa_rpc(dpa, &post_one, &ret, a.qp_handle, a.comp_handle,
			   OP_WRITE, (uint64_t)(uintptr_t)&local[1], local_h,
			   (uint32_t)8, (uint64_t)(uintptr_t)&remote[0], remote_h, (uint32_t)0));
	print_completion("write after the error", ret);
	printf("write after the error: remote[0] = 0x%llx\n", (unsigned long long)remote[0]);
	connect_pair(&a, &b, 7);
	CHECK(doca_dpa_rpc(dpa, &post_one, &ret, a.qp_handle, a.comp_handle,
			   OP_SEND, (uint64_t)(uintptr_t)&local[0], local_h,
			   (uint32_t)8, (uint64_t)0, (uint32_t)0, (uint32_t)0));
	print_completion("send without a receive", ret);
	printf("readonly[0] = 0x%llx\n", (unsigned long long)readonly[0]);
	connect_pair(&a, &b, 7);

	/* A receive whose map is destroyed before a message arrives: nothing is
	 * written there, the receiver gets an error element, the sender an error. */
	uint64_t gone[1] = {0};
	doca_dpa_dev_mmap_t gone_h;
	struct doca_mmap *gm = map(dev, gone, sizeof(gone), ALL_ACCESS, &gone_h);
	CHECK(doca_dpa_rpc(dpa, &post_receive, &ret, b.qp_handle, (uint64_t)(uintptr_t)&gone[0], gone_h, (uint32_t)8));
	CHECK(doca_mmap_destroy(gm));
	CHECK(doca_dpa_rpc(dpa, &post_one, &ret, a.qp_handle, a.comp_handle, OP_SEND, (uint64_t)(uintptr_t)&local[0],
			   local_h, (uint32_t)8, (uint64_t)0, (uint32_t)0, (uint32_t)0));
	print_completion("send into a receive whose map is gone", ret);
	CHECK(doca_dpa_rpc(dpa, &take_completion, &ret, b.comp_handle));
	print_completion("send into a receive whose map is gone, at the target", ret);
	printf("gone[0] = 0x%llx\n", (unsigned long long)gone[0]);
	connect_pair(&a, &b, 7);

	/* A local key without local write: a source of a write (local reads are
	 * always allowed), never a destination (a read's result, an atomic's old
	 * value, a receive): those fail and write nothing, and an atomic whose old
	 * value cannot land is not applied. */
	uint64_t nowrite[2] = {0x5151, 0};
	doca_dpa_dev_mmap_t nowrite_h;
	struct doca_mmap *nm = map(dev, nowrite, sizeof(nowrite), DOCA_ACCESS_FLAG_RDMA_READ, &nowrite_h);
	CHECK(doca_dpa_rpc(dpa, &post_one, &ret, a.qp_handle, a.comp_handle, OP_WRITE, (uint64_t)(uintptr_t)&nowrite[0],
			   nowrite_h, (uint32_t)8, (uint64_t)(uintptr_t)&remote[3], remote_h, (uint32_t)0));
	print_completion("write from a map without local write", ret);
	printf("write from a map without local write: remote[3] = 0x%llx\n", (unsigned long long)remote[3]);
	CHECK(doca_dpa_rpc(dpa, &post_one, &ret, a.qp_handle, a.comp_handle, OP_READ, (uint64_t)(uintptr_t)&nowrite[1],
			   nowrite_h, (uint32_t)8, (uint64_t)(uintptr_t)&remote[0], remote_h, (uint32_t)0));
	print_completion("read into a map without local write", ret);
	connect_pair(&a, &b, 7);
	CHECK(doca_dpa_rpc(dpa, &post_one, &ret, a.qp_handle, a.comp_handle, OP_ATOMIC_FETCH_ADD,
			   (uint64_t)(uintptr_t)&nowrite[1], nowrite_h, (uint32_t)8, (uint64_t)(uintptr_t)&remote[0],
			   remote_h, (uint32_t)5));
	print_completion("fetch and add into a map without local write", ret);
	connect_pair(&a, &b, 7);
	CHECK(doca_dpa_rpc(dpa, &post_receive, &ret, b.qp_handle, (uint64_t)(uintptr_t)&nowrite[1], nowrite_h,
			   (uint32_t)8));
	CHECK(doca_dpa_rpc(dpa, &post_one, &ret, a.qp_handle, a.comp_handle, OP_SEND, (uint64_t)(uintptr_t)&local[0],
			   local_h, (uint32_t)8, (uint64_t)0, (uint32_t)0, (uint32_t)0));
	print_completion("send into a receive without local write", ret);
	CHECK(doca_dpa_rpc(dpa, &take_completion, &ret, b.comp_handle));
	print_completion("send into a receive without local write, at the target", ret);
	printf("nowrite[1] = 0x%llx, remote[0] = 0x%llx\n", (unsigned long long)nowrite[1],
	       (unsigned long long)remote[0]);

	/* Unreliable connections have sends and writes, no reads or atomics: those
	 * fail at the initiator (a local QP operation error) and copy nothing. */
	struct side c = side(dpa, vctx, pd, uar, DOCA_VERBS_QP_TYPE_UC);
	struct side d = side(dpa, vctx, pd, uar, DOCA_VERBS_QP_TYPE_UC);
	connect_pair(&c, &d, 0);
	local[2] = 0;
	CHECK(doca_dpa_rpc(dpa, &post_one, &ret, c.qp_handle, c.comp_handle, OP_READ, (uint64_t)(uintptr_t)&local[2],
			   local_h, (uint32_t)8, (uint64_t)(uintptr_t)&remote[0], remote_h, (uint32_t)0));
	print_completion("read on an unreliable connection", ret);
	connect_pair(&c, &d, 0);
	CHECK(doca_dpa_rpc(dpa, &post_one, &ret, c.qp_handle, c.comp_handle, OP_ATOMIC_FETCH_ADD,
			   (uint64_t)(uintptr_t)&local[2], local_h, (uint32_t)8, (uint64_t)(uintptr_t)&remote[0], remote_h,
			   (uint32_t)5));
	print_completion("fetch and add on an unreliable connection", ret);
	connect_pair(&c, &d, 0);
	CHECK(doca_dpa_rpc(dpa, &post_one, &ret, c.qp_handle, c.comp_handle, OP_WRITE, (uint64_t)(uintptr_t)&local[0],
			   local_h, (uint32_t)8, (uint64_t)(uintptr_t)&remote[2], remote_h, (uint32_t)0));
	print_completion("write on an unreliable connection", ret);
	printf("unreliable connection: local[2] = 0x%llx, remote[0] = 0x%llx, remote[2] = 0x%llx\n",
	       (unsigned long long)local[2], (unsigned long long)remote[0], (unsigned long long)remote[2]);
	CHECK(doca_dpa_peek_at_last_error(dpa));

	destroy_side(dpa, &a);
	destroy_side(dpa, &b);
	destroy_side(dpa, &c);
	destroy_side(dpa, &d);
	CHECK(doca_mmap_destroy(nm));
	CHECK(doca_uar_destroy(uar));
	CHECK(doca_mmap_destroy(lm));
	CHECK(doca_mmap_destroy(rm));
	CHECK(doca_mmap_destroy(om));
	CHECK(doca_verbs_pd_destroy(pd));
	CHECK(doca_verbs_context_destroy(vctx));
	CHECK(doca_dpa_stop(dpa));
	CHECK(doca_dpa_destroy(dpa));
	CHECK(doca_dev_close(dev));
	printf("done\n");
	return 0;
}
