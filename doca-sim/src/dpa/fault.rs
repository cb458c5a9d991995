//! Device fault reports: why a DPA context turned fatal, in words a developer
//! can act on (the sim's counterpart of compute-sanitizer's reports).
//!
//! On hardware a device-side error makes the context fatal and DOCA writes a
//! crash dump; the sim knows more (the kernel, the thread rank, the
//! allocation an address falls next to) and keeps it in a [`FaultReport`]
//! that the safe layer shows through [`fault_report`](crate::fault_report).

use std::fmt;

use crate::memcheck::{self, Placement};
use crate::trap::{self, TrapRecord};

/// What went wrong on the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FaultKind {
    /// An access outside every live allocation (out of bounds, a wild
    /// pointer, or a damaged canary next to a block).
    BadAccess,
    /// An access to a block that was freed (it stays inaccessible while
    /// quarantined).
    UseAfterFree,
    /// An access through a NULL (or nearly NULL) pointer.
    NullDeref,
    /// The kernel's stack ran into its guard page.
    StackOverflow,
    /// `abort()` in device code (a failed `assert()` calls it).
    Abort,
    /// SIGFPE: integer division by zero or overflow.
    ArithmeticError,
    /// SIGILL: an illegal instruction (`__builtin_trap()`, some UB checks).
    IllegalInstruction,
    /// The kernel called `doca_sim_dev_fault`.
    ExplicitFault,
    /// A device API call with a handle or address that designates nothing
    /// live.
    InvalidDeviceCall,
    /// A device call went past the capacity of a queue (or table): the
    /// one named.
    QueueOverrun(QueueKind),
    /// The kernel ran past the device's kernel run-time limit and was
    /// stopped.
    Watchdog,
    /// The host could not provide what the device needed (threads).
    HostLimit,
}

/// The queue (or table) a [`FaultKind::QueueOverrun`] overran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum QueueKind {
    /// A completion queue: a DPA completion context, a Comch consumer
    /// completion context.
    Completion,
    /// A send queue: a verbs queue pair's, a Comch producer's.
    Send,
    /// A receive queue: a verbs queue pair's, DOCA RDMA's, a Comch
    /// consumer's posted receives.
    Receive,
    /// The queue of a DPA async ops context.
    AsyncOps,
    /// A DPA hash table.
    HashTable,
}

impl fmt::Display for QueueKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            QueueKind::Completion => "completion queue",
            QueueKind::Send => "send queue",
            QueueKind::Receive => "receive queue",
            QueueKind::AsyncOps => "async ops queue",
            QueueKind::HashTable => "hash table",
        })
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let label = match self {
            FaultKind::BadAccess => "invalid memory access",
            FaultKind::UseAfterFree => "use after free",
            FaultKind::NullDeref => "NULL pointer dereference",
            FaultKind::StackOverflow => "stack overflow",
            FaultKind::Abort => "abort",
            FaultKind::ArithmeticError => "arithmetic exception",
            FaultKind::IllegalInstruction => "illegal instruction",
            FaultKind::ExplicitFault => "explicit fault (doca_sim_dev_fault)",
            FaultKind::InvalidDeviceCall => "invalid device call",
            // Named after what overran: a send or receive queue is not a
            // completion queue.
            FaultKind::QueueOverrun(queue) => return write!(f, "{queue} overrun"),
            FaultKind::Watchdog => "watchdog: kernel run-time limit exceeded",
            FaultKind::HostLimit => "host resource limit",
        };
        f.write_str(label)
    }
}

/// Whether a faulting access read or wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Access {
    /// A load.
    Read,
    /// A store.
    Write,
}

/// The kind of device code that faulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeviceCode {
    /// An instance of a launched kernel.
    Kernel,
    /// An activation of a DPA thread.
    Thread,
    /// A function called with `doca_dpa_rpc`.
    Rpc,
}

/// Why a DPA context turned fatal. Sim only: hardware reports no more than
/// `DOCA_ERROR_BAD_STATE` and a crash file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FaultReport {
    /// What went wrong.
    pub kind: FaultKind,
    /// The kernel, DPA thread or RPC function that was running, if any.
    pub function: Option<String>,
    /// What kind of device code `function` is.
    pub code: Option<DeviceCode>,
    /// Its thread rank (in its launch or thread group).
    pub rank: Option<u32>,
    /// The thread count of its launch (or group).
    pub num_threads: Option<u32>,
    /// The host signal that caught the fault (SIGSEGV, SIGABRT...).
    pub signal: Option<i32>,
    /// The faulting address.
    pub address: Option<u64>,
    /// Whether the faulting access read or wrote, when the host can tell.
    pub access: Option<Access>,
    /// The DPA allocation the address falls in or next to, e.g. "8 bytes
    /// past the end of a 16384-byte allocation made by doca_dpa_mem_alloc".
    pub allocation: Option<String>,
    /// One line saying what happened (the text given to
    /// `doca_sim_dev_fault` for explicit faults).
    pub reason: String,
}

