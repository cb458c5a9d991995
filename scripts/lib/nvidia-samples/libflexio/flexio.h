/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Stand-in for FlexIO's header, for building NVIDIA's DPA samples on doca-sim
 * (scripts/run-nvidia-samples.sh). The samples' shared code uses FlexIO only
 * to read a DPA resources file (the optional --dpa-resources argument) into
 * execution-unit affinities; doca-sim does not model that file, so
 * harness.c's flexio_resources_create fails and the samples say so.
 */
#ifndef DOCA_SIM_SAMPLES_FLEXIO_H_
#define DOCA_SIM_SAMPLES_FLEXIO_H_

#include <stddef.h>
#include <stdint.h>

#include "flexio_ver.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
	FLEXIO_STATUS_SUCCESS = 0,
	FLEXIO_STATUS_FAILED = 1,
} flexio_status;

struct flexio_resource;

flexio_status flexio_resources_create(const char *app_key, const void *buffer, size_t size,
				      struct flexio_resource **res);
void flexio_resources_destroy(struct flexio_resource *res);
int flexio_resources_get_eugs_num(struct flexio_resource *res);
uint32_t flexio_resources_get_eus_num(struct flexio_resource *res);
uint32_t *flexio_resources_get_eus(struct flexio_resource *res);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_SIM_SAMPLES_FLEXIO_H_ */
