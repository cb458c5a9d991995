/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Two DPA threads exchanging messages over two DOCA Comch message queues:
 * ping sends 1, 2, 3 to pong, pong answers each with ten times it, and ping
 * sends the next once the answer arrived. Each thread runs when its consumer
 * completion context has a message, reads every message, acknowledges the
 * elements, posts as many receives again and asks to be woken by the next.
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_comch_msgq.h>
#include <doca_dpa_dev_sync_event.h>

#include "shared.h"

static void send_value(struct side *s, uint32_t value)
{
	if (doca_dpa_dev_comch_producer_is_consumer_empty(s->producer, s->peer_consumer_id))
		DOCA_DPA_DEV_LOG_ERR("consumer %u has no receive posted\n", (unsigned int)s->peer_consumer_id);
	doca_dpa_dev_comch_producer_post_send_imm_only(s->producer, s->peer_consumer_id, (const uint8_t *)&value,
						       sizeof(value), DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH);
}

/* Reads the messages waiting; calls `on_message` for each. */
static void drain(struct side *s, int pong)
{
	doca_dpa_dev_comch_consumer_completion_element_t e;
	uint32_t n = 0;

	while (doca_dpa_dev_comch_consumer_get_completion(s->consumer_comp, &e)) {
		uint32_t len = 0;
		const uint8_t *imm = doca_dpa_dev_comch_consumer_get_completion_imm(e, &len);
		uint32_t value = 0;

		for (uint32_t i = 0; i < len && i < sizeof(value); i++)
			((uint8_t *)&value)[i] = imm[i];
		s->seen++;
		n++;
		DOCA_DPA_DEV_LOG_INFO("%s got %u (%u bytes) from producer %u\n", pong ? "pong" : "ping",
				      (unsigned int)value, (unsigned int)len,
				      (unsigned int)doca_dpa_dev_comch_consumer_get_completion_producer_id(e));
		if (pong)
			send_value(s, value * 10);
		else if (value / 10 < ROUNDS)
			send_value(s, value / 10 + 1);
		else
			doca_dpa_dev_sync_event_update_set(s->done, 1);
	}
	if (n != 0) {
		doca_dpa_dev_comch_consumer_completion_ack(s->consumer_comp, n);
		doca_dpa_dev_comch_consumer_ack(s->consumer, n);
	}
	doca_dpa_dev_comch_consumer_completion_request_notification(s->consumer_comp);
}

__dpa_global__ void ping_thread(uint64_t arg)
{
	drain((struct side *)arg, 0);
	doca_dpa_dev_thread_reschedule();
}

__dpa_global__ void pong_thread(uint64_t arg)
{
	drain((struct side *)arg, 1);
	doca_dpa_dev_thread_reschedule();
}

/* Posts the first receives of both consumers and sends the first ping. */
__dpa_global__ void start_exchange(uint64_t ping, uint64_t pong)
{
	struct side *a = (struct side *)ping;
	struct side *b = (struct side *)pong;

	doca_dpa_dev_comch_consumer_ack(a->consumer, RECEIVES);
	doca_dpa_dev_comch_consumer_ack(b->consumer, RECEIVES);
	send_value(a, 1);
}
