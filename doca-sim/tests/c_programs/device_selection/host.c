/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * The host-side device selection of NVIDIA's DPA samples, in our own words:
 * the first device with a DPA is the PF; when it can list network
 * representors, the program runs on the DPU's Arm side and creates its RDMA
 * resources on an SF, onto which it extends the PF's DPA context.
 */
#include <string.h>

#include <doca_sync_event.h>

#include "check.h"

extern struct doca_dpa_app *device_selection_app;
doca_dpa_func_t selection_kernel;

int main(void)
{
	struct doca_dev *pf = open_dpa_device();
	struct doca_devinfo **list = NULL;
	struct doca_dev *rdma_dev = NULL;
	struct doca_dpa *dpa = NULL, *rdma_dpa = NULL;
	struct doca_sync_event *done = NULL;
	char pf_name[DOCA_DEVINFO_IBDEV_NAME_SIZE], name[DOCA_DEVINFO_IBDEV_NAME_SIZE];
	doca_dpa_dev_t handle = 0;
	uint8_t on_dpu = 0;
	uint32_t n = 0;

	CHECK(doca_devinfo_get_ibdev_name(doca_dev_as_devinfo(pf), pf_name, sizeof(pf_name)));
	CHECK(doca_devinfo_rep_cap_is_filter_net_supported(doca_dev_as_devinfo(pf), &on_dpu));
	printf("pf %s, %s side\n", pf_name, on_dpu ? "DPU" : "host");
	dpa = start_dpa(pf, device_selection_app);
	if (on_dpu) {
		CHECK(doca_devinfo_create_list(&list, &n));
		for (uint32_t i = 0; i < n && rdma_dev == NULL; i++) {
			enum doca_pci_func_type kind;

			if (doca_devinfo_get_pci_func_type(list[i], &kind) != DOCA_SUCCESS ||
			    kind != DOCA_PCI_FUNC_TYPE_SF ||
			    doca_sync_event_cap_is_export_to_remote_net_supported(list[i]) != DOCA_SUCCESS)
				continue;
			CHECK(doca_devinfo_get_ibdev_name(list[i], name, sizeof(name)));
			CHECK(doca_dev_open(list[i], &rdma_dev));
		}
		CHECK(doca_devinfo_destroy_list(list));
		if (rdma_dev == NULL) {
			fprintf(stderr, "no SF with RDMA\n");
			return 1;
		}
		printf("rdma device %s (SF)\n", name);
		CHECK(doca_dpa_device_extend(dpa, rdma_dev, &rdma_dpa));
	} else {
		rdma_dpa = dpa;
	}
	CHECK(doca_dpa_get_dpa_handle(rdma_dpa, &handle));
	ASSERT(handle != 0);

	done = dpa_to_cpu_event(pf, rdma_dpa);
	CHECK(doca_dpa_kernel_launch_update_set(rdma_dpa, NULL, 0, done, 1, 1, &selection_kernel));
	CHECK(doca_sync_event_wait_gt(done, 0, UINT64_MAX));
	CHECK(doca_sync_event_destroy(done));
	if (rdma_dpa != dpa) {
		CHECK(doca_dpa_destroy(rdma_dpa));
		CHECK(doca_dev_close(rdma_dev));
	}
	CHECK(doca_dpa_destroy(dpa));
	CHECK(doca_dev_close(pf));
	printf("done\n");
	return 0;
}
