/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * doca-sim: traps in device code.
 *
 * In the software DPA a kernel is host code running on a pool thread, so its
 * bad access, abort() or overrun would hit the host process. This file turns
 * those into device faults, as the DPA turns them into a fatal context:
 *
 * - doca_sim_run_instance() runs one kernel instance (or DPA thread
 *   activation) under sigsetjmp and marks the thread as running kernel code;
 * - the handlers of SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT record what
 *   happened and siglongjmp back there, but only while the thread runs kernel
 *   code. Inside the sim's own device functions (Rust) the thread is marked
 *   as host code, and a trap there is a real host crash: the handler chains
 *   to the previous handler (Rust's stack-overflow reporter) or the default
 *   action. Those functions check addresses before touching kernel memory
 *   (doca_sim_probe_copy below) instead of relying on a jump;
 * - a dedicated real-time signal, sent by the watchdog with pthread_kill,
 *   stops kernel code that ran too long or whose context turned fatal, but
 *   never while it is inside libc or the loader (see on_kill); a request
 *   that lands there is repeated at the thread's own pace (see
 *   sample_again) until one lands in the kernel's code.
 *
 * Everything a handler does is async-signal-safe: it reads and writes this
 * thread's record (initial-exec TLS, no allocation), calls sigaction/raise
 * when chaining, and siglongjmp.
 *
 * abort()/assert() in kernel code: glibc's abort() (checked on 2.36) drops its
 * internal lock before raise(SIGABRT), precisely so that a handler may leave
 * with longjmp and abort() may be called again, so jumping out of the
 * SIGABRT handler leaves no lock held.
 *
 * The jumps skip only C frames (the kernel's, and libc's for a fault the
 * kernel caused inside libc, such as a bad pointer given to memcpy) and the
 * Rust frames of kernels written in Rust for the sim's own tests, which hold
 * nothing with a destructor at a trap point; never frames of the sim's Rust
 * code. A fault inside a libc function that holds a lock (a bad %s pointer
 * given to printf) still leaves that lock held: the trap cannot return to
 * the faulting instruction, and no safe point follows it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "trap.h"

enum { MODE_HOST = 0, MODE_KERNEL = 1, MODE_PROBE = 2 };

struct trap_thread {
	volatile sig_atomic_t mode;
	/* Set by a sim device function that made the context fatal. */
	volatile sig_atomic_t end_requested;
	sigjmp_buf *instance;
	sigjmp_buf *probe;
	/* The run of device code in progress (0: none); compared with `kill`. */
	uint64_t generation;
	/* Written by the watchdog thread before it signals this one. */
	uint64_t kill;
	uintptr_t guard_lo, guard_hi;
	struct doca_sim_trap_record record;
	/* Re-sends the stop request to this thread only (see sample_again). */
	timer_t sampler;
	int has_sampler;
};

static __thread struct trap_thread trap __attribute__((tls_model("initial-exec")));

static const int fault_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
#define NUM_FAULT_SIGNALS (sizeof(fault_signals) / sizeof(fault_signals[0]))

static struct sigaction previous[NUM_FAULT_SIGNALS];
static int kill_signal;
static sigset_t trap_signals;

/* Executable ranges of libc and the dynamic loader (see on_kill). */
#define MAX_RANGES 16
static uintptr_t range_lo[MAX_RANGES], range_hi[MAX_RANGES];
static int num_ranges;

static uintptr_t pc_of(void *uctx)
{
	ucontext_t *uc = uctx;
#if defined(__x86_64__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (uintptr_t)uc->uc_mcontext.pc;
#else
	(void)uc;
	return 0;
#endif
}

static int access_of(int signo, void *uctx)
{
#if defined(__x86_64__)
	ucontext_t *uc = uctx;
	/* Page-fault error code: bit 1 is set for a write. */
	if (signo == SIGSEGV)
		return (uc->uc_mcontext.gregs[REG_ERR] & 2) ? 2 : 1;
#else
	(void)signo;
	(void)uctx;
#endif
	return 0;
}

