//! Red team round 5: the sim's configuration and test hooks must fail closed. A
//! malformed, hostile or absurd value (environment, profile file, `Scope::inject`)
//! gives a clear error and changes nothing, never a silent fallback, a panic, or a
//! hook that makes a call "succeed" without doing its work. A test FAILS when the
//! attack succeeds.
//!
//! The environment is read once per process, so each setting is tried in a child
//! process (this test binary again, running `rt5_child`), as `tests/config.rs` does.

mod common;

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use common::*;

const CHILD: &str = "DOCA_SIM_RT5_CHILD";

/// What the child saw: the first call's code, one DPA heap allocation's code and
/// address (the address preset to a sentinel), and the config error.
#[test]
fn rt5_child() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let (mut list, mut n) = (std::ptr::null_mut(), 0u32);
    let first = ffi!(abi::doca_devinfo_create_list(&mut list, &mut n));
    println!("first={first}");
    if first == SUCCESS {
        ok!(abi::doca_devinfo_destroy_list(list));
        let ctx = Ctx::started(noop_app());
        let mut p: u64 = 0xAAAA_AAAA;
        let code = ffi!(abi::doca_dpa_mem_alloc(ctx.dpa, 64, &mut p));
        println!("alloc={code} addr={p:#x}");
        if code == SUCCESS && p != 0xAAAA_AAAA {
            ok!(abi::doca_dpa_mem_free(ctx.dpa, p));
        }
        ctx.destroy();
    }
    println!("config_error={:?}", doca_sim::config_error());
}

fn child(vars: &[(&str, &OsStr)]) -> String {
    let (stdout, stderr) = run_child("rt5_child", CHILD, vars);
    format!("{stdout}\n{stderr}")
}

fn is_refused(out: &str) -> bool {
    out.contains(&format!("first={}", abi::DOCA_ERROR_BAD_CONFIG))
        && !out.contains("config_error=None")
}

/// ATTACK: `DOCA_SIM_FAULTS=doca_dpa_mem_alloc@1=SUCCESS` (or `=0`) is accepted, and
/// the "fault" makes the call return DOCA_SUCCESS without running it: the
/// out-parameter is never written, so the program carries on with an address (or
/// object) that the sim never made. A fault hook must inject failures only.
#[test]
fn doca_sim_faults_refuses_an_injected_success() {
    for code in ["SUCCESS", "DOCA_SUCCESS", "0"] {
        let spec = format!("doca_dpa_mem_alloc@1={code}");
        let out = child(&[("DOCA_SIM_FAULTS", OsStr::new(&spec))]);
        assert!(
            is_refused(&out),
            "ATTACK SUCCEEDS: DOCA_SIM_FAULTS={spec} was accepted; the allocation \
             \"succeeded\" without writing its address:\n{out}"
        );
    }
}

/// ATTACK: `Scope::inject` takes any `doca_error_t`, DOCA_SUCCESS included, with the
/// same effect as above: the call reports success and writes nothing.
#[test]
fn scope_inject_refuses_an_injected_success() {
    let scope = Scope::new();
    let accepted = scope.inject("doca_dpa_mem_alloc", Nth::At(1), abi::DOCA_SUCCESS);
    if accepted.is_err() {
        return;
    }
    let ctx = Ctx::started(noop_app());
    let mut p: u64 = 0xAAAA_AAAA;
    let code = ffi!(abi::doca_dpa_mem_alloc(ctx.dpa, 64, &mut p));
    ctx.destroy();
    panic!(
        "ATTACK SUCCEEDS: Scope::inject(DOCA_SUCCESS) was accepted; doca_dpa_mem_alloc \
         returned {} with its out-parameter left at {p:#x}",
        name(code)
    );
}

/// ATTACK: a numeric code that names no DOCA error (`=999`, `=4294967295`) is
/// accepted by `DOCA_SIM_FAULTS` and by `Scope::inject`: calls then fail with codes
/// DOCA never returns, which a test of error handling takes for real ones.
#[test]
fn an_unknown_numeric_error_code_is_refused() {
    let out = child(&[("DOCA_SIM_FAULTS", OsStr::new("doca_dpa_mem_alloc@1=999"))]);
    let env_accepted = !is_refused(&out);
    let scope = Scope::new();
    let inject_accepted = scope
        .inject("doca_dpa_mem_alloc", Nth::At(1), 999 as abi::doca_error_t)
        .is_ok();
    assert!(
        !env_accepted && !inject_accepted,
        "ATTACK SUCCEEDS: error code 999 accepted (DOCA_SIM_FAULTS: {env_accepted}, \
         Scope::inject: {inject_accepted}):\n{out}"
    );
}

