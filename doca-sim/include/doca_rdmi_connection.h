/*
 * Reference header written by the doca-rs project from public facts about the
 * DOCA C API; not NVIDIA's header.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */

/**
 * @file doca_rdmi_connection.h
 * @brief RDMI connections: the receive side of DPA-initiated RDMA.
 *
 * A connection is made on a verbs context and a representor. Before it is
 * started it gets exactly one completion source (a DPA completion queue, or a
 * verbs CQ read by the host), its receive buffer, and optionally a protection
 * domain and firmware-command inputs. Once started, it hands DPA kernels a
 * handle; the host then acknowledges the receive slots the kernel has
 * consumed. Slots that are never acknowledged make the receive window run dry
 * without any error being reported.
 *
 * A connection is a DOCA context: it is put on the DPA datapath with
 * doca_ctx_set_datapath_on_dpa() and started with doca_ctx_start(). No public
 * header is known to declare the call that returns that context, so this
 * reference header does not declare it either.
 *
 * No public header for this library is known. The argument names come from
 * public documentation; every parameter type here is this project's inference,
 * and code should compile with whatever integer widths and pointer types the
 * installed header uses.
 */

#ifndef DOCA_RDMI_CONNECTION_H_
#define DOCA_RDMI_CONNECTION_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An RDMI connection. */
struct doca_rdmi_connection;
/** A verbs context (see doca_verbs.h). */
struct doca_verbs_context;
/** A verbs protection domain (see doca_verbs.h). */
struct doca_verbs_pd;
/** A verbs completion queue (see doca_verbs.h). */
struct doca_verbs_cq;
/** An opened representor (see doca_dev.h). */
struct doca_dev_rep;
/** A DPA completion queue (see doca_dpa.h). */
struct doca_dpa_completion;

/** How DPA kernels refer to an RDMI connection. */
typedef uint64_t doca_dpa_dev_rdmi_connection_t;

/**
 * @brief Creates an RDMI connection.
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] verbs_ctx the verbs context (posters working with it must share it).
 * @param [in] rep the representor the connection serves.
 * @param [out] conn receives the connection, idle.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_NO_MEMORY when allocation fails.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_connection_create(struct doca_verbs_context *verbs_ctx, struct doca_dev_rep *rep,
					 struct doca_rdmi_connection **conn);

/**
 * @brief Destroys a connection. Stop its context first, and destroy posters before connections.
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] conn the connection.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL connection;
 * DOCA_ERROR_BAD_STATE when its context is still running.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_connection_destroy(struct doca_rdmi_connection *conn);

/**
 * @brief Sets the protection domain (optional). It must be the one the program's other verbs objects use.
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] conn the connection, idle.
 * @param [in] pd the protection domain.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument or
 * a protection domain that does not match; DOCA_ERROR_BAD_STATE after start.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_connection_set_pd(struct doca_rdmi_connection *conn, struct doca_verbs_pd *pd);

/**
 * @brief Hands the connection the program's receive buffer (its receive window).
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] conn the connection, idle.
 * @param [in] buf the receive buffer.
 * @param [in] size its length in bytes; must not be zero.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_BAD_STATE after start.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_connection_init_receive(struct doca_rdmi_connection *conn, void *buf, size_t size);

/**
 * @brief Delivers the connection's completions to a DPA completion queue.
 *
 * Only for a connection put on the DPA datapath; use this or
 * doca_rdmi_connection_cq_attach(), not both.
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] conn the connection, idle.
 * @param [in] dpa_comp the DPA completion queue.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_BAD_STATE after start.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_connection_dpa_completion_attach(struct doca_rdmi_connection *conn,
							struct doca_dpa_completion *dpa_comp);

/**
 * @brief Delivers the connection's completions to a verbs CQ that the host reads.
 *
 * Use this or doca_rdmi_connection_dpa_completion_attach(), not both.
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] conn the connection, idle.
 * @param [in] cq the verbs completion queue.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_BAD_STATE after start.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_connection_cq_attach(struct doca_rdmi_connection *conn, struct doca_verbs_cq *cq);

/**
 * @brief Passes a firmware-command input block of a given operation type through to the device.
 *
 * A block that does not match its operation type fails silently.
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] conn the connection, idle.
 * @param [in] op_type the operation the block belongs to.
 * @param [in] in_buf the input block.
 * @param [in] size its length in bytes.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_BAD_STATE after start.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_connection_set_input(struct doca_rdmi_connection *conn, uint32_t op_type, const void *in_buf,
					    size_t size);

/**
 * @brief Produces the handle DPA kernels use to reach the connection.
 *
 * Valid only after the connection's context was put on the DPA datapath and
 * started; do not reuse it after a restart.
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] conn the started connection.
 * @param [out] dpa_handle receives the handle.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_BAD_STATE before start or when the datapath is not on the DPA.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_connection_get_dpa_handle(struct doca_rdmi_connection *conn,
						 doca_dpa_dev_rdmi_connection_t *dpa_handle);

/**
 * @brief Gives back to the connection receive slots the DPA kernel has consumed.
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] conn the started connection.
 * @param [in] num_acked number of slots released.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_connection_recv_ack(struct doca_rdmi_connection *conn, uint32_t num_acked);

/**
 * @brief Describes the receive buffer as a DPA kernel must address it.
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] conn the connection.
 * @param [out] mkey receives the memory key of the receive buffer.
 * @param [out] offset receives the offset of the receive area within that memory.
 * @param [out] size receives the size of the receive area in bytes.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_connection_get_app_rq_info(struct doca_rdmi_connection *conn, uint32_t *mkey, uint64_t *offset,
						  size_t *size);

/**
 * @brief Feeds back the output of a queue-pair creation command.
 *
 * Expected to change once an on-behalf interface exists.
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] conn the connection.
 * @param [in] out_buf the command output.
 * @param [in] size its length in bytes.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_connection_set_qp_create_out(struct doca_rdmi_connection *conn, const void *out_buf,
						    size_t size);

/**
 * @brief Feeds back the output of a queue-pair modification command.
 *
 * Expected to change once an on-behalf interface exists.
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] conn the connection.
 * @param [in] out_buf the command output.
 * @param [in] size its length in bytes.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_connection_set_qp_modify_out(struct doca_rdmi_connection *conn, const void *out_buf,
						    size_t size);

/**
 * @brief Feeds back the output of a queue-pair query command.
 *
 * Expected to change once an on-behalf interface exists.
 *
 * @note Parameter types are inferred; no public header is known.
 *
 * @param [in] conn the connection.
 * @param [in] out_buf the command output.
 * @param [in] size its length in bytes.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdmi_connection_set_qp_query_out(struct doca_rdmi_connection *conn, const void *out_buf,
						   size_t size);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_RDMI_CONNECTION_H_ */
