/*
 * Reference header written by the doca-rs project from public facts about the
 * DOCA C API; not NVIDIA's header.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */

/**
 * @file doca_ctx.h
 * @brief The generic context that DOCA libraries build their objects on.
 *
 * Many DOCA objects (sync events, RDMI connections and posters, and others)
 * expose a struct doca_ctx through an "as_ctx" call. The context is configured
 * while idle, started, used, and stopped again. Starting needs somewhere for
 * the datapath to run: a progress engine connected with doca_pe_connect_ctx(),
 * or an offload such as the DPA chosen with doca_ctx_set_datapath_on_dpa().
 *
 * Note that struct doca_dpa itself is not a context; it has its own start and
 * stop calls in doca_dpa.h.
 */

#ifndef DOCA_CTX_H_
#define DOCA_CTX_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A generic DOCA context. */
struct doca_ctx;
/** A DPA context (see doca_dpa.h). */
struct doca_dpa;
/** Description of a device (doca_dev.h). */
struct doca_devinfo;

/**
 * @brief Lifecycle states of a context.
 */
enum doca_ctx_states {
	DOCA_CTX_STATE_IDLE = 0,     /**< Not started; configuration is allowed. */
	DOCA_CTX_STATE_STARTING = 1, /**< Start was requested and has not finished yet. */
	DOCA_CTX_STATE_RUNNING = 2,  /**< Started and usable. */
	DOCA_CTX_STATE_STOPPING = 3, /**< Stop was requested; outstanding work is being drained. */
};

/**
 * @brief Called whenever a context moves from one state to another.
 *
 * @param [in] user_data the value set with doca_ctx_set_user_data().
 * @param [in] ctx the context whose state changed.
 * @param [in] prev_state the state it left.
 * @param [in] next_state the state it entered.
 */
typedef void (*doca_ctx_state_changed_callback_t)(const union doca_data user_data, struct doca_ctx *ctx,
						  enum doca_ctx_states prev_state, enum doca_ctx_states next_state);

/**
 * @brief Starts a context.
 *
 * @param [in] ctx the context, idle and fully configured.
 * @return DOCA_SUCCESS when it is running; DOCA_ERROR_IN_PROGRESS when starting
 * continues asynchronously (watch the state-changed callback);
 * DOCA_ERROR_NOT_CONNECTED when the context has neither a progress engine nor a
 * GPU or DPA datapath; DOCA_ERROR_NOT_SUPPORTED when the context's device cannot
 * run it; DOCA_ERROR_INVALID_VALUE for a NULL context.
 */
DOCA_STABLE
doca_error_t doca_ctx_start(struct doca_ctx *ctx);

/**
 * @brief Stops a context.
 *
 * @param [in] ctx the context to stop.
 * @return DOCA_SUCCESS when it is idle again; DOCA_ERROR_IN_PROGRESS when work
 * is still in flight and stopping finishes later (the state-changed callback
 * reports it); DOCA_ERROR_INVALID_VALUE for a NULL context.
 */
DOCA_STABLE
doca_error_t doca_ctx_stop(struct doca_ctx *ctx);

/**
 * @brief Reads the current state of a context.
 *
 * @param [in] ctx the context.
 * @param [out] state receives its state.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_ctx_get_state(const struct doca_ctx *ctx, enum doca_ctx_states *state);

/**
 * @brief Registers the function called on every state change.
 *
 * @param [in] ctx the context.
 * @param [in] cb the callback.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_ctx_set_state_changed_cb(struct doca_ctx *ctx, doca_ctx_state_changed_callback_t cb);

/**
 * @brief Stores a caller value that the state-changed callback receives.
 *
 * @param [in] ctx the context.
 * @param [in] user_data the value to store.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL context.
 */
DOCA_STABLE
doca_error_t doca_ctx_set_user_data(struct doca_ctx *ctx, union doca_data user_data);

/**
 * @brief Reads back the value stored with doca_ctx_set_user_data().
 *
 * @param [in] ctx the context.
 * @param [out] user_data receives the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_ctx_get_user_data(const struct doca_ctx *ctx, union doca_data *user_data);

/**
 * @brief Counts the tasks submitted on a context that have not completed yet.
 *
 * @param [in] ctx the context.
 * @param [out] num_inflight_tasks receives the count.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_ctx_get_num_inflight_tasks(const struct doca_ctx *ctx, size_t *num_inflight_tasks);

/**
 * @brief Moves a context's datapath onto the DPA.
 *
 * Afterwards the context is driven by DPA kernels through its DPA handle and
 * needs no progress engine to start. Contexts bound this way must be stopped
 * and destroyed before the DPA context itself.
 *
 * @param [in] ctx the context, idle.
 * @param [in] dpa_dev the DPA context to run the datapath on.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_BAD_STATE when the context was already started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ctx_set_datapath_on_dpa(struct doca_ctx *ctx, struct doca_dpa *dpa_dev);

/** A GPU device (DOCA GPUNetIO); doca-sim has none. */
struct doca_gpu;

/**
 * @brief Runs the context's data path on a GPU (before start).
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] ctx the context.
 * @param [in] gpu_dev the GPU.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ctx_set_datapath_on_gpu(struct doca_ctx *ctx, struct doca_gpu *gpu_dev);

/**
 * @brief Submits the tasks queued on the context that were held back.
 *
 * doca-sim: contexts take no tasks, so there is never anything to flush; the
 * call does nothing.
 *
 * @param [in] ctx the context.
 */
DOCA_EXPERIMENTAL
void doca_ctx_flush_tasks(struct doca_ctx *ctx);

/**
 * @brief Chooses the completion vector the context's completions use (before start).
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] ctx the context.
 * @param [in] comp_vector the vector's index.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ctx_set_completion_vector(struct doca_ctx *ctx, uint32_t comp_vector);

/**
 * @brief Reads how many completion vectors a device offers.
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] devinfo the device.
 * @param [out] num_comp_vectors receives the number.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_ctx_cap_get_num_completion_vectors(const struct doca_devinfo *devinfo, uint32_t *num_comp_vectors);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_CTX_H_ */
