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

/*
 * Tasks. doca-sim's contexts (DPA, RDMI) take no tasks, so no task or task
 * batch can ever be allocated: the calls below that need one answer
 * DOCA_ERROR_NOT_SUPPORTED, and the accessors that cannot fail answer a zero
 * value and do nothing else.
 */

/** A task of some context. */
struct doca_task;
/** A batch of tasks of one context. */
struct doca_task_batch;

/** Called when a task completes (or fails). */
typedef void (*doca_task_completion_cb_t)(struct doca_task *task, union doca_data task_user_data,
					  union doca_data ctx_user_data);

/** How many tasks a batch can hold. */
enum doca_task_batch_max_tasks_number {
	DOCA_TASK_BATCH_MAX_TASKS_NUMBER_16,  /**< 16 tasks. */
	DOCA_TASK_BATCH_MAX_TASKS_NUMBER_32,  /**< 32 tasks. */
	DOCA_TASK_BATCH_MAX_TASKS_NUMBER_64,  /**< 64 tasks. */
	DOCA_TASK_BATCH_MAX_TASKS_NUMBER_128, /**< 128 tasks. */
};

/** How many events an event batch can report. */
enum doca_event_batch_events_number {
	DOCA_EVENT_BATCH_EVENTS_NUMBER_1,   /**< 1 event. */
	DOCA_EVENT_BATCH_EVENTS_NUMBER_2,   /**< 2 events. */
	DOCA_EVENT_BATCH_EVENTS_NUMBER_4,   /**< 4 events. */
	DOCA_EVENT_BATCH_EVENTS_NUMBER_8,   /**< 8 events. */
	DOCA_EVENT_BATCH_EVENTS_NUMBER_16,  /**< 16 events. */
	DOCA_EVENT_BATCH_EVENTS_NUMBER_32,  /**< 32 events. */
	DOCA_EVENT_BATCH_EVENTS_NUMBER_64,  /**< 64 events. */
	DOCA_EVENT_BATCH_EVENTS_NUMBER_128, /**< 128 events. */
};

/** Flags of doca_task_submit_ex(). */
enum doca_task_submit_flag {
	DOCA_TASK_SUBMIT_FLAG_NONE = 0U,		 /**< Submit now. */
	DOCA_TASK_SUBMIT_FLAG_FLUSH = (1U << 0),	 /**< Submit this task and those held back. */
	DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS = (1U << 1), /**< Report completions in fewer events. */
};

/** Which contexts doca_pe_progress() serves. */
enum doca_pe_event_mode {
	DOCA_PE_EVENT_MODE_PROGRESS_SELECTIVE, /**< Only contexts with pending events. */
	DOCA_PE_EVENT_MODE_PROGRESS_ALL,       /**< Every connected context. */
};

/**
 * @brief Counts the tasks submitted through the engine's contexts and not completed yet.
 *
 * doca-sim: always 0 (no context takes tasks).
 *
 * @param [in] pe the engine.
 * @param [out] num_inflight_tasks receives the count.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_pe_get_num_inflight_tasks(const struct doca_pe *pe, size_t *num_inflight_tasks);

/**
 * @brief Chooses which contexts the engine's progress serves.
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] pe the engine.
 * @param [in] event_mode the mode.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_pe_set_event_mode(struct doca_pe *pe, enum doca_pe_event_mode event_mode);

/**
 * @brief Submits a task to its context.
 *
 * Not modelled by doca-sim (no task exists): returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] task the task.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_STABLE
doca_error_t doca_task_submit(struct doca_task *task);

/**
 * @brief Submits a task with doca_task_submit_flag flags.
 *
 * Not modelled by doca-sim (no task exists): returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] task the task.
 * @param [in] flags a bitwise OR of enum doca_task_submit_flag values.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_task_submit_ex(struct doca_task *task, uint32_t flags);

/**
 * @brief Submits a batch of tasks.
 *
 * Not modelled by doca-sim (no batch exists): returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] task_batch the batch.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_task_batch_submit(struct doca_task_batch *task_batch);

/**
 * @brief Submits a task if that can be done without waiting.
 *
 * Not modelled by doca-sim (no task exists): returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] task the task.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_STABLE
doca_error_t doca_task_try_submit(struct doca_task *task);

/**
 * @brief Submits a batch if that can be done without waiting.
 *
 * Not modelled by doca-sim (no batch exists): returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] task_batch the batch.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_task_batch_try_submit(struct doca_task_batch *task_batch);

/**
 * @brief Gives a task back to its context.
 *
 * doca-sim: no task exists; does nothing.
 *
 * @param [in] task the task.
 */
