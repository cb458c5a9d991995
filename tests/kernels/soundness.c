/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Kernels of tests/soundness.rs: they hold on to what they were given until the
 * host says go, then use it, so a test can drop the host's handles in between and
 * see that the device never touches freed memory or destroyed objects. The one
 * that holds an RDMI connection is in rdmi/soundness.c (built only with RDMI).
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_sync_event.h>

#include "sound.h"

/* Waits for *go, then writes 1..=n into data and adds 1 to event. */
__dpa_global__ void sound_hold_then_write(uint64_t *go, uint64_t *data, uint32_t n,
					  doca_dpa_dev_sync_event_t event)
{
	sound_wait_for(go);
	for (uint32_t i = 0; i < n; i++)
		data[i] = i + 1;
	doca_dpa_dev_sync_event_update_add(event, 1);
}

/* The state of sound_thread, in DPA memory. */
struct sound_thread_state {
	uint64_t activations;
	uint64_t *scratch; /* 8 words the thread writes each activation */
	doca_dpa_dev_sync_event_t done; /* added to each activation */
};

/*
 * A persistent thread that uses everything its state references. The state is
 * typed (`struct sound_thread_state *`), so the host can only give it a box of
 * that struct, whose pointer and handle fields only live objects fill.
 */
__dpa_global__ void sound_thread(struct sound_thread_state *st)
{
	st->activations++;
	for (int i = 0; i < 8; i++)
		st->scratch[i] = st->activations;
	doca_dpa_dev_sync_event_update_add(st->done, 1);
	doca_dpa_dev_thread_reschedule();
}

/*
 * A persistent thread that waits for *go, then writes 1..=8 into its local storage:
 * an activation that runs while the host drops the thread. Local storage is
 * untyped (DOCA hands it over as doca_dpa_dev_uintptr_t): the host gives it as an
 * `Untyped` (unsafe).
 */
__dpa_global__ void sound_slow_thread(uint64_t *go)
{
	uint64_t *data = (uint64_t *)doca_dpa_dev_thread_get_local_storage();

	sound_wait_for(go);
	for (int i = 0; i < 8; i++)
		data[i] = i + 1;
	doca_dpa_dev_thread_reschedule();
}

/* Writes 1..=n into out: a typed pointer parameter (param::Ptr<u64>). */
__dpa_global__ void sound_store_words(uint64_t *out, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		out[i] = i + 1;
}

/*
 * Root cause 6 of issue #23: a prototype that differs between preprocessor
 * branches. SOUND_NEVER_DEFINED is never defined, so the compiled branch takes a
 * DPA address; a declaration read from the other branch would take a plain
 * integer, and safe code could then hand the kernel any value as an address.
 */
#ifndef SOUND_NEVER_DEFINED
__dpa_global__ void sound_branch_store(uint64_t *out, uint64_t value)
{
	out[0] = value;
}
#else
__dpa_global__ void sound_branch_store(uint64_t out, uint64_t value)
{
	*(uint64_t *)out = value;
}
#endif

/*
 * An RPC that hangs until the host sets the event above 0, then writes 1..=8 into
 * data: a Dpa::rpc that times out while the function still runs, and uses its
 * arguments afterwards. Never set, it runs until the kernel run-time limit.
 */
__dpa_rpc__ uint64_t sound_hung_rpc(doca_dpa_dev_sync_event_t go, uint64_t *data)
{
	doca_dpa_dev_sync_event_wait_gt(go, 0, ~0ull);
	for (int i = 0; i < 8; i++)
		data[i] = i + 1;
	return 8;
}
