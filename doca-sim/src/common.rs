//! `doca_error.h` and `doca_version.h` entry points.

use std::collections::HashMap;
use std::ffi::{c_char, CString};
use std::sync::{Mutex, OnceLock};

use crate::abi;
use crate::error;
use crate::export::doca_api;
use crate::profile;

/// Keeps one C string per runtime version ever reported, so the pointer handed
/// to C stays valid for the life of the process, as DOCA's static string does.
fn interned(version: &str) -> *const c_char {
    static STRINGS: OnceLock<Mutex<HashMap<String, CString>>> = OnceLock::new();
    let mut strings = STRINGS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    strings
        .entry(version.to_owned())
        .or_insert_with(|| CString::new(version.replace('\0', "")).unwrap_or_default())
        .as_ptr()
}

doca_api! {
    /// Static name of an error code; unknown codes get a placeholder name.
    fn doca_error_get_name(error: abi::doca_error_t) -> *const c_char {
        error::name(error as error::Code).as_ptr()
    }

    /// Static description of an error code; unknown codes get
    /// "unrecognized error code".
    fn doca_error_get_descr(error: abi::doca_error_t) -> *const c_char {
        error::descr(error as error::Code).as_ptr()
    }

    /// The runtime version of the current profile (by default the version of
    /// the reference headers).
    fn doca_version_runtime() -> *const c_char {
        interned(&profile::current().runtime_version)
    }
}
