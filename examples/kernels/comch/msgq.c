/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Kernels of examples/dpa_msgq.rs (DPA Comms): two DPA threads exchange messages
 * over two DOCA Comch message queues. Ping sends 1, 2, ... MSGQ_ROUNDS to pong,
 * pong answers each with ten times it, and ping sends the next once the answer
 * arrived. Built only where the install has DOCA Comch (see
 * tests/kernels-pkg/build.rs).
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_comch_msgq.h>
#include <doca_dpa_dev_sync_event.h>

/* The rounds of the exchange. */
#define MSGQ_ROUNDS 5

/* Flush the send at once; report it on the producer's DPA completion context only
 * on errors (as NVIDIA's nvme_emulation posts). */
#define MSGQ_SEND_FLAGS (DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH | DOCA_DPA_DEV_SUBMIT_FLAG_OPTIMIZE_REPORTS)

/* One side of the exchange, in DPA memory; its address is its thread's argument. */
struct msgq_side {
	doca_dpa_dev_comch_producer_t producer;			/* of the queue it sends on */
	doca_dpa_dev_comch_consumer_t consumer;			/* of the queue it receives on */
	doca_dpa_dev_comch_consumer_completion_t completion;	/* its consumer's, waking it */
	doca_dpa_dev_sync_event_t done;				/* +1 once its last message is handled */
	doca_dpa_dev_uintptr_t log;				/* uint32_t[MSGQ_ROUNDS]: values received */
	uint32_t peer;						/* the consumer id it sends to */
	uint32_t pong;						/* 1 on the answering side */
	uint32_t received;					/* messages received */
	uint32_t sender;					/* producer id of the last message */
	uint32_t busy;						/* sends that found the peer with no receive posted */
	uint32_t bytes;						/* immediate-data length of the last message */
};

static void send_value(struct msgq_side *s, uint32_t value)
{
	/* A full queue (no receive posted at the peer): counted; the send waits for one. */
	if (doca_dpa_dev_comch_producer_is_consumer_empty(s->producer, s->peer))
		s->busy++;
	doca_dpa_dev_comch_producer_post_send_imm_only(s->producer, s->peer, (const uint8_t *)&value, sizeof(value),
						       MSGQ_SEND_FLAGS);
}

/*
 * Runs when its consumer completion context has a message: reads every message,
 * answers it, acknowledges the elements, posts as many receives again and asks to
 * be woken by the next. The event update comes last, so that once the host saw it
 * the thread makes no further Comch call.
 */
__dpa_global__ void msgq_thread(doca_dpa_dev_uintptr_t arg)
{
	struct msgq_side *s = (struct msgq_side *)arg;
	uint32_t *log = (uint32_t *)s->log;
	doca_dpa_dev_comch_consumer_completion_element_t e;
	uint32_t n = 0, last = 0;

	while (doca_dpa_dev_comch_consumer_get_completion(s->completion, &e)) {
		uint32_t len = 0, value = 0;
		const uint8_t *imm = doca_dpa_dev_comch_consumer_get_completion_imm(e, &len);

		for (uint32_t i = 0; i < len && i < sizeof(value); i++)
			((uint8_t *)&value)[i] = imm[i];
		if (s->received < MSGQ_ROUNDS)
			log[s->received] = value;
		s->received++;
		s->bytes = len;
		s->sender = doca_dpa_dev_comch_consumer_get_completion_producer_id(e);
		n++;
		last = value;
		if (s->pong)
			send_value(s, value * 10);
		else if (value / 10 < MSGQ_ROUNDS)
			send_value(s, value / 10 + 1);
	}
	if (n != 0) {
		doca_dpa_dev_comch_consumer_completion_ack(s->completion, n);
		doca_dpa_dev_comch_consumer_ack(s->consumer, n);
	}
	doca_dpa_dev_comch_consumer_completion_request_notification(s->completion);
	if (n != 0 && s->received == MSGQ_ROUNDS && (s->pong || last / 10 == MSGQ_ROUNDS))
		doca_dpa_dev_sync_event_update_add(s->done, 1);
	doca_dpa_dev_thread_reschedule();
}

/*
 * Posts `receives` receives on both consumers, then sends the first value, 1, with
 * `producer` to consumer `to` of its queue.
 */
__dpa_rpc__ uint64_t msgq_start(doca_dpa_dev_comch_consumer_t ping, doca_dpa_dev_comch_consumer_t pong,
				doca_dpa_dev_comch_producer_t producer, uint32_t to, uint32_t receives)
{
	uint32_t first = 1;

	doca_dpa_dev_comch_consumer_ack(ping, receives);
	doca_dpa_dev_comch_consumer_ack(pong, receives);
	doca_dpa_dev_comch_producer_post_send_imm_only(producer, to, (const uint8_t *)&first, sizeof(first),
						       MSGQ_SEND_FLAGS);
	return 0;
}
