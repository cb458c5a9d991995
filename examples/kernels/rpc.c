/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Kernel of examples/rpc.rs.
 */
#include <doca_dpa_dev.h>

/* Sums n uint64_t values stored in DPA memory. */
__dpa_rpc__ uint64_t sum_values(const uint64_t *values, uint32_t n)
{
	uint64_t total = 0;

	for (uint32_t i = 0; i < n; i++)
		total += values[i];
	return total;
}
