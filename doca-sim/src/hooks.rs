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
//!
//! Faults fail closed: a function the sim does not export (or one that
//! cannot fail) is refused with an error naming the closest exported name,
//! in [`Scope::inject`] and in `DOCA_SIM_FAULTS` (where it makes every DOCA
//! call fail with `DOCA_ERROR_BAD_CONFIG`, see [`crate::config_error`]), and
//! [`Scope::assert_all_fired`] tells a test whose faults never fired.
//!
//! A scope can also **hold** a function ([`Scope::hold`]): its calls made in
//! the scope stop inside the sim, before the call does anything, until the
//! [`Hold`] is released or dropped — a DOCA call that takes long, for tests of
//! what other threads can do meanwhile. Refused the same way for a function
//! the sim does not export; dropping the hold releases it, so a failing test
//! never leaves a call stopped.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use crate::abi;
use crate::error::{code_from_name, name, not_injectable, Code};
use crate::fastmap::FastMap;
use crate::scope;

/// Which calls of a function a fault applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Nth {
    /// Only the n-th call (1-based) made in the scope after the fault was set.
    At(u64),
    /// Every call.
    Every,
}

#[derive(Debug, Clone)]
pub(crate) struct Fault {
    function: String,
    nth: Nth,
    code: Code,
    /// Calls to `function` seen since the fault was installed.
    seen: u64,
    /// Times it fired.
    fired: u64,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.nth {
            Nth::At(n) => write!(f, "{}@{n}", self.function)?,
            Nth::Every => write!(f, "{}@*", self.function)?,
        }
        write!(f, "={}", name(self.code).to_string_lossy())
    }
}

/// The declarations of the reference headers, as `(name, returns
/// doca_error_t)`, read from the generated bindings.
fn declared() -> &'static [(&'static str, bool)] {
    static NAMES: OnceLock<Vec<(&'static str, bool)>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let mut names = Vec::new();
        for text in [
            include_str!("abi/dpa.rs"),
            include_str!("abi/rdmi.rs"),
            include_str!("abi/verbs.rs"),
        ] {
            let mut lines = text.lines();
            while let Some(line) = lines.next() {
                let Some(rest) = line.trim_start().strip_prefix("pub fn ") else {
                    continue;
                };
                let name = rest.split('(').next().unwrap_or("").trim();
                let mut decl = line.to_owned();
                while !decl.contains(';') {
                    match lines.next() {
                        Some(l) => decl.push_str(l),
                        None => break,
                    }
                }
                names.push((name, decl.contains("-> doca_error_t;")));
            }
        }
        names.sort_unstable();
        names.dedup();
        names
    })
}

/// Every function a fault can be injected into: those of the reference
/// headers that return `doca_error_t` (the sim defines each of them).
pub fn injectable_functions() -> impl Iterator<Item = &'static str> {
    declared().iter().filter(|(_, f)| *f).map(|(n, _)| *n)
}

fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// A fault the sim refused to install.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InjectError {
    message: String,
}

impl fmt::Display for InjectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for InjectError {}

/// Checks that a fault can fire on `function`.
fn check_function(function: &str) -> Result<(), InjectError> {
    if function == "*" {
        return Ok(());
    }
    match declared().binary_search_by(|(n, _)| (*n).cmp(function)) {
        Ok(i) if declared()[i].1 => Ok(()),
        Ok(_) => Err(InjectError {
            message: format!(
                "`{function}` cannot fail (it does not return doca_error_t), so no fault can be \
                 injected into it"
            ),
        }),
        Err(_) => {
            let closest = injectable_functions().min_by_key(|n| distance(function, n));
            let hint = closest
                .map(|c| format!(" (did you mean `{c}`?)"))
                .unwrap_or_default();
            Err(InjectError {
                message: format!("doca-sim exports no function `{function}`{hint}"),
            })
        }
    }
}

