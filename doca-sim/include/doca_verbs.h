/*
 * Reference header written by the doca-rs project from public facts about the
 * DOCA C API; not NVIDIA's header.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */

/**
 * @file doca_verbs.h
 * @brief DOCA Verbs: the subset of raw RDMA objects that RDMI and DPA programs need.
 *
 * A verbs context opens its own instance of a device. Protection domains,
 * completion queues and queue pairs are made on it from attribute objects
 * that are filled in first. With the external datapath enabled, a queue pair
 * can be driven by DPA kernels through its DPA handle and report completions
 * to DPA completion queues. The host configures queue pairs; kernels only use
 * them.
 *
 * This reference header is a subset: completion channels, export/import
 * and raw buffer access are left out.
 */

#ifndef DOCA_VERBS_H_
#define DOCA_VERBS_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>
#include <doca_version.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Description of a device (see doca_dev.h). */
struct doca_devinfo;
/** An opened device (see doca_dev.h). */
struct doca_dev;
/** An opened representor (see doca_dev.h). */
struct doca_dev_rep;
/** A DPA context (see doca_dpa.h). */
struct doca_dpa;
/** A DPA completion queue (see doca_dpa.h). */
struct doca_dpa_completion;

/** A verbs context: a device instance for verbs objects. */
struct doca_verbs_context;
/** Device limits and capabilities read through a verbs context. */
struct doca_verbs_device_attr;
/** A protection domain. */
struct doca_verbs_pd;
/** Attributes collected before creating a completion queue. */
struct doca_verbs_cq_attr;
/** A completion queue. */
struct doca_verbs_cq;
/** Attributes collected before creating a queue pair. */
struct doca_verbs_qp_init_attr;
/** A queue pair. */
struct doca_verbs_qp;

/** How DPA kernels refer to a queue pair. */
typedef uint64_t doca_dpa_dev_verbs_qp_t;

/** No special behaviour for doca_verbs_context_create(). */
#define DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE 0

/** Reliable-connected queue pair, for doca_verbs_qp_init_attr_set_qp_type(). */
#define DOCA_VERBS_QP_TYPE_RC 0
/** Unreliable-connected queue pair, for doca_verbs_qp_init_attr_set_qp_type(). */
#define DOCA_VERBS_QP_TYPE_UC 1

/**
 * @brief Size of one completion queue entry.
 */
enum doca_verbs_cq_entry_size {
	DOCA_VERBS_CQ_ENTRY_SIZE_64 = 0,  /**< 64-byte entries. */
	DOCA_VERBS_CQ_ENTRY_SIZE_128 = 1, /**< 128-byte entries. */
};

/* ------------------------------------------------------------------------- */
/* Context and protection domain                                             */
/* ------------------------------------------------------------------------- */

/**
 * @brief Creates a verbs context on a device (its own instance, separate from doca_dev_open()).
 *
 * @param [in] devinfo the device.
 * @param [in] flags DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE.
 * @param [out] verbs_context receives the context.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_NO_MEMORY when allocation fails; DOCA_ERROR_NOT_CONNECTED when the
 * device cannot be reached.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_context_create(struct doca_devinfo *devinfo, uint32_t flags,
				       struct doca_verbs_context **verbs_context);

/**
 * @brief Destroys a verbs context; every object made on it must be gone first.
 *
 * @param [in] verbs_context the context.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL context.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_context_destroy(struct doca_verbs_context *verbs_context);

/**
 * @brief Creates a protection domain.
 *
 * @param [in] verbs_context the context.
 * @param [out] verbs_pd receives the protection domain.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_pd_create(struct doca_verbs_context *verbs_context, struct doca_verbs_pd **verbs_pd);

/**
 * @brief Destroys a protection domain.
 *
 * @param [in] verbs_pd the protection domain.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_pd_destroy(struct doca_verbs_pd *verbs_pd);

/**
 * @brief A doca_dev that shares resources with the protection domain.
 *
 * Every call returns the same device; close it with doca_dev_close().
 *
 * @param [in] verbs_pd the protection domain.
 * @param [out] dev receives the device.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_pd_as_doca_dev(struct doca_verbs_pd *verbs_pd, struct doca_dev **dev);

/* ------------------------------------------------------------------------- */
/* Completion queues                                                         */
/* ------------------------------------------------------------------------- */

