/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Kernels of the integration tests (app `doca_tests`) that take structs by
 * value, as NVIDIA's ping-pong sample's RPCs do. Names start with bv_: in the
 * sim every source of the app is one translation unit.
 */
#include <doca_dpa_dev.h>

#include "by_value.h"

/* 16 bytes: 4 of tail padding. */
struct bv_pair {
	uint64_t a;
	uint32_t b;
};

/* Floating-point members: the C calling convention passes it in vector registers. */
typedef struct bv_point {
	float x;
	float y;
	double w;
} bv_point_t;


/* Scalars around a struct: each argument must come out of its own slots. */
__dpa_rpc__ uint64_t bv_pair_sum(uint32_t k, struct bv_pair p, uint64_t m)
{
	return p.a + p.b + k + m;
}

__dpa_rpc__ uint64_t bv_point_weigh(bv_point_t p, uint32_t k)
{
	return (uint64_t)((p.x + p.y) * p.w) + k;
}

/* out[i] = base + i * scale for i < n. */
__dpa_global__ void bv_target_fill(struct bv_target t, uint64_t base)
{
	uint64_t *o = (uint64_t *)t.out;

	for (uint32_t i = 0; i < t.n; i++)
		o[i] = base + (uint64_t)i * t.scale;
}
