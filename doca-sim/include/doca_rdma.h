/*
 * Reference header written by the doca-rs project from public facts about the
 * DOCA C API; not NVIDIA's header.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */

/**
 * @file doca_rdma.h
 * @brief DOCA RDMA on the DPA datapath: the part of DOCA RDMA that DPA programs use.
 *
 * A DOCA RDMA context is a DOCA context on a device. A DPA program binds it to a
 * DPA context with doca_ctx_set_datapath_on_dpa(), attaches a DPA completion
 * context, starts it, and gives its kernels the handle of
 * doca_rdma_get_dpa_handle(); the kernels post operations with the calls of
 * doca_dpa_dev_rdma.h. Two contexts are connected by exporting a connection on
 * each (doca_rdma_export()) and handing each the other's connection details
 * (doca_rdma_connect()).
 *
 * Only this subset of the real doca_rdma.h is declared: the calls NVIDIA's DPA
 * samples and the DPA all-to-all application make. The task API of the CPU
 * datapath, connection managers, addresses and GPU handles are not, so a program
 * that uses them does not build against the software DPA. Prototypes follow the
 * DOCA 3.0 header; every function is EXPERIMENTAL there.
 */

#ifndef DOCA_RDMA_H_
#define DOCA_RDMA_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A DOCA RDMA context. */
struct doca_rdma;
/** One connection of a DOCA RDMA context (doca_rdma_export()). */
struct doca_rdma_connection;

/** How DPA kernels refer to a DOCA RDMA context (doca_rdma_get_dpa_handle()). */
typedef uint64_t doca_dpa_dev_rdma_t;

/**
 * @brief Creates a DOCA RDMA context on a device.
 *
 * @param [in] dev the device.
 * @param [out] rdma receives the context, idle.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_create(struct doca_dev *dev, struct doca_rdma **rdma);

/**
 * @brief Destroys a DOCA RDMA context.
 *
 * @param [in] rdma the context; its DOCA context must be stopped.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE when
 * the context was not stopped.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_destroy(struct doca_rdma *rdma);

/**
 * @brief The DOCA context of a DOCA RDMA context (always the same pointer).
 *
 * @param [in] rdma the context.
 * @return the DOCA context, or NULL.
 */
DOCA_EXPERIMENTAL
struct doca_ctx *doca_rdma_as_ctx(struct doca_rdma *rdma);