/**
 * @brief Creates a completion queue attribute object.
 *
 * @param [out] verbs_cq_attr receives the attributes.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_cq_attr_create(struct doca_verbs_cq_attr **verbs_cq_attr);

/**
 * @brief Destroys a completion queue attribute object.
 *
 * @param [in] verbs_cq_attr the attributes.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_cq_attr_destroy(struct doca_verbs_cq_attr *verbs_cq_attr);

/**
 * @brief Sets the number of entries of the completion queue.
 *
 * @param [in] verbs_cq_attr the attributes.
 * @param [in] cq_size number of entries.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_cq_attr_set_cq_size(struct doca_verbs_cq_attr *verbs_cq_attr, uint32_t cq_size);

/**
 * @brief Reads the number of entries set.
 *
 * @param [in] verbs_cq_attr the attributes.
 * @param [out] cq_size receives the number.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_cq_attr_get_cq_size(const struct doca_verbs_cq_attr *verbs_cq_attr, uint32_t *cq_size);

/**
 * @brief Sets the size of each completion entry.
 *
 * @param [in] verbs_cq_attr the attributes.
 * @param [in] entry_size the entry size.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_cq_attr_set_entry_size(struct doca_verbs_cq_attr *verbs_cq_attr,
					       enum doca_verbs_cq_entry_size entry_size);

/**
 * @brief Reads the entry size set.
 *
 * @param [in] verbs_cq_attr the attributes.
 * @param [out] entry_size receives the entry size.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_cq_attr_get_entry_size(const struct doca_verbs_cq_attr *verbs_cq_attr,
					       enum doca_verbs_cq_entry_size *entry_size);

/**
 * @brief Allows (non-zero) or forbids (0) overrunning the completion queue.
 *
 * @param [in] verbs_cq_attr the attributes.
 * @param [in] overrun 1 to allow overrun, 0 to forbid it.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_cq_attr_set_cq_overrun(struct doca_verbs_cq_attr *verbs_cq_attr, uint8_t overrun);

/**
 * @brief Binds the completion queue to a DPA thread.
 *
 * @param [in] verbs_cq_attr the attributes.
 * @param [in] dpa_thread_id the id from doca_dpa_thread_get_id().
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_cq_attr_set_dpa_thread_id(struct doca_verbs_cq_attr *verbs_cq_attr, uint32_t dpa_thread_id);

/**
 * @brief Stores a caller pointer with the completion queue.
 *
 * @param [in] verbs_cq_attr the attributes.
 * @param [in] cq_context the pointer.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL attribute object.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_cq_attr_set_cq_context(struct doca_verbs_cq_attr *verbs_cq_attr, void *cq_context);

/**
 * @brief Creates a completion queue.
 *
 * @param [in] verbs_context the context.
 * @param [in] verbs_cq_attr the filled-in attributes.
 * @param [out] verbs_cq receives the completion queue.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * another DOCA error code when it cannot be created.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_cq_create(struct doca_verbs_context *verbs_context, struct doca_verbs_cq_attr *verbs_cq_attr,
				  struct doca_verbs_cq **verbs_cq);

/**
 * @brief Destroys a completion queue.
 *
 * @param [in] verbs_cq the completion queue.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_cq_destroy(struct doca_verbs_cq *verbs_cq);

/**
 * @brief The completion queue number.
 *
 * @param [in] verbs_cq the completion queue.
 * @return its number.
 */
DOCA_EXPERIMENTAL
uint32_t doca_verbs_cq_get_cqn(const struct doca_verbs_cq *verbs_cq);

/* ------------------------------------------------------------------------- */
/* Queue pairs                                                               */
/* ------------------------------------------------------------------------- */

