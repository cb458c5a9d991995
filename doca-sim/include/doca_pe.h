/*
 * Reference header written by the doca-rs project from public facts about the
 * DOCA C API; not NVIDIA's header.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */

/**
 * @file doca_pe.h
 * @brief The progress engine: the host-side loop that drives connected contexts.
 *
 * A context whose datapath runs on the host CPU is connected to a progress
 * engine and makes progress only when the program calls doca_pe_progress().
 * Instead of polling, a program can also sleep on the engine's notification
 * handle. Contexts whose datapath runs on the DPA need no engine, and a plain
 * DPA kernel-launch program needs none at all.
 *
 * The notification handle is platform-specific, as in DOCA 3.0: on Linux the
 * engine owns the handle (a file descriptor) and hands it out; on Windows the
 * program supplies its own handle to the engine instead. Each call is declared
 * only on its platform.
 */

#ifndef DOCA_PE_H_
#define DOCA_PE_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A progress engine. */
struct doca_pe;
/** A generic DOCA context (see doca_ctx.h). */
struct doca_ctx;
/** A unit of work submitted to a context and completed through its progress engine. */
struct doca_task;

/**
 * @brief What a context calls when one of its tasks completes (or fails).
 *
 * @param [in] task the task; it may be freed or resubmitted from the callback.
 * @param [in] task_user_data the task's user data.
 * @param [in] ctx_user_data the context's user data.
 */
typedef void (*doca_task_completion_cb_t)(struct doca_task *task, union doca_data task_user_data,
					  union doca_data ctx_user_data);

/**
 * @brief Creates a progress engine.
 *
 * @param [out] pe receives the engine; destroy it with doca_pe_destroy().
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * another DOCA error code when it cannot be created.
 */
DOCA_STABLE
doca_error_t doca_pe_create(struct doca_pe **pe);

/**
 * @brief Destroys a progress engine.
 *
 * @param [in] pe the engine.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL engine;
 * DOCA_ERROR_IN_USE while contexts are still connected to it.
 */
DOCA_STABLE
doca_error_t doca_pe_destroy(struct doca_pe *pe);

/**
 * @brief Runs one round of work for the connected contexts (completions, state changes).
 *
 * @param [in] pe the engine.
 * @return non-zero when something was processed, 0 when there was nothing to do.
 */
DOCA_STABLE
uint8_t doca_pe_progress(struct doca_pe *pe);

/**
 * @brief Connects an idle context to the engine.
 *
 * The connection lasts until the context is destroyed.
 *
 * @param [in] pe the engine.
 * @param [in] ctx the context, idle.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_NOT_PERMITTED when the context is already connected; another
 * DOCA error code when the context is not idle.
 */
DOCA_STABLE
doca_error_t doca_pe_connect_ctx(struct doca_pe *pe, struct doca_ctx *ctx);

#ifdef __linux__
/**
 * @brief Gives the operating-system handle that becomes ready when the engine has work.
 *
 * @param [in] pe the engine.
 * @param [out] handle receives the handle (a file descriptor on Linux), owned by the engine.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_pe_get_notification_handle(const struct doca_pe *pe, doca_notification_handle_t *handle);
#endif /* __linux__ */

#ifdef _WIN32
/**
 * @brief Hands the engine a handle of the program's own to signal when it has work.
 *
 * @param [in] pe the engine.
 * @param [in] handle the handle to signal, owned by the program.
 * @param [in] completion_key a value passed back with each signal.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL engine.
 */
DOCA_STABLE
doca_error_t doca_pe_set_notification_handle(struct doca_pe *pe, doca_notification_handle_t handle,
					     union doca_data completion_key);
#endif /* _WIN32 */

/**
 * @brief Arms the notification handle so that the next event wakes a waiter.
 *
 * @param [in] pe the engine.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL engine.
 */
DOCA_STABLE
doca_error_t doca_pe_request_notification(struct doca_pe *pe);

/**
 * @brief Acknowledges a notification after waking up, before progressing the engine.
 *
 * @param [in] pe the engine.
 * @param [in] handle the handle returned by doca_pe_get_notification_handle().
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL engine.
 */
DOCA_STABLE
doca_error_t doca_pe_clear_notification(struct doca_pe *pe, doca_notification_handle_t handle);

/**
 * @brief How many tasks of the engine's contexts are submitted and not completed yet.
 *
 * @param [in] pe the engine.
 * @param [out] num_inflight_tasks receives the count.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_pe_get_num_inflight_tasks(const struct doca_pe *pe, size_t *num_inflight_tasks);

/**
 * @brief Submits a task to its context. Its completion (or error) callback runs from a
 * later doca_pe_progress() of the context's engine.
 *
 * @param [in] task an allocated task that is not in flight.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL task;
 * DOCA_ERROR_BAD_STATE when the context is not running or the task is already in flight.
 */
DOCA_STABLE
doca_error_t doca_task_submit(struct doca_task *task);

/**
 * @brief Like doca_task_submit(), refusing instead of queueing when the context cannot
 * take the task at once.
 *
 * @param [in] task an allocated task that is not in flight.
 * @return as doca_task_submit(); DOCA_ERROR_AGAIN when the context is busy.
 */
DOCA_STABLE
doca_error_t doca_task_try_submit(struct doca_task *task);

/**
 * @brief Returns a task that is not in flight to its context's pool.
 *
 * @param [in] task the task.
 */
DOCA_STABLE
void doca_task_free(struct doca_task *task);

/**
 * @brief The outcome of a completed task: DOCA_SUCCESS, or why it failed.
 *
 * @param [in] task the task.
 * @return the status.
 */
DOCA_STABLE
doca_error_t doca_task_get_status(const struct doca_task *task);

/**
 * @brief Sets the user data passed to the task's callbacks.
 *
 * @param [in] task the task.
 * @param [in] user_data the data.
 */
DOCA_STABLE
void doca_task_set_user_data(struct doca_task *task, union doca_data user_data);

/**
 * @brief The task's user data.
 *
 * @param [in] task the task.
 * @return the data.
 */
DOCA_STABLE
union doca_data doca_task_get_user_data(const struct doca_task *task);

/**
 * @brief The context the task belongs to.
 *
 * @param [in] task the task.
 * @return the context.
 */
DOCA_STABLE
struct doca_ctx *doca_task_get_ctx(const struct doca_task *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_PE_H_ */