static void note(struct trap_thread *t, int signo, siginfo_t *info, void *uctx)
{
	uintptr_t addr = (uintptr_t)info->si_addr;

	t->record.signo = signo;
	t->record.code = info->si_code;
	t->record.addr = signo == SIGABRT ? 0 : (uint64_t)addr;
	t->record.pc = pc_of(uctx);
	t->record.access = access_of(signo, uctx);
	t->record.stack_overflow =
		(signo == SIGSEGV || signo == SIGBUS) && t->guard_hi != 0 && addr >= t->guard_lo && addr < t->guard_hi;
}

static int slot_of(int signo)
{
	for (size_t i = 0; i < NUM_FAULT_SIGNALS; i++)
		if (fault_signals[i] == signo)
			return (int)i;
	return -1;
}

/* Hands a trap that is not a device fault to whoever handled it before us. */
static void chain(int signo, siginfo_t *info, void *uctx)
{
	int slot = slot_of(signo);
	struct sigaction *old = slot >= 0 ? &previous[slot] : NULL;

	if (old != NULL && (old->sa_flags & SA_SIGINFO) && old->sa_sigaction != NULL) {
		old->sa_sigaction(signo, info, uctx);
		return;
	}
	if (old != NULL && old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
		old->sa_handler(signo);
		return;
	}
	/*
	 * Default action: reinstall it; a fault re-executes the instruction on
	 * return and dies, a sent signal is raised again (it stays pending while
	 * the handler runs and is delivered on return).
	 */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(signo, &dfl, NULL);
	if (info->si_code <= 0)
		raise(signo);
}

/* Whether the trap was caused by the interrupted code itself (not sent by someone). */
static int synchronous(int signo, siginfo_t *info)
{
	if (signo == SIGABRT)
		/* abort() and raise() use tgkill on the calling thread. */
		return info->si_code == SI_TKILL && info->si_pid == getpid();
	return info->si_code > 0;
}

static void on_fault(int signo, siginfo_t *info, void *uctx)
{
	struct trap_thread *t = &trap;
	int saved_errno = errno;

	if (synchronous(signo, info)) {
		if (t->mode == MODE_PROBE && t->probe != NULL && (signo == SIGSEGV || signo == SIGBUS)) {
			note(t, signo, info, uctx);
			siglongjmp(*t->probe, 1);
		}
		if (t->mode == MODE_KERNEL && t->instance != NULL) {
			note(t, signo, info, uctx);
			t->mode = MODE_HOST;
			siglongjmp(*t->instance, DOCA_SIM_ENDED_FAULTED);
		}
	}
	errno = saved_errno;
	chain(signo, info, uctx);
}

static int in_libc(uintptr_t pc)
{
	for (int i = 0; i < num_ranges; i++)
		if (pc >= range_lo[i] && pc < range_hi[i])
			return 1;
	return 0;
}

/*
 * Whether the thread was interrupted in a blocking system call of libc: a
 * restartable call is rewound to its syscall instruction (0f 05), one that
 * is not returns -EINTR just after it.
 */
static int blocked_in_syscall(void *uctx)
{
#if defined(__x86_64__)
	ucontext_t *uc = uctx;
	uintptr_t pc = pc_of(uctx);
	const uint8_t *at = (const uint8_t *)pc;

	if (in_libc(pc + 1) && at[0] == 0x0f && at[1] == 0x05)
		return 1;
	return in_libc(pc - 2) && at[-2] == 0x0f && at[-1] == 0x05 && uc->uc_mcontext.gregs[REG_RAX] == -EINTR;
#else
	(void)uctx;
	return 1;
#endif
}

/* How soon a stop request that landed inside libc is repeated. */
#define SAMPLE_INTERVAL_NS 20000

/*
 * Repeats the stop request SAMPLE_INTERVAL_NS from now, from this thread's
 * own timer: where it lands is a sample of where the thread runs, and a
 * kernel that spends 99.9% of its time in printf needs thousands of
 * samples to be caught in its own code. The watchdog's requests (every
 * few ms of wall time, and on a loaded host landing only when the thread
 * next gets a CPU) took seconds of them on an idle host and more than 30 s
 * on a loaded one; the thread's own timer samples it at a pace set by the
 * time it runs, whatever the load. A thread blocked in a call is not
 * sampled: the watchdog's next request starts again after the call.
 * Outside x86-64 (no test for a blocked call) only the watchdog's requests
 * sample.
 */