/**
 * @brief Exports a new connection of a started context.
 *
 * @param [in] rdma the context.
 * @param [out] local_rdma_conn_details receives the connection details, for the
 * peer's doca_rdma_connect().
 * @param [out] local_rdma_conn_details_size receives their size.
 * @param [out] rdma_connection receives the connection.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_BAD_STATE before doca_ctx_start(); DOCA_ERROR_FULL when every
 * connection is in use.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_export(struct doca_rdma *rdma,
			      const void **local_rdma_conn_details,
			      size_t *local_rdma_conn_details_size,
			      struct doca_rdma_connection **rdma_connection);

/**
 * @brief Connects an exported connection to a peer's.
 *
 * @param [in] rdma the context.
 * @param [in] remote_rdma_conn_details the peer's connection details.
 * @param [in] remote_rdma_conn_details_size their size.
 * @param [in] rdma_connection a connection this context exported.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_BAD_STATE when the context is not started or the connection is
 * already connected; DOCA_ERROR_CONNECTION_ABORTED for bad connection details.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_connect(struct doca_rdma *rdma,
			       const void *remote_rdma_conn_details,
			       size_t remote_rdma_conn_details_size,
			       struct doca_rdma_connection *rdma_connection);

/**
 * @brief Whether a device can execute RDMA sends.
 *
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when it can; DOCA_ERROR_NOT_SUPPORTED when it cannot;
 * DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_task_send_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The largest send queue size a context on a device accepts.
 *
 * @param [in] devinfo the device.
 * @param [out] max_send_queue_size the size.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_get_max_send_queue_size(const struct doca_devinfo *devinfo, uint32_t *max_send_queue_size);

/**
 * @brief The largest receive queue size a context on a device accepts.
 *
 * @param [in] devinfo the device.
 * @param [out] max_recv_queue_size the size.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo, uint32_t *max_recv_queue_size);

/**
 * @brief The largest send queue size a context on a device accepts.
 *
 * @param [in] devinfo the device.
 * @param [out] max_send_queue_size the size.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_get_max_send_queue_size(const struct doca_devinfo *devinfo, uint32_t *max_send_queue_size);

/**
 * @brief The largest receive queue size a context on a device accepts.
 *
 * @param [in] devinfo the device.
 * @param [out] max_recv_queue_size the size.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo, uint32_t *max_recv_queue_size);

/**
 * @brief The largest send queue size a context on a device accepts.
 *
 * @param [in] devinfo the device.
 * @param [out] max_send_queue_size the size.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_get_max_send_queue_size(const struct doca_devinfo *devinfo, uint32_t *max_send_queue_size);

/**
 * @brief The largest receive queue size a context on a device accepts.
 *
 * @param [in] devinfo the device.
 * @param [out] max_recv_queue_size the size.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo, uint32_t *max_recv_queue_size);

/**
 * @brief The largest send queue size a context on a device accepts.
 *
 * @param [in] devinfo the device.
 * @param [out] max_send_queue_size the size.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_get_max_send_queue_size(const struct doca_devinfo *devinfo, uint32_t *max_send_queue_size);

/**
 * @brief The largest receive queue size a context on a device accepts.
 *
 * @param [in] devinfo the device.
 * @param [out] max_recv_queue_size the size.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo, uint32_t *max_recv_queue_size);

/**
 * @brief The largest send queue size a context on a device accepts.
 *
 * @param [in] devinfo the device.
 * @param [out] max_send_queue_size the size.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_get_max_send_queue_size(const struct doca_devinfo *devinfo, uint32_t *max_send_queue_size);

/**
 * @brief The largest receive queue size a context on a device accepts.
 *
 * @param [in] devinfo the device.
 * @param [out] max_recv_queue_size the size.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo, uint32_t *max_recv_queue_size);

/**
 * @brief The largest send queue size a context on a device accepts.
 *
 * @param [in] devinfo the device.
 * @param [out] max_send_queue_size the size.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_get_max_send_queue_size(const struct doca_devinfo *devinfo, uint32_t *max_send_queue_size);

/**
 * @brief The largest receive queue size a context on a device accepts.
 *
 * @param [in] devinfo the device.
 * @param [out] max_recv_queue_size the size.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo, uint32_t *max_recv_queue_size);

/**
 * @brief Sets the send queue size (before start; rounded up to a power of two).
 *
 * @param [in] rdma the context.
 * @param [in] send_queue_size the size.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_NOT_SUPPORTED for an
 * unsupported size; DOCA_ERROR_BAD_STATE after start.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_set_send_queue_size(struct doca_rdma *rdma, uint32_t send_queue_size);

/**
 * @brief Sets the receive queue size (before start; rounded up to a power of two).
 *
 * @param [in] rdma the context.
 * @param [in] recv_queue_size the size.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_NOT_SUPPORTED for an
 * unsupported size; DOCA_ERROR_BAD_STATE after start.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_set_recv_queue_size(struct doca_rdma *rdma, uint32_t recv_queue_size);

/**
 * @brief The receive queue size in use.
 *
 * @param [in] rdma the context.
 * @param [out] recv_queue_size receives it.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_get_recv_queue_size(const struct doca_rdma *rdma, uint32_t *recv_queue_size);

/**
 * @brief Sets the RDMA access permissions (before start).
 *
 * @param [in] rdma the context.
 * @param [in] permissions a bitwise or of RDMA flags of enum doca_access_flag.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for other flags;
 * DOCA_ERROR_BAD_STATE after start.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_set_permissions(struct doca_rdma *rdma, uint32_t permissions);

/**
 * @brief The RDMA access permissions.
 *
 * @param [in] rdma the context.
 * @param [out] permissions receives them.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_get_permissions(struct doca_rdma *rdma, uint32_t *permissions);

/**
 * @brief Sets whether connections use a GRH (before start).
 *
 * @param [in] rdma the context.
 * @param [in] grh_enabled 1 to use one, 0 not to.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_BAD_STATE after start.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_set_grh_enabled(struct doca_rdma *rdma, uint8_t grh_enabled);

/**
 * @brief Sets the GID index (before start).
 *
 * @param [in] rdma the context.
 * @param [in] gid_index the index.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_BAD_STATE after start.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_set_gid_index(struct doca_rdma *rdma, uint32_t gid_index);

/**
 * @brief Sets how many connections the context may export (before start).
 *
 * @param [in] rdma the context.
 * @param [in] max_num_connections the number.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_NOT_SUPPORTED below the
 * minimum; DOCA_ERROR_BAD_STATE after start.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_set_max_num_connections(struct doca_rdma *rdma, uint16_t max_num_connections);

/**
 * @brief How many connections the context may export.
 *
 * @param [in] rdma the context.
 * @param [out] max_num_connections receives the number.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_get_max_num_connections(struct doca_rdma *rdma, uint16_t *max_num_connections);

/**
 * @brief Sets the longest buffer list of a receive (before start).
 *
 * @param [in] rdma the context.
 * @param [in] buf_list_len the length.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_BAD_STATE after start.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_task_receive_set_dst_buf_list_len(struct doca_rdma *rdma, uint32_t buf_list_len);

/**
 * @brief The handle DPA kernels use for a started context on the DPA datapath.
 *
 * @param [in] rdma the context.
 * @param [out] dpa_rdma receives the handle.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_BAD_STATE before start
 * or when the context is not on the DPA datapath.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_get_dpa_handle(struct doca_rdma *rdma, doca_dpa_dev_rdma_t *dpa_rdma);

/**
 * @brief The ID DPA kernels name a connection by.
 *
 * @param [in] rdma_connection the connection.
 * @param [out] connection_id receives the ID.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_connection_get_id(const struct doca_rdma_connection *rdma_connection,
					 uint32_t *connection_id);

/**
 * @brief Attaches the DPA completion context the context reports to (before start,
 * on the DPA datapath).
 *
 * @param [in] rdma the context.
 * @param [in] dpa_comp the DPA completion context.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_BAD_STATE after start.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_rdma_dpa_completion_attach(struct doca_rdma *rdma, struct doca_dpa_completion *dpa_comp);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_RDMA_H_ */
