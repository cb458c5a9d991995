/*
 * Reference header written by the doca-rs project from public facts about the
 * DOCA C API; not NVIDIA's header.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */

/**
 * @file doca_comch_msgq.h
 * @brief DOCA Comch message queues: producers and consumers on the DPA.
 *
 * A message queue is made on a device, told how many consumers and producers
 * it may have and which DPA context runs each side, then started; its
 * consumers (doca_comch_consumer.h) and producers (doca_comch_producer.h) are
 * made from the started queue. Stopping needs every consumer and producer
 * gone. Prototypes follow the DOCA 3.0 header, where every function is
 * EXPERIMENTAL; the software DPA models queues whose two sides are on the DPA.
 */

#ifndef DOCA_COMCH_MSGQ_H_
#define DOCA_COMCH_MSGQ_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A message queue. */
struct doca_comch_msgq;
/** A producer of a message queue. */
struct doca_comch_producer;
/** A consumer of a message queue. */
struct doca_comch_consumer;

struct doca_dev;
struct doca_dpa;

/**
 * @brief Makes a message queue on a device.
 *
 * @param [in] dev the device its messages go through.
 * @param [out] msgq receives the queue, stopped.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_msgq_create(struct doca_dev *dev, struct doca_comch_msgq **msgq);

/**
 * @brief Destroys a message queue.
 *
 * @param [in] msgq the queue.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_msgq_destroy(struct doca_comch_msgq *msgq);

/**
 * @brief Puts every consumer of the queue on a DPA context (by default they are
 * on the CPU).
 *
 * @param [in] msgq the queue, stopped.
 * @param [in] dpa a DPA context on the queue's device.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_msgq_set_dpa_consumer(struct doca_comch_msgq *msgq, struct doca_dpa *dpa);

/**
 * @brief How many consumers may be made from the queue.
 *
 * @param [in] msgq the queue, stopped.
 * @param [in] max_num_consumers the largest number.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_msgq_set_max_num_consumers(struct doca_comch_msgq *msgq, uint32_t max_num_consumers);

/**
 * @brief Puts every producer of the queue on a DPA context (by default they are
 * on the CPU).
 *
 * @param [in] msgq the queue, stopped.
 * @param [in] dpa a DPA context on the queue's device.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_msgq_set_dpa_producer(struct doca_comch_msgq *msgq, struct doca_dpa *dpa);

/**
 * @brief How many producers may be made from the queue.
 *
 * @param [in] msgq the queue, stopped.
 * @param [in] max_num_producers the largest number.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_msgq_set_max_num_producers(struct doca_comch_msgq *msgq, uint32_t max_num_producers);

/**
 * @brief Starts the queue: its settings are checked and fixed, and consumers
 * and producers can be made from it.
 *
 * @param [in] msgq the queue.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_msgq_start(struct doca_comch_msgq *msgq);

/**
 * @brief Stops the queue, which must have no consumer or producer left.
 *
 * @param [in] msgq the queue.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_msgq_stop(struct doca_comch_msgq *msgq);

/**
 * @brief Makes a consumer of a started queue.
 *
 * @param [in] msgq the queue.
 * @param [out] consumer receives the consumer (a DOCA context, idle).
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_msgq_consumer_create(struct doca_comch_msgq *msgq, struct doca_comch_consumer **consumer);

/**
 * @brief Makes a producer of a started queue.
 *
 * @param [in] msgq the queue.
 * @param [out] producer receives the producer (a DOCA context, idle).
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_msgq_producer_create(struct doca_comch_msgq *msgq, struct doca_comch_producer **producer);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_MSGQ_H_ */
