/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * What the host hands the two DPA threads of comch_msgq: the handles of the
 * message queue each sends on and the one it receives on.
 */
#ifndef COMCH_MSGQ_SHARED_H_
#define COMCH_MSGQ_SHARED_H_

#include <stdint.h>

/* The rounds of the exchange: ping sends 1..ROUNDS, pong answers each times 10. */
#define ROUNDS 3
/* Receives each consumer posts at a time. */
#define RECEIVES 2

/* One side of the exchange, in DPA memory. */
struct side {
	uint64_t producer;	  /* doca_dpa_dev_comch_producer_t of the queue it sends on */
	uint32_t peer_consumer_id; /* the consumer it sends to */
	uint32_t seen;		  /* messages it received */
	uint64_t consumer;	  /* doca_dpa_dev_comch_consumer_t of the queue it receives on */
	uint64_t consumer_comp;	  /* doca_dpa_dev_comch_consumer_completion_t */
	uint64_t done;		  /* doca_dpa_dev_sync_event_t the ping side sets when done */
};

#endif /* COMCH_MSGQ_SHARED_H_ */
