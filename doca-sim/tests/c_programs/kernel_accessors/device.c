/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * A kernel on an extended context: selects it with doca_dpa_dev_device_set,
 * lays out a buffer array and uses the buffer accessors on a host-memory
 * map, and reads completion elements with the newer accessors. A second
 * kernel posts a DPA RDMA send on a handle that names no RDMA context.
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_buf.h>
#include <doca_dpa_dev_rdma.h>
#include <doca_sim_dev.h>

#include "shared.h"

static void take(doca_dpa_dev_completion_t comp, doca_dpa_dev_completion_element_t *element)
{
	while (!doca_dpa_dev_get_completion(comp, element))
		doca_dpa_dev_yield();
}

__dpa_global__ void accessors(doca_dpa_dev_t extended, doca_dpa_dev_completion_t comp, doca_dpa_dev_uintptr_t arr_mem,
			      uint64_t host_addr, doca_dpa_dev_mmap_t mmap, doca_dpa_dev_uintptr_t results)
{
	struct accessor_results *r = (struct accessor_results *)results;
	struct doca_dpa_dev_buf_arr *arr = (struct doca_dpa_dev_buf_arr *)arr_mem;
	doca_dpa_dev_completion_element_t sent, failed;
	doca_dpa_dev_buf_t buf;
	uint64_t *word;

	doca_dpa_dev_device_set(extended);

	arr->bufs = (struct doca_dpa_dev_buf *)(arr_mem + sizeof(*arr));
	buf = doca_dpa_dev_buf_array_get_buf(arr_mem, 1);
	doca_dpa_dev_buf_set_addr(buf, host_addr);
	doca_dpa_dev_buf_set_len(buf, 64);
	doca_dpa_dev_buf_set_mmap(buf, mmap);
	r->buf_len = doca_dpa_dev_buf_get_len(buf);
	r->buf_mmap = doca_dpa_dev_buf_get_mmap(buf) == mmap;
	word = (uint64_t *)doca_dpa_dev_buf_get_external_ptr(buf);
	r->first_word = *word;
	*word = 0xfeed;

	doca_sim_dev_completion_post(comp, DOCA_DPA_DEV_COMP_RECV_SEND, 7, 48);
	doca_sim_dev_completion_post(comp, DOCA_DPA_DEV_COMP_SEND_ERR, 9, 0x55);
	take(comp, &sent);
	take(comp, &failed);
	r->wqe_counter = doca_dpa_dev_completion_element_get_wqe_counter(sent);
	r->received_bytes = doca_dpa_dev_completion_element_get_received_bytes(sent);
	r->error_syndrome = doca_dpa_dev_completion_element_get_error_syndrome(sent) * 10 +
			    doca_dpa_dev_completion_element_get_error_syndrome(failed);
	r->vendor_error_syndrome = doca_dpa_dev_completion_element_get_vendor_error_syndrome(failed);
	r->zeros = doca_dpa_dev_completion_element_get_swqe_opcode(sent) | doca_dpa_dev_completion_element_get_srqn(sent) |
		   doca_dpa_dev_completion_element_get_qpn(failed) | doca_dpa_dev_completion_element_get_timestamp(failed);
	r->wr_index = doca_dpa_dev_rdma_completion_get_wr_index(failed);
	doca_dpa_dev_completion_ack(comp, 2);
	DOCA_DPA_DEV_LOG_INFO("accessors done\n");
}

__dpa_global__ void rdma_send(uint64_t host_addr)
{
	doca_dpa_dev_rdma_post_send(0, 0, 0, host_addr, 8, DOCA_DPA_DEV_SUBMIT_FLAG_NONE);
	DOCA_DPA_DEV_LOG_ERR("returned from an RDMA post\n");
}
