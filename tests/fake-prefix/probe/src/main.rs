//! Talks to whatever DOCA the hardware backend found and prints what it saw,
//! one `key=value` per line, for scripts/fake-prefix-test.sh to check.

use std::ffi::{c_char, CStr};

use doca_dpa_sys as sys;

fn text(ptr: *const c_char) -> String {
    if ptr.is_null() {
        return "<null>".into();
    }
    // SAFETY: DOCA returns static NUL-terminated strings.
    unsafe { CStr::from_ptr(ptr) }.to_string_lossy().into_owned()
}

fn main() {
    println!("backend={}", sys::build_info::BACKEND);
    println!("bindings_version={}", sys::build_info::DOCA_VERSION);
    println!("bindings_dpa={}", sys::build_info::BINDINGS);
    println!("bindings_verbs={}", doca_verbs_sys::build_info::BINDINGS);
    println!("bindings_rdmi={}", doca_rdmi_sys::build_info::BINDINGS);
    println!("bindings_rdma={}", doca_rdma_sys::build_info::BINDINGS);
    // The version constants of the bindings: the installed header's, whichever way
    // the bindings were made.
    println!(
        "header_version={}",
        CStr::from_bytes_with_nul(sys::DOCA_VERSION_STRING)
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    );
    // SAFETY: plain FFI calls with valid arguments.
    unsafe {
        println!("runtime_version={}", text(sys::doca_version_runtime()));
        println!("error_name_18={}", text(sys::doca_error_get_name(18)));
        let mut list: *mut *mut sys::doca_devinfo = std::ptr::null_mut();
        let mut n = 0u32;
        let rc = sys::doca_devinfo_create_list(&mut list, &mut n);
        assert_eq!(rc, 0, "doca_devinfo_create_list failed");
        for i in 0..n as usize {
            let info = *list.add(i);
            let mut name = [0 as c_char; 64];
            sys::doca_devinfo_get_ibdev_name(info, name.as_mut_ptr(), name.len() as u32);
            let dpa = sys::doca_dpa_cap_is_supported(info) == 0;
            println!("device={} dpa={}", text(name.as_ptr()), dpa);
        }
        sys::doca_devinfo_destroy_list(list);
        // A variadic entry point (they live in libdoca_dpa.so): NULL context.
        let rc = sys::doca_dpa_kernel_launch_update_set(
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
            std::ptr::null_mut(),
            0,
            1,
            None,
        );
        println!("launch_null_rc={rc}");
    }
    let missing: Vec<&str> = sys::build_info::SYMBOLS
        .iter()
        .filter(|s| s.declared && s.exported == Some(false))
        .map(|s| s.name)
        .collect();
    println!("declared_not_exported={}", missing.join(","));
    println!("rdmi_absent_reason={:?}", doca_rdmi_sys::build_info::RDMI_ABSENT_REASON);
    let hand: Vec<&str> = doca_rdmi_sys::build_info::SYMBOLS
        .iter()
        .filter(|s| !s.declared && s.exported == Some(true))
        .map(|s| s.name)
        .collect();
    println!("hand_declared={}", hand.join(","));
    println!("rdma_absent_reason={:?}", doca_rdma_sys::build_info::RDMA_ABSENT_REASON);
    let rdma_missing: Vec<&str> = doca_rdma_sys::build_info::SYMBOLS
        .iter()
        .filter(|s| s.declared && s.exported == Some(false))
        .map(|s| s.name)
        .collect();
    println!("rdma_declared_not_exported={}", rdma_missing.join(","));
}
