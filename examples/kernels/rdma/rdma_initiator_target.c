/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Kernels of examples/rdma_initiator_target.rs: an initiator RDMA context
 * sends numbered values with immediates over two connections; a DPA thread of
 * the target, woken by its completion context, logs each receive and reposts
 * the receive buffer, and once every value arrived wakes a second thread
 * through a notification completion, which tells the host.
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_rdma.h>
#include <doca_dpa_dev_sync_event.h>

/* How many values the initiator sends. */
#define IT_VALUES 4

/* The target's receiving thread's state, in DPA memory (its argument). */
struct it_target_state {
	doca_dpa_dev_completion_t comp;                  /* the target's completion context */
	doca_dpa_dev_notification_completion_t notify;   /* wakes the reporting thread */
	doca_dpa_dev_rdma_t rdma;                        /* the target context */
	doca_dpa_dev_uintptr_t recv_buf;                 /* one uint64_t, DPA memory */
	doca_dpa_dev_mmap_t recv_mmap;                   /* its map */
	uint32_t pad;
	doca_dpa_dev_uintptr_t log;                      /* uint64_t[3 * IT_VALUES] */
	uint64_t received;
};

/* The reporting thread's state. */
struct it_report_state {
	doca_dpa_dev_sync_event_t done; /* the event the host waits on */
	uint64_t value;                 /* what it sets */
};

/*
 * One receive per activation, as the completion context wakes the thread: log
 * (value, immediate, completion type), acknowledge, and repost the receive or,
 * after the last value, wake the reporting thread and finish.
 */
__dpa_global__ void it_target_thread(doca_dpa_dev_uintptr_t arg)
{
	struct it_target_state *s = (struct it_target_state *)arg;
	uint64_t *log = (uint64_t *)s->log;
	doca_dpa_dev_completion_element_t e;

	if (doca_dpa_dev_get_completion(s->comp, &e)) {
		uint64_t i = s->received;
		if (i < IT_VALUES) {
			log[3 * i] = *(volatile uint64_t *)s->recv_buf;
			log[3 * i + 1] = doca_dpa_dev_get_completion_immediate(e);
			log[3 * i + 2] = doca_dpa_dev_get_completion_type(e);
		}
		s->received = i + 1;
		doca_dpa_dev_completion_ack(s->comp, 1);
		if (s->received == IT_VALUES) {
			doca_dpa_dev_thread_notify(s->notify);
			doca_dpa_dev_thread_finish();
		}
		doca_dpa_dev_rdma_post_receive(s->rdma, s->recv_mmap, s->recv_buf, sizeof(uint64_t));
	}
	doca_dpa_dev_completion_request_notification(s->comp);
	doca_dpa_dev_thread_reschedule();
}

/* Tells the host that every value arrived. */
__dpa_global__ void it_report_thread(doca_dpa_dev_uintptr_t arg)
{
	struct it_report_state *s = (struct it_report_state *)arg;

	doca_dpa_dev_sync_event_update_set(s->done, s->value);
	doca_dpa_dev_thread_finish();
}

/* Posts the target's first receive. */
__dpa_rpc__ uint64_t it_post_receive(doca_dpa_dev_rdma_t rdma, doca_dpa_dev_mmap_t mmap,
				     doca_dpa_dev_uintptr_t buf)
{
	doca_dpa_dev_rdma_post_receive(rdma, mmap, buf, sizeof(uint64_t));
	return 0;
}

/*
 * Sends `value` with `immediate` on connection `connection_id` of the
 * initiator, from slot `slot` of the send buffer (each send has its own slot:
 * the device may read it after the call returns).
 */
__dpa_rpc__ uint64_t it_post_send_imm(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
				      doca_dpa_dev_mmap_t mmap, doca_dpa_dev_uintptr_t slots, uint32_t slot,
				      uint64_t value, uint32_t immediate)
{
	uint64_t *send = (uint64_t *)slots + slot;

	*send = value;
	doca_dpa_dev_rdma_post_send_imm(rdma, connection_id, mmap, (uint64_t)send, sizeof(uint64_t), immediate,
					DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH | DOCA_DPA_DEV_SUBMIT_FLAG_OPTIMIZE_REPORTS);
	return 0;
}
