/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * doca-sim: how a DPA application compiled for the host describes itself.
 *
 * In the sim backend, doca-build-support compiles the DPA C sources for the
 * host (against the sim's device-side headers) and generates one C file per
 * application that defines a `struct doca_sim_app` and the global
 * `struct doca_dpa_app *<app name>` that host code declares, exactly as the
 * dpacc-generated archive does on hardware. The sim reads this table when the
 * app is set on a DPA context and when a kernel is launched.
 *
 * This header belongs to doca-sim; it is not part of DOCA.
 */
#ifndef DOCA_SIM_APP_H_
#define DOCA_SIM_APP_H_

#include <stdarg.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Marks a valid application table ("DOCASIMA"). */
#define DOCA_SIM_APP_MAGIC 0x444F434153494D41ULL
/** Layout version of struct doca_sim_app. */
#define DOCA_SIM_APP_ABI 1
/** Most parameters a kernel may declare in the sim. */
#define DOCA_SIM_MAX_KERNEL_ARGS 32

/** A `__dpa_global__` function: launchable, or a DPA thread entry point. */
#define DOCA_SIM_KERNEL_GLOBAL 0u
/** A `__dpa_rpc__` function, returning a uint64_t to doca_dpa_rpc(). */
#define DOCA_SIM_KERNEL_RPC 1u

/** One device function of the application. */
struct doca_sim_kernel {
	/** Its C name. */
	const char *name;
	/** Its address: what the host passes as `doca_dpa_func_t *`. */
	void (*func)(void);
	/** DOCA_SIM_KERNEL_GLOBAL or DOCA_SIM_KERNEL_RPC. */
	uint32_t kind;
	/** Number of 8-byte argument slots the parameters take (one per scalar, one per 8 bytes of a struct passed by value; at most DOCA_SIM_MAX_KERNEL_ARGS). */
	uint32_t num_params;
	/** sizeof of each parameter, for diagnostics. */
	const uint8_t *param_sizes;
	/** Reads the variadic launch arguments, each with its exact C type, into their slots of args[]. */
	void (*read_args)(va_list *ap, uint64_t *args);
	/** Calls the function with args[] converted back to the parameter types; returns the RPC value or 0. */
	uint64_t (*invoke)(const uint64_t *args);
};

/** A whole application, registered under its dpacc --app-name. */
struct doca_sim_app {
	/** DOCA_SIM_APP_MAGIC. */
	uint64_t magic;
	/** DOCA_SIM_APP_ABI. */
	uint32_t abi_version;
	/** Number of entries in kernels[]. */
	uint32_t num_kernels;
	/** The --app-name. */
	const char *name;
	/** The device functions. */
	const struct doca_sim_kernel *kernels;
};

#ifdef __cplusplus
}
#endif

#endif /* DOCA_SIM_APP_H_ */