static void sample_again(struct trap_thread *t, void *uctx)
{
	struct itimerspec next = { .it_value = { .tv_sec = 0, .tv_nsec = SAMPLE_INTERVAL_NS } };

	if (t->has_sampler && !blocked_in_syscall(uctx))
		timer_settime(t->sampler, 0, &next, NULL);
}

/*
 * The watchdog's stop request (and the repeats of sample_again). Kernel code
 * is left at once, unless it is inside libc or the loader, where it may
 * hold a lock (malloc's arena lock, a FILE's lock): then the request is
 * repeated until one lands in the kernel's own code. It never jumps out of
 * libc: a lock left held there would stop the host's next malloc or printf
 * for good. A kernel that stays inside libc (blocked in a call, or spinning
 * in one) is abandoned by the watchdog meanwhile (src/dpa/launch.rs): its
 * thread is left to run, counted, and replaced in the pool. Outside kernel
 * code (in the sim's Rust device functions) the request is ignored too:
 * those poll the context's fatal flag.
 */
static void on_kill(int signo, siginfo_t *info, void *uctx)
{
	struct trap_thread *t = &trap;
	uint64_t wanted = __atomic_load_n(&t->kill, __ATOMIC_ACQUIRE);
	int saved_errno = errno;

	(void)info;
	if (t->mode != MODE_KERNEL || t->instance == NULL || t->generation == 0 || wanted != t->generation)
		return;
	if (in_libc(pc_of(uctx))) {
		sample_again(t, uctx);
		errno = saved_errno;
		return;
	}
	t->record.signo = signo;
	t->record.code = 0;
	t->record.addr = 0;
	t->record.pc = pc_of(uctx);
	t->record.access = 0;
	t->record.stack_overflow = 0;
	t->mode = MODE_HOST;
	siglongjmp(*t->instance, DOCA_SIM_ENDED_KILLED);
}

static int collect_range(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *name = info->dlpi_name;

	(void)size;
	(void)data;
	if (name == NULL || (strstr(name, "/libc.so") == NULL && strstr(name, "/ld-linux") == NULL &&
			     strstr(name, "/libpthread.so") == NULL))
		return 0;
	for (int i = 0; i < info->dlpi_phnum && num_ranges < MAX_RANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			range_lo[num_ranges] = info->dlpi_addr + ph->p_vaddr;
			range_hi[num_ranges] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
			num_ranges++;
		}
	}
	return 0;
}

/* Installs the handlers (once per process, before any EU thread runs kernels). Returns 0 or errno. */
int doca_sim_trap_install(void)
{
	struct sigaction sa;

	dl_iterate_phdr(collect_range, NULL);
	kill_signal = SIGRTMIN + 5;
	sigemptyset(&trap_signals);
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sa.sa_sigaction = on_fault;
	for (size_t i = 0; i < NUM_FAULT_SIGNALS; i++) {
		sigaddset(&trap_signals, fault_signals[i]);
		if (sigaction(fault_signals[i], &sa, &previous[i]) != 0)
			return errno;
	}
	sa.sa_sigaction = on_kill;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigaddset(&trap_signals, kill_signal);
	if (sigaction(kill_signal, &sa, NULL) != 0)
		return errno;
	return 0;
}

#define ALT_STACK_SIZE (64 * 1024)
#define ALT_STACK_RESERVE (16 * 1024 * 1024)

/*
 * Prepares the calling EU thread: its own alternate signal stack (so a kernel
 * that overflows its stack can still be reported; it replaces the smaller one
 * Rust's runtime may have set, and the thread keeps it for its life), the
 * bounds of its stack guard, and its TLS. Returns this thread's
 * trap state for doca_sim_trap_kill, or NULL when no alternate stack could be
 * set up.
 */
