/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Stand-in for DOCA RDMA's host header, for building NVIDIA's DPA samples on
 * doca-sim (scripts/run-nvidia-samples.sh). doca-sim does not model DOCA
 * RDMA (neither these host objects nor the DPA's doca_dpa_dev_rdma_* posts,
 * which end a kernel with a device fault). This declares the functions the
 * samples' shared code calls (written from the documented prototypes);
 * harness.c answers the capability query with success (every simulated device
 * is an RDMA-capable NIC, which the samples' device selection needs) and every
 * other call with DOCA_ERROR_NOT_SUPPORTED, so a sample that uses RDMA stops
 * there with a message that says so.
 */
#ifndef DOCA_SIM_SAMPLES_RDMA_H_
#define DOCA_SIM_SAMPLES_RDMA_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The DPA-side handle of an RDMA context (as in the device header). */
typedef uint64_t doca_dpa_dev_rdma_t;

struct doca_rdma;
struct doca_rdma_connection;

doca_error_t doca_rdma_cap_task_send_is_supported(const struct doca_devinfo *devinfo);
doca_error_t doca_rdma_create(struct doca_dev *dev, struct doca_rdma **rdma);
doca_error_t doca_rdma_destroy(struct doca_rdma *rdma);
struct doca_ctx *doca_rdma_as_ctx(struct doca_rdma *rdma);
doca_error_t doca_rdma_set_permissions(struct doca_rdma *rdma, uint32_t permissions);
doca_error_t doca_rdma_set_grh_enabled(struct doca_rdma *rdma, uint8_t grh_enabled);
doca_error_t doca_rdma_set_recv_queue_size(struct doca_rdma *rdma, uint32_t recv_queue_size);
doca_error_t doca_rdma_task_receive_set_dst_buf_list_len(struct doca_rdma *rdma, uint32_t buf_list_len);
doca_error_t doca_rdma_set_gid_index(struct doca_rdma *rdma, uint32_t gid_index);
doca_error_t doca_rdma_set_max_num_connections(struct doca_rdma *rdma, uint16_t max_num_connections);
doca_error_t doca_rdma_dpa_completion_attach(struct doca_rdma *rdma, struct doca_dpa_completion *dpa_comp);
doca_error_t doca_rdma_get_dpa_handle(struct doca_rdma *rdma, doca_dpa_dev_rdma_t *dpa_rdma);
doca_error_t doca_rdma_export(struct doca_rdma *rdma,
			      const void **local_rdma_conn_details,
			      size_t *local_rdma_conn_details_size,
			      struct doca_rdma_connection **rdma_connection);
doca_error_t doca_rdma_connect(struct doca_rdma *rdma,
			       const void *remote_rdma_conn_details,
			       size_t remote_rdma_conn_details_size,
			       struct doca_rdma_connection *rdma_connection);
doca_error_t doca_rdma_connection_get_id(const struct doca_rdma_connection *rdma_connection, uint32_t *connection_id);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_SIM_SAMPLES_RDMA_H_ */
