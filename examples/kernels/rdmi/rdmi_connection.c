/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Kernel of examples/rdmi_connection.rs: receives the DPA handles of an RDMI
 * poster and connection and of the two DPA completion contexts they deliver
 * to, and reports what it did in a block of DPA memory.
 *
 * DOCA's device-side RDMI API is not public. In the software DPA the kernel
 * uses the sim's loopback (doca_sim_dev.h): it sends n messages through the
 * poster into the connection's receive buffer, reads the completions each
 * side got, and marks the receives consumed so the host can acknowledge
 * them. Built with dpacc for a real DPA, it only records the handles it was
 * given; put the real doca_rdmi_dev_*.h calls there.
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

/* Layout of the report (uint64_t words), shared with the host. */
enum rdmi_example_report {
	RDMI_EX_CONNECTION = 0,	  /* the connection handle the kernel received */
	RDMI_EX_POSTER = 1,	  /* the poster handle the kernel received */
	RDMI_EX_SENT = 2,	  /* messages sent */
	RDMI_EX_RECV_COMPS = 3,	  /* RECV_SEND completions on the connection's completion */
	RDMI_EX_SEND_COMPS = 4,	  /* SEND completions on the poster's completion */
	RDMI_EX_CONSUMED = 5,	  /* receives marked consumed */
	RDMI_EX_ERROR = 6,	  /* first error code, 0 if none */
	RDMI_EX_LOOPBACK = 7,	  /* 1 when the loopback ran (software DPA) */
	RDMI_EX_RECEIVES = 8,	  /* then one word per receive: slot << 32 | length */
};

#ifdef DOCA_SIM_DEVICE
/* Message i: "RDMI message #NN" (16 bytes, no terminator). */
static uint32_t rdmi_example_message(uint32_t i, char *out)
{
	static const char prefix[] = "RDMI message #";
	uint32_t len = 0;

	while (prefix[len] != 0) {
		out[len] = prefix[len];
		len++;
	}
	out[len++] = (char)('0' + (i / 10) % 10);
	out[len++] = (char)('0' + i % 10);
	return len;
}

/* Takes up to `want` completions of type `type` from `comp`; returns how many. */
static uint64_t rdmi_example_drain(doca_dpa_dev_completion_t comp, uint32_t type, uint64_t want, uint64_t *receives)
{
	uint64_t seen = 0, read = 0;
	uint32_t tries;

	for (tries = 0; seen < want && tries < 100000; tries++) {
		doca_dpa_dev_completion_element_t e;

		if (!doca_dpa_dev_get_completion(comp, &e))
			continue;
		read++;
		if ((uint32_t)doca_dpa_dev_get_completion_type(e) != type)
			continue;
		if (receives)
			receives[seen] = ((uint64_t)doca_dpa_dev_get_completion_user_data(e) << 32) |
					 doca_dpa_dev_get_completion_immediate(e);
		seen++;
	}
	if (read)
		doca_dpa_dev_completion_ack(comp, read);
	return seen;
}
#endif

__dpa_global__ void rdmi_loopback(doca_rdmi_dev_poster_t poster, doca_dpa_dev_rdmi_connection_t connection, doca_dpa_dev_completion_t conn_comp,
				  doca_dpa_dev_completion_t poster_comp, uint64_t *report, uint32_t n)
{
	uint64_t *r = report;

	r[RDMI_EX_CONNECTION] = connection;
	r[RDMI_EX_POSTER] = poster;
#ifdef DOCA_SIM_DEVICE
	{
		uint32_t i;
		int rc = 0;

		r[RDMI_EX_LOOPBACK] = 1;
		for (i = 0; i < n; i++) {
			char msg[DOCA_SIM_RDMI_SLOT_BYTES];
			uint32_t len = rdmi_example_message(i, msg);

			rc = doca_sim_dev_rdmi_send(poster, connection, msg, len, i);
			if (rc != 0) {
				r[RDMI_EX_ERROR] = (uint64_t)rc;
				break;
			}
			r[RDMI_EX_SENT]++;
		}
		r[RDMI_EX_RECV_COMPS] = rdmi_example_drain(conn_comp, DOCA_DPA_DEV_COMP_RECV_SEND, r[RDMI_EX_SENT],
							   &r[RDMI_EX_RECEIVES]);
		r[RDMI_EX_SEND_COMPS] = rdmi_example_drain(poster_comp, DOCA_DPA_DEV_COMP_SEND, r[RDMI_EX_SENT], 0);
		rc = doca_sim_dev_rdmi_consume(connection, (uint32_t)r[RDMI_EX_RECV_COMPS]);
		if (rc != 0 && r[RDMI_EX_ERROR] == 0)
			r[RDMI_EX_ERROR] = (uint64_t)rc;
		else if (rc == 0)
			r[RDMI_EX_CONSUMED] = r[RDMI_EX_RECV_COMPS];
	}
#else
	(void)conn_comp;
	(void)poster_comp;
	(void)n;
#endif
}
