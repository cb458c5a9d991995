/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * The DPA Verbs kernels of the tests (tests/soundness.rs, tests/api_fuzz.rs),
 * built only where the install has DOCA Verbs and is DOCA 3.2 or newer (see
 * tests/kernels-pkg/build.rs).
 */
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_buf.h>
#include <doca_dpa_dev_verbs.h>

#include "../sound.h"
#include "write_wr.h"

/*
 * Waits for *go, then writes src[0] (local map `src_map`) to dst[0] (the peer's
 * map `dst_map`) with one signalled RDMA write on `qp`, waits for its completion
 * on `comp` (the queue pair's), acknowledges it and sets out[0].
 */
__dpa_global__ void sound_hold_verbs(uint64_t *go, doca_dpa_dev_verbs_qp_t qp, doca_dpa_dev_completion_t comp,
				     uint64_t *src, doca_dpa_dev_mmap_t src_map, uint64_t *dst,
				     doca_dpa_dev_mmap_t dst_map, uint64_t *out)
{
	doca_dpa_dev_completion_element_t e;

	sound_wait_for(go);
	verbs_post_write(qp, src, src_map, dst, dst_map, DOCA_DPA_DEV_VERBS_SEND_WR_FLAGS_SIGNALED);
	doca_dpa_dev_verbs_qp_commit_send(qp);
	while (!doca_dpa_dev_get_completion(comp, &e))
		doca_dpa_dev_yield();
	doca_dpa_dev_completion_ack(comp, 1);
	out[0] = 1;
}
