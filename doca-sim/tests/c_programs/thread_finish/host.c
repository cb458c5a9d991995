/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * A parameterless DPA thread function is accepted, runs once when notified,
 * and doca_dpa_dev_thread_finish() ends it for good: the code after the call
 * never runs and a second notification does not run it again.
 */
#include <string.h>
#include <unistd.h>

#include <doca_sync_event.h>

#include "check.h"
#include "shared.h"

extern struct doca_dpa_app *thread_finish_app;
doca_dpa_func_t finishing_thread;
doca_dpa_func_t notify_thread;

static void notify(struct doca_dpa *dpa, struct doca_sync_event *done, uint64_t n,
		   doca_dpa_dev_notification_completion_t handle)
{
	CHECK(doca_dpa_kernel_launch_update_set(dpa, NULL, 0, done, n, 1, &notify_thread, handle));
	CHECK(doca_sync_event_wait_gt(done, n - 1, UINT64_MAX));
}

int main(void)
{
	struct doca_dev *dev = open_dpa_device();
	struct doca_dpa *dpa = start_dpa(dev, thread_finish_app);
	struct doca_sync_event *ran = dpa_to_cpu_event(dev, dpa);
	struct doca_sync_event *done = dpa_to_cpu_event(dev, dpa);
	struct doca_dpa_thread *thread = NULL;
	struct doca_dpa_notification_completion *nc = NULL;
	doca_dpa_dev_notification_completion_t handle = 0;
	struct thread_state st;
	doca_dpa_dev_uintptr_t mem = 0;
	uint64_t value = 0;

	memset(&st, 0, sizeof(st));
	CHECK(doca_sync_event_get_dpa_handle(ran, dpa, &st.ran));
	CHECK(doca_dpa_mem_alloc(dpa, sizeof(st), &mem));
	CHECK(doca_dpa_h2d_memcpy(dpa, mem, &st, sizeof(st)));

	CHECK(doca_dpa_thread_create(dpa, &thread));
	CHECK(doca_dpa_thread_set_func_arg(thread, &finishing_thread, 0));
	CHECK(doca_dpa_thread_set_local_storage(thread, mem));
	CHECK(doca_dpa_thread_start(thread));
	CHECK(doca_dpa_notification_completion_create(dpa, thread, &nc));
	CHECK(doca_dpa_notification_completion_start(nc));
	CHECK(doca_dpa_notification_completion_get_dpa_handle(nc, &handle));
	CHECK(doca_dpa_thread_run(thread));

	notify(dpa, done, 1, handle);
	CHECK(doca_sync_event_wait_gt(ran, 0, UINT64_MAX));
	/* A finished thread is not woken again. */
	notify(dpa, done, 2, handle);
	usleep(100 * 1000);
	CHECK(doca_sync_event_get(ran, &value));
	CHECK(doca_dpa_d2h_memcpy(dpa, &st, mem, sizeof(st)));
	printf("runs=%u after_finish=%u ran=%u\n", (unsigned int)st.runs, (unsigned int)st.after_finish,
	       (unsigned int)value);
	CHECK(doca_dpa_peek_at_last_error(dpa));

	CHECK(doca_dpa_notification_completion_stop(nc));
	CHECK(doca_dpa_notification_completion_destroy(nc));
	CHECK(doca_dpa_thread_stop(thread));
	CHECK(doca_dpa_thread_destroy(thread));
	CHECK(doca_dpa_mem_free(dpa, mem));
	CHECK(doca_sync_event_stop(done));
	CHECK(doca_sync_event_destroy(done));
	CHECK(doca_sync_event_stop(ran));
	CHECK(doca_sync_event_destroy(ran));
	CHECK(doca_dpa_stop(dpa));
	CHECK(doca_dpa_destroy(dpa));
	CHECK(doca_dev_close(dev));
	printf("done\n");
	return 0;
}
