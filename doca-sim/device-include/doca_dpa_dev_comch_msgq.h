/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * doca-sim device-side header: DOCA Comch message queues seen from a DPA
 * kernel (DPA Comms, libdoca_dpa_dev_comm.a with dpacc). Written by the
 * doca-rs project from public facts; not NVIDIA's header.
 *
 * A producer sends immediate data to a consumer of its queue (by the
 * consumer's id); the consumer must have posted receives for it
 * (doca_dpa_dev_comch_consumer_ack()). Each message becomes an element of the
 * consumer's completion context, which wakes the context's DPA thread when it
 * asked to be (doca_dpa_dev_comch_consumer_completion_request_notification()).
 * How the sim models the queue is said for each call and in docs/sim-model.md.
 */
#ifndef DOCA_DPA_DEV_COMCH_MSGQ_H_
#define DOCA_DPA_DEV_COMCH_MSGQ_H_

#include <doca_dpa_dev.h>
#include <doca_dpa_dev_buf.h>
#include <doca_dpa_dev_sync_event.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How kernels refer to a consumer (doca_comch_consumer_get_dpa_handle()). */
__dpa_global__ typedef uint64_t doca_dpa_dev_comch_consumer_t;
/** How kernels refer to a consumer completion context. */
__dpa_global__ typedef uint64_t doca_dpa_dev_comch_consumer_completion_t;
/** One element of a consumer completion context: a message received. */
__dpa_global__ typedef uint64_t doca_dpa_dev_comch_consumer_completion_element_t;
/** How kernels refer to a producer (doca_comch_producer_get_dpa_handle()). */
__dpa_global__ typedef uint64_t doca_dpa_dev_comch_producer_t;

/**
 * Posts `num_msg` receives of immediate data on a consumer. In the sim: more
 * receives than the consumer's doca_comch_consumer_set_dev_max_num_recv()
 * is a device fault (queue overrun).
 */
void doca_dpa_dev_comch_consumer_ack(doca_dpa_dev_comch_consumer_t consumer, uint32_t num_msg);

/** Takes the next element of a consumer completion context; 1 if there was one, 0 otherwise. */
int doca_dpa_dev_comch_consumer_get_completion(doca_dpa_dev_comch_consumer_completion_t consumer_comp_handle,
					       doca_dpa_dev_comch_consumer_completion_element_t *comp_element);

/**
 * The immediate data of an element, and its length. The pointer is valid
 * until the element is acknowledged (in the sim its slot is reused then).
 */
const uint8_t *doca_dpa_dev_comch_consumer_get_completion_imm(
	doca_dpa_dev_comch_consumer_completion_element_t comp_element,
	uint32_t *imm_length);

/** The id of the producer that sent an element's message. */
uint32_t doca_dpa_dev_comch_consumer_get_completion_producer_id(
	doca_dpa_dev_comch_consumer_completion_element_t comp_element);

/** Releases `num_comp` elements that were read. */
void doca_dpa_dev_comch_consumer_completion_ack(doca_dpa_dev_comch_consumer_completion_t consumer_comp_handle,
						uint64_t num_comp);

/** Asks the completion context to wake its DPA thread on its next element. */
void doca_dpa_dev_comch_consumer_completion_request_notification(
	doca_dpa_dev_comch_consumer_completion_t consumer_comp_handle);

/** 1 when consumer `consumer_id` has no receive posted (a send would wait), 0 otherwise. */
int doca_dpa_dev_comch_producer_is_consumer_empty(doca_dpa_dev_comch_producer_t producer, uint32_t consumer_id);

/**
 * Sends `imm_length` bytes of immediate data to consumer `consumer_id`. In the
 * sim the bytes are read when posted; a send that finds no receive posted
 * waits for one, holding a slot of the producer's send queue, and a send into
 * a full send queue is a device fault (queue overrun).
 */
void doca_dpa_dev_comch_producer_post_send_imm_only(doca_dpa_dev_comch_producer_t producer,
						    uint32_t consumer_id,
						    const uint8_t *imm,
						    uint32_t imm_length,
						    uint32_t flags);

/**
 * Copies `length` bytes between two memory maps, then sends the immediate
 * data to consumer `consumer_id` as doca_dpa_dev_comch_producer_post_send_imm_only()
 * does. In the sim the copy is made when posted.
 */
void doca_dpa_dev_comch_producer_dma_copy(doca_dpa_dev_comch_producer_t producer,
					  uint32_t consumer_id,
					  doca_dpa_dev_mmap_t dst_mmap,
					  uint64_t dst_addr,
					  doca_dpa_dev_mmap_t src_mmap,
					  uint64_t src_addr,
					  size_t length,
					  const uint8_t *imm,
					  uint32_t imm_length,
					  uint32_t flags);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DPA_DEV_COMCH_MSGQ_H_ */