/// The faults of `DOCA_SIM_FAULTS`, or why it is malformed.
pub(crate) fn env_faults() -> &'static Result<Vec<Fault>, String> {
    static FAULTS: OnceLock<Result<Vec<Fault>, String>> = OnceLock::new();
    FAULTS.get_or_init(|| match std::env::var("DOCA_SIM_FAULTS") {
        Err(std::env::VarError::NotPresent) => Ok(Vec::new()),
        Err(std::env::VarError::NotUnicode(_)) => Err("DOCA_SIM_FAULTS is not valid UTF-8".into()),
        Ok(spec) => parse_fault_spec(&spec).map_err(|e| format!("DOCA_SIM_FAULTS: {e}")),
    })
}

#[derive(Default)]
struct ScopeState {
    faults: Vec<Fault>,
    holds: Vec<Arc<HoldState>>,
    calls: FastMap<&'static str, u64>,
    log: Vec<&'static str>,
    live: BTreeMap<&'static str, i64>,
    injected: u64,
}

struct Hooks {
    scopes: FastMap<u64, ScopeState>,
}

fn hooks() -> MutexGuard<'static, Hooks> {
    static HOOKS: OnceLock<Mutex<Hooks>> = OnceLock::new();
    let lock = HOOKS.get_or_init(|| {
        let mut global = ScopeState::default();
        // A malformed spec installs nothing here: every call then fails
        // with BAD_CONFIG instead (`crate::config`).
        if let Ok(faults) = env_faults() {
            global.faults = faults.clone();
        }
        let mut scopes = FastMap::default();
        scopes.insert(0, global);
        Mutex::new(Hooks { scopes })
    });
    // A panic while holding the lock cannot leave the maps inconsistent in a
    // way that matters for accounting, so a poisoned lock is still usable.
    lock.lock().unwrap_or_else(|p| p.into_inner())
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
        if let Some(why) = not_injectable(code) {
            return Err(format!("`{item}`: {why}"));
        }
        check_function(function.trim()).map_err(|e| format!("`{item}`: {e}"))?;
        out.push(Fault {
            function: function.trim().to_owned(),
            nth,
            code,
            seen: 0,
            fired: 0,
        });
    }
    Ok(out)
}

/// Records a call of `function` and returns the error to inject, if any.
///
/// Called at the top of every exported function that returns `doca_error_t`.
pub(crate) fn enter(function: &'static str) -> Option<Code> {
    let scope = scope::current();
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
            fault.fired += 1;
            hit = Some(fault.code);
        }
    }
    if hit.is_some() {
        state.injected += 1;
    }
    let hold = state.holds.iter().find(|h| h.function == function).cloned();
    // Stopped with the hooks unlocked: every other call goes on.
    drop(hooks);
    if let Some(hold) = hold {
        hold.stop_here();
    }
    hit
}

/// What a [`Hold`] shares with the calls it stops.
struct HoldState {
    function: String,
    /// Released (by `Hold::release` or its drop).
    released: Mutex<bool>,
    changed: Condvar,
    /// Calls stopped so far, and calls stopped now.
    stopped: AtomicU64,
    waiting: AtomicU64,
}

impl HoldState {
    fn lock(&self) -> MutexGuard<'_, bool> {
        self.released.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Stops the calling thread until released.
    fn stop_here(&self) {
        let mut released = self.lock();
        if *released {
            return;
        }
        self.stopped.fetch_add(1, Ordering::AcqRel);
        self.waiting.fetch_add(1, Ordering::AcqRel);
        self.changed.notify_all();
        while !*released {
            released = self
                .changed
                .wait(released)
                .unwrap_or_else(|p| p.into_inner());
        }
        self.waiting.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A function held in a scope ([`Scope::hold`]): its calls made there stop
/// inside the sim until [`Hold::release`] or the hold's drop.
pub struct Hold {
    state: Arc<HoldState>,
    scope: u64,
}

impl fmt::Debug for Hold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hold")
            .field("function", &self.state.function)
            .field("stopped", &self.stopped())
            .finish()
    }
}

