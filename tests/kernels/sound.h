/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Shared by the kernels of tests/soundness.rs (soundness.c, rdmi/soundness.c).
 */
#ifndef DOCA_RS_TESTS_SOUND_H
#define DOCA_RS_TESTS_SOUND_H

#include <doca_dpa_dev.h>

/* Yields until the host sets *flag. */
static inline void sound_wait_for(uint64_t *flag)
{
	while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0)
		doca_dpa_dev_yield();
}

#endif
