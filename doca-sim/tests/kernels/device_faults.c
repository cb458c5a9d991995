/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Kernels of doca-sim/tests/device_faults.rs: each one is wrong in its own
 * way, as a DPA kernel under development is. Compiled for the host against
 * the sim's device headers by doca-sim's build script (linked into that test
 * only), with a hand-written application table at the end, in the shape
 * doca-build-support generates.
 */
#include <assert.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <doca_dpa_dev.h>
#include <doca_dpa_dev_sync_event.h>
#include <doca_sim_app.h>
#include <doca_sim_dev.h>

/* out[i] = i for i < n: the kernel a fresh context runs to show it works. */
__dpa_global__ void fill(uint64_t out, uint64_t n)
{
	uint64_t *o = (uint64_t *)out;

	for (uint64_t i = doca_dpa_dev_thread_rank(); i < n; i += doca_dpa_dev_num_threads())
		o[i] = i;
}

/* Every thread waits until all threads of the launch arrived (they run at once). */
__dpa_global__ void meet(uint64_t counter)
{
	__atomic_add_fetch((uint64_t *)counter, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n((uint64_t *)counter, __ATOMIC_SEQ_CST) < doca_dpa_dev_num_threads())
		doca_dpa_dev_yield();
}

/* Writes buf[n] of a buffer of n uint64_t: one element past the end. */
__dpa_global__ void write_past_end(uint64_t buf, uint64_t n)
{
	((volatile uint64_t *)buf)[n] = 1;
}

/* Waits until *go is non-zero (the host freed `block` meanwhile), then reads block[0] into *out. */
__dpa_global__ void read_after_free(uint64_t block, uint64_t go, uint64_t out)
{
	while (__atomic_load_n((uint64_t *)go, __ATOMIC_ACQUIRE) == 0)
		doca_dpa_dev_yield();
	*(uint64_t *)out = ((volatile uint64_t *)block)[0];
}

/* Reads through a pointer the host passes (NULL-ish or wild). */
__dpa_global__ void read_through(uint64_t ptr, uint64_t out)
{
	*(uint64_t *)out = *(volatile uint64_t *)ptr;
}

__dpa_global__ void call_abort(void)
{
	abort();
}

/* A failed assertion: glibc prints it, then calls abort(). */
__dpa_global__ void failed_assert(uint64_t value)
{
	assert(value == 42);
}

__dpa_global__ void explicit_fault(void)
{
	doca_sim_dev_fault("the kernel gave up: checksum mismatch");
}

/* A DPA thread entry point: writes one element past the end of its 8-element buffer. */
__dpa_global__ void thread_past_end(uint64_t buf)
{
	((volatile uint64_t *)buf)[8] = 1;
	doca_dpa_dev_thread_reschedule();
}

/* Wakes the DPA thread bound to a notification completion. */
__dpa_global__ void notify(uint64_t handle)
{
	doca_dpa_dev_thread_notify(handle);
}

/* Unbounded recursion with a large frame: overflows the EU thread's stack. */
__dpa_global__ void recurse(uint64_t depth)
{
	volatile uint8_t frame[4096];

	frame[0] = (uint8_t)depth;
	if (depth != UINT64_MAX)
		recurse(depth + 1);
	frame[1] = frame[0];
}

/* Never ends and never calls the device API: only the watchdog stops it. */
__dpa_global__ void spin_forever(uint64_t counter)
{
	for (;;)
		__atomic_add_fetch((uint64_t *)counter, 1, __ATOMIC_RELAXED);
}

/*
 * Kernels that overrun their limit inside the C library, where the
 * watchdog must not stop them by a jump: each spends nearly all its time in
 * a call that holds a lock the host needs (stdout's, malloc's), so that
 * stop requests keep landing there. They print nothing, so that the test's
 * output stays readable.
 */
#define NOTHING8 "%1$.0s%1$.0s%1$.0s%1$.0s%1$.0s%1$.0s%1$.0s%1$.0s"
#define NOTHING64 NOTHING8 NOTHING8 NOTHING8 NOTHING8 NOTHING8 NOTHING8 NOTHING8 NOTHING8

__dpa_global__ void spin_printf(uint64_t counter)
{
	for (;;) {
		printf(NOTHING64 NOTHING64 NOTHING64 NOTHING64, "");
		__atomic_add_fetch((uint64_t *)counter, 1, __ATOMIC_RELAXED);
	}
}

/* Sizes past the per-thread cache, and a walk of every arena under its lock. */
__dpa_global__ void spin_malloc(uint64_t counter)
{
	for (uint64_t i = 0;; i++) {
		void *p = malloc(2048 + (i % 16) * 2048);

		free(p);
		(void)mallinfo2();
		__atomic_add_fetch((uint64_t *)counter, 1, __ATOMIC_RELAXED);
	}
}

