/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Kernels of tests/redteam.rs (round 5, issue #33: deferred release, DpaBox::set,
 * untyped addresses).
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_sync_event.h>

struct r5_state {
	uint64_t generation;
	uint64_t *scratch; /* one word the kernel writes */
};

/* Writes the state's generation to its scratch word. */
__dpa_global__ void r5_touch(struct r5_state *st)
{
	st->scratch[0] = st->generation;
}

/*
 * R3: a state of handles and addresses the kernel uses. Its pointer and handle
 * fields are `Dev`s on the host, which only live objects of the context fill.
 */
struct r3_state {
	doca_dpa_dev_sync_event_t done; /* added 1 */
	uint64_t *scratch;		/* word 0 set to 7 */
};

static inline void r3_use(struct r3_state *st)
{
	st->scratch[0] = 7;
	doca_dpa_dev_sync_event_update_add(st->done, 1);
}

/* The state typed: the host can only give it a box of `struct r3_state`. */
__dpa_global__ void r3_use_state(struct r3_state *st)
{
	r3_use(st);
}

/*
 * The same with an untyped address, as the README's thread state used to be:
 * memory safe code filled (a buffer holding a made-up handle) would reach the
 * device as handles, so the host gives it memory only as an `Untyped` (unsafe).
 */
__dpa_global__ void r3_use_untyped_state(doca_dpa_dev_uintptr_t st)
{
	r3_use((struct r3_state *)st);
}
