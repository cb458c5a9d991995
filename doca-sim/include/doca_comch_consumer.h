/*
 * Reference header written by the doca-rs project from public facts about the
 * DOCA C API; not NVIDIA's header.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */

/**
 * @file doca_comch_consumer.h
 * @brief DOCA Comch consumers: the part used with the DPA.
 *
 * A consumer of a message queue (doca_comch_msgq_consumer_create()) is a DOCA
 * context. On the DPA it is put on the DPA datapath
 * (doca_ctx_set_datapath_on_dpa()), given a consumer completion context whose
 * DPA thread its messages wake, and started; its kernels use the handles of
 * doca_comch_consumer_get_dpa_handle() and
 * doca_comch_consumer_completion_get_dpa_handle() with the calls of
 * doca_dpa_dev_comch_msgq.h.
 *
 * Only that part of the real doca_comch_consumer.h is declared: consumers of a
 * Comch connection, buffers and the post-receive task of the CPU datapath are
 * not. Prototypes follow the DOCA 3.0 header (its STABLE and EXPERIMENTAL marks).
 */

#ifndef DOCA_COMCH_CONSUMER_H_
#define DOCA_COMCH_CONSUMER_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_devinfo;
struct doca_dpa_thread;

/** A consumer of a message queue. */
struct doca_comch_consumer;
/** A consumer completion context: where consumers on the DPA report messages. */
struct doca_comch_consumer_completion;

/** How DPA kernels refer to a consumer completion context. */
typedef uint64_t doca_dpa_dev_comch_consumer_completion_t;
/** How DPA kernels refer to a consumer. */
typedef uint64_t doca_dpa_dev_comch_consumer_t;

/**
 * @brief Destroys a consumer (its context idle).
 *
 * @param [in] consumer the consumer.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; another error code.
 */
DOCA_STABLE
doca_error_t doca_comch_consumer_destroy(struct doca_comch_consumer *consumer);

/**
 * @brief The consumer's id, unique in its queue: what producers send to.
 *
 * @param [in] consumer the consumer.
 * @param [out] id receives the id.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE.
 */
DOCA_STABLE
doca_error_t doca_comch_consumer_get_id(const struct doca_comch_consumer *consumer, uint32_t *id);

/**
 * @brief The longest immediate data consumers on a device accept.
 *
 * @param [in] devinfo the device.
 * @param [out] max_imm_data_len receives the length in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE.
 */
DOCA_STABLE
doca_error_t doca_comch_consumer_cap_get_max_imm_data_len(const struct doca_devinfo *devinfo,
							  uint32_t *max_imm_data_len);

/**
 * @brief The immediate-data length the consumer accepts.
 *
 * @param [in] consumer the consumer.
 * @param [out] imm_data_len receives the length in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE.
 */
DOCA_STABLE
doca_error_t doca_comch_consumer_get_imm_data_len(const struct doca_comch_consumer *consumer, uint32_t *imm_data_len);

/**
 * @brief Sets the immediate-data length the consumer accepts (at most
 * doca_comch_consumer_cap_get_max_imm_data_len()).
 *
 * @param [in] consumer the consumer, idle.
 * @param [in] imm_data_len the length in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_BAD_STATE when started.
 */
DOCA_STABLE
doca_error_t doca_comch_consumer_set_imm_data_len(struct doca_comch_consumer *consumer, uint32_t imm_data_len);

/**
 * @brief The consumer as a DOCA context (always the same pointer).
 *
 * @param [in] consumer the consumer.
 * @return the context, or NULL for a bad consumer.
 */
DOCA_STABLE
struct doca_ctx *doca_comch_consumer_as_ctx(struct doca_comch_consumer *consumer);

