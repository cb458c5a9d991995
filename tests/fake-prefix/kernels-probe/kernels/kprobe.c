/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * The kernel of the fake-prefix kernels probe (app `kprobe_app`). Only the
 * fake dpacc sees it: it defines a host stub per __dpa_global__ name. It
 * includes dpaintrin.h, which ships with dpacc's toolchain and not with DOCA:
 * the hardware kernel scan must find it there (the fake dpa-clang's resource
 * directory), never in the simulator's headers.
 */
#include <doca_dpa_dev.h>
#include <dpaintrin.h>

__dpa_global__ void kprobe_fill(doca_dpa_dev_uintptr_t out, uint64_t value)
{
	((uint64_t *)out)[doca_dpa_dev_thread_rank()] = value;
	__dpa_thread_fence(__DPA_MEMORY, __DPA_W, __DPA_W);
}