/// The device code running on a thread, as a report names it.
#[derive(Debug, Clone)]
pub(crate) struct Site {
    pub(crate) function: &'static str,
    pub(crate) code: DeviceCode,
    pub(crate) rank: u32,
    pub(crate) num_threads: u32,
}

impl FaultReport {
    fn new(kind: FaultKind, site: Option<&Site>, reason: String) -> FaultReport {
        FaultReport {
            kind,
            function: site.map(|s| s.function.to_owned()),
            code: site.map(|s| s.code),
            rank: site.map(|s| s.rank),
            num_threads: site.map(|s| s.num_threads),
            signal: None,
            address: None,
            access: None,
            allocation: None,
            reason,
        }
    }

    /// A fault found by the sim itself (a bad handle, an overrun...).
    pub(crate) fn device(kind: FaultKind, site: Option<&Site>, reason: String) -> FaultReport {
        FaultReport::new(kind, site, reason)
    }

    /// A device function was handed an address it cannot access.
    pub(crate) fn bad_address(site: Option<&Site>, call: &str, addr: u64, access: Access) -> Self {
        let placement = memcheck::describe(addr);
        let kind = classify(addr, placement.as_ref());
        let what = match access {
            Access::Read => "read",
            Access::Write => "write",
        };
        let mut r = FaultReport::new(
            kind,
            site,
            format!(
                "{call} was given an address it cannot {what}: {addr:#x}{}",
                where_text(addr, placement.as_ref())
            ),
        );
        r.address = Some(addr);
        r.access = Some(access);
        r.allocation = placement.map(|p| p.describe());
        r
    }

    /// The watchdog stopped the code.
    pub(crate) fn watchdog(site: &Site, limit_ms: u64) -> FaultReport {
        FaultReport::new(
            FaultKind::Watchdog,
            Some(site),
            format!("watchdog: ran longer than {limit_ms} ms (the kernel max run time)"),
        )
    }

    /// An activation still running when the run-time limit had passed since
    /// its thread was stopped (see `dpa::ThreadStop`).
    pub(crate) fn watchdog_after_stop(site: &Site, limit_ms: u64) -> FaultReport {
        FaultReport::new(
            FaultKind::Watchdog,
            Some(site),
            format!(
                "watchdog: still running {limit_ms} ms (the kernel max run time) after its \
                 DPA thread was stopped"
            ),
        )
    }

    /// A trap caught by `csrc/trap.c`.
    pub(crate) fn from_trap(site: &Site, rec: &TrapRecord) -> FaultReport {
        let access = match rec.access {
            1 => Some(Access::Read),
            2 => Some(Access::Write),
            _ => None,
        };
        let signal = trap::signal_name(rec.signo);
        let (kind, reason, placement) = match rec.signo {
            libc::SIGABRT => (
                FaultKind::Abort,
                "abort() called in device code (a failed assert() prints its message on \
                 stderr first)"
                    .to_owned(),
                None,
            ),
            libc::SIGFPE => (
                FaultKind::ArithmeticError,
                match rec.code {
                    // FPE_INTDIV and FPE_INTOVF of <signal.h>.
                    1 => "integer division by zero".to_owned(),
                    2 => "integer overflow".to_owned(),
                    _ => "arithmetic exception".to_owned(),
                },
                None,
            ),
            libc::SIGILL => (
                FaultKind::IllegalInstruction,
                "illegal instruction (__builtin_trap() or a compiler's undefined-behaviour trap)"
                    .to_owned(),
                None,
            ),
            _ if rec.stack_overflow != 0 => (
                FaultKind::StackOverflow,
                format!(
                    "stack overflow: the stack of the EU thread ran into its guard page at {:#x}",
                    rec.addr
                ),
                None,
            ),
            _ => {
                let placement = memcheck::describe(rec.addr);
                let kind = classify(rec.addr, placement.as_ref());
                let what = match access {
                    Some(Access::Read) => "invalid read",
                    Some(Access::Write) => "invalid write",
                    None => "invalid access",
                };
                let reason = format!(
                    "{what} at {:#x}{}",
                    rec.addr,
                    where_text(rec.addr, placement.as_ref())
                );
                (kind, reason, placement)
            }
        };
        let mut r = FaultReport::new(kind, Some(site), format!("{reason} ({signal})"));
        r.signal = Some(rec.signo);
        if rec.signo != libc::SIGABRT {
            r.address = Some(rec.addr);
        }
        r.access = access;
        r.allocation = placement.map(|p| p.describe());
        r
    }
}

