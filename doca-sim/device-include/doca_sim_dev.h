/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * doca-sim only: device functions that exist in the software DPA and nowhere
 * else. Kernels that use them must guard the calls with
 * `#ifdef DOCA_SIM_DEVICE` so they still build with dpacc.
 */
#ifndef DOCA_SIM_DEV_H_
#define DOCA_SIM_DEV_H_

#include <doca_dpa_dev.h>

#ifdef DOCA_SIM_DEV_NO_SIM_EXTRAS
#error "doca_sim_dev.h is doca-sim's own (no DOCA release has it): include it under #ifdef DOCA_SIM_DEVICE"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * doca-sim only: DOCA's device-side RDMI API is not public, so the sim names the
 * two RDMI handle types here, as the host headers name them.
 */
/** The DPA handle of an RDMI connection, as the host header names it. */
typedef uint64_t doca_dpa_dev_rdmi_connection_t;
/** The DPA handle of an RDMI poster, as the host header names it. */
typedef uint64_t doca_rdmi_dev_poster_t;

/** Makes the context fatal as a device exception would, and ends the instance. */
void doca_sim_dev_fault(const char *reason);

/**
 * Posts a completion element, as a producer context (RDMA, RDMI) would.
 * Returns 0, or a DOCA error code: BAD_STATE (not started), INVALID_VALUE
 * (user data >= 2^24), FULL (overrun; the context turns fatal).
 */
int doca_sim_dev_completion_post(doca_dpa_dev_completion_t dpa_comp_handle, uint32_t type, uint32_t user_data,
				 uint32_t immediate);

/*
 * RDMI, as the sim models it (DOCA's device-side RDMI API is not public): a
 * loopback from a poster to a connection. Messages land in slots of
 * DOCA_SIM_RDMI_SLOT_BYTES bytes of the connection's receive buffer; the
 * connection's completion source gets a RECV_SEND element (user data = slot,
 * immediate = length) and the poster's a SEND element (the given user data,
 * immediate = length).
 */

/** Bytes per receive slot of an RDMI connection in the sim. */
#define DOCA_SIM_RDMI_SLOT_BYTES 64

/**
 * Sends len (<= DOCA_SIM_RDMI_SLOT_BYTES) bytes through a poster to a
 * connection. Returns 0, or a DOCA error code: AGAIN when every slot holds a
 * message the host has not acknowledged, INVALID_VALUE for bad handles or
 * lengths, or a poster and a connection of different verbs contexts or PDs.
 */
int doca_sim_dev_rdmi_send(uint64_t poster, uint64_t connection, const void *data, uint32_t len, uint32_t user_data);

/** Marks n received messages as consumed by the kernel; the host may then acknowledge them. */
int doca_sim_dev_rdmi_consume(uint64_t connection, uint32_t n);

/** Address of the connection's receive buffer (a host address in the sim), 0 if none. */
uint64_t doca_sim_dev_rdmi_rq_addr(uint64_t connection);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_SIM_DEV_H_ */
