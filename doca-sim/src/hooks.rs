//! Test hooks of the software DPA: scopes, fault injection, call counting and
//! live-object accounting.
//!
//! Everything here exists only in the sim. Tests run in parallel threads of one
//! process and share the one simulated device, so hooks are attached to a
//! [`Scope`]: faults installed in a scope fire only for calls made from threads
//! that have entered it, and objects created by those threads are counted
//! against it. Code that never enters a scope uses the global scope (id 0),
//! which is also where faults from the `DOCA_SIM_FAULTS` environment variable
//! go.
//!
//! `DOCA_SIM_FAULTS` holds a comma-separated list of `function@N=CODE` (fail
//! the N-th call, counting from 1) or `function@*=CODE` (fail every call),
//! where `CODE` is a DOCA error name with or without the `DOCA_ERROR_`
//! prefix, or its number; `*` as the function name matches every function.

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use crate::error::{code_from_name, Code};

/// Which calls of a function a fault applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nth {
    /// Only the n-th call (1-based) made in the scope after the fault was set.
    At(u64),
    /// Every call.
    Every,
}

#[derive(Debug, Clone)]
struct Fault {
    function: String,
    nth: Nth,
    code: Code,
    /// Calls to `function` seen since the fault was installed.
    seen: u64,
}

#[derive(Default)]
struct ScopeState {
    faults: Vec<Fault>,
    calls: HashMap<&'static str, u64>,
    log: Vec<&'static str>,
    live: BTreeMap<&'static str, i64>,
    injected: u64,
}

struct Hooks {
    scopes: HashMap<u64, ScopeState>,
}

fn hooks() -> MutexGuard<'static, Hooks> {
    static HOOKS: OnceLock<Mutex<Hooks>> = OnceLock::new();
    let lock = HOOKS.get_or_init(|| {
        let mut global = ScopeState::default();
        if let Ok(spec) = std::env::var("DOCA_SIM_FAULTS") {
            match parse_fault_spec(&spec) {
                Ok(faults) => global.faults = faults,
                Err(msg) => eprintln!("doca-sim: ignoring DOCA_SIM_FAULTS: {msg}"),
            }
        }
        let mut scopes = HashMap::new();
        scopes.insert(0, global);
        Mutex::new(Hooks { scopes })
    });
    // A panic while holding the lock cannot leave the maps inconsistent in a
    // way that matters for accounting, so a poisoned lock is still usable.
    lock.lock().unwrap_or_else(|p| p.into_inner())
}

thread_local! {
    static CURRENT: Cell<u64> = const { Cell::new(0) };
}

static NEXT_SCOPE: AtomicU64 = AtomicU64::new(1);

/// The scope id of the calling thread (0 when it has entered none).
pub(crate) fn current_scope() -> u64 {
    CURRENT.with(Cell::get)
}

fn parse_fault_spec(spec: &str) -> Result<Vec<Fault>, String> {
    let mut out = Vec::new();
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (lhs, code) = item
            .split_once('=')
            .ok_or_else(|| format!("`{item}`: expected function@N=CODE"))?;
        let (function, nth) = lhs
            .split_once('@')
            .ok_or_else(|| format!("`{item}`: expected function@N=CODE"))?;
        let nth = match nth.trim() {
            "*" => Nth::Every,
            n => Nth::At(
                n.parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("`{item}`: N must be a positive number or *"))?,
            ),
        };
        let code = code_from_name(code.trim())
            .ok_or_else(|| format!("`{item}`: unknown error code `{code}`"))?;
        out.push(Fault {
            function: function.trim().to_owned(),
            nth,
            code,
            seen: 0,
        });
    }
    Ok(out)
}

