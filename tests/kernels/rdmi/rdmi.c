/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * RDMI kernels of the integration tests (app `doca_tests`, tests/rdmi_flows.rs).
 * Names start with rdmi_test_ because every file of the app is one DPA image.
 *
 * DOCA's device-side RDMI API is not public: the kernels that move data use
 * the software DPA's loopback (doca_sim_dev.h) and do nothing on hardware,
 * where the tests that need them are skipped. rdmi_test_record only echoes
 * the handles it receives and runs everywhere.
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

/* out[0] = connection, out[1] = poster: the handles as the kernel got them. */
__dpa_global__ void rdmi_test_record(doca_rdmi_dev_poster_t poster, doca_dpa_dev_rdmi_connection_t connection, uint64_t *out)
{
	uint64_t *o = out;

	o[0] = connection;
	o[1] = poster;
}

/*
 * Sends `count` messages through the loopback; message i is 16 bytes, each
 * byte (first + i) * 16 + j, with user data first + i. out[0] = messages
 * sent, out[1] = the first error code (0 if none).
 */
__dpa_global__ void rdmi_test_send(doca_rdmi_dev_poster_t poster, doca_dpa_dev_rdmi_connection_t connection, uint32_t count, uint32_t first,
				   uint64_t *out)
{
	uint64_t *o = out;

	o[0] = 0;
	o[1] = 0;
#ifdef DOCA_SIM_DEVICE
	{
		uint32_t i, j;

		for (i = 0; i < count; i++) {
			unsigned char msg[16];
			int rc;

			for (j = 0; j < sizeof(msg); j++)
				msg[j] = (unsigned char)((first + i) * 16 + j);
			rc = doca_sim_dev_rdmi_send(poster, connection, msg, sizeof(msg), first + i);
			if (rc != 0) {
				o[1] = (uint64_t)rc;
				return;
			}
			o[0]++;
		}
	}
#else
	(void)poster;
	(void)connection;
	(void)count;
	(void)first;
#endif
}

/* Marks n receives consumed; out[0] = the return code. */
__dpa_global__ void rdmi_test_consume(doca_dpa_dev_rdmi_connection_t connection, uint32_t n, uint64_t *out)
{
#ifdef DOCA_SIM_DEVICE
	out[0] = (uint64_t)doca_sim_dev_rdmi_consume(connection, n);
#else
	(void)connection;
	(void)n;
	out[0] = 0;
#endif
}

/*
 * Reads every completion waiting on `comp` (at most max) and acknowledges
 * them: out[0] = how many, then one word each: type << 56 | user data << 32
 * | immediate.
 */
__dpa_global__ void rdmi_test_drain(doca_dpa_dev_completion_t comp, uint64_t *out, uint32_t max)
{
	uint64_t *o = out;
	doca_dpa_dev_completion_element_t e;
	uint64_t n = 0;

	while (n < max && doca_dpa_dev_get_completion(comp, &e)) {
		o[1 + n] = ((uint64_t)doca_dpa_dev_get_completion_type(e) << 56) |
			   ((uint64_t)doca_dpa_dev_get_completion_user_data(e) << 32) |
			   doca_dpa_dev_get_completion_immediate(e);
		n++;
	}
	if (n)
		doca_dpa_dev_completion_ack(comp, n);
	o[0] = n;
}
