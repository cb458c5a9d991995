/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * The common setup of NVIDIA's DPA samples, in our own words: a sync event
 * published by a remote (network) peer, exported and re-created from the
 * export with a DPA handle; a host memory map exported for RDMA and
 * re-created from the export, with a DPA handle a kernel reads through.
 */
#include <string.h>

#include <doca_mmap.h>
#include <doca_sync_event.h>

#include "check.h"

extern struct doca_dpa_app *common_setup_app;
doca_dpa_func_t got_handles;

int main(void)
{
	struct doca_dev *dev = open_dpa_device();
	struct doca_devinfo *info = doca_dev_as_devinfo(dev);
	struct doca_dpa *dpa = start_dpa(dev, common_setup_app);
	struct doca_sync_event *net_event = NULL, *done = NULL;
	struct doca_sync_event_remote_net *remote = NULL;
	struct doca_mmap *local = NULL, *imported = NULL;
	const uint8_t *event_blob = NULL;
	const void *mmap_blob = NULL;
	size_t event_blob_len = 0, mmap_blob_len = 0, len = 0;
	doca_dpa_dev_sync_event_remote_net_t remote_handle = 0;
	doca_dpa_dev_sync_event_t done_handle = 0;
	doca_dpa_dev_mmap_t imported_handle = 0;
	uint64_t words[4] = {0xabc};
	void *addr = NULL;
	uint8_t flag = 0;

	CHECK(doca_sync_event_cap_is_export_to_remote_net_supported(info));
	CHECK(doca_sync_event_cap_remote_net_is_create_from_export_supported(info));
	CHECK(doca_sync_event_cap_remote_net_is_export_to_dpa_supported(info));

	/* The remote-net event. */
	CHECK(doca_sync_event_create(&net_event));
	CHECK(doca_sync_event_add_publisher_location_remote_net(net_event));
	CHECK(doca_sync_event_add_subscriber_location_cpu(net_event, dev));
	CHECK(doca_sync_event_start(net_event));
	CHECK(doca_sync_event_export_to_remote_net(net_event, &event_blob, &event_blob_len));
	CHECK(doca_sync_event_remote_net_create_from_export(dev, event_blob, event_blob_len, &remote));
	CHECK(doca_sync_event_remote_net_get_dpa_handle(remote, dpa, &remote_handle));

	/* The RDMA export of host memory. */
	CHECK(doca_mmap_create(&local));
	CHECK(doca_mmap_set_memrange(local, words, sizeof(words)));
	CHECK(doca_mmap_set_permissions(local, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE));
	CHECK(doca_mmap_add_dev(local, dev));
	CHECK(doca_mmap_start(local));
	CHECK(doca_mmap_export_rdma(local, dev, &mmap_blob, &mmap_blob_len));
	CHECK(doca_mmap_create_from_export(NULL, mmap_blob, mmap_blob_len, dev, &imported));
	CHECK(doca_mmap_get_memrange(imported, &addr, &len));
	ASSERT(addr == (void *)words && len == sizeof(words));
	CHECK(doca_mmap_get_from_export(imported, &flag));
	ASSERT(flag == 1);
	CHECK(doca_mmap_dev_get_dpa_handle(imported, dev, &imported_handle));
	printf("exports: event %s, mmap %s\n", event_blob_len > 0 ? "ok" : "empty", mmap_blob_len > 0 ? "ok" : "empty");

	done = dpa_to_cpu_event(dev, dpa);
	CHECK(doca_sync_event_get_dpa_handle(done, dpa, &done_handle));
	CHECK(doca_dpa_kernel_launch_update_set(dpa, NULL, 0, NULL, 0, 1, &got_handles, remote_handle, imported_handle,
						(uint64_t)(uintptr_t)words, done_handle));
	CHECK(doca_sync_event_wait_gt(done, 0, UINT64_MAX));

	/* The samples' teardown: destroy without stop. */
	CHECK(doca_sync_event_destroy(done));
	CHECK(doca_mmap_destroy(imported));
	CHECK(doca_mmap_destroy(local));
	CHECK(doca_sync_event_remote_net_destroy(remote));
	CHECK(doca_sync_event_destroy(net_event));
	CHECK(doca_dpa_destroy(dpa));
	CHECK(doca_dev_close(dev));
	printf("done\n");
	return 0;
}
