/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Kernels of the integration tests (app `doca_tests`) for DPA memory maps,
 * hash tables, device logs, kernel-to-kernel events and completion-bound
 * threads. Names start with i4_: in the sim every source of the app is one
 * translation unit.
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_buf.h> /* doca_dpa_dev_mmap_t, as in DOCA 3.0 */
#include <doca_dpa_dev_sync_event.h>
#ifdef DOCA_SIM_DEVICE
#include <doca_sim_dev.h>
#endif

/* Adds keys first..first+n-1 with value key * 100 (one thread: no concurrent adds). */
__dpa_global__ void i4_hash_put(doca_dpa_dev_hash_table_t ht, uint32_t first, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		doca_dpa_dev_hash_table_add(ht, first + i, (uint64_t)(first + i) * 100);
}

/* Looks keys first..first+n-1 up: out[2i] = found, out[2i+1] = value (0 when absent). */
__dpa_global__ void i4_hash_get(doca_dpa_dev_hash_table_t ht, uint32_t first, uint32_t n,
				uint64_t *out)
{
	uint64_t *o = out;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t value = 0;

		o[2 * i] = doca_dpa_dev_hash_table_find(ht, first + i, &value) ? 1 : 0;
		o[2 * i + 1] = value;
	}
}

/* Receives an mmap handle (uint32_t, the one 32-bit handle) and a u64 after it. */
__dpa_global__ void i4_mmap_echo(doca_dpa_dev_mmap_t mmap, uint64_t tag, uint64_t *out)
{
	uint64_t *o = out;

	o[0] = mmap;
	o[1] = tag;
}

/* Writes one INFO line to the device log. */
__dpa_global__ void i4_log(uint64_t value)
{
	DOCA_DPA_DEV_LOG_INFO("i4_log says %lu\n", (unsigned long)value);
}

/* Waits (polling the event from the device) until it reaches threshold; out[0] = the value seen. */
__dpa_global__ void i4_event_wait(doca_dpa_dev_sync_event_t event, uint64_t threshold, uint64_t *out)
{
	uint64_t v = 0;

	for (;;) {
		doca_dpa_dev_sync_event_get(event, &v);
		if (v >= threshold)
			break;
		doca_dpa_dev_yield();
	}
	out[0] = v;
}

/*
 * The state of i4_on_completion, in DPA memory: the completion it drains (set by
 * the host once the completion exists, 0 before), elements consumed, and the user
 * data of the last one.
 */
struct i4_completion_state {
	doca_dpa_dev_completion_t comp;
	uint64_t consumed;
	uint64_t last_user_data;
};

/*
 * A thread bound to a completion context. Each activation drains, acks and asks
 * to be woken by the next completion.
 */
__dpa_global__ void i4_on_completion(struct i4_completion_state *st)
{
	doca_dpa_dev_completion_t comp = (doca_dpa_dev_completion_t)__atomic_load_n(&st->comp, __ATOMIC_SEQ_CST);
	doca_dpa_dev_completion_element_t e;
	uint64_t n = 0;

	if (comp) {
		while (doca_dpa_dev_get_completion(comp, &e)) {
			__atomic_store_n(&st->last_user_data, doca_dpa_dev_get_completion_user_data(e), __ATOMIC_SEQ_CST);
			n++;
		}
		if (n) {
			doca_dpa_dev_completion_ack(comp, n);
			__atomic_add_fetch(&st->consumed, n, __ATOMIC_SEQ_CST);
		}
		doca_dpa_dev_completion_request_notification(comp);
	}
	doca_dpa_dev_thread_reschedule();
}

/* Sim only: posts one completion element with user_data; out[0] = the result (0 on success). */
__dpa_global__ void i4_post_completion(doca_dpa_dev_completion_t comp, uint32_t user_data, uint64_t *out)
{
#ifdef DOCA_SIM_DEVICE
	out[0] = (uint64_t)doca_sim_dev_completion_post(comp, 0, user_data, 0);
#else
	(void)comp;
	(void)user_data;
	out[0] = ~0ULL; /* no host-free way to produce one on hardware */
#endif
}
