/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * RPCs and a kernel that take structs by value, mixed with scalars before and
 * after them.
 */
#include <doca_dpa_dev.h>

#include "shared.h"

__dpa_rpc__ uint64_t pong(uint32_t round, struct ping p, uint64_t bias)
{
	return p.seq * 1000 + p.tag + round + bias;
}

__dpa_rpc__ uint64_t weigh(weights_t w, uint32_t k)
{
	return (uint64_t)((w.a + w.b) * w.scale) + k;
}

__dpa_global__ void fill_target(struct target t, uint64_t base)
{
	uint64_t *out = (uint64_t *)t.out;
	unsigned int rank = doca_dpa_dev_thread_rank();

	for (uint32_t i = rank; i < t.n; i += doca_dpa_dev_num_threads())
		out[i] = base + (uint64_t)i * t.step;
}
