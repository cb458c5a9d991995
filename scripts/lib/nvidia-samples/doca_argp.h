/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Stand-in for DOCA's argument parser header, for building NVIDIA's DPA
 * samples on doca-sim (scripts/run-nvidia-samples.sh). doca-sim models DPA,
 * not DOCA's argp library; this declares the part the samples use (written
 * from the documented prototypes) and harness.c implements it: `-<short>
 * value` and `--<long> value` (or `--<long>=value`), each value handed to the
 * parameter's callback as DOCA does (a string, or a pointer to an int or a
 * bool).
 */
#ifndef DOCA_SIM_SAMPLES_ARGP_H_
#define DOCA_SIM_SAMPLES_ARGP_H_

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

enum doca_argp_type {
	DOCA_ARGP_TYPE_UNKNOWN = 0,
	DOCA_ARGP_TYPE_STRING,
	DOCA_ARGP_TYPE_INT,
	DOCA_ARGP_TYPE_BOOLEAN,
	DOCA_ARGP_TYPE_JSON_OBJ,
};

struct doca_argp_param;

typedef doca_error_t (*doca_argp_param_cb_t)(void *param, void *config);
typedef doca_error_t (*doca_argp_validation_cb_t)(void *config);

doca_error_t doca_argp_init(const char *program_name, void *program_config);
doca_error_t doca_argp_start(int argc, char **argv);
doca_error_t doca_argp_destroy(void);
doca_error_t doca_argp_param_create(struct doca_argp_param **param);
void doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name);
void doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name);
void doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments);
void doca_argp_param_set_description(struct doca_argp_param *param, const char *description);
void doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback);
void doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type);
void doca_argp_param_set_mandatory(struct doca_argp_param *param);
doca_error_t doca_argp_register_param(struct doca_argp_param *input_param);
doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_SIM_SAMPLES_ARGP_H_ */
