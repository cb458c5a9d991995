/*
 * Reference header written by the doca-rs project from public facts about the
 * DOCA C API; not NVIDIA's header.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */

/**
 * @file doca_comch_producer.h
 * @brief DOCA Comch producers: the part used with the DPA.
 *
 * A producer of a message queue (doca_comch_msgq_producer_create()) is a DOCA
 * context. On the DPA it is put on the DPA datapath
 * (doca_ctx_set_datapath_on_dpa()), given a DPA completion context for its
 * sends, and started; its kernels use the handle of
 * doca_comch_producer_get_dpa_handle() with the calls of
 * doca_dpa_dev_comch_msgq.h.
 *
 * Only that part of the real doca_comch_producer.h is declared: producers of a
 * Comch connection, buffers and the send task of the CPU datapath are not.
 * Prototypes follow the DOCA 3.0 header (its STABLE and EXPERIMENTAL marks).
 */

#ifndef DOCA_COMCH_PRODUCER_H_
#define DOCA_COMCH_PRODUCER_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;

/** A producer of a message queue. */
struct doca_comch_producer;
/** A DPA completion context (doca_dpa.h). */
struct doca_dpa_completion;

/** How DPA kernels refer to a producer. */
typedef uint64_t doca_dpa_dev_comch_producer_t;

/**
 * @brief Destroys a producer (its context idle).
 *
 * @param [in] producer the producer.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; another error code.
 */
DOCA_STABLE
doca_error_t doca_comch_producer_destroy(struct doca_comch_producer *producer);

/**
 * @brief The producer's id, unique in its queue: what consumers see as the sender.
 *
 * @param [in] producer the producer.
 * @param [out] id receives the id.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE.
 */
DOCA_STABLE
doca_error_t doca_comch_producer_get_id(const struct doca_comch_producer *producer, uint32_t *id);

/**
 * @brief The producer as a DOCA context (always the same pointer).
 *
 * @param [in] producer the producer.
 * @return the context, or NULL for a bad producer.
 */
DOCA_STABLE
struct doca_ctx *doca_comch_producer_as_ctx(struct doca_comch_producer *producer);

/**
 * @brief How many sends a producer on the DPA may have outstanding (rounded up
 * to a power of two).
 *
 * @param [in] producer the producer, idle.
 * @param [in] dev_num_send the number.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_set_dev_max_num_send(struct doca_comch_producer *producer, uint32_t dev_num_send);

/**
 * @brief Attaches the DPA completion context that reports the producer's sends.
 *
 * @param [in] producer the producer, idle, on the DPA datapath.
 * @param [in] dpa_comp the completion context.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_dpa_completion_attach(struct doca_comch_producer *producer,
						       struct doca_dpa_completion *dpa_comp);

/**
 * @brief The handle DPA kernels use for a started producer on the DPA datapath.
 *
 * @param [in] producer the producer.
 * @param [out] dpa_producer receives the handle.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_BAD_STATE before
 * start or off the DPA datapath.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_get_dpa_handle(struct doca_comch_producer *producer,
						doca_dpa_dev_comch_producer_t *dpa_producer);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_PRODUCER_H_ */
