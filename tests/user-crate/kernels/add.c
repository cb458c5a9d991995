/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * The user's kernel. Its name, `add`, is also a common name in doca-rs's own test
 * kernels: it links only because no kernel of doca-rs is in a dependant's binary.
 */
#include <doca_dpa_dev.h>

/* out[rank] = a + b + rank */
__dpa_global__ void add(uint64_t *out, uint64_t a, uint64_t b)
{
	unsigned int rank = doca_dpa_dev_thread_rank();

	out[rank] = a + b + rank;
}
