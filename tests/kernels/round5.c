/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Kernels of tests/redteam.rs (round 5, issue #33: deferred release, DpaBox::set).
 */
#include <doca_dpa_dev.h>

struct r5_state {
	uint64_t generation;
	doca_dpa_dev_uintptr_t scratch; /* one word the kernel writes */
};

/* Writes the state's generation to its scratch word. */
__dpa_global__ void r5_touch(struct r5_state *st)
{
	((uint64_t *)st->scratch)[0] = st->generation;
}
