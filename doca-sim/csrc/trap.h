/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * doca-sim: traps in device code (shared by csrc/trap.c and csrc/device.c;
 * the Rust side mirrors these values in src/trap.rs).
 */
#ifndef DOCA_SIM_TRAP_H_
#define DOCA_SIM_TRAP_H_

#include <stdint.h>

/* How a run of device code ended (the siglongjmp codes). */
enum {
	DOCA_SIM_ENDED_RETURNED = 0,
	/* The context turned fatal (a device call failed, or a sibling faulted). */
	DOCA_SIM_ENDED_ABORTED = 1,
	DOCA_SIM_ENDED_RESCHEDULED = 2,
	DOCA_SIM_ENDED_FINISHED = 3,
	/* A trap in device code: the record says which. */
	DOCA_SIM_ENDED_FAULTED = 4,
	/* Stopped by the watchdog or because its context turned fatal. */
	DOCA_SIM_ENDED_KILLED = 5,
};

/* What the signal handler saw (one per thread, read after the jump back). */
struct doca_sim_trap_record {
	int32_t signo;
	int32_t code;
	uint64_t addr;
	uint64_t pc;
	/* 0 unknown, 1 read, 2 write (from the page-fault error code on x86-64). */
	int32_t access;
	/* 1 when the address lies in the guard area below this thread's stack. */
	int32_t stack_overflow;
};

/* Ends the running device code with `code` (no return). Does nothing outside device code. */
void doca_sim_trap_end(int code);
/* Ends the running device code if a sim device function asked for it. */
void doca_sim_trap_end_if_requested(void);
/* A device call that cannot return was made outside device code: says so on stderr and aborts. */
__attribute__((noreturn)) void doca_sim_trap_outside_device_code(const char *call);

#endif /* DOCA_SIM_TRAP_H_ */
