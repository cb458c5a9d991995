/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Runs the accessor kernel on an extended context (the PF's DPA extended
 * onto the BlueField's SF) and prints what it saw; then a kernel that posts
 * a DPA RDMA send on a handle that names no RDMA context, which faults its
 * context.
 */
#include <string.h>

#include <doca_mmap.h>
#include <doca_sync_event.h>

#include "check.h"
#include "shared.h"

extern struct doca_dpa_app *kernel_accessors_app;
doca_dpa_func_t accessors;
doca_dpa_func_t rdma_send;

static struct doca_dev *open_sf(void)
{
	struct doca_devinfo **list = NULL;
	struct doca_dev *dev = NULL;
	uint32_t n = 0;

	CHECK(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && dev == NULL; i++) {
		enum doca_pci_func_type kind;

		if (doca_devinfo_get_pci_func_type(list[i], &kind) == DOCA_SUCCESS && kind == DOCA_PCI_FUNC_TYPE_SF)
			CHECK(doca_dev_open(list[i], &dev));
	}
	CHECK(doca_devinfo_destroy_list(list));
	ASSERT(dev != NULL);
	return dev;
}

int main(void)
{
	struct doca_dev *dev = open_dpa_device();
	struct doca_dev *sf = open_sf();
	struct doca_dpa *dpa = start_dpa(dev, kernel_accessors_app);
	struct doca_dpa *ext = NULL;
	struct doca_dpa_completion *comp = NULL;
	struct doca_sync_event *done = NULL;
	struct doca_mmap *mmap = NULL;
	struct accessor_results r;
	uint64_t host_words[8] = {0x1234};
	doca_dpa_dev_t ext_handle = 0;
	doca_dpa_dev_completion_t comp_handle = 0;
	doca_dpa_dev_mmap_t mmap_handle = 0;
	doca_dpa_dev_uintptr_t arr = 0, results = 0;

	CHECK(doca_dpa_device_extend(dpa, sf, &ext));
	CHECK(doca_dpa_get_dpa_handle(ext, &ext_handle));
	CHECK(doca_dpa_completion_create(ext, 8, &comp));
	CHECK(doca_dpa_completion_start(comp));
	CHECK(doca_dpa_completion_get_dpa_handle(comp, &comp_handle));

	CHECK(doca_mmap_create(&mmap));
	CHECK(doca_mmap_set_memrange(mmap, host_words, sizeof(host_words)));
	CHECK(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	CHECK(doca_mmap_add_dev(mmap, sf));
	CHECK(doca_mmap_start(mmap));
	CHECK(doca_mmap_dev_get_dpa_handle(mmap, sf, &mmap_handle));

	CHECK(doca_dpa_mem_alloc(ext, 256, &arr));
	CHECK(doca_dpa_mem_alloc(ext, sizeof(r), &results));
	done = dpa_to_cpu_event(sf, ext);

	CHECK(doca_dpa_kernel_launch_update_set(ext, NULL, 0, done, 1, 1, &accessors, ext_handle, comp_handle, arr,
						(uint64_t)(uintptr_t)host_words, mmap_handle, results));
	CHECK(doca_sync_event_wait_gt(done, 0, UINT64_MAX));
	CHECK(doca_dpa_peek_at_last_error(ext));
	CHECK(doca_dpa_d2h_memcpy(ext, &r, results, sizeof(r)));
	printf("buf len=%u mmap=%u first=%#x written=%#x\n", (unsigned int)r.buf_len, (unsigned int)r.buf_mmap,
	       (unsigned int)r.first_word, (unsigned int)host_words[0]);
	printf("wqe_counter=%u received_bytes=%u error_syndrome=%02u vendor=%#x zeros=%u wr_index=%u\n",
	       (unsigned int)r.wqe_counter, (unsigned int)r.received_bytes, (unsigned int)r.error_syndrome,
	       (unsigned int)r.vendor_error_syndrome, (unsigned int)r.zeros, (unsigned int)r.wr_index);

	/* Handle 0 names no RDMA context: the kernel faults and the context turns fatal. */
	CHECK(doca_dpa_kernel_launch_update_set(ext, NULL, 0, done, 2, 1, &rdma_send, (uint64_t)(uintptr_t)host_words));
	while (doca_dpa_peek_at_last_error(ext) == DOCA_SUCCESS)
		;
	EXPECT(DOCA_ERROR_BAD_STATE, doca_dpa_peek_at_last_error(ext));
	printf("rdma kernel: context fatal\n");

	CHECK(doca_sync_event_destroy(done));
	/* A fatal context refuses memory calls; its heap goes with it. */
	EXPECT(DOCA_ERROR_BAD_STATE, doca_dpa_mem_free(ext, results));
	CHECK(doca_mmap_destroy(mmap));
	CHECK(doca_dpa_completion_destroy(comp));
	CHECK(doca_dpa_destroy(ext));
	CHECK(doca_dpa_destroy(dpa));
	CHECK(doca_dev_close(sf));
	CHECK(doca_dev_close(dev));
	printf("done\n");
	return 0;
}
