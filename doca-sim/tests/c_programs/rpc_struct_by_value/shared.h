/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * The structs the host passes by value to the device functions, in a header
 * both sides include (the shape of NVIDIA's ping-pong sample). The build
 * reads their layout from here: the device sources define none of them.
 */
#ifndef RPC_STRUCT_BY_VALUE_SHARED_H_
#define RPC_STRUCT_BY_VALUE_SHARED_H_

#include <stdint.h>

/* One of the two per translation unit: both define the log levels, unguarded as in DOCA 3.0. */
#ifdef DOCA_DPA_DEVICE
#include <doca_dpa_dev.h>
#else
#include <doca_dpa.h>
#endif

/* 16 bytes with 4 of tail padding: each member must come out of its own slot. */
struct ping {
	uint64_t seq;
	uint32_t tag;
};

/* Floating-point members (passed in vector registers by the host ABI). */
typedef struct weights {
	float a;
	float b;
	double scale;
} weights_t;

/* Where a kernel writes, passed by value with a count. */
struct target {
	doca_dpa_dev_uintptr_t out;
	uint32_t n;
	uint32_t step;
};

#endif /* RPC_STRUCT_BY_VALUE_SHARED_H_ */
