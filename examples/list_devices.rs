//! Lists the DOCA devices this machine has and whether each has a DPA.
//!
//! Runs on real DOCA where it is installed and on the software DPA elsewhere;
//! the first line says which.

use std::ffi::{c_char, CStr};

use doca::sys;

fn text(buf: &[c_char]) -> String {
    // SAFETY: DOCA writes NUL-terminated strings into the buffers it is given.
    unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

fn main() {
    println!(
        "backend: {} (DOCA {})",
        sys::build_info::BACKEND,
        sys::build_info::DOCA_VERSION
    );
    let mut list: *mut *mut sys::doca_devinfo = std::ptr::null_mut();
    let mut count = 0u32;
    // SAFETY: valid out-pointers; the list is destroyed below.
    let rc = unsafe { sys::doca_devinfo_create_list(&mut list, &mut count) };
    if rc != 0 {
        eprintln!("doca_devinfo_create_list failed with code {rc}");
        std::process::exit(1);
    }
    for i in 0..count as usize {
        // SAFETY: `list` holds `count` devinfo pointers.
        let info = unsafe { *list.add(i) };
        let mut name = [0 as c_char; 64];
        let mut pci = [0 as c_char; 13];
        // SAFETY: buffers of the documented sizes.
        let has_dpa = unsafe {
            sys::doca_devinfo_get_ibdev_name(info, name.as_mut_ptr(), name.len() as u32);
            sys::doca_devinfo_get_pci_addr_str(info, pci.as_mut_ptr());
            sys::doca_dpa_cap_is_supported(info) == 0
        };
        println!(
            "{}  {}  DPA: {}",
            text(&pci),
            text(&name),
            if has_dpa { "yes" } else { "no" }
        );
    }
    // SAFETY: destroys the list created above.
    unsafe { sys::doca_devinfo_destroy_list(list) };
}
