/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * The RDMI kernel of tests/soundness.rs (built only where RDMI is present, see
 * tests/kernels-pkg/build.rs): it holds an RDMI connection handle until the host
 * says go, so a test can drop the host's handle in between.
 */
#include <doca_dpa_dev.h>

#ifdef DOCA_SIM_DEVICE
#include <doca_sim_dev.h>
#elif defined(__has_include)
#if __has_include(<doca_rdmi_dev_connection.h>)
#include <doca_rdmi_dev_connection.h>
#include <doca_rdmi_dev_poster.h>
#endif
#endif

#include "../sound.h"

/* Waits for *go, then records the connection handle it was given in out[0]. */
__dpa_global__ void sound_hold_connection(uint64_t *go, doca_dpa_dev_rdmi_connection_t connection,
					  uint64_t *out)
{
	sound_wait_for(go);
	out[0] = connection;
}

/*
 * A persistent thread given an RDMI connection: waits for local storage word 0,
 * then asks the connection for its receive buffer and stores the answer in word 1
 * (0 would mean the sim no longer knows the connection). On hardware, where the
 * device-side RDMI API is not public, it stores the handle instead.
 */
__dpa_global__ void sound_thread_connection(doca_dpa_dev_rdmi_connection_t connection)
{
	uint64_t *ls = (uint64_t *)doca_dpa_dev_thread_get_local_storage();

	sound_wait_for(ls);
#ifdef DOCA_SIM_DEVICE
	ls[1] = doca_sim_dev_rdmi_rq_addr(connection);
#else
	ls[1] = connection;
#endif
	doca_dpa_dev_thread_reschedule();
}