fn classify(addr: u64, placement: Option<&Placement>) -> FaultKind {
    match placement {
        Some(p) if p.is_freed() => FaultKind::UseAfterFree,
        Some(_) => FaultKind::BadAccess,
        None if addr < memcheck::NULL_LIMIT => FaultKind::NullDeref,
        None => FaultKind::BadAccess,
    }
}

fn where_text(addr: u64, placement: Option<&Placement>) -> String {
    match placement {
        Some(p) => format!(", {}", p.describe()),
        None if addr < memcheck::NULL_LIMIT => ", a NULL pointer dereference".to_owned(),
        None => ", which is not in or next to any DPA allocation (a wild pointer)".to_owned(),
    }
}

impl fmt::Display for FaultReport {
    /// A multi-line report in the style of compute-sanitizer.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const BAR: &str = "=========";
        writeln!(f, "{BAR} doca-sim DPA device fault: {}", self.kind)?;
        writeln!(f, "{BAR}     {}", self.reason)?;
        if let Some(name) = &self.function {
            let what = match self.code {
                Some(DeviceCode::Thread) => "DPA thread function",
                Some(DeviceCode::Rpc) => "RPC function",
                _ => "kernel",
            };
            write!(f, "{BAR}     in {what} `{name}`")?;
            if let (Some(rank), Some(n)) = (self.rank, self.num_threads) {
                write!(f, ", thread rank {rank} of {n}")?;
            }
            writeln!(f)?;
        }
        if let Some(signal) = self.signal {
            write!(f, "{BAR}     signal {}", trap::signal_name(signal))?;
            if let Some(addr) = self.address {
                write!(f, ", address {addr:#018x}")?;
            }
            match self.access {
                Some(Access::Read) => write!(f, ", read")?,
                Some(Access::Write) => write!(f, ", write")?,
                None => {}
            }
            writeln!(f)?;
        }
        if let Some(a) = &self.allocation {
            writeln!(f, "{BAR}     allocation: {a}")?;
        }
        write!(
            f,
            "{BAR}     the DPA context is fatal (doca_dpa_peek_at_last_error: \
             DOCA_ERROR_BAD_STATE); destroy it and create a new one"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trap_in_the_null_page_is_a_null_dereference() {
        let site = Site {
            function: "k",
            code: DeviceCode::Kernel,
            rank: 2,
            num_threads: 4,
        };
        let rec = TrapRecord {
            signo: libc::SIGSEGV,
            code: 1,
            addr: 16,
            pc: 0,
            access: 2,
            stack_overflow: 0,
        };
        let r = FaultReport::from_trap(&site, &rec);
        assert_eq!(r.kind, FaultKind::NullDeref);
        assert_eq!(r.access, Some(Access::Write));
        let text = r.to_string();
        assert!(text.contains("in kernel `k`, thread rank 2 of 4"), "{text}");
        assert!(text.contains("invalid write at 0x10"), "{text}");
        assert!(text.contains("SIGSEGV"), "{text}");
    }

    #[test]
    fn watchdog_reports_the_limit() {
        let site = Site {
            function: "spin",
            code: DeviceCode::Thread,
            rank: 0,
            num_threads: 1,
        };
        let r = FaultReport::watchdog(&site, 300);
        assert!(r.reason.starts_with("watchdog: ran longer than 300 ms"));
        assert!(r.to_string().contains("DPA thread function `spin`"));
    }

    #[test]
    fn an_overrun_is_labelled_with_what_overran() {
        let label = |q| FaultKind::QueueOverrun(q).to_string();
        assert_eq!(label(QueueKind::Completion), "completion queue overrun");
        assert_eq!(label(QueueKind::Send), "send queue overrun");
        assert_eq!(label(QueueKind::Receive), "receive queue overrun");
        assert_eq!(label(QueueKind::AsyncOps), "async ops queue overrun");
        assert_eq!(label(QueueKind::HashTable), "hash table overrun");
    }
}