/**
 * @brief Creates a queue pair attribute object.
 *
 * @param [out] verbs_qp_init_attr receives the attributes.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_init_attr_create(struct doca_verbs_qp_init_attr **verbs_qp_init_attr);

/**
 * @brief Destroys a queue pair attribute object.
 *
 * @param [in] verbs_qp_init_attr the attributes.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_init_attr_destroy(struct doca_verbs_qp_init_attr *verbs_qp_init_attr);

/**
 * @brief Sets the protection domain of the queue pair.
 *
 * @param [in] verbs_qp_init_attr the attributes.
 * @param [in] verbs_pd the protection domain.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_init_attr_set_pd(struct doca_verbs_qp_init_attr *verbs_qp_init_attr,
					    struct doca_verbs_pd *verbs_pd);

/**
 * @brief Sets the completion queue for send completions (excludes a send DPA completion).
 *
 * @param [in] verbs_qp_init_attr the attributes.
 * @param [in] send_cq the completion queue.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_init_attr_set_send_cq(struct doca_verbs_qp_init_attr *verbs_qp_init_attr,
						 struct doca_verbs_cq *send_cq);

/**
 * @brief Sets the completion queue for receive completions (excludes a receive DPA completion).
 *
 * @param [in] verbs_qp_init_attr the attributes.
 * @param [in] receive_cq the completion queue.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_init_attr_set_receive_cq(struct doca_verbs_qp_init_attr *verbs_qp_init_attr,
						    struct doca_verbs_cq *receive_cq);

/**
 * @brief Sets the number of send work requests.
 *
 * @param [in] verbs_qp_init_attr the attributes.
 * @param [in] sq_wr the number.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_init_attr_set_sq_wr(struct doca_verbs_qp_init_attr *verbs_qp_init_attr, uint32_t sq_wr);

/**
 * @brief Sets the number of receive work requests.
 *
 * @param [in] verbs_qp_init_attr the attributes.
 * @param [in] rq_wr the number.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_init_attr_set_rq_wr(struct doca_verbs_qp_init_attr *verbs_qp_init_attr, uint32_t rq_wr);

/**
 * @brief Sets the largest scatter/gather list of a send work request.
 *
 * @param [in] verbs_qp_init_attr the attributes.
 * @param [in] send_max_sges the number of entries.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_init_attr_set_send_max_sges(struct doca_verbs_qp_init_attr *verbs_qp_init_attr,
						       uint32_t send_max_sges);

/**
 * @brief Sets the largest scatter/gather list of a receive work request.
 *
 * @param [in] verbs_qp_init_attr the attributes.
 * @param [in] receive_max_sges the number of entries.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_init_attr_set_receive_max_sges(struct doca_verbs_qp_init_attr *verbs_qp_init_attr,
							  uint32_t receive_max_sges);

/**
 * @brief Sets the transport type.
 *
 * @param [in] verbs_qp_init_attr the attributes.
 * @param [in] qp_type DOCA_VERBS_QP_TYPE_RC or DOCA_VERBS_QP_TYPE_UC.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_init_attr_set_qp_type(struct doca_verbs_qp_init_attr *verbs_qp_init_attr,
						 uint32_t qp_type);

/**
 * @brief Puts the queue pair's datapath on a DPA context.
 *
 * Requires the external datapath to be enabled; excludes external memory,
 * doorbell and UAR settings.
 *
 * @param [in] verbs_qp_init_attr the attributes.
 * @param [in] dpa the DPA context.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_init_attr_set_dpa(struct doca_verbs_qp_init_attr *verbs_qp_init_attr,
					     struct doca_dpa *dpa);

/**
 * @brief Sends send completions to a DPA completion queue (instead of a send CQ).
 *
 * @param [in] verbs_qp_init_attr the attributes.
 * @param [in] dpa_comp the DPA completion queue.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_init_attr_set_send_dpa_completion(struct doca_verbs_qp_init_attr *verbs_qp_init_attr,
							     struct doca_dpa_completion *dpa_comp);

/**
 * @brief Sends receive completions to a DPA completion queue (instead of a receive CQ).
 *
 * @param [in] verbs_qp_init_attr the attributes.
 * @param [in] dpa_comp the DPA completion queue.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_init_attr_set_receive_dpa_completion(struct doca_verbs_qp_init_attr *verbs_qp_init_attr,
								struct doca_dpa_completion *dpa_comp);

/**
 * @brief Enables (1) or disables (0) the external datapath, which DPA-driven queue pairs need.
 *
 * The setting must agree with the queue pair's send and receive completion queues.
 *
 * @param [in] verbs_qp_init_attr the attributes.
 * @param [in] external_datapath_en 1 to enable, 0 to disable.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_init_attr_set_external_datapath_en(struct doca_verbs_qp_init_attr *verbs_qp_init_attr,
							      uint8_t external_datapath_en);

/**
 * @brief Creates a queue pair (the protection domain comes from the attributes).
 *
 * @param [in] verbs_context the context.
 * @param [in] verbs_qp_init_attr the filled-in attributes.
 * @param [out] verbs_qp receives the queue pair.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * another DOCA error code when it cannot be created.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_create(struct doca_verbs_context *verbs_context,
				  struct doca_verbs_qp_init_attr *verbs_qp_init_attr, struct doca_verbs_qp **verbs_qp);

/**
 * @brief Destroys a queue pair.
 *
 * @param [in] verbs_qp the queue pair.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_destroy(struct doca_verbs_qp *verbs_qp);

/**
 * @brief The queue pair number.
 *
 * @param [in] verbs_qp the queue pair.
 * @return its number.
 */