DOCA_STABLE
void doca_task_free(struct doca_task *task);

/**
 * @brief Gives a batch back to its context.
 *
 * doca-sim: no batch exists; does nothing.
 *
 * @param [in] task_batch the batch.
 */
DOCA_EXPERIMENTAL
void doca_task_batch_free(struct doca_task_batch *task_batch);

/**
 * @brief How a completed task ended.
 *
 * Not modelled by doca-sim (no task exists): returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] task the task.
 * @return DOCA_SUCCESS for a task that succeeded; its error code otherwise.
 */
DOCA_STABLE
doca_error_t doca_task_get_status(const struct doca_task *task);

/**
 * @brief How a completed batch ended.
 *
 * Not modelled by doca-sim (no batch exists): returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] task_batch the batch.
 * @return DOCA_SUCCESS for a batch that succeeded; its error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_task_batch_get_status(const struct doca_task_batch *task_batch);

/**
 * @brief Attaches user data to a task.
 *
 * doca-sim: no task exists; does nothing.
 *
 * @param [in] task the task.
 * @param [in] user_data the data.
 */
DOCA_STABLE
void doca_task_set_user_data(struct doca_task *task, union doca_data user_data);

/**
 * @brief Attaches user data to a batch.
 *
 * doca-sim: no batch exists; does nothing.
 *
 * @param [in] task_batch the batch.
 * @param [in] user_data the data.
 */
DOCA_EXPERIMENTAL
void doca_task_batch_set_user_data(struct doca_task_batch *task_batch, union doca_data user_data);

/**
 * @brief The user data of a task.
 *
 * doca-sim: no task exists; returns zero.
 *
 * @param [in] task the task.
 * @return the data.
 */
DOCA_STABLE
union doca_data doca_task_get_user_data(const struct doca_task *task);

/**
 * @brief The user data of a batch.
 *
 * doca-sim: no batch exists; returns zero.
 *
 * @param [in] task_batch the batch.
 * @return the data.
 */
DOCA_EXPERIMENTAL
union doca_data doca_task_batch_get_user_data(const struct doca_task_batch *task_batch);

/**
 * @brief The context a task belongs to.
 *
 * doca-sim: no task exists; returns NULL.
 *
 * @param [in] task the task.
 * @return the context.
 */
DOCA_STABLE
struct doca_ctx *doca_task_get_ctx(const struct doca_task *task);

/**
 * @brief The context a batch belongs to.
 *
 * doca-sim: no batch exists; returns NULL.
 *
 * @param [in] task_batch the batch.
 * @return the context.
 */
DOCA_EXPERIMENTAL
struct doca_ctx *doca_task_batch_get_ctx(const struct doca_task_batch *task_batch);

/**
 * @brief The user data of the context a batch belongs to.
 *
 * doca-sim: no batch exists; returns zero.
 *
 * @param [in] task_batch the batch.
 * @return the data.
 */
DOCA_EXPERIMENTAL
union doca_data doca_task_batch_get_ctx_user_data(const struct doca_task_batch *task_batch);

/**
 * @brief How many tasks a batch holds.
 *
 * doca-sim: no batch exists; returns 0.
 *
 * @param [in] task_batch the batch.
 * @return the number of tasks.
 */
DOCA_EXPERIMENTAL
uint16_t doca_task_batch_get_tasks_num(struct doca_task_batch *task_batch);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_PE_H_ */
