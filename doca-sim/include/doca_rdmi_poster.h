/*
 * Reference header written by the doca-rs project from public facts about the
 * DOCA C API; not NVIDIA's header.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */

/**
 * @file doca_rdmi_poster.h
 * @brief RDMI posters: the side that issues DPA-initiated RDMA work.
 *
 * A poster is made on the same verbs context as the connections it works
 * with. Like a connection it is a DOCA context that gets exactly one
 * completion source before start, and it hands DPA kernels a handle once
 * started. Bulk posting is done by the kernel; the host can also push
 * completion entries itself with doca_rdmi_poster_post().
 *
 * No public header for this library is known. The argument names come from
 * public documentation; every parameter type here is this project's inference,
 * and code should compile with whatever integer widths and pointer types the
 * installed header uses.
 */

#ifndef DOCA_RDMI_POSTER_H_
#define DOCA_RDMI_POSTER_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An RDMI poster. */
struct doca_rdmi_poster;
/** A generic DOCA context (see doca_ctx.h). */
struct doca_ctx;
/** A verbs context (see doca_verbs.h). */
struct doca_verbs_context;
/** A verbs protection domain (see doca_verbs.h). */
struct doca_verbs_pd;
/** A verbs completion queue (see doca_verbs.h). */
struct doca_verbs_cq;
/** A DPA completion queue (see doca_dpa.h). */
struct doca_dpa_completion;

/** How DPA kernels refer to an RDMI poster. */
typedef uint64_t doca_rdmi_dev_poster_t;

/**
 * @brief Creates an RDMI poster.
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] verbs_ctx the verbs context, shared with the connections it works with.
 * @param [out] poster receives the poster, idle.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_NO_MEMORY when allocation fails.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_poster_create(struct doca_verbs_context *verbs_ctx, struct doca_rdmi_poster **poster);

/**
 * @brief Destroys a poster. Stop its context first.
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] poster the poster.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL poster;
 * DOCA_ERROR_BAD_STATE when its context is still running.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_poster_destroy(struct doca_rdmi_poster *poster);

/**
 * @brief The poster seen as a generic DOCA context (to bind it to the DPA, start and stop it).
 *
 * @note Parameter types are inferred; no public header is known, and whether
 * public headers declare this call at all is unverified.
 *
 * @param [in] poster the poster.
 * @return its context, or NULL for a NULL poster.
 */
DOCA_EXPERIMENTAL
struct doca_ctx *doca_rdmi_poster_as_ctx(struct doca_rdmi_poster *poster);

/**
 * @brief Sets the protection domain (optional). It must be the one the program's other verbs objects use.
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] poster the poster, idle.
 * @param [in] pd the protection domain.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument or
 * a protection domain that does not match; DOCA_ERROR_BAD_STATE after start.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_poster_set_pd(struct doca_rdmi_poster *poster, struct doca_verbs_pd *pd);

/**
 * @brief Delivers the poster's completions to a DPA completion queue.
 *
 * Only for a poster put on the DPA datapath; use this or
 * doca_rdmi_poster_cq_attach(), not both.
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] poster the poster, idle.
 * @param [in] dpa_comp the DPA completion queue.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_BAD_STATE after start.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_poster_dpa_completion_attach(struct doca_rdmi_poster *poster,
						    struct doca_dpa_completion *dpa_comp);

/**
 * @brief Delivers the poster's completions to a verbs CQ that the host reads.
 *
 * Use this or doca_rdmi_poster_dpa_completion_attach(), not both.
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] poster the poster, idle.
 * @param [in] cq the verbs completion queue.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_BAD_STATE after start.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_poster_cq_attach(struct doca_rdmi_poster *poster, struct doca_verbs_cq *cq);

/**
 * @brief Passes a firmware-command input block of a given operation type through to the device.
 *
 * A block that does not match its operation type fails silently.
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] poster the poster, idle.
 * @param [in] op_type the operation the block belongs to.
 * @param [in] in_buf the input block.
 * @param [in] size its length in bytes.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_BAD_STATE after start.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_poster_set_input(struct doca_rdmi_poster *poster, uint32_t op_type, const void *in_buf,
					size_t size);

/**
 * @brief Produces the handle DPA kernels use to reach the poster.
 *
 * Valid only after the poster's context was put on the DPA datapath and
 * started; do not reuse it after a restart.
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] poster the started poster.
 * @param [out] dpa_handle receives the handle.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_BAD_STATE before start or when the datapath is not on the DPA.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_poster_get_dpa_handle(struct doca_rdmi_poster *poster, doca_rdmi_dev_poster_t *dpa_handle);

/**
 * @brief Pushes completion entries from the host to the poster's completion side.
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] poster the started poster.
 * @param [in] cqe_buf the completion entries.
 * @param [in] num_cqe number of entries in cqe_buf.
 * @param [in] mkey memory key that covers cqe_buf.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_poster_post(struct doca_rdmi_poster *poster, void *cqe_buf, uint32_t num_cqe, uint32_t mkey);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_RDMI_POSTER_H_ */