impl Hold {
    /// Waits at most `timeout` until a call is stopped by the hold; whether one
    /// is.
    pub fn wait_stopped(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut released = self.state.lock();
        loop {
            if self.state.waiting.load(Ordering::Acquire) > 0 {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if *released || left.is_zero() {
                return false;
            }
            released = self
                .state
                .changed
                .wait_timeout(released, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// Calls stopped by the hold so far.
    pub fn stopped(&self) -> u64 {
        self.state.stopped.load(Ordering::Acquire)
    }

    /// Lets every stopped call go on, and the later ones through.
    pub fn release(&self) {
        *self.state.lock() = true;
        self.state.changed.notify_all();
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        self.release();
        if let Some(state) = hooks().scopes.get_mut(&self.scope) {
            state.holds.retain(|h| !Arc::ptr_eq(h, &self.state));
        }
    }
}

/// Records a call of a function that cannot fail (no injection point).
pub(crate) fn count(function: &'static str) {
    let scope = scope::current();
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
        scope::enter(self.previous);
    }
}

impl ScopeHandle {
    /// Enters the scope on the calling thread until the guard is dropped.
    pub fn enter(self) -> Entered {
        let previous = scope::enter(self.id);
        Entered {
            previous,
            _not_send: std::marker::PhantomData,
        }
    }
}

impl Scope {
    /// Creates a fresh scope (no faults, zero counters) and enters it.
    pub fn new() -> Self {
        let id = scope::fresh();
        hooks().scopes.insert(id, ScopeState::default());
        let previous = scope::enter(id);
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
    ///
    /// Refused (nothing installed) when the sim exports no fallible function
    /// of that name (the error names the closest one) or `nth` is
    /// `Nth::At(0)`.
    ///
    /// ```
    /// let scope = doca_sim::Scope::new();
    /// let err = scope
    ///     .inject("doca_dpa_strat", doca_sim::Nth::At(1), doca_sim::abi::DOCA_ERROR_DRIVER)
    ///     .unwrap_err();
    /// assert!(err.to_string().contains("did you mean `doca_dpa_start`?"));
    /// ```
    pub fn inject(
        &self,
        function: &str,
        nth: Nth,
        code: impl Into<abi::doca_error_t>,
    ) -> Result<(), InjectError> {
        check_function(function)?;
        if nth == Nth::At(0) {
            return Err(InjectError {
                message: "Nth::At counts calls from 1".into(),
            });
        }
        let code = code.into();
        if let Some(message) = not_injectable(code) {
            return Err(InjectError { message });
        }
        let mut hooks = hooks();
        let state = hooks.scopes.entry(self.id).or_default();
        state.faults.push(Fault {
            function: function.to_owned(),
            nth,
            code,
            seen: 0,
            fired: 0,
        });
        Ok(())
    }

    /// Holds `function`: its calls made in this scope stop inside the sim (before
    /// the call does anything) until the returned [`Hold`] is released or
    /// dropped. Refused (nothing installed) when the sim exports no fallible
    /// function of that name (the error names the closest one), and for `"*"`
    /// (every call of the scope, the hold's own waits included, would stop).
    ///
    /// ```
    /// let scope = doca_sim::Scope::new();
    /// let err = scope.hold("doca_dpa_mem_aloc").unwrap_err();
    /// assert!(err.to_string().contains("did you mean `doca_dpa_mem_alloc`?"));
    /// let hold = scope.hold("doca_dpa_mem_alloc").unwrap();
    /// assert_eq!(hold.stopped(), 0);
    /// ```
    pub fn hold(&self, function: &str) -> Result<Hold, InjectError> {
        if function == "*" {
            return Err(InjectError {
                message: "a hold names one function, not `*`".into(),
            });
        }
        check_function(function)?;
        let state = Arc::new(HoldState {
            function: function.to_owned(),
            released: Mutex::new(false),
            changed: Condvar::new(),
            stopped: AtomicU64::new(0),
            waiting: AtomicU64::new(0),
        });
        hooks()
            .scopes
            .entry(self.id)
            .or_default()
            .holds
            .push(state.clone());
        Ok(Hold {
            state,
            scope: self.id,
        })
    }

    /// The faults of this scope that never fired, as `function@N=CODE`.
    pub fn unfired(&self) -> Vec<String> {
        hooks()
            .scopes
            .get(&self.id)
            .map(|s| {
                s.faults
                    .iter()
                    .filter(|f| f.fired == 0)
                    .map(|f| format!("{f} ({} matching calls)", f.seen))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Panics unless every fault injected in this scope fired at least once
    /// (a test whose fault never fires tests nothing).
    #[track_caller]
    pub fn assert_all_fired(&self) {
        let unfired = self.unfired();
        assert!(
            unfired.is_empty(),
            "faults injected in this scope never fired: {}",
            unfired.join(", ")
        );
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
        scope::enter(self.previous);
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
        let f = parse_fault_spec(
            "doca_dpa_start@2=DRIVER, *@*=DOCA_ERROR_NO_MEMORY,doca_dpa_stop@1=18",
        )
        .unwrap();
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
        let e = parse_fault_spec("doca_dpa_strat@1=DRIVER").unwrap_err();
        assert!(e.contains("no function `doca_dpa_strat`"), "{e}");
        assert!(e.contains("did you mean `doca_dpa_start`?"), "{e}");
        let e = parse_fault_spec("doca_dev_as_devinfo@1=DRIVER").unwrap_err();
        assert!(e.contains("cannot fail"), "{e}");
    }

    #[test]
    fn injectable_functions_are_the_fallible_ones_the_sim_defines() {
        let names: Vec<_> = injectable_functions().collect();
        assert!(names.len() > 150, "{}", names.len());
        assert!(names.contains(&"doca_dpa_kernel_launch_update_set"));
        assert!(!names.contains(&"doca_dev_as_devinfo"));
        // Each is defined by the sim: in Rust (doca_api! / not_modelled!, or a
        // macro given `fn NAME,`) or in the C shim (the variadic ones).
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/");
        // Every file below src/ and csrc/, however the modules are laid out.
        let mut sources = String::new();
        let mut dirs = vec![
            std::path::PathBuf::from(format!("{root}src")),
            std::path::PathBuf::from(format!("{root}csrc")),
        ];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    sources.push_str(&std::fs::read_to_string(path).unwrap());
                }
            }
        }
        for name in names {
            assert!(
                sources.contains(&format!("fn {name}("))
                    || sources.contains(&format!("fn {name},"))
                    || sources.contains(&format!("doca_error_t {name}(")),
                "{name} is declared but not defined by the sim"
            );
        }
    }

    #[test]
    fn closest_names_are_suggested() {
        let e = check_function("doca_dpa_mem_aloc").unwrap_err().to_string();
        assert!(e.contains("did you mean `doca_dpa_mem_alloc`?"), "{e}");
        assert!(check_function("*").is_ok());
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn nth_call_fires_once_in_its_scope_only() {
        let scope = Scope::new();
        let (f, g) = ("doca_dpa_start", "doca_dpa_stop");
        scope.inject(f, Nth::At(2), 18u32).unwrap();
        scope.inject(g, Nth::At(2), 18u32).unwrap();
        assert_eq!(scope.unfired().len(), 2);
        assert_eq!(enter(f), None);
        assert_eq!(enter(g), None);
        assert_eq!(enter(f), Some(18));
        assert_eq!(enter(f), None);
        assert_eq!(scope.calls(f), 3);
        assert_eq!(scope.call_log(), vec![f, g, f, f]);
        assert_eq!(scope.injected(), 1);
        assert_eq!(
            scope.unfired(),
            vec!["doca_dpa_stop@2=DOCA_ERROR_BAD_STATE (1 matching calls)".to_owned()]
        );
        let unfired = std::panic::catch_unwind(|| scope.assert_all_fired()).unwrap_err();
        assert!(unfired
            .downcast_ref::<String>()
            .unwrap()
            .contains("never fired: doca_dpa_stop@2"));
        let other = std::thread::spawn(move || enter(f)).join().unwrap();
        assert_eq!(other, None);
    }

    #[test]
    fn handles_share_the_scope_across_threads() {
        let scope = Scope::new();
        scope
            .inject("doca_pe_create", Nth::Every, abi::DOCA_ERROR_NO_MEMORY)
            .unwrap();
        let handle = scope.handle();
        let got = std::thread::spawn(move || {
            let _in = handle.enter();
            enter("doca_pe_create")
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
