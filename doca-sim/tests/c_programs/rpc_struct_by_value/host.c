/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * A C host passes structs by value through the variadic doca_dpa_rpc() and
 * doca_dpa_kernel_launch_update_set(), as C programs on DOCA do: the device
 * functions see every member, and the scalars around the structs.
 */
#include <string.h>

#include <doca_sync_event.h>

#include "check.h"
#include "shared.h"

extern struct doca_dpa_app *rpc_struct_by_value_app;
doca_dpa_func_t pong;
doca_dpa_func_t weigh;
doca_dpa_func_t fill_target;

#define N 10

int main(void)
{
	struct doca_dev *dev = open_dpa_device();
	struct doca_dpa *dpa = start_dpa(dev, rpc_struct_by_value_app);
	struct doca_sync_event *done = dpa_to_cpu_event(dev, dpa);
	struct ping p = {.seq = 7, .tag = 42};
	weights_t w = {.a = 1.5f, .b = 2.5f, .scale = 10.0};
	struct target t = {.n = N, .step = 3};
	uint64_t ret = 0;
	uint64_t out[N];

	for (uint32_t round = 1; round <= 3; round++) {
		p.seq = round;
		CHECK(doca_dpa_rpc(dpa, &pong, &ret, round, p, (uint64_t)100));
		printf("pong round %u: %u\n", (unsigned int)round, (unsigned int)ret);
	}
	CHECK(doca_dpa_rpc(dpa, &weigh, &ret, w, (uint32_t)2));
	printf("weigh: %u\n", (unsigned int)ret);

	CHECK(doca_dpa_mem_alloc(dpa, sizeof(out), &t.out));
	CHECK(doca_dpa_memset(dpa, t.out, 0, sizeof(out)));
	CHECK(doca_dpa_kernel_launch_update_set(dpa, NULL, 0, done, 1, 4, &fill_target, t, (uint64_t)5));
	CHECK(doca_sync_event_wait_gt(done, 0, UINT64_MAX));
	memset(out, 0, sizeof(out));
	CHECK(doca_dpa_d2h_memcpy(dpa, out, t.out, sizeof(out)));
	printf("fill:");
	for (int i = 0; i < N; i++)
		printf(" %u", (unsigned int)out[i]);
	printf("\n");
	CHECK(doca_dpa_peek_at_last_error(dpa));

	CHECK(doca_dpa_mem_free(dpa, t.out));
	CHECK(doca_sync_event_stop(done));
	CHECK(doca_sync_event_destroy(done));
	CHECK(doca_dpa_stop(dpa));
	CHECK(doca_dpa_destroy(dpa));
	CHECK(doca_dev_close(dev));
	printf("done\n");
	return 0;
}