/**
 * @brief Makes a consumer completion context.
 *
 * @param [out] consumer_comp receives it, stopped.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_create(struct doca_comch_consumer_completion **consumer_comp);

/**
 * @brief The DPA thread the completion context's messages wake.
 *
 * @param [in] consumer_comp the completion context, stopped.
 * @param [in] dpa_thread the thread.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_set_dpa_thread(struct doca_comch_consumer_completion *consumer_comp,
							   struct doca_dpa_thread *dpa_thread);

/**
 * @brief Destroys a consumer completion context (and its DPA handle).
 *
 * @param [in] consumer_comp the completion context.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_destroy(struct doca_comch_consumer_completion *consumer_comp);

/**
 * @brief Starts a consumer completion context: its settings are checked and
 * fixed, and consumers can be associated with it.
 *
 * @param [in] consumer_comp the completion context.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_start(struct doca_comch_consumer_completion *consumer_comp);

/**
 * @brief Stops a consumer completion context, which must have no consumer
 * associated.
 *
 * @param [in] consumer_comp the completion context.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_stop(struct doca_comch_consumer_completion *consumer_comp);

/**
 * @brief The handle DPA kernels use for a consumer completion context.
 *
 * @param [in] consumer_comp the completion context.
 * @param [out] consumer_comp_handle receives the handle.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_get_dpa_handle(
	struct doca_comch_consumer_completion *consumer_comp,
	doca_dpa_dev_comch_consumer_completion_t *consumer_comp_handle);

/**
 * @brief How many consumers may be associated with the completion context
 * (rounded up to a power of two).
 *
 * @param [in] consumer_comp the completion context, stopped.
 * @param [in] max_num_consumers the number.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_set_max_num_consumers(struct doca_comch_consumer_completion *consumer_comp,
								  uint32_t max_num_consumers);

/**
 * @brief How many consumers may be associated with the completion context.
 *
 * @param [in] consumer_comp the completion context.
 * @param [out] max_num_consumers receives the number.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_get_max_num_consumers(
	const struct doca_comch_consumer_completion *consumer_comp,
	uint32_t *max_num_consumers);

/**
 * @brief How many receives all its consumers may have posted together
 * (rounded up to a power of two).
 *
 * @param [in] consumer_comp the completion context, stopped.
 * @param [in] max_num_recv the number.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_set_max_num_recv(struct doca_comch_consumer_completion *consumer_comp,
							     uint32_t max_num_recv);

/**
 * @brief How many receives all its consumers may have posted together.
 *
 * @param [in] consumer_comp the completion context.
 * @param [out] max_num_recv receives the number.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_get_max_num_recv(const struct doca_comch_consumer_completion *consumer_comp,
							     uint32_t *max_num_recv);

/**
 * @brief The immediate-data length the completion context holds per message:
 * at least that of every consumer associated with it.
 *
 * @param [in] consumer_comp the completion context, stopped.
 * @param [in] imm_data_len the length in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_BAD_STATE when started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_set_imm_data_len(struct doca_comch_consumer_completion *consumer_comp,
							     uint32_t imm_data_len);

/**
 * @brief The immediate-data length the completion context holds per message.
 *
 * @param [in] consumer_comp the completion context.
 * @param [out] imm_data_len receives the length in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_get_imm_data_len(const struct doca_comch_consumer_completion *consumer_comp,
							     uint32_t *imm_data_len);

/**
 * @brief How many receives a consumer on the DPA may have posted (rounded up
 * to a power of two).
 *
 * @param [in] consumer the consumer, idle.
 * @param [in] dev_num_recv the number.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_set_dev_max_num_recv(struct doca_comch_consumer *consumer, uint32_t dev_num_recv);

/**
 * @brief Associates a consumer on the DPA datapath with a consumer completion
 * context, which reports its messages.
 *
 * @param [in] consumer the consumer, idle, on the DPA datapath.
 * @param [in] consumer_comp the completion context.
 * @param [in] user_data kept with the consumer's completions.
 * @return DOCA_SUCCESS, or an error code.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_set_completion(struct doca_comch_consumer *consumer,
						struct doca_comch_consumer_completion *consumer_comp,
						uint32_t user_data);

/**
 * @brief The handle DPA kernels use for a started consumer on the DPA datapath.
 *
 * @param [in] consumer the consumer.
 * @param [out] dpa_consumer receives the handle.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_BAD_STATE before
 * start or off the DPA datapath.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_get_dpa_handle(struct doca_comch_consumer *consumer,
						doca_dpa_dev_comch_consumer_t *dpa_consumer);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_CONSUMER_H_ */