/// Records a call of `function` and returns the error to inject, if any.
///
/// Called at the top of every exported function that returns `doca_error_t`.
pub(crate) fn enter(function: &'static str) -> Option<Code> {
    let scope = current_scope();
    let mut hooks = hooks();
    let state = hooks.scopes.entry(scope).or_default();
    *state.calls.entry(function).or_insert(0) += 1;
    // The global scope lives as long as the process: keeping its log would
    // grow without bound, and nobody sweeps over it.
    if scope != 0 {
        state.log.push(function);
    }
    let mut hit = None;
    for fault in &mut state.faults {
        if fault.function != "*" && fault.function != function {
            continue;
        }
        fault.seen += 1;
        let fires = match fault.nth {
            Nth::Every => true,
            Nth::At(n) => fault.seen == n,
        };
        if fires && hit.is_none() {
            hit = Some(fault.code);
        }
    }
    if hit.is_some() {
        state.injected += 1;
    }
    hit
}

/// Records a call of a function that cannot fail (no injection point).
pub(crate) fn count(function: &'static str) {
    let scope = current_scope();
    let mut hooks = hooks();
    let state = hooks.scopes.entry(scope).or_default();
    *state.calls.entry(function).or_insert(0) += 1;
}

/// Adjusts the live count of objects of `kind` owned by `scope`.
pub(crate) fn account(scope: u64, kind: &'static str, delta: i64) {
    let mut hooks = hooks();
    let state = hooks.scopes.entry(scope).or_default();
    *state.live.entry(kind).or_insert(0) += delta;
}

/// A set of test hooks bound to the threads that enter it.
///
/// Creating a scope enters it on the current thread; dropping it leaves it
/// (restoring the scope the thread was in before) and forgets its faults and
/// counters. Other threads join with [`Scope::handle`] and
/// [`ScopeHandle::enter`].
#[derive(Debug)]
pub struct Scope {
    id: u64,
    previous: u64,
    // A scope is entered on one thread and must be left there.
    _not_send: std::marker::PhantomData<*const ()>,
}

/// A cloneable, sendable reference to a [`Scope`], used to enter it from other
/// threads.
#[derive(Debug, Clone, Copy)]
pub struct ScopeHandle {
    id: u64,
}

/// While alive, the thread that created it is inside the scope of a
/// [`ScopeHandle`].
#[derive(Debug)]
pub struct Entered {
    previous: u64,
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.previous));
    }
}

impl ScopeHandle {
    /// Enters the scope on the calling thread until the guard is dropped.
    pub fn enter(self) -> Entered {
        let previous = CURRENT.with(|c| c.replace(self.id));
        Entered {
            previous,
            _not_send: std::marker::PhantomData,
        }
    }
}

impl Scope {
    /// Creates a fresh scope (no faults, zero counters) and enters it.
    pub fn new() -> Self {
        let id = NEXT_SCOPE.fetch_add(1, Ordering::Relaxed);
        hooks().scopes.insert(id, ScopeState::default());
        let previous = CURRENT.with(|c| c.replace(id));
        Scope {
            id,
            previous,
            _not_send: std::marker::PhantomData,
        }
    }

    /// This scope's id (objects and faults are keyed by it).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// A handle other threads can use to enter this scope.
    pub fn handle(&self) -> ScopeHandle {
        ScopeHandle { id: self.id }
    }

    /// Makes `function` (or every function, with `"*"`) fail with `code` on
    /// the calls chosen by `nth`, counted from now.
    pub fn inject(&self, function: &str, nth: Nth, code: i32) {
        let mut hooks = hooks();
        let state = hooks.scopes.entry(self.id).or_default();
        state.faults.push(Fault {
            function: function.to_owned(),
            nth,
            code: code as Code,
            seen: 0,
        });
    }

    /// Removes every fault of this scope.
    pub fn clear_faults(&self) {
        hooks().scopes.entry(self.id).or_default().faults.clear();
    }

    /// How many faults have fired in this scope.
    pub fn injected(&self) -> u64 {
        hooks().scopes.get(&self.id).map_or(0, |s| s.injected)
    }

