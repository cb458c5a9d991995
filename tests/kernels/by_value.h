/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * A struct passed by value that is defined in a header, not in the kernel
 * sources, as host/device shared headers define them (NVIDIA's ping-pong
 * sample): the build reads its layout through the quoted include.
 */
#ifndef DOCA_TESTS_BY_VALUE_H_
#define DOCA_TESTS_BY_VALUE_H_

#include <stdint.h>

/*
 * The host and device headers both define doca_dpa_dev_uintptr_t and the log
 * levels, the latter unguarded (as in DOCA 3.0): one of the two per translation
 * unit, as NVIDIA's samples' shared headers choose.
 */
#ifdef DOCA_DPA_DEVICE
#include <doca_dpa_dev.h>
#else
#include <doca_dpa.h>
#endif

/* A DPA address inside a struct argument: the launch keeps the buffer alive. */
struct bv_target {
	doca_dpa_dev_uintptr_t out;
	uint32_t n;
	uint32_t scale;
};

#endif /* DOCA_TESTS_BY_VALUE_H_ */
