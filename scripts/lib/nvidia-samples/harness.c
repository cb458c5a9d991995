/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * The stand-ins declared by doca_log.h, doca_argp.h and libflexio/ of this
 * directory: what NVIDIA's DPA samples need from DOCA libraries that doca-sim
 * does not model, so that scripts/run-nvidia-samples.sh can build the samples
 * unmodified. Our own code; nothing here is DPA behaviour.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>

#include <doca_dev.h>
#include <infiniband/verbs.h>

#include "doca_argp.h"
#include "doca_rdma_bridge.h"
#include "doca_log.h"
#include "libflexio/flexio.h"

/* ---- logging: one line per message on stdout, SDK backends only filter ---- */

struct doca_log_backend {
	uint32_t level;
};

static struct doca_log_backend sdk_backend = { DOCA_LOG_LEVEL_WARNING };

static const char *level_name(uint32_t level)
{
	switch (level) {
	case DOCA_LOG_LEVEL_CRIT:
		return "CRIT";
	case DOCA_LOG_LEVEL_ERROR:
		return "ERROR";
	case DOCA_LOG_LEVEL_WARNING:
		return "WARNING";
	case DOCA_LOG_LEVEL_INFO:
		return "INFO";
	case DOCA_LOG_LEVEL_DEBUG:
		return "DEBUG";
	default:
		return "TRACE";
	}
}

doca_error_t doca_log_backend_create_standard(void)
{
	return DOCA_SUCCESS;
}

doca_error_t doca_log_backend_create_with_file_sdk(FILE *fptr, struct doca_log_backend **backend)
{
	if (fptr == NULL || backend == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*backend = &sdk_backend;
	return DOCA_SUCCESS;
}

doca_error_t doca_log_backend_set_sdk_level(struct doca_log_backend *backend, uint32_t level)
{
	if (backend == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	backend->level = level;
	return DOCA_SUCCESS;
}

void doca_sim_samples_log(uint32_t level, const char *source, const char *format, ...)
{
	va_list ap;

	if (level > DOCA_LOG_LEVEL_INFO)
		return;
	printf("[%s][%s] ", level_name(level), source);
	va_start(ap, format);
	vprintf(format, ap);
	va_end(ap);
	if (format[0] == '\0' || format[strlen(format) - 1] != '\n')
		putchar('\n');
	fflush(stdout);
}

/* ---- argp: -<short> value, --<long> value, --<long>=value ---- */

struct doca_argp_param {
	const char *short_name;
	const char *long_name;
	doca_argp_param_cb_t callback;
	enum doca_argp_type type;
	bool mandatory;
	bool seen;
	struct doca_argp_param *next;
};

static struct doca_argp_param *params;
static void *config;

doca_error_t doca_argp_init(const char *program_name, void *program_config)
{
	(void)program_name;
	config = program_config;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_param_create(struct doca_argp_param **param)
{
	if (param == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*param = calloc(1, sizeof(**param));
	return *param == NULL ? DOCA_ERROR_NO_MEMORY : DOCA_SUCCESS;
}

void doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name)
{
	param->short_name = name;
}

void doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name)
{
	param->long_name = name;
}

void doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments)
{
	(void)param;
	(void)arguments;
}

void doca_argp_param_set_description(struct doca_argp_param *param, const char *description)
{
	(void)param;
	(void)description;
}

void doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback)
{
	param->callback = callback;
}

void doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type)
{
	param->type = type;
}

void doca_argp_param_set_mandatory(struct doca_argp_param *param)
{
	param->mandatory = true;
}