void *doca_sim_trap_thread_init(void)
{
	struct trap_thread *t = &trap;
	pthread_attr_t attr;
	long page = sysconf(_SC_PAGESIZE);

	memset(t, 0, sizeof(*t));
	if (pthread_getattr_np(pthread_self(), &attr) == 0) {
		void *base;
		size_t size, guard;

		if (pthread_attr_getstack(&attr, &base, &size) == 0 && pthread_attr_getguardsize(&attr, &guard) == 0) {
			size_t margin = guard > (size_t)page ? guard : (size_t)page;

			t->guard_lo = (uintptr_t)base - margin;
			t->guard_hi = (uintptr_t)base + (uintptr_t)page;
		}
		pthread_attr_destroy(&attr);
	}
	/*
	 * The stack sits in the middle of a larger inaccessible reservation: the
	 * reservation guards it, and keeps it far (more than valgrind's default
	 * --max-stackframe of 2 MB) from every thread stack, so that valgrind
	 * takes the jump from it back to the thread stack for a stack switch,
	 * not for a huge stack frame whose memory it would mark undefined.
	 */
	void *mem = mmap(NULL, ALT_STACK_RESERVE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED)
		return NULL;
	char *stack = (char *)mem + ALT_STACK_RESERVE / 2;
	if (mprotect(stack, ALT_STACK_SIZE, PROT_READ | PROT_WRITE) != 0) {
		munmap(mem, ALT_STACK_RESERVE);
		return NULL;
	}
	stack_t alt = { .ss_sp = stack, .ss_size = ALT_STACK_SIZE, .ss_flags = 0 };
	if (sigaltstack(&alt, NULL) != 0) {
		munmap(mem, ALT_STACK_RESERVE);
		return NULL;
	}
	/* The repeats of a stop request (see sample_again); without it, only the watchdog's. */
	struct sigevent to_self;
	memset(&to_self, 0, sizeof(to_self));
	to_self.sigev_notify = SIGEV_THREAD_ID;
	to_self.sigev_signo = kill_signal;
	to_self._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	t->has_sampler = timer_create(CLOCK_MONOTONIC, &to_self, &t->sampler) == 0;
	return t;
}

/* Asks `thread` (whose state `target` doca_sim_trap_thread_init returned) to stop run `generation`. */
int doca_sim_trap_kill(void *target, pthread_t thread, uint64_t generation)
{
	struct trap_thread *t = target;

	__atomic_store_n(&t->kill, generation, __ATOMIC_RELEASE);
	return pthread_kill(thread, kill_signal);
}

static void unblock_trap_signals(void)
{
	/* The handler left with the signal still blocked (sigsetjmp saved no mask). */
	pthread_sigmask(SIG_UNBLOCK, &trap_signals, NULL);
}

/*
 * Runs `invoke(args)` as kernel code. `*ended` gets how it ended; after a
 * fault or a kill, `*record` says what the handler saw.
 */
uint64_t doca_sim_run_instance(uint64_t (*invoke)(const uint64_t *args), const uint64_t *args, uint64_t generation,
			       struct doca_sim_trap_record *record, int *ended)
{
	struct trap_thread *t = &trap;
	sigjmp_buf env;
	/* volatile: read after a jump back (also keeps valgrind's view of them defined). */
	sigjmp_buf *volatile outer = t->instance;
	volatile int outer_mode = t->mode;
	volatile uint64_t outer_generation = t->generation;
	volatile uint64_t value = 0;
	int code;

	t->instance = &env;
	t->generation = generation;
	t->end_requested = 0;
	code = sigsetjmp(env, 0);
	if (code == 0) {
		t->mode = MODE_KERNEL;
		value = invoke(args);
	}
	t = &trap;
	t->mode = outer_mode;
	t->instance = outer;
	t->generation = outer_generation;
	t->end_requested = 0;
	if (code == DOCA_SIM_ENDED_FAULTED || code == DOCA_SIM_ENDED_KILLED) {
		unblock_trap_signals();
		if (record != NULL)
			*record = t->record;
	}
	*ended = code;
	return value;
}

void doca_sim_trap_end(int code)
{
	struct trap_thread *t = &trap;

	if (t->instance != NULL) {
		t->mode = MODE_HOST;
		siglongjmp(*t->instance, code);
	}
}

