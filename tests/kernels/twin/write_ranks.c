/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * The kernel of app `doca_tests_twin` (sim builds only, tests/kernels-pkg/build.rs):
 * it has the name of a kernel of `doca_tests` (launch.c) and other code, so a test
 * can see that each application runs its own (issue #33, R4). On hardware the two
 * C names would collide when the program is linked.
 */
#include <doca_dpa_dev.h>

/* out[rank] = value * 1000 + rank: not what doca_tests' write_ranks writes. */
__dpa_global__ void write_ranks(uint64_t *out, uint64_t value)
{
	out[doca_dpa_dev_thread_rank()] = value * 1000 + doca_dpa_dev_thread_rank();
}