DOCA_EXPERIMENTAL
uint32_t doca_verbs_qp_get_qpn(const struct doca_verbs_qp *verbs_qp);

#if DOCA_VERSION_LTE_CURRENT(3, 2, 0)
/**
 * @brief Produces the handle DPA kernels use to drive the queue pair.
 *
 * DOCA 3.2 and later (DPA Verbs), hence the release guard.
 *
 * The queue pair must have been created with the external datapath enabled.
 *
 * @param [in] verbs_qp the queue pair.
 * @param [in] dpa_ctx the DPA context the kernels run on.
 * @param [out] dpa_qp_handle receives the handle.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * another DOCA error code when the queue pair is not on the external datapath.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_get_dpa_handle(struct doca_verbs_qp *verbs_qp, struct doca_dpa *dpa_ctx,
					  doca_dpa_dev_verbs_qp_t *dpa_qp_handle);
#endif /* DOCA 3.2 */

/* ------------------------------------------------------------------------- */
/* Device capabilities                                                       */
/* ------------------------------------------------------------------------- */

/**
 * @brief Reads the device's limits and capabilities through a verbs context.
 *
 * @param [in] context the verbs context.
 * @param [out] verbs_device_attr receives the attributes; free them with doca_verbs_device_attr_free().
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * another DOCA error code when the query fails.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_query_device(struct doca_verbs_context *context,
				     struct doca_verbs_device_attr **verbs_device_attr);

/**
 * @brief Frees attributes returned by doca_verbs_query_device().
 *
 * @param [in] verbs_device_attr the attributes.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_device_attr_free(struct doca_verbs_device_attr *verbs_device_attr);

/**
 * @brief Largest number of queue pairs.
 *
 * @param [in] verbs_device_attr the attributes.
 * @return the limit.
 */
DOCA_EXPERIMENTAL
uint32_t doca_verbs_device_attr_get_max_qp(const struct doca_verbs_device_attr *verbs_device_attr);

/**
 * @brief Largest number of completion queues.
 *
 * @param [in] verbs_device_attr the attributes.
 * @return the limit.
 */
DOCA_EXPERIMENTAL
uint32_t doca_verbs_device_attr_get_max_cq(const struct doca_verbs_device_attr *verbs_device_attr);

/**
 * @brief Largest number of entries of one completion queue.
 *
 * @param [in] verbs_device_attr the attributes.
 * @return the limit.
 */
DOCA_EXPERIMENTAL
uint32_t doca_verbs_device_attr_get_max_cqe(const struct doca_verbs_device_attr *verbs_device_attr);

/**
 * @brief Largest number of protection domains.
 *
 * @param [in] verbs_device_attr the attributes.
 * @return the limit.
 */
DOCA_EXPERIMENTAL
uint32_t doca_verbs_device_attr_get_max_pd(const struct doca_verbs_device_attr *verbs_device_attr);

/**
 * @brief Whether queue pairs on this device can be driven from the DPA (external datapath).
 *
 * @param [in] verbs_device_attr the attributes.
 * @return 1 when supported, 0 otherwise.
 */