void doca_sim_trap_outside_device_code(const char *call)
{
	static const char head[] = "doca-sim: ";
	static const char tail[] = " was called outside a run of device code (no DPA thread or kernel "
				   "instance of this sim is running on this thread); it cannot return\n";

	/* write(2), not stdio: this may be reached with stdio's locks in any state. */
	if (write(STDERR_FILENO, head, sizeof(head) - 1) < 0 || write(STDERR_FILENO, call, strlen(call)) < 0 ||
	    write(STDERR_FILENO, tail, sizeof(tail) - 1) < 0) {
		/* Nothing more can be said. */
	}
	abort();
}

void doca_sim_trap_end_if_requested(void)
{
	if (trap.end_requested)
		doca_sim_trap_end(DOCA_SIM_ENDED_ABORTED);
}

/* Called by a sim device function that found a device fault: the C wrapper ends the instance on return. */
void doca_sim_trap_request_end(void)
{
	if (trap.instance != NULL)
		trap.end_requested = 1;
}

/* Marks the thread as running sim code (not kernel code); returns the mode to restore. */
int doca_sim_trap_enter_sim(void)
{
	int mode = trap.mode;

	trap.mode = MODE_HOST;
	return mode;
}

void doca_sim_trap_leave_sim(int mode)
{
	trap.mode = mode;
}

/* Not inlined, so that the callers' variables are not changed between their sigsetjmp and a jump back. */
__attribute__((noinline)) static void copy_relaxed(unsigned char *d, const unsigned char *s, size_t n)
{
	if ((((uintptr_t)d | (uintptr_t)s) & 7) == 0)
		for (; n >= 8; n -= 8, d += 8, s += 8)
			__atomic_store_n((uint64_t *)d, __atomic_load_n((const uint64_t *)s, __ATOMIC_RELAXED),
					 __ATOMIC_RELAXED);
	for (; n > 0; n--, d++, s++)
		__atomic_store_n(d, __atomic_load_n(s, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
}

/*
 * Copies `len` bytes for a sim device function when one side is memory a
 * kernel named (which may be unmapped, a guard page or a freed block).
 * Returns 0, or -1 with the faulting address in *bad when an access trapped.
 * The copy is made of relaxed atomic accesses, as a DMA engine's would be:
 * kernels may touch the same bytes concurrently.
 */
int doca_sim_probe_copy(void *dst, const void *src, size_t len, uint64_t *bad)
{
	struct trap_thread *t = &trap;
	sigjmp_buf env;
	sigjmp_buf *outer = t->probe;
	int outer_mode = t->mode;

	if (sigsetjmp(env, 0) != 0) {
		t->probe = outer;
		t->mode = outer_mode;
		unblock_trap_signals();
		if (bad != NULL)
			*bad = t->record.addr;
		return -1;
	}
	t->probe = &env;
	t->mode = MODE_PROBE;
	copy_relaxed(dst, src, len);
	t->probe = outer;
	t->mode = outer_mode;
	return 0;
}

__attribute__((noinline)) static size_t strnlen_relaxed(const unsigned char *s, size_t max)
{
	size_t n = 0;

	while (n < max && __atomic_load_n(s + n, __ATOMIC_RELAXED) != 0)
		n++;
	return n;
}

/* Length of the NUL-terminated string at `s` (at most `max`), or -1 with *bad set when it is not readable. */
long doca_sim_probe_strnlen(const char *s, size_t max, uint64_t *bad)
{
	struct trap_thread *t = &trap;
	sigjmp_buf env;
	sigjmp_buf *outer = t->probe;
	int outer_mode = t->mode;
	long n;

	if (sigsetjmp(env, 0) != 0) {
		t->probe = outer;
		t->mode = outer_mode;
		unblock_trap_signals();
		if (bad != NULL)
			*bad = t->record.addr;
		return -1;
	}
	t->probe = &env;
	t->mode = MODE_PROBE;
	n = (long)strnlen_relaxed((const unsigned char *)s, max);
	t->probe = outer;
	t->mode = outer_mode;
	return n;
}