doca_error_t doca_argp_register_param(struct doca_argp_param *input_param)
{
	if (input_param == NULL || input_param->callback == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	input_param->next = params;
	params = input_param;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback)
{
	(void)callback;
	return DOCA_SUCCESS;
}

static struct doca_argp_param *find_param(const char *arg, const char **inline_value)
{
	*inline_value = NULL;
	for (struct doca_argp_param *p = params; p != NULL; p = p->next) {
		if (strncmp(arg, "--", 2) == 0 && p->long_name != NULL) {
			size_t n = strlen(p->long_name);

			if (strncmp(arg + 2, p->long_name, n) == 0 && (arg[2 + n] == '\0' || arg[2 + n] == '=')) {
				if (arg[2 + n] == '=')
					*inline_value = arg + 3 + n;
				return p;
			}
		} else if (arg[0] == '-' && arg[1] != '-' && p->short_name != NULL &&
			   strcmp(arg + 1, p->short_name) == 0) {
			return p;
		}
	}
	return NULL;
}

doca_error_t doca_argp_start(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *value;
		struct doca_argp_param *p = find_param(argv[i], &value);
		doca_error_t err;

		if (p == NULL) {
			fprintf(stderr, "unknown argument: %s\n", argv[i]);
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (value == NULL && p->type != DOCA_ARGP_TYPE_BOOLEAN) {
			if (i + 1 >= argc) {
				fprintf(stderr, "%s needs a value\n", argv[i]);
				return DOCA_ERROR_INVALID_VALUE;
			}
			value = argv[++i];
		}
		if (p->type == DOCA_ARGP_TYPE_INT) {
			int number = atoi(value);

			err = p->callback(&number, config);
		} else if (p->type == DOCA_ARGP_TYPE_BOOLEAN) {
			bool flag = value == NULL || strcmp(value, "true") == 0 || strcmp(value, "1") == 0;

			err = p->callback(&flag, config);
		} else {
			err = p->callback((void *)value, config);
		}
		if (err != DOCA_SUCCESS)
			return err;
		p->seen = true;
	}
	for (struct doca_argp_param *p = params; p != NULL; p = p->next) {
		if (p->mandatory && !p->seen) {
			fprintf(stderr, "missing mandatory argument --%s\n", p->long_name ? p->long_name : "?");
			return DOCA_ERROR_INVALID_VALUE;
		}
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_destroy(void)
{
	while (params != NULL) {
		struct doca_argp_param *next = params->next;

		free(params);
		params = next;
	}
	return DOCA_SUCCESS;
}

/* ---- FlexIO's DPA resources file: not modelled ---- */

flexio_status flexio_resources_create(const char *app_key, const void *buffer, size_t size,
				      struct flexio_resource **res)
{
	(void)app_key;
	(void)buffer;
	(void)size;
	(void)res;
	fprintf(stderr, "doca-sim samples harness: DPA resources files (FlexIO) are not modelled by doca-sim\n");
	return FLEXIO_STATUS_FAILED;
}

/* Nothing below is reached: flexio_resources_create never succeeds. */
void flexio_resources_destroy(struct flexio_resource *res)
{
	(void)res;
}

int flexio_resources_get_eugs_num(struct flexio_resource *res)
{
	(void)res;
	return 0;
}

uint32_t flexio_resources_get_eus_num(struct flexio_resource *res)
{
	(void)res;
	return 0;
}

uint32_t *flexio_resources_get_eus(struct flexio_resource *res)
{
	(void)res;
	return NULL;
}

/* ------------------------------------------------- the rdma-core bridge */

/*
 * doca_rdma_bridge_get_dev_pd: a protection domain per open device, whose
 * context names the device. ibv_query_gid: a link-local GID (fe80::/64) whose
 * interface id is made from the device's name and the GID index, so two
 * devices (and two indexes) differ; doca-sim routes queue pairs by number,
 * so the GID is carried by the samples and used by no one (docs/sim-model.md,
 * "DPA Verbs").
 */
struct bridged_dev {
	const struct doca_dev *dev;
	struct ibv_context context;
	struct ibv_pd pd;
};

static struct bridged_dev bridged[16];

doca_error_t doca_rdma_bridge_get_dev_pd(const struct doca_dev *dev, struct ibv_pd **pd)
{
	struct doca_devinfo *info;

	if (dev == NULL || pd == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < sizeof(bridged) / sizeof(bridged[0]); i++) {
		struct bridged_dev *b = &bridged[i];

		if (b->dev == dev) {
			*pd = &b->pd;
			return DOCA_SUCCESS;
		}
		if (b->dev != NULL)
			continue;
		info = doca_dev_as_devinfo(dev);
		if (info == NULL || doca_devinfo_get_ibdev_name(info, b->context.doca_sim_ibdev_name,
								  sizeof(b->context.doca_sim_ibdev_name)) != DOCA_SUCCESS)
			return DOCA_ERROR_INVALID_VALUE;
		b->dev = dev;
		b->pd.context = &b->context;
		b->pd.handle = (uint32_t)i + 1;
		*pd = &b->pd;
		return DOCA_SUCCESS;
	}
	return DOCA_ERROR_NO_MEMORY;
}

int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
	uint64_t id = 1469598103934665603ull; /* FNV-1a over the name and the index */

	if (context == NULL || gid == NULL || port_num != 1 || index < 0 || index > 3) {
		errno = EINVAL;
		return -1;
	}
	for (const char *c = context->doca_sim_ibdev_name; *c != '\0'; c++)
		id = (id ^ (uint8_t)*c) * 1099511628211ull;
	id = (id ^ (uint64_t)index) * 1099511628211ull;
	memset(gid, 0, sizeof(*gid));
	gid->raw[0] = 0xfe;
	gid->raw[1] = 0x80;
	for (int i = 0; i < 8; i++)
		gid->raw[8 + i] = (uint8_t)(id >> (8 * (7 - i)));
	return 0;
}
