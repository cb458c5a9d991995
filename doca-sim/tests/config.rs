//! The sim's configuration fails closed: a misspelt fault, a malformed or
//! missing profile, or a bad `DOCA_SIM_MEMCHECK` stops the run with the
//! reason (every DOCA call fails with DOCA_ERROR_BAD_CONFIG) instead of
//! running on defaults.
//!
//! The environment is read once per process, so each setting is tried in a
//! child process (this test binary again, running `config_child`).

mod common;

use std::ptr::null_mut;

use common::*;

const CHILD: &str = "DOCA_SIM_CONFIG_CHILD";

/// What the child saw: the code of the first DOCA call, the config error
/// and the profile source.
#[test]
fn config_child() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let (mut a, mut b) = (null_mut(), null_mut());
    let mut n = 0u32;
    let first = ffi!(abi::doca_devinfo_create_list(&mut a, &mut n));
    let second = ffi!(abi::doca_devinfo_create_list(&mut b, &mut n));
    println!("first={first} second={second} devices={n}");
    if first == SUCCESS {
        ok!(abi::doca_devinfo_destroy_list(a));
        ok!(abi::doca_devinfo_destroy_list(b));
        // Whether DPA heap blocks end at their guard page (memory checking).
        let ctx = Ctx::started(noop_app());
        let fenced = (0..4).all(|_| {
            let mut p = 0;
            ok!(abi::doca_dpa_mem_alloc(ctx.dpa, 64, &mut p));
            (p + 64) % 4096 == 0
        });
        println!("fenced={fenced}");
        let mut p = 0;
        println!(
            "fifth_alloc={}",
            ffi!(abi::doca_dpa_mem_alloc(ctx.dpa, 8, &mut p))
        );
        ctx.destroy();
    }
    println!("config_error={:?}", doca_sim::config_error());
    println!("source={}", doca_sim::profile_source());
}

fn child(vars: &[(&str, &str)]) -> (String, String) {
    let vars: Vec<_> = vars
        .iter()
        .map(|(k, v)| (*k, std::ffi::OsStr::new(v)))
        .collect();
    run_child("config_child", CHILD, &vars)
}

fn refused(vars: &[(&str, &str)], reason: &str) {
    let (out, err) = child(vars);
    let bad = abi::DOCA_ERROR_BAD_CONFIG;
    assert!(
        out.contains(&format!("first={bad} second={bad} devices=0")),
        "{vars:?}: {out}"
    );
    assert!(
        out.contains(reason),
        "{vars:?}: config_error lacks {reason:?}: {out}"
    );
    // The reason is printed once, with what happens.
    let lines: Vec<_> = err
        .lines()
        .filter(|l| l.starts_with("doca-sim: "))
        .collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].contains(reason), "{err}");
    assert!(lines[0].contains("DOCA_ERROR_BAD_CONFIG"), "{err}");
}

#[test]
fn a_misspelt_function_in_doca_sim_faults_stops_the_run() {
    refused(
        &[("DOCA_SIM_FAULTS", "doca_dpa_strat@1=DRIVER")],
        "doca-sim exports no function `doca_dpa_strat` (did you mean `doca_dpa_start`?)",
    );
    refused(
        &[("DOCA_SIM_FAULTS", "doca_dpa_start@first=DRIVER")],
        "N must be a positive number or *",
    );
}

#[test]
fn a_missing_or_malformed_profile_stops_the_run() {
    refused(
        &[("DOCA_SIM_PROFILE", "/nonexistent/doca-sim.profile")],
        "DOCA_SIM_PROFILE=/nonexistent/doca-sim.profile: profile: cannot read",
    );
    let dir = std::env::temp_dir().join(format!("doca-sim-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.profile");
    std::fs::write(&path, "[device]\ncores = many\n").unwrap();
    refused(
        &[("DOCA_SIM_PROFILE", path.to_str().unwrap())],
        "profile line 2: bad value `many` for `cores`",
    );
    let (out, _) = child(&[("DOCA_SIM_PROFILE", path.to_str().unwrap())]);
    assert!(out.contains("source=DOCA_SIM_PROFILE="), "{out}");
    assert!(out.contains("is invalid"), "{out}");
    // A valid file is used, and said to be.
    std::fs::write(&path, "memcheck = false\n[device]\n").unwrap();
    let (out, err) = child(&[("DOCA_SIM_PROFILE", path.to_str().unwrap())]);
    assert!(out.contains("first=0 second=0 devices=1"), "{out}\n{err}");
    assert!(out.contains("fenced=false"), "{out}");
    assert!(
        out.contains(&format!("source=DOCA_SIM_PROFILE={}", path.display())),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_empty_profile_variable_means_the_default_profile() {
    let (out, err) = child(&[("DOCA_SIM_PROFILE", "")]);
    // The default profile: a BlueField-3's PF as its host sees it, and a
    // BlueField-2.
    assert!(out.contains("first=0 second=0 devices=2"), "{out}\n{err}");
    assert!(out.contains("config_error=None"), "{out}");
    assert!(out.contains("source=the default profile"), "{out}");
    assert!(
        out.contains("fenced=true"),
        "checking is on by default: {out}"
    );
}

#[test]
fn doca_sim_memcheck_turns_checking_off_and_refuses_garbage() {
    let (out, _) = child(&[("DOCA_SIM_MEMCHECK", "0")]);
    assert!(out.contains("fenced=false"), "{out}");
    let (out, _) = child(&[("DOCA_SIM_MEMCHECK", "1")]);
    assert!(out.contains("fenced=true"), "{out}");
    refused(
        &[("DOCA_SIM_MEMCHECK", "maybe")],
        "DOCA_SIM_MEMCHECK=`maybe` is neither",
    );
}

#[test]
fn a_valid_doca_sim_faults_fires() {
    let (out, _) = child(&[("DOCA_SIM_FAULTS", "doca_dpa_mem_alloc@5=NO_MEMORY")]);
    // The child's fifth allocation is the one after the four fenced ones.
    assert!(
        out.contains(&format!("fifth_alloc={}", abi::DOCA_ERROR_NO_MEMORY)),
        "{out}"
    );
}

#[test]
fn scope_inject_refuses_unknown_and_infallible_functions() {
    let scope = Scope::new();
    let err = scope
        .inject("doca_dpa_strat", Nth::At(1), DRIVER)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "doca-sim exports no function `doca_dpa_strat` (did you mean `doca_dpa_start`?)"
    );
    let err = scope
        .inject("doca_dev_as_devinfo", Nth::Every, DRIVER)
        .unwrap_err();
    assert!(err.to_string().contains("cannot fail"), "{err}");
    assert!(scope.inject("doca_dpa_start", Nth::At(0), DRIVER).is_err());
    // Nothing was installed by the refused calls.
    assert!(scope.unfired().is_empty());
    scope.inject("doca_dpa_start", Nth::At(1), DRIVER).unwrap();
    assert_eq!(scope.unfired().len(), 1);
    let ctx = Ctx::created();
    ok!(abi::doca_dpa_set_app(ctx.dpa, noop_app()));
    fails!(DRIVER, abi::doca_dpa_start(ctx.dpa));
    scope.assert_all_fired();
    ctx.destroy();
    assert_no_leaks(&scope);
}
