/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Kernels of examples/rdma_ping_pong.rs: two RDMA contexts connected to each
 * other, each with a DPA thread woken by its completion context. Every receive
 * marks its value seen, reposts the receive buffer and sends the side's next
 * value back; after PP_VALUES receives a side checks that it saw each value once
 * and sets the event the host waits on.
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_rdma.h>
#include <doca_dpa_dev_sync_event.h>

/* Values each side receives: 0, 1, ..., PP_VALUES - 1. */
#define PP_VALUES 100

#define PP_FLAGS (DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH | DOCA_DPA_DEV_SUBMIT_FLAG_OPTIMIZE_REPORTS)

/* One side's thread state, in DPA memory (the thread's argument). */
struct pp_side {
	doca_dpa_dev_completion_t comp;  /* the side's completion context */
	doca_dpa_dev_rdma_t rdma;        /* the side's context */
	doca_dpa_dev_uintptr_t recv_buf; /* one uint64_t */
	doca_dpa_dev_uintptr_t send_buf; /* uint64_t[PP_VALUES + 1]: slot v holds v */
	doca_dpa_dev_uintptr_t seen;     /* uint64_t[PP_VALUES]: receives of each value */
	doca_dpa_dev_mmap_t recv_mmap;
	doca_dpa_dev_mmap_t send_mmap;
	doca_dpa_dev_sync_event_t done;  /* set to 1 (all seen once) or 2 (not) */
	uint64_t received;
	uint64_t sent;                   /* the next value to send */
};

/* Sends the side's next value, from its own slot of the send buffer. */
static void pp_send_next(struct pp_side *s)
{
	uint64_t *slot = (uint64_t *)s->send_buf + s->sent;

	*slot = s->sent;
	s->sent++;
	doca_dpa_dev_rdma_post_send(s->rdma, 0, s->send_mmap, (uint64_t)slot, sizeof(uint64_t), PP_FLAGS);
}

/* Drains the completions of one activation, then waits for the next. */
__dpa_global__ void pp_thread(doca_dpa_dev_uintptr_t arg)
{
	struct pp_side *s = (struct pp_side *)arg;
	uint64_t *seen = (uint64_t *)s->seen;
	doca_dpa_dev_completion_element_t e;

	while (doca_dpa_dev_get_completion(s->comp, &e)) {
		doca_dpa_dev_completion_type_t type = doca_dpa_dev_get_completion_type(e);

		doca_dpa_dev_completion_ack(s->comp, 1);
		if (type != DOCA_DPA_DEV_COMP_RECV_SEND)
			continue;
		uint64_t value = *(volatile uint64_t *)s->recv_buf;
		if (value < PP_VALUES)
			seen[value]++;
		s->received++;
		doca_dpa_dev_rdma_post_receive(s->rdma, s->recv_mmap, s->recv_buf, sizeof(uint64_t));
		/* The side that sent first has sent `received` values; the other one
		 * answers each receive with its own next value. */
		if (s->sent < PP_VALUES)
			pp_send_next(s);
		if (s->received == PP_VALUES) {
			uint64_t result = 1;
			for (uint32_t v = 0; v < PP_VALUES; v++)
				if (seen[v] != 1)
					result = 2;
			doca_dpa_dev_sync_event_update_set(s->done, result);
			doca_dpa_dev_thread_finish();
		}
	}
	doca_dpa_dev_completion_request_notification(s->comp);
	doca_dpa_dev_thread_reschedule();
}

/* Posts both sides' first receives, then the ping side's first send. */
__dpa_rpc__ uint64_t pp_start(doca_dpa_dev_uintptr_t ping, doca_dpa_dev_uintptr_t pong)
{
	struct pp_side *a = (struct pp_side *)ping;
	struct pp_side *b = (struct pp_side *)pong;

	doca_dpa_dev_rdma_post_receive(a->rdma, a->recv_mmap, a->recv_buf, sizeof(uint64_t));
	doca_dpa_dev_rdma_post_receive(b->rdma, b->recv_mmap, b->recv_buf, sizeof(uint64_t));
	pp_send_next(a);
	return 0;
}