    /// Calls of `function` made in this scope.
    pub fn calls(&self, function: &str) -> u64 {
        hooks()
            .scopes
            .get(&self.id)
            .and_then(|s| s.calls.get(function).copied())
            .unwrap_or(0)
    }

    /// Every fallible call made in this scope, in order (the injection points
    /// of a fault sweep).
    pub fn call_log(&self) -> Vec<&'static str> {
        hooks()
            .scopes
            .get(&self.id)
            .map(|s| s.log.clone())
            .unwrap_or_default()
    }

    /// Forgets the call counters and the call log.
    pub fn reset_calls(&self) {
        let mut hooks = hooks();
        let state = hooks.scopes.entry(self.id).or_default();
        state.calls.clear();
        state.log.clear();
    }

    /// Live objects created in this scope and not yet destroyed, by kind
    /// (`"doca_dpa"`, `"doca_sync_event"`, `"dpa_heap"`, ...). Kinds whose
    /// count is zero are left out.
    pub fn live_objects(&self) -> BTreeMap<&'static str, i64> {
        hooks()
            .scopes
            .get(&self.id)
            .map(|s| {
                s.live
                    .iter()
                    .filter(|(_, n)| **n != 0)
                    .map(|(k, n)| (*k, *n))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Total number of live objects of this scope.
    pub fn live_total(&self) -> i64 {
        self.live_objects().values().sum()
    }

    /// Makes devices listed from this scope come from `profile` instead of the
    /// global profile.
    pub fn set_profile(&self, profile: crate::profile::Profile) {
        crate::profile::set_scoped(self.id, Some(profile));
    }
}

impl Default for Scope {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.previous));
        // Objects still alive keep their scope id; their counts are dropped
        // with the scope because nobody can ask for them any more.
        hooks().scopes.remove(&self.id);
        crate::profile::set_scoped(self.id, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_parses_names_numbers_and_every() {
        let f =
            parse_fault_spec("doca_dpa_start@2=DRIVER, *@*=DOCA_ERROR_NO_MEMORY,x@1=18").unwrap();
        assert_eq!(f.len(), 3);
        assert_eq!(f[0].nth, Nth::At(2));
        assert_eq!(f[0].code, 21);
        assert_eq!(f[1].function, "*");
        assert_eq!(f[1].nth, Nth::Every);
        assert_eq!(f[1].code, 7);
        assert_eq!(f[2].code, 18);
    }

    #[test]
    fn spec_rejects_garbage() {
        assert!(parse_fault_spec("doca_dpa_start=DRIVER").is_err());
        assert!(parse_fault_spec("doca_dpa_start@0=DRIVER").is_err());
        assert!(parse_fault_spec("doca_dpa_start@1=NOT_A_CODE").is_err());
    }

    #[test]
    fn nth_call_fires_once_in_its_scope_only() {
        let scope = Scope::new();
        scope.inject("f", Nth::At(2), 18);
        assert_eq!(enter("f"), None);
        assert_eq!(enter("g"), None);
        assert_eq!(enter("f"), Some(18));
        assert_eq!(enter("f"), None);
        assert_eq!(scope.calls("f"), 3);
        assert_eq!(scope.call_log(), vec!["f", "g", "f", "f"]);
        assert_eq!(scope.injected(), 1);
        let other = std::thread::spawn(|| enter("f")).join().unwrap();
        assert_eq!(other, None);
    }

    #[test]
    fn handles_share_the_scope_across_threads() {
        let scope = Scope::new();
        scope.inject("h", Nth::Every, 7);
        let handle = scope.handle();
        let got = std::thread::spawn(move || {
            let _in = handle.enter();
            enter("h")
        })
        .join()
        .unwrap();
        assert_eq!(got, Some(7));
    }

    #[test]
    fn accounting_is_per_scope() {
        let scope = Scope::new();
        account(scope.id(), "thing", 2);
        account(scope.id(), "thing", -1);
        assert_eq!(scope.live_total(), 1);
        account(scope.id(), "thing", -1);
        assert!(scope.live_objects().is_empty());
    }
}
