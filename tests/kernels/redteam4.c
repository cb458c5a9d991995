/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Kernels of tests/redteam.rs (round 4).
 */
#include <doca_dpa_dev.h>

/*
 * Counts to `spin`, then stores 1 into slots[index]: a launch whose completion
 * the host can check after a wait said it was over.
 */
__dpa_global__ void rt4_mark(uint64_t *slots, uint64_t index, uint64_t spin)
{
	for (volatile uint64_t i = 0; i < spin; i++)
		;
	__atomic_store_n(&slots[index], 1, __ATOMIC_RELEASE);
}