DOCA_EXPERIMENTAL
uint8_t doca_verbs_device_attr_get_is_dpa_external_datapath_supported(
	const struct doca_verbs_device_attr *verbs_device_attr);

/* ------------------------------------------------------------------------- */
/* QP state changes, address handles, external memory                        */
/* ------------------------------------------------------------------------- */

/** Device memory registered by DOCA Core's umem API (not in these headers). */
struct doca_umem;
/** A user access region of DOCA Core's UAR API (not in these headers). */
struct doca_uar;
/*
 * Bits of the attr_mask of doca_verbs_qp_modify(): which attributes of the
 * doca_verbs_qp_attr the call applies. (doca-sim checks only that the mask is
 * not empty and that a next state is set.)
 */
#define DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_WRITE (1 << 0) /**< allow_remote_write */
#define DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_READ (1 << 1)  /**< allow_remote_read */
#define DOCA_VERBS_QP_ATTR_PKEY_INDEX (1 << 2)	       /**< pkey_index */
#define DOCA_VERBS_QP_ATTR_MIN_RNR_TIMER (1 << 3)      /**< min_rnr_timer */
#define DOCA_VERBS_QP_ATTR_PORT_NUM (1 << 4)	       /**< port_num */
#define DOCA_VERBS_QP_ATTR_NEXT_STATE (1 << 5)	       /**< next_state */
#define DOCA_VERBS_QP_ATTR_CURRENT_STATE (1 << 6)      /**< current_state */
#define DOCA_VERBS_QP_ATTR_PATH_MTU (1 << 7)	       /**< path_mtu */
#define DOCA_VERBS_QP_ATTR_RQ_PSN (1 << 8)	       /**< rq_psn */
#define DOCA_VERBS_QP_ATTR_SQ_PSN (1 << 9)	       /**< sq_psn */
#define DOCA_VERBS_QP_ATTR_DEST_QP_NUM (1 << 10)       /**< dest_qp_num */
#define DOCA_VERBS_QP_ATTR_ACK_TIMEOUT (1 << 11)       /**< ack_timeout */
#define DOCA_VERBS_QP_ATTR_RETRY_CNT (1 << 12)	       /**< retry_cnt */
#define DOCA_VERBS_QP_ATTR_RNR_RETRY (1 << 13)	       /**< rnr_retry */
#define DOCA_VERBS_QP_ATTR_AH_ATTR (1 << 14)	       /**< ah_attr */
#define DOCA_VERBS_QP_ATTR_ATOMIC_MODE (1 << 15)       /**< atomic_mode */
#define DOCA_VERBS_QP_ATTR_MAX_QP_RD_ATOMIC (1 << 16)  /**< outstanding reads/atomics it initiates */
#define DOCA_VERBS_QP_ATTR_MAX_DEST_RD_ATOMIC (1 << 17) /**< incoming reads/atomics it serves */

/** Attributes of a queue pair state change (doca_verbs_qp_modify()). */
struct doca_verbs_qp_attr;
/** How to reach a peer: the address handle of a connected queue pair. */
struct doca_verbs_ah_attr;

/** A GID: a port's 128-bit global identifier. */
struct doca_verbs_gid {
	uint8_t raw[DOCA_GID_BYTE_LENGTH]; /**< Its bytes, network order. */
};

/**
 * @brief States of a queue pair.
 */
enum doca_verbs_qp_state {
	DOCA_VERBS_QP_STATE_RST = 0, /**< Reset: just created. */
	DOCA_VERBS_QP_STATE_INIT,    /**< Initialised. */
	DOCA_VERBS_QP_STATE_RTR,     /**< Ready to receive. */
	DOCA_VERBS_QP_STATE_RTS,     /**< Ready to send. */
	DOCA_VERBS_QP_STATE_ERR,     /**< Error. */
};

/**
 * @brief How an address handle names the peer.
 */
enum doca_verbs_addr_type {
	DOCA_VERBS_ADDR_TYPE_IPv4,	/**< RoCE over IPv4. */
	DOCA_VERBS_ADDR_TYPE_IPv6,	/**< RoCE over IPv6. */
	DOCA_VERBS_ADDR_TYPE_IB_GRH,	/**< InfiniBand with a global route header. */
	DOCA_VERBS_ADDR_TYPE_IB_NO_GRH, /**< InfiniBand without one. */
};