__dpa_global__ void spin_log(uint64_t counter)
{
	for (;;) {
		DOCA_DPA_DEV_LOG_INFO("%s", "");
		__atomic_add_fetch((uint64_t *)counter, 1, __ATOMIC_RELAXED);
	}
}

/* Blocks in read(2) until the host writes a byte to the pipe `fd`. */
__dpa_global__ void block_in_read(uint64_t fd)
{
	char c;

	while (read((int)fd, &c, 1) < 0)
		;
}

/*
 * SAXPY with two bugs: the host passes the wrong length, and the bound is
 * inclusive. Each thread takes a contiguous chunk, so with a large n the
 * threads of high rank start far past the end of the buffers.
 */
__dpa_global__ void saxpy(uint64_t n, uint64_t x, uint64_t y)
{
	const float *xs = (const float *)x;
	float *ys = (float *)y;
	uint64_t threads = doca_dpa_dev_num_threads();
	uint64_t rank = doca_dpa_dev_thread_rank();
	uint64_t begin = rank * (n / threads);
	uint64_t end = rank + 1 == threads ? n : begin + n / threads - 1;

	for (uint64_t i = begin; i <= end; i++)
		ys[i] = 2.0f * xs[i] + ys[i];
}

/* ---- the application table (what doca-build-support would generate) ---- */

#define INVOKE0(name)                                      \
	static uint64_t invoke_##name(const uint64_t *args) \
	{                                                  \
		(void)args;                                \
		name();                                    \
		return 0;                                  \
	}
#define INVOKE1(name)                                      \
	static uint64_t invoke_##name(const uint64_t *args) \
	{                                                  \
		name(args[0]);                             \
		return 0;                                  \
	}
#define INVOKE2(name)                                      \
	static uint64_t invoke_##name(const uint64_t *args) \
	{                                                  \
		name(args[0], args[1]);                    \
		return 0;                                  \
	}
#define INVOKE3(name)                                      \
	static uint64_t invoke_##name(const uint64_t *args) \
	{                                                  \
		name(args[0], args[1], args[2]);           \
		return 0;                                  \
	}

INVOKE2(fill)
INVOKE1(meet)
INVOKE2(write_past_end)
INVOKE3(read_after_free)
INVOKE2(read_through)
INVOKE0(call_abort)
INVOKE1(failed_assert)
INVOKE0(explicit_fault)
INVOKE1(thread_past_end)
INVOKE1(notify)
INVOKE1(spin_forever)
INVOKE1(recurse)
INVOKE3(saxpy)
INVOKE1(spin_printf)
INVOKE1(spin_malloc)
INVOKE1(spin_log)
INVOKE1(block_in_read)

/* Every kernel takes uint64_t parameters only. */
static void read_u64_1(va_list *ap, uint64_t *args)
{
	args[0] = va_arg(*ap, uint64_t);
}
static void read_u64_2(va_list *ap, uint64_t *args)
{
	args[0] = va_arg(*ap, uint64_t);
	args[1] = va_arg(*ap, uint64_t);
}
static void read_u64_3(va_list *ap, uint64_t *args)
{
	args[0] = va_arg(*ap, uint64_t);
	args[1] = va_arg(*ap, uint64_t);
	args[2] = va_arg(*ap, uint64_t);
}

static const uint8_t sizes[] = { 8, 8, 8 };

#define KERNEL(name, n, reader) \
	{ #name, (void (*)(void))name, DOCA_SIM_KERNEL_GLOBAL, n, sizes, reader, invoke_##name }

static const struct doca_sim_kernel kernels[] = {
	KERNEL(fill, 2, read_u64_2),
	KERNEL(meet, 1, read_u64_1),
	KERNEL(write_past_end, 2, read_u64_2),
	KERNEL(read_after_free, 3, read_u64_3),
	KERNEL(read_through, 2, read_u64_2),
	KERNEL(call_abort, 0, NULL),
	KERNEL(failed_assert, 1, read_u64_1),
	KERNEL(explicit_fault, 0, NULL),
	KERNEL(thread_past_end, 1, read_u64_1),
	KERNEL(notify, 1, read_u64_1),
	KERNEL(spin_forever, 1, read_u64_1),
	KERNEL(recurse, 1, read_u64_1),
	KERNEL(saxpy, 3, read_u64_3),
	KERNEL(spin_printf, 1, read_u64_1),
	KERNEL(spin_malloc, 1, read_u64_1),
	KERNEL(spin_log, 1, read_u64_1),
	KERNEL(block_in_read, 1, read_u64_1),
};

static const struct doca_sim_app app = {
	DOCA_SIM_APP_MAGIC, DOCA_SIM_APP_ABI, sizeof(kernels) / sizeof(kernels[0]), "device_faults", kernels,
};

/* The `struct doca_dpa_app *` of the application. */
const void *device_faults_app(void)
{
	return &app;
}
