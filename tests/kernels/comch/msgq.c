/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * The DPA Comms kernels of the tests (tests/comch_flows.rs, tests/soundness.rs,
 * tests/api_fuzz.rs), built only where the install has DOCA Comch (see
 * tests/kernels-pkg/build.rs).
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_comch_msgq.h>

#include "../sound.h"

#define COMCH_FLAGS (DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH | DOCA_DPA_DEV_SUBMIT_FLAG_OPTIMIZE_REPORTS)

/* Posts `n` receives on a consumer. */
__dpa_global__ void comch_post_receives(doca_dpa_dev_comch_consumer_t consumer, uint32_t n)
{
	doca_dpa_dev_comch_consumer_ack(consumer, n);
}

/*
 * Sends `count` messages of 4 bytes, `first`, `first + 1`, ..., to consumer `to`
 * of the producer's queue. More sends than the consumer has receives posted wait
 * in the producer's send queue; more than that queue holds is a queue overrun.
 */
__dpa_global__ void comch_send(doca_dpa_dev_comch_producer_t producer, uint32_t to, uint32_t first, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++) {
		uint32_t value = first + i;

		doca_dpa_dev_comch_producer_post_send_imm_only(producer, to, (const uint8_t *)&value, sizeof(value),
							       COMCH_FLAGS);
	}
}

/* Writes 1 to out[0] when consumer `to` has no receive posted, 0 otherwise. */
__dpa_global__ void comch_is_empty(doca_dpa_dev_comch_producer_t producer, uint32_t to, doca_dpa_dev_uintptr_t out)
{
	((uint64_t *)out)[0] = (uint64_t)doca_dpa_dev_comch_producer_is_consumer_empty(producer, to);
}

/*
 * Takes every element of a consumer completion context: out[0] counts them, out[1]
 * sums their 4-byte values, out[2] holds the last producer id; acknowledges them
 * and posts as many receives again on `consumer`.
 */
__dpa_global__ void comch_drain(doca_dpa_dev_comch_consumer_completion_t completion,
				doca_dpa_dev_comch_consumer_t consumer, doca_dpa_dev_uintptr_t out)
{
	uint64_t *o = (uint64_t *)out;
	doca_dpa_dev_comch_consumer_completion_element_t e;
	uint32_t n = 0;

	while (doca_dpa_dev_comch_consumer_get_completion(completion, &e)) {
		uint32_t len = 0, value = 0;
		const uint8_t *imm = doca_dpa_dev_comch_consumer_get_completion_imm(e, &len);

		for (uint32_t i = 0; i < len && i < sizeof(value); i++)
			((uint8_t *)&value)[i] = imm[i];
		o[0]++;
		o[1] += value;
		o[2] = doca_dpa_dev_comch_consumer_get_completion_producer_id(e);
		n++;
	}
	if (n != 0) {
		doca_dpa_dev_comch_consumer_completion_ack(completion, n);
		doca_dpa_dev_comch_consumer_ack(consumer, n);
	}
}

/*
 * Waits for *go, then posts a receive on the consumer, sends one message of
 * `value` with the producer to consumer `to`, and sets out[0]: every handle it was
 * given is used after the host let go of its own references.
 */
__dpa_global__ void comch_hold(doca_dpa_dev_uintptr_t go, doca_dpa_dev_comch_consumer_t consumer,
			       doca_dpa_dev_comch_producer_t producer, uint32_t to, uint32_t value,
			       doca_dpa_dev_comch_consumer_completion_t completion, doca_dpa_dev_uintptr_t out)
{
	sound_wait_for(go);
	doca_dpa_dev_comch_consumer_ack(consumer, 1);
	doca_dpa_dev_comch_producer_post_send_imm_only(producer, to, (const uint8_t *)&value, sizeof(value),
						       COMCH_FLAGS);
	doca_dpa_dev_comch_consumer_completion_request_notification(completion);
	((uint64_t *)out)[0] = 1;
}

/* A thread that does nothing (consumer completion contexts need one to wake). */
__dpa_global__ void comch_idle_thread(doca_dpa_dev_uintptr_t arg)
{
	(void)arg;
	doca_dpa_dev_thread_reschedule();
}

/* A thread's state naming a consumer and a producer of one queue. */
struct comch_pair {
	doca_dpa_dev_comch_consumer_t consumer;
	doca_dpa_dev_comch_producer_t producer;
	uint32_t to;   /* the consumer's id */
	uint32_t sent; /* set to `to` once the message went */
};

/* On its first activation: posts a receive and sends one message to the consumer. */
__dpa_global__ void comch_state_thread(doca_dpa_dev_uintptr_t arg)
{
	struct comch_pair *p = (struct comch_pair *)arg;
	uint32_t value = 1;

	if (p->sent == 0) {
		doca_dpa_dev_comch_consumer_ack(p->consumer, 1);
		doca_dpa_dev_comch_producer_post_send_imm_only(p->producer, p->to, (const uint8_t *)&value,
							       sizeof(value), COMCH_FLAGS);
		p->sent = p->to;
	}
	doca_dpa_dev_thread_reschedule();
}
