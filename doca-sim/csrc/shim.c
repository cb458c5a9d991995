/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * doca-sim: the variadic host entry points of doca_dpa.h.
 *
 * Stable Rust cannot define C-variadic functions, so these three live in C.
 * Each asks the Rust side for the kernel being called (which also counts the
 * call and applies injected faults), reads the variadic arguments with the
 * kernel's exact parameter types through the reader generated for it, and
 * hands the widened values back to Rust.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_dpa.h>
#include <doca_sim_app.h>

doca_error_t doca_sim_kernel_lookup(const char *api, struct doca_dpa *dpa, const void *func,
				    const struct doca_sim_kernel **kernel);
doca_error_t doca_sim_kernel_launch(struct doca_dpa *dpa, struct doca_sync_event *wait_event,
				    uint64_t wait_threshold, struct doca_sync_event *comp_event,
				    uint64_t comp_count, unsigned int num_threads,
				    const struct doca_sim_kernel *kernel, const uint64_t *args, int add);
doca_error_t doca_sim_rpc(struct doca_dpa *dpa, const struct doca_sim_kernel *kernel,
			  const uint64_t *args, uint64_t *retval);

static void read_args(const struct doca_sim_kernel *kernel, va_list *ap, uint64_t *args)
{
	if (kernel->num_params > 0 && kernel->read_args != NULL)
		kernel->read_args(ap, args);
}

static doca_error_t launch(const char *api, int add, struct doca_dpa *dpa,
			   struct doca_sync_event *wait_event, uint64_t wait_threshold,
			   struct doca_sync_event *comp_event, uint64_t comp_count,
			   unsigned int num_threads, doca_dpa_func_t *func, va_list *ap)
{
	const struct doca_sim_kernel *kernel = NULL;
	uint64_t args[DOCA_SIM_MAX_KERNEL_ARGS] = {0};
	doca_error_t err = doca_sim_kernel_lookup(api, dpa, (const void *)func, &kernel);

	if (err != DOCA_SUCCESS)
		return err;
	read_args(kernel, ap, args);
	return doca_sim_kernel_launch(dpa, wait_event, wait_threshold, comp_event, comp_count,
				      num_threads, kernel, args, add);
}

doca_error_t doca_dpa_kernel_launch_update_set(struct doca_dpa *dpa, struct doca_sync_event *wait_event,
					       uint64_t wait_threshold, struct doca_sync_event *comp_event,
					       uint64_t comp_count, unsigned int num_threads,
					       doca_dpa_func_t *func, ...)
{
	va_list ap;
	doca_error_t err;

	va_start(ap, func);
	err = launch("doca_dpa_kernel_launch_update_set", 0, dpa, wait_event, wait_threshold, comp_event,
		     comp_count, num_threads, func, &ap);
	va_end(ap);
	return err;
}

doca_error_t doca_dpa_kernel_launch_update_add(struct doca_dpa *dpa, struct doca_sync_event *wait_event,
					       uint64_t wait_threshold, struct doca_sync_event *comp_event,
					       uint64_t comp_count, unsigned int num_threads,
					       doca_dpa_func_t *func, ...)
{
	va_list ap;
	doca_error_t err;

	va_start(ap, func);
	err = launch("doca_dpa_kernel_launch_update_add", 1, dpa, wait_event, wait_threshold, comp_event,
		     comp_count, num_threads, func, &ap);
	va_end(ap);
	return err;
}

doca_error_t doca_dpa_rpc(struct doca_dpa *dpa, doca_dpa_func_t *func, uint64_t *retval, ...)
{
	const struct doca_sim_kernel *kernel = NULL;
	uint64_t args[DOCA_SIM_MAX_KERNEL_ARGS] = {0};
	va_list ap;
	doca_error_t err = doca_sim_kernel_lookup("doca_dpa_rpc", dpa, (const void *)func, &kernel);

	if (err != DOCA_SUCCESS)
		return err;
	va_start(ap, retval);
	read_args(kernel, &ap, args);
	va_end(ap);
	return doca_sim_rpc(dpa, kernel, args, retval);
}
