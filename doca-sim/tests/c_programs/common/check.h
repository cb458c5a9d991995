/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Helpers of the C programs under doca-sim/tests/c_programs (host side only):
 * each program prints what it observed on stdout, which the harness
 * (tests/c_programs.rs) compares with the program's expected.out, and exits
 * non-zero at the first call that did not answer as expected.
 */
#ifndef C_PROGRAMS_CHECK_H_
#define C_PROGRAMS_CHECK_H_

#include <stdio.h>
#include <stdlib.h>

#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_error.h>
#include <doca_sync_event.h>

/* Fails the program unless `call` answers `want`. */
#define EXPECT(want, call)                                                                                       \
	do {                                                                                                     \
		doca_error_t got_ = (call);                                                                      \
		if (got_ != (want)) {                                                                            \
			fprintf(stderr, "%s:%d: %s: expected %s, got %s\n", __FILE__, __LINE__, #call,           \
				doca_error_get_name(want), doca_error_get_name(got_));                           \
			exit(1);                                                                                 \
		}                                                                                                \
	} while (0)

/* Fails the program unless `call` succeeds. */
#define CHECK(call) EXPECT(DOCA_SUCCESS, call)

/* Fails the program unless `cond` holds. */
#define ASSERT(cond)                                                                                             \
	do {                                                                                                     \
		if (!(cond)) {                                                                                   \
			fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond);             \
			exit(1);                                                                                 \
		}                                                                                                \
	} while (0)

/*
 * Opens the first device with a DPA, as the samples' common setup does, and
 * makes stdout unbuffered so that the program's lines and the device log
 * (written by the sim as kernels call doca_dpa_dev_log) keep their order.
 */
static inline struct doca_dev *open_dpa_device(void)
{
	struct doca_devinfo **list = NULL;
	struct doca_dev *dev = NULL;
	uint32_t n = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	CHECK(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_dpa_cap_is_supported(list[i]) == DOCA_SUCCESS)
			CHECK(doca_dev_open(list[i], &dev));
	CHECK(doca_devinfo_destroy_list(list));
	ASSERT(dev != NULL);
	return dev;
}

/* A started DPA context on `dev` running `app`, logging at INFO. */
static inline struct doca_dpa *start_dpa(struct doca_dev *dev, struct doca_dpa_app *app)
{
	struct doca_dpa *dpa = NULL;

	CHECK(doca_dpa_create(dev, &dpa));
	CHECK(doca_dpa_set_log_level(dpa, DOCA_DPA_DEV_LOG_LEVEL_INFO));
	CHECK(doca_dpa_set_app(dpa, app));
	CHECK(doca_dpa_start(dpa));
	return dpa;
}

/* A started event kernels on `dpa` publish and the host (through `dev`) waits on. */
static inline struct doca_sync_event *dpa_to_cpu_event(struct doca_dev *dev, struct doca_dpa *dpa)
{
	struct doca_sync_event *ev = NULL;

	CHECK(doca_sync_event_create(&ev));
	CHECK(doca_sync_event_add_publisher_location_dpa(ev, dpa));
	CHECK(doca_sync_event_add_subscriber_location_cpu(ev, dev));
	CHECK(doca_sync_event_start(ev));
	return ev;
}

#endif /* C_PROGRAMS_CHECK_H_ */
