//! `doca_error_get_name` / `doca_error_get_descr` for every code of
//! `doca_error.h`, unknown codes, and `doca_version_runtime`.

mod common;

use std::ffi::CStr;

use common::*;

/// The codes of DOCA 3.0's `doca_error.h` (facts: doca-rdmi.md §4.3).
const NAMES: [&str; 31] = [
    "DOCA_SUCCESS",
    "DOCA_ERROR_UNKNOWN",
    "DOCA_ERROR_NOT_PERMITTED",
    "DOCA_ERROR_IN_USE",
    "DOCA_ERROR_NOT_SUPPORTED",
    "DOCA_ERROR_AGAIN",
    "DOCA_ERROR_INVALID_VALUE",
    "DOCA_ERROR_NO_MEMORY",
    "DOCA_ERROR_INITIALIZATION",
    "DOCA_ERROR_TIME_OUT",
    "DOCA_ERROR_SHUTDOWN",
    "DOCA_ERROR_CONNECTION_RESET",
    "DOCA_ERROR_CONNECTION_ABORTED",
    "DOCA_ERROR_CONNECTION_INPROGRESS",
    "DOCA_ERROR_NOT_CONNECTED",
    "DOCA_ERROR_NO_LOCK",
    "DOCA_ERROR_NOT_FOUND",
    "DOCA_ERROR_IO_FAILED",
    "DOCA_ERROR_BAD_STATE",
    "DOCA_ERROR_UNSUPPORTED_VERSION",
    "DOCA_ERROR_OPERATING_SYSTEM",
    "DOCA_ERROR_DRIVER",
    "DOCA_ERROR_UNEXPECTED",
    "DOCA_ERROR_ALREADY_EXIST",
    "DOCA_ERROR_FULL",
    "DOCA_ERROR_EMPTY",
    "DOCA_ERROR_IN_PROGRESS",
    "DOCA_ERROR_TOO_BIG",
    "DOCA_ERROR_AUTHENTICATION",
    "DOCA_ERROR_BAD_CONFIG",
    "DOCA_ERROR_SKIPPED",
];

fn text(p: *const std::ffi::c_char) -> &'static str {
    assert!(!p.is_null(), "the sim returned NULL");
    // SAFETY: the sim returns static NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_str().unwrap()
}

#[test]
fn every_code_has_its_header_name_and_a_description() {
    let scope = Scope::new();
    let mut descriptions = std::collections::HashSet::new();
    for (code, want) in NAMES.iter().enumerate() {
        let code = code as Code;
        assert_eq!(text(ffi!(abi::doca_error_get_name(code))), *want);
        let descr = text(ffi!(abi::doca_error_get_descr(code)));
        assert!(!descr.is_empty(), "{want} has an empty description");
        assert!(descriptions.insert(descr), "{want} shares its description");
    }
    assert_eq!(scope.calls("doca_error_get_name"), 31);
    assert_eq!(scope.calls("doca_error_get_descr"), 31);
    assert_no_leaks(&scope);
}

#[test]
fn named_constants_match_the_table() {
    let _scope = Scope::new();
    for (code, want) in [
        (abi::DOCA_ERROR_BAD_STATE, "DOCA_ERROR_BAD_STATE"),
        (abi::DOCA_ERROR_IN_USE, "DOCA_ERROR_IN_USE"),
        (abi::DOCA_ERROR_NOT_CONNECTED, "DOCA_ERROR_NOT_CONNECTED"),
        (abi::DOCA_ERROR_IN_PROGRESS, "DOCA_ERROR_IN_PROGRESS"),
    ] {
        assert_eq!(name(code), want);
    }
}

#[test]
fn unknown_codes_get_a_placeholder_never_null() {
    let _scope = Scope::new();
    for code in [31, 32, 1000, 0x7fff_ffff, u32::MAX] {
        assert_eq!(
            text(ffi!(abi::doca_error_get_name(code))),
            "DOCA_ERROR_UNRECOGNIZED"
        );
        assert_eq!(
            text(ffi!(abi::doca_error_get_descr(code))),
            "unrecognized error code"
        );
    }
}

#[test]
fn strings_are_static() {
    let _scope = Scope::new();
    let a = ffi!(abi::doca_error_get_name(18));
    let b = ffi!(abi::doca_error_get_name(18));
    assert_eq!(a, b, "the same static string each time");
}

/// The release this build claims (`DOCA_SIM_VERSION`, default 3.3) is the one the
/// run-time version and the bindings' version constants say.
#[test]
fn the_run_time_and_the_constants_say_the_claimed_release() {
    let string = abi::DOCA_VERSION_STRING;
    assert_eq!(
        &string[..string.len() - 1],
        doca_sim::DEFAULT_RUNTIME_VERSION.as_bytes()
    );
    assert_eq!(
        format!(
            "{}.{}.{:04}",
            abi::DOCA_VERSION_MAJOR,
            abi::DOCA_VERSION_MINOR,
            abi::DOCA_VERSION_PATCH
        ),
        doca_sim::DEFAULT_RUNTIME_VERSION
    );
    let claim = std::env::var("DOCA_SIM_VERSION").unwrap_or_default();
    let release = if claim.trim().is_empty() {
        "3.3"
    } else {
        claim.trim()
    };
    assert_eq!(doca_sim::DEFAULT_RUNTIME_VERSION, format!("{release}.0001"));
}

#[test]
fn runtime_version_follows_the_profile() {
    let scope = Scope::new();
    assert_eq!(
        text(ffi!(abi::doca_version_runtime())),
        doca_sim::DEFAULT_RUNTIME_VERSION
    );
    scope.set_profile(Profile {
        runtime_version: "3.2.0118".into(),
        ..Profile::default()
    });
    let p = ffi!(abi::doca_version_runtime());
    assert_eq!(text(p), "3.2.0118");
    // Still valid after the profile changes back.
    scope.set_profile(Profile::default());
    assert_eq!(text(p), "3.2.0118");
    assert_eq!(scope.calls("doca_version_runtime"), 2);
}
