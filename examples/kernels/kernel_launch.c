/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Kernel of examples/kernel_launch.rs: every thread writes one result slot.
 */
#include <doca_dpa_dev.h>

/* out[rank] = rank * scale + offset; out[num_threads] = how many threads ran. */
__dpa_global__ void fill_ranks(uint64_t *out, uint64_t scale, uint32_t offset)
{
	unsigned int rank = doca_dpa_dev_thread_rank();
	unsigned int threads = doca_dpa_dev_num_threads();

	out[rank] = (uint64_t)rank * scale + offset;
	if (rank == 0)
		out[threads] = threads;
}