/// HOLDS check: values that are not UTF-8, empty, negative or beyond u64 stop the
/// run with BAD_CONFIG (the reason printed), never fall back to defaults.
#[test]
fn garbage_in_the_environment_stops_the_run() {
    let not_utf8 = OsString::from(OsStr::from_bytes(b"doca_dpa_mem_alloc@1=NO_MEM\xff"));
    let cases: Vec<(&str, OsString)> = vec![
        ("DOCA_SIM_FAULTS", not_utf8.clone()),
        (
            "DOCA_SIM_MEMCHECK",
            OsString::from(OsStr::from_bytes(b"1\xff")),
        ),
        ("DOCA_SIM_MEMCHECK", OsString::from("")),
        ("DOCA_SIM_MEMCHECK", OsString::from(" ")),
        (
            "DOCA_SIM_PROFILE",
            OsString::from(OsStr::from_bytes(b"/nonexistent/\xff.profile")),
        ),
        (
            "DOCA_SIM_FAULTS",
            OsString::from("doca_dpa_mem_alloc@-1=NO_MEMORY"),
        ),
        (
            "DOCA_SIM_FAULTS",
            OsString::from("doca_dpa_mem_alloc@0=NO_MEMORY"),
        ),
        (
            "DOCA_SIM_FAULTS",
            OsString::from("doca_dpa_mem_alloc@18446744073709551616=NO_MEMORY"),
        ),
        ("DOCA_SIM_FAULTS", OsString::from("doca_dpa_mem_alloc@1=")),
        ("DOCA_SIM_FAULTS", OsString::from("doca_dpa_mem_alloc@1=-6")),
        ("DOCA_SIM_FAULTS", OsString::from("@1=NO_MEMORY")),
        (
            "DOCA_SIM_FAULTS",
            OsString::from("doca_dpa_mem_alloc=NO_MEMORY"),
        ),
    ];
    let mut open = Vec::new();
    for (var, value) in &cases {
        let out = child(&[(var, value.as_os_str())]);
        if !is_refused(&out) {
            open.push(format!("{var}={value:?}:\n{out}"));
        }
    }
    assert!(open.is_empty(), "accepted garbage:\n{}", open.join("\n"));
}

/// HOLDS check: numbers a profile cannot hold are refused with the line.
#[test]
fn a_profile_refuses_numbers_it_cannot_hold() {
    for text in [
        "[device]\nheap_bytes = -1\n",
        "[device]\nheap_bytes = 18446744073709551616\n",
        "[device]\ncores = 4294967296\n",
        "[device]\ncores = 1e3\n",
        "[device]\ncores =\n",
        "[device]\nkernel_max_run_time_ms = 0x10\n",
    ] {
        let e = Profile::parse(text).expect_err(text);
        assert_eq!(
            e.to_string().split(':').next(),
            Some("profile line 2"),
            "{text}"
        );
    }
}

/// ATTACK: a key given twice in one `[device]` (or before any) is accepted and
/// the last one silently wins: a profile edited by appending a line leaves the
/// first value looking in force.
#[test]
fn a_profile_refuses_a_duplicate_key() {
    let mut accepted = Vec::new();
    for text in [
        "[device]\nheap_bytes = 4096\nheap_bytes = 1073741824\n",
        "memcheck = true\nmemcheck = false\n[device]\n",
        "[device]\ndpa = true\ndpa = false\n",
    ] {
        if let Ok(p) = Profile::parse(text) {
            accepted.push(format!("{text:?} -> {p:?}"));
        }
    }
    assert!(
        accepted.is_empty(),
        "ATTACK SUCCEEDS: duplicate keys accepted, the last silently winning:\n{}",
        accepted.join("\n")
    );
}

/// ATTACK: `cores` × `eus_per_core` is not checked against u32, so a profile the
/// parser accepts (`cores = 4294967295`, `eus_per_core = 2`) makes
/// `doca_dpa_eu_affinity_set` overflow (an internal panic, DOCA_ERROR_UNEXPECTED,
/// in a debug build; a wrapped EU count in a release build) instead of being
/// refused when the profile is read.
#[test]
fn a_profile_whose_eu_count_overflows_is_refused() {
    let text = "[device]\ncores = 4294967295\neus_per_core = 2\n";
    let Ok(profile) = Profile::parse(text) else {
        return;
    };
    let scope = Scope::new();
    scope.set_profile(profile);
    let ctx = Ctx::started(noop_app());
    let mut aff = std::ptr::null_mut();
    ok!(abi::doca_dpa_eu_affinity_create(ctx.dpa, &mut aff));
    let set = ffi!(abi::doca_dpa_eu_affinity_set(aff, 5));
    ok!(abi::doca_dpa_eu_affinity_destroy(aff));
    ctx.destroy();
    panic!(
        "ATTACK SUCCEEDS: the profile {text:?} was accepted; doca_dpa_eu_affinity_set(5) \
         then returned {} ({set})",
        name(set)
    );
}

/// HOLDS check: an allocation far beyond the heap (a profile allows up to u64::MAX
/// bytes) is refused with NO_MEMORY, not an internal panic in the size arithmetic.
#[test]
fn a_huge_heap_and_a_huge_allocation_are_refused_cleanly() {
    let scope = Scope::new();
    scope.set_profile(bf3_profile(|d| d.heap_bytes = u64::MAX));
    let ctx = Ctx::started(noop_app());
    let mut got = Vec::new();
    for size in [usize::MAX, usize::MAX - 4095, 1usize << 62] {
        let mut p = 0;
        let code = ffi!(abi::doca_dpa_mem_alloc(ctx.dpa, size, &mut p));
        if code == SUCCESS {
            ok!(abi::doca_dpa_mem_free(ctx.dpa, p));
        }
        got.push((size, name(code)));
    }
    ctx.destroy();
    for (size, code) in &got {
        assert!(
            code.ends_with("NO_MEMORY") || code.ends_with("INVALID_VALUE"),
            "doca_dpa_mem_alloc({size}) on a u64::MAX heap: {code} ({got:?})"
        );
    }
}
