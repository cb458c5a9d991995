/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Stand-in for DOCA's logging header, for building NVIDIA's DPA samples on
 * doca-sim (scripts/run-nvidia-samples.sh). doca-sim models DPA, not DOCA's
 * logging library; this declares the part the samples use (written from the
 * documented prototypes and level values) and harness.c implements it by
 * printing each line to stdout.
 */
#ifndef DOCA_SIM_SAMPLES_LOG_H_
#define DOCA_SIM_SAMPLES_LOG_H_

#include <stdint.h>
#include <stdio.h>
#include <string.h> /* the samples use it without including it: DOCA's headers bring it */

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

enum doca_log_level {
	DOCA_LOG_LEVEL_DISABLE = 10,
	DOCA_LOG_LEVEL_CRIT = 20,
	DOCA_LOG_LEVEL_ERROR = 30,
	DOCA_LOG_LEVEL_WARNING = 40,
	DOCA_LOG_LEVEL_INFO = 50,
	DOCA_LOG_LEVEL_DEBUG = 60,
	DOCA_LOG_LEVEL_TRACE = 70,
};

struct doca_log_backend;

doca_error_t doca_log_backend_create_standard(void);
doca_error_t doca_log_backend_create_with_file_sdk(FILE *fptr, struct doca_log_backend **backend);
doca_error_t doca_log_backend_set_sdk_level(struct doca_log_backend *backend, uint32_t level);

/* Prints one formatted line for `source` (a DOCA_LOG_REGISTER name). */
void doca_sim_samples_log(uint32_t level, const char *source, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

#define DOCA_LOG_REGISTER(source) static const char *const doca_sim_samples_source __attribute__((unused)) = #source

#define DOCA_LOG_CRIT(...) doca_sim_samples_log(DOCA_LOG_LEVEL_CRIT, doca_sim_samples_source, __VA_ARGS__)
#define DOCA_LOG_ERR(...) doca_sim_samples_log(DOCA_LOG_LEVEL_ERROR, doca_sim_samples_source, __VA_ARGS__)
#define DOCA_LOG_WARN(...) doca_sim_samples_log(DOCA_LOG_LEVEL_WARNING, doca_sim_samples_source, __VA_ARGS__)
#define DOCA_LOG_INFO(...) doca_sim_samples_log(DOCA_LOG_LEVEL_INFO, doca_sim_samples_source, __VA_ARGS__)
#define DOCA_LOG_DBG(...) doca_sim_samples_log(DOCA_LOG_LEVEL_DEBUG, doca_sim_samples_source, __VA_ARGS__)
#define DOCA_LOG_TRC(...) doca_sim_samples_log(DOCA_LOG_LEVEL_TRACE, doca_sim_samples_source, __VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* DOCA_SIM_SAMPLES_LOG_H_ */
