/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Kernels of examples/dpa_thread.rs: a persistent DPA thread woken by a
 * notification completion, and the RPC the host uses to wake it.
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_sync_event.h>

/*
 * The thread's state, in DPA memory; its address is the thread's argument, declared
 * with its type so that the host passes a box of this struct (whose event field
 * only a live event can fill) and nothing else.
 */
struct counter_state {
	uint64_t activations;
	doca_dpa_dev_sync_event_t done_event; /* the event the host waits on */
};

/* Counts its activations, signals the host, and waits for the next one. */
__dpa_global__ void counter_thread(struct counter_state *state)
{
	state->activations++;
	doca_dpa_dev_sync_event_update_add(state->done_event, 1);
	doca_dpa_dev_thread_reschedule();
}

/* Wakes the thread bound to a notification completion. */
__dpa_rpc__ uint64_t wake_counter(doca_dpa_dev_notification_completion_t notify)
{
	doca_dpa_dev_thread_notify(notify);
	return 0;
}
