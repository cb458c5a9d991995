/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * The teardown NVIDIA's samples do: started objects destroyed without being
 * stopped first. The DPA context itself is destroyed without a stop too,
 * once its children are gone; before that, its stop and destroy are IN_USE.
 */
#include <doca_mmap.h>
#include <doca_sync_event.h>

#include "check.h"

extern struct doca_dpa_app *teardown_without_stop_app;
doca_dpa_func_t idle_thread;

int main(void)
{
	struct doca_dev *dev = open_dpa_device();
	struct doca_dpa *dpa = start_dpa(dev, teardown_without_stop_app);
	struct doca_sync_event *event = NULL;
	struct doca_mmap *mmap = NULL;
	struct doca_dpa_thread *thread = NULL, *woken = NULL;
	struct doca_dpa_completion *comp = NULL;
	struct doca_dpa_notification_completion *nc = NULL;
	char memory[64];

	CHECK(doca_sync_event_create(&event));
	CHECK(doca_sync_event_add_publisher_location_cpu(event, dev));
	CHECK(doca_sync_event_add_subscriber_location_dpa(event, dpa));
	CHECK(doca_sync_event_start(event));

	CHECK(doca_mmap_create(&mmap));
	CHECK(doca_mmap_set_memrange(mmap, memory, sizeof(memory)));
	CHECK(doca_mmap_add_dev(mmap, dev));
	CHECK(doca_mmap_start(mmap));

	CHECK(doca_dpa_thread_create(dpa, &thread));
	CHECK(doca_dpa_thread_set_func_arg(thread, &idle_thread, 0));
	CHECK(doca_dpa_thread_start(thread));
	CHECK(doca_dpa_completion_create(dpa, 16, &comp));
	CHECK(doca_dpa_completion_set_thread(comp, thread));
	CHECK(doca_dpa_completion_start(comp));
	CHECK(doca_dpa_thread_run(thread));

	CHECK(doca_dpa_thread_create(dpa, &woken));
	CHECK(doca_dpa_thread_set_func_arg(woken, &idle_thread, 0));
	CHECK(doca_dpa_thread_start(woken));
	CHECK(doca_dpa_notification_completion_create(dpa, woken, &nc));
	CHECK(doca_dpa_notification_completion_start(nc));

	/* Children alive: the context can neither stop nor go. */
	EXPECT(DOCA_ERROR_IN_USE, doca_dpa_stop(dpa));
	EXPECT(DOCA_ERROR_IN_USE, doca_dpa_destroy(dpa));

	CHECK(doca_dpa_notification_completion_destroy(nc));
	CHECK(doca_dpa_completion_destroy(comp));
	CHECK(doca_dpa_thread_destroy(woken));
	CHECK(doca_dpa_thread_destroy(thread));
	CHECK(doca_mmap_destroy(mmap));
	CHECK(doca_sync_event_destroy(event));
	CHECK(doca_dpa_destroy(dpa));
	CHECK(doca_dev_close(dev));
	printf("destroyed without stopping\n");
	return 0;
}