/**
 * @brief Creates an empty set of queue pair attributes.
 *
 * @param [out] verbs_qp_attr receives it; destroy it with doca_verbs_qp_attr_destroy().
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_attr_create(struct doca_verbs_qp_attr **verbs_qp_attr);

/**
 * @brief Destroys a set of queue pair attributes.
 *
 * @param [in] verbs_qp_attr the attributes.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL or unknown set.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_attr_destroy(struct doca_verbs_qp_attr *verbs_qp_attr);

/**
 * @brief Sets the state doca_verbs_qp_modify() moves to.
 *
 * @param [in] verbs_qp_attr the attributes.
 * @param [in] next_state the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL set.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_attr_set_next_state(struct doca_verbs_qp_attr *verbs_qp_attr, enum doca_verbs_qp_state next_state);

/**
 * @brief Sets the state the queue pair is believed to be in (parameter type inferred).
 *
 * @param [in] verbs_qp_attr the attributes.
 * @param [in] current_state the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL set.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_attr_set_current_state(struct doca_verbs_qp_attr *verbs_qp_attr, enum doca_verbs_qp_state current_state);

/**
 * @brief Sets whether peers may write (non-zero) or not.
 *
 * @param [in] verbs_qp_attr the attributes.
 * @param [in] allow_remote_write the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL set.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_attr_set_allow_remote_write(struct doca_verbs_qp_attr *verbs_qp_attr, int allow_remote_write);

/**
 * @brief Sets whether peers may read (non-zero) or not.
 *
 * @param [in] verbs_qp_attr the attributes.
 * @param [in] allow_remote_read the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL set.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_attr_set_allow_remote_read(struct doca_verbs_qp_attr *verbs_qp_attr, int allow_remote_read);

/**
 * @brief Sets how many RDMA reads and atomics may be outstanding.
 *
 * @param [in] verbs_qp_attr the attributes.
 * @param [in] max_rd_atomic the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL set.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_attr_set_max_rd_atomic(struct doca_verbs_qp_attr *verbs_qp_attr, uint8_t max_rd_atomic);

/**
 * @brief Sets how many RDMA reads and atomics a peer may have outstanding.
 *
 * @param [in] verbs_qp_attr the attributes.
 * @param [in] max_dest_rd_atomic the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL set.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_attr_set_max_dest_rd_atomic(struct doca_verbs_qp_attr *verbs_qp_attr, uint8_t max_dest_rd_atomic);

/**
 * @brief Sets the partition key index.
 *
 * @param [in] verbs_qp_attr the attributes.
 * @param [in] pkey_index the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL set.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_attr_set_pkey_index(struct doca_verbs_qp_attr *verbs_qp_attr, uint16_t pkey_index);

/**
 * @brief Sets the port.
 *
 * @param [in] verbs_qp_attr the attributes.
 * @param [in] port_num the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL set.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_attr_set_port_num(struct doca_verbs_qp_attr *verbs_qp_attr, uint16_t port_num);

/**
 * @brief Sets the acknowledgement timeout.
 *
 * @param [in] verbs_qp_attr the attributes.
 * @param [in] ack_timeout the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL set.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_attr_set_ack_timeout(struct doca_verbs_qp_attr *verbs_qp_attr, uint16_t ack_timeout);

/**
 * @brief Sets the retry count.
 *
 * @param [in] verbs_qp_attr the attributes.
 * @param [in] retry_cnt the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL set.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_attr_set_retry_cnt(struct doca_verbs_qp_attr *verbs_qp_attr, uint16_t retry_cnt);

/**
 * @brief Sets the receiver-not-ready retry count.
 *
 * @param [in] verbs_qp_attr the attributes.
 * @param [in] rnr_retry the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL set.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_attr_set_rnr_retry(struct doca_verbs_qp_attr *verbs_qp_attr, uint16_t rnr_retry);

/**
 * @brief Sets the minimal receiver-not-ready timer.
 *
 * @param [in] verbs_qp_attr the attributes.
 * @param [in] min_rnr_timer the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL set.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_attr_set_min_rnr_timer(struct doca_verbs_qp_attr *verbs_qp_attr, uint16_t min_rnr_timer);

/**
 * @brief Sets the receive queue's first packet sequence number (parameter type inferred).
 *
 * @param [in] verbs_qp_attr the attributes.
 * @param [in] rq_psn the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL set.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_attr_set_rq_psn(struct doca_verbs_qp_attr *verbs_qp_attr, uint32_t rq_psn);

/**
 * @brief Sets the send queue's first packet sequence number (parameter type inferred).
 *
 * @param [in] verbs_qp_attr the attributes.
 * @param [in] sq_psn the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL set.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_attr_set_sq_psn(struct doca_verbs_qp_attr *verbs_qp_attr, uint32_t sq_psn);

/**
 * @brief Sets the peer queue pair's number (parameter type inferred).
 *
 * @param [in] verbs_qp_attr the attributes.
 * @param [in] dest_qp_num the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL set.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_attr_set_dest_qp_num(struct doca_verbs_qp_attr *verbs_qp_attr, uint32_t dest_qp_num);

/**
 * @brief Sets the path MTU (parameter type inferred).
 *
 * @param [in] verbs_qp_attr the attributes.
 * @param [in] path_mtu the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL set.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_attr_set_path_mtu(struct doca_verbs_qp_attr *verbs_qp_attr, enum doca_mtu_size path_mtu);

/**
 * @brief Sets the address handle of the peer.
 *
 * @param [in] verbs_qp_attr the attributes.
 * @param [in] ah_attr the address handle.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_attr_set_ah_attr(struct doca_verbs_qp_attr *verbs_qp_attr, struct doca_verbs_ah_attr *ah_attr);

/**
 * @brief Moves a queue pair to the next state of `verbs_qp_attr`, applying the
 * attributes `attr_mask` selects (the DOCA_VERBS_QP_ATTR_* bits of the real header).
 *
 * doca-sim: the state machine RST -> INIT -> RTR -> RTS (RTS -> RTS too), any state ->
 * RST or ERR; other transitions are DOCA_ERROR_BAD_STATE, a set without a next state
 * or an empty mask DOCA_ERROR_INVALID_VALUE. The attributes are kept, not applied to
 * any traffic (the sim's queue pairs carry none).
 *
 * @param [in] verbs_qp the queue pair.
 * @param [in] verbs_qp_attr the attributes.
 * @param [in] attr_mask which attributes to apply.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_modify(struct doca_verbs_qp *verbs_qp, struct doca_verbs_qp_attr *verbs_qp_attr, int attr_mask);

/**
 * @brief Reads a queue pair's attributes.
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] verbs_qp the queue pair.
 * @param [out] verbs_qp_attr receives its attributes.
 * @param [out] verbs_qp_init_attr receives its creation attributes.
 * @param [out] attr_mask receives which attributes were read.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_query(struct doca_verbs_qp *verbs_qp, struct doca_verbs_qp_attr *verbs_qp_attr,
				 struct doca_verbs_qp_init_attr *verbs_qp_init_attr, int *attr_mask);

/**
 * @brief Creates an address handle on a verbs context.
 *
 * @param [in] verbs_context the context.
 * @param [out] verbs_ah_attr receives it; destroy it with doca_verbs_ah_attr_destroy().
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_ah_attr_create(struct doca_verbs_context *verbs_context, struct doca_verbs_ah_attr **verbs_ah_attr);

/**
 * @brief Destroys an address handle.
 *
 * @param [in] verbs_ah_attr the address handle.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL or unknown handle.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_ah_attr_destroy(struct doca_verbs_ah_attr *verbs_ah_attr);

/**
 * @brief Sets the peer's GID.
 *
 * @param [in] verbs_ah_attr the address handle.
 * @param [in] gid the GID.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL handle.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_ah_attr_set_gid(struct doca_verbs_ah_attr *verbs_ah_attr, struct doca_verbs_gid gid);

/**
 * @brief Sets how the peer is addressed.
 *
 * @param [in] verbs_ah_attr the address handle.
 * @param [in] addr_type the address type.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL handle or unknown type.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_ah_attr_set_addr_type(struct doca_verbs_ah_attr *verbs_ah_attr, enum doca_verbs_addr_type addr_type);

/**
 * @brief Sets the peer's local identifier (InfiniBand).
 *
 * @param [in] verbs_ah_attr the address handle.
 * @param [in] dlid the LID.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL handle.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_ah_attr_set_dlid(struct doca_verbs_ah_attr *verbs_ah_attr, uint32_t dlid);

/**
 * @brief Sets the service level.
 *
 * @param [in] verbs_ah_attr the address handle.
 * @param [in] sl the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL handle.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_ah_attr_set_sl(struct doca_verbs_ah_attr *verbs_ah_attr, uint8_t sl);

/**
 * @brief Sets the index of the local GID.
 *
 * @param [in] verbs_ah_attr the address handle.
 * @param [in] sgid_index the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL handle.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_ah_attr_set_sgid_index(struct doca_verbs_ah_attr *verbs_ah_attr, uint8_t sgid_index);

/**
 * @brief Sets the static rate.
 *
 * @param [in] verbs_ah_attr the address handle.
 * @param [in] static_rate the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL handle.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_ah_attr_set_static_rate(struct doca_verbs_ah_attr *verbs_ah_attr, uint8_t static_rate);

/**
 * @brief Sets the hop limit.
 *
 * @param [in] verbs_ah_attr the address handle.
 * @param [in] hop_limit the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL handle.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_ah_attr_set_hop_limit(struct doca_verbs_ah_attr *verbs_ah_attr, uint8_t hop_limit);

/**
 * @brief Sets the traffic class.
 *
 * @param [in] verbs_ah_attr the address handle.
 * @param [in] traffic_class the value.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL handle.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_ah_attr_set_traffic_class(struct doca_verbs_ah_attr *verbs_ah_attr, uint8_t traffic_class);

/**
 * @brief Places a completion queue in caller-registered memory.
 *
 * Not modelled by doca-sim (umem and UAR objects come from DOCA Core APIs
 * outside the reference headers): returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] verbs_cq_attr the attributes.
 * @param [in] external_umem the memory.
 * @param [in] external_umem_offset the offset in it.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_cq_attr_set_external_umem(struct doca_verbs_cq_attr *verbs_cq_attr, struct doca_umem *external_umem,
						 uint64_t external_umem_offset);

/**
 * @brief Rings a completion queue's doorbell through a caller UAR.
 *
 * Not modelled by doca-sim (umem and UAR objects come from DOCA Core APIs
 * outside the reference headers): returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] verbs_cq_attr the attributes.
 * @param [in] external_uar the UAR.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_cq_attr_set_external_uar(struct doca_verbs_cq_attr *verbs_cq_attr, struct doca_uar *external_uar);

/**
 * @brief Places a queue pair's work queues in caller-registered memory.
 *
 * Not modelled by doca-sim (umem and UAR objects come from DOCA Core APIs
 * outside the reference headers): returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] verbs_qp_init_attr the attributes.
 * @param [in] external_umem the memory.
 * @param [in] external_umem_offset the offset in it.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_init_attr_set_external_umem(struct doca_verbs_qp_init_attr *verbs_qp_init_attr,
						      struct doca_umem *external_umem, uint64_t external_umem_offset);

/**
 * @brief Places a queue pair's doorbell record in caller-registered memory.
 *
 * Not modelled by doca-sim (umem and UAR objects come from DOCA Core APIs
 * outside the reference headers): returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] verbs_qp_init_attr the attributes.
 * @param [in] external_umem the memory.
 * @param [in] external_umem_offset the offset in it.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_init_attr_set_external_dbr_umem(struct doca_verbs_qp_init_attr *verbs_qp_init_attr,
							  struct doca_umem *external_umem, uint64_t external_umem_offset);

/**
 * @brief Rings a queue pair's doorbell through a caller UAR.
 *
 * Not modelled by doca-sim (umem and UAR objects come from DOCA Core APIs
 * outside the reference headers): returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] verbs_qp_init_attr the attributes.
 * @param [in] external_uar the UAR.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_verbs_qp_init_attr_set_external_uar(struct doca_verbs_qp_init_attr *verbs_qp_init_attr,
						     struct doca_uar *external_uar);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_VERBS_H_ */
