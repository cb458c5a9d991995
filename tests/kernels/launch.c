/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Kernels of the integration tests (app `doca_tests`).
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_sync_event.h>

/* out[rank] = value + rank */
__dpa_global__ void write_ranks(uint64_t *out, uint64_t value)
{
	out[doca_dpa_dev_thread_rank()] = value + doca_dpa_dev_thread_rank();
}

/*
 * Exercises every argument width: out[0..4] = a, b, c, d as uint64_t. `out` is
 * untyped on purpose: the host passes it as an `Untyped` (unsafe).
 */
__dpa_global__ void mixed_args(doca_dpa_dev_uintptr_t out, uint32_t a, uint64_t b, int32_t c, int64_t d)
{
	uint64_t *o = (uint64_t *)out;

	o[0] = a;
	o[1] = b;
	o[2] = (uint64_t)(int64_t)c;
	o[3] = (uint64_t)d;
}

/*
 * All threads meet at a barrier: each increments the counter, then waits
 * until every thread arrived; the last writes how many it saw.
 */
__dpa_global__ void barrier(uint64_t *counter, uint64_t *out)
{
	uint64_t *count = counter;
	unsigned int n = doca_dpa_dev_num_threads();

	__atomic_add_fetch(count, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(count, __ATOMIC_SEQ_CST) < n)
		doca_dpa_dev_yield();
	out[doca_dpa_dev_thread_rank()] = __atomic_load_n(count, __ATOMIC_SEQ_CST);
}

/*
 * The same meeting as DPA kernels often write it: no yield, the threads spin
 * on DPA memory, so it completes only if every thread runs at the same time.
 */
__dpa_global__ void spin_barrier(uint64_t *counter, uint64_t *out)
{
	uint64_t *count = counter;
	unsigned int n = doca_dpa_dev_num_threads();

	__atomic_add_fetch(count, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(count, __ATOMIC_SEQ_CST) < n)
		;
	out[doca_dpa_dev_thread_rank()] = __atomic_load_n(count, __ATOMIC_SEQ_CST);
}

/* out[i] = i for i < n, from one thread: a memory-heavy kernel for the benchmarks. */
__dpa_global__ void fill_words(uint64_t *out, uint64_t n)
{
	uint64_t *o = out;

	for (uint64_t i = 0; i < n; i++)
		o[i] = i;
}

/* Counts to n: a kernel that runs for a time the benchmarks calibrate. */
__dpa_global__ void busy(uint64_t n)
{
	for (volatile uint64_t i = 0; i < n; i++)
		;
}

/* Spins until the host writes a non-zero stop flag (used for timeouts and the watchdog). */
__dpa_global__ void spin_until(uint64_t *stop_flag)
{
	while (__atomic_load_n(stop_flag, __ATOMIC_SEQ_CST) == 0)
		doca_dpa_dev_yield();
}

/* Does nothing: the smallest launch. */
__dpa_global__ void noop(void)
{
}

/* Returns a + b. */
__dpa_rpc__ uint64_t add(uint64_t a, uint64_t b)
{
	return a + b;
}

/* Sets a sync event from the kernel. */
__dpa_global__ void set_event(doca_dpa_dev_sync_event_t event, uint64_t value)
{
	doca_dpa_dev_sync_event_update_set(event, value);
}

#ifdef DOCA_SIM_DEVICE
#include <doca_sim_dev.h>
#endif

/* Raises a device-side fault: the context turns fatal. */
__dpa_global__ void fault(void)
{
#ifdef DOCA_SIM_DEVICE
	doca_sim_dev_fault("tests/kernels/launch.c: deliberate fault");
#else
	*(volatile uint64_t *)0 = 1;
#endif
}

/* A DPA thread: counts activations in the u64 at arg, then waits for the next. */
__dpa_global__ void count_activations(uint64_t *arg)
{
	__atomic_add_fetch(arg, 1, __ATOMIC_SEQ_CST);
	doca_dpa_dev_thread_reschedule();
}

/* Wakes the thread of a notification completion. */
__dpa_rpc__ uint64_t notify(doca_dpa_dev_notification_completion_t handle)
{
	doca_dpa_dev_thread_notify(handle);
	return 1;
}
