/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * doca-sim: the device-side calls that end the running kernel instance.
 *
 * A DPA thread that reschedules or finishes, or a kernel whose context turned
 * fatal, does not return to its caller. The sim runs each instance under a
 * setjmp here and returns to it with longjmp; only C frames (the kernel's and
 * these functions') are skipped, never Rust ones.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <sched.h>
#include <stdio.h>

#include <doca_dpa_dev.h>
#include <doca_dpa_dev_sync_event.h>
#include <doca_sim_dev.h>

enum { ENDED_RETURNED = 0, ENDED_ABORTED = 1, ENDED_RESCHEDULED = 2, ENDED_FINISHED = 3 };

int doca_sim_dev_should_abort(void);
void doca_sim_dev_log_line(unsigned int level, const char *line);
int doca_sim_dev_sync_event_wait_gt(uint64_t handle, uint64_t value, uint64_t mask);
void doca_sim_dev_raise_fault(const char *reason);

static _Thread_local jmp_buf *current_instance;

uint64_t doca_sim_run_instance(uint64_t (*invoke)(const uint64_t *args), const uint64_t *args, int *ended)
{
	jmp_buf env;
	jmp_buf *outer = current_instance;
	volatile uint64_t value = 0;
	int code;

	current_instance = &env;
	code = setjmp(env);
	if (code == 0)
		value = invoke(args);
	current_instance = outer;
	*ended = code;
	return value;
}

static void end_instance(int code)
{
	if (current_instance != NULL)
		longjmp(*current_instance, code);
}

void doca_dpa_dev_thread_reschedule(void)
{
	end_instance(ENDED_RESCHEDULED);
}

void doca_dpa_dev_thread_finish(void)
{
	end_instance(ENDED_FINISHED);
}

void doca_dpa_dev_yield(void)
{
	if (doca_sim_dev_should_abort())
		end_instance(ENDED_ABORTED);
	sched_yield();
}

void doca_dpa_dev_sync_event_wait_gt(doca_dpa_dev_sync_event_t handle, uint64_t value, uint64_t mask)
{
	if (doca_sim_dev_sync_event_wait_gt(handle, value, mask))
		end_instance(ENDED_ABORTED);
}

void doca_dpa_dev_log(doca_dpa_dev_log_level_t log_level, const char *format, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, format);
	vsnprintf(line, sizeof(line), format, ap);
	va_end(ap);
	doca_sim_dev_log_line((unsigned int)log_level, line);
}

void doca_sim_dev_fault(const char *reason)
{
	doca_sim_dev_raise_fault(reason);
	end_instance(ENDED_ABORTED);
}
