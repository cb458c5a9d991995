//! The facts of a loaded build (the default): the doctor links no DOCA. It finds
//! the install as the build scripts do (pkg-config, through doca-build-support's
//! discovery), loads DOCA's libraries at run time with libloading (`dlopen`), and
//! asks them: `doca_version_runtime`, the device list (`doca_devinfo_*`), and the
//! limits of each DPA (`doca_dev_open`, `doca_dpa_create`, the five
//! `doca_dpa_get_*` queries, `doca_dpa_destroy`, `doca_dev_close`).
//!
//! Where the libraries are looked for, in order: the library directories
//! pkg-config gives for the install, `DOCA_PREFIX`'s, `LD_LIBRARY_PATH`'s, the
//! standard locations (DOCA's `/opt/mellanox/doca` and the system's), and last the
//! dynamic loader's own search (`ld.so.cache`). A library found but not loadable
//! (wrong architecture, a missing dependency) is reported with the loader's
//! message and the search goes on.

use std::ffi::{c_char, c_uint, c_ulonglong, CStr, OsStr};
use std::path::{Path, PathBuf};

use doca_build_support::discovery::{self, DiscoveryError, Install};
use doca_build_support::env::EnvReader;
use libloading::Library;

use super::backend::RdmiReport;
use super::devices::{DeviceEntry, Limits};
use super::facts::{Facts, Libraries, Loaded, Searched};
use super::symbols::Row;
use super::versions::Versions;

/// The bundled bindings of doca-dpa-sys (`bundled/dpa.rs` is a link to that crate's
/// `bundled/dpa.rs`, which `cargo package` turns into a copy): the one source of the
/// DOCA types, constants and prototypes the doctor uses. Only their types and
/// constants reach the program: no bound function is called or has its address
/// taken at run time (the prototypes are checked at compile time, below), so the
/// doctor links no DOCA library. Generated code: bindgen's names and no docs.
#[allow(
    dead_code,
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    unreachable_pub,
    missing_docs,
    missing_debug_implementations,
    clippy::all,
    clippy::undocumented_unsafe_blocks
)]
#[path = "../bundled/dpa.rs"]
mod sys;

use sys::{doca_dev, doca_devinfo, doca_dpa, doca_error_t};

/// The libraries, in load order (the others need `libdoca_common`), and whether
/// the doctor needs them.
const LIBRARIES: &[(&str, bool)] = &[
    ("libdoca_common.so", true),
    ("libdoca_dpa.so", true),
    ("libdoca_verbs.so", false),
    ("libdoca_rdmi.so", false),
];

/// DOCA's default install prefix.
const DOCA_PREFIX_DEFAULT: &str = discovery::DEFAULT_PREFIX;

/// The sizes of the name buffers `doca_devinfo_get_*` fill (bytes, with the NUL).
const PCI_ADDR_SIZE: usize = sys::DOCA_DEVINFO_PCI_ADDR_SIZE as usize;
const IBDEV_NAME_SIZE: u32 = sys::DOCA_DEVINFO_IBDEV_NAME_SIZE;
const IFACE_NAME_SIZE: u32 = sys::DOCA_DEVINFO_IFACE_NAME_SIZE;

/// Declares the DOCA functions the doctor calls, each by its C name with its
/// prototype: an `Option` of a function pointer each in [`Api`] (`None` when no
/// loaded library exports it). Each prototype is checked against the bundled
/// bindings' declaration of that name ([`sys`]) at compile time: the compiler
/// coerces the bound function to the prototype's pointer type only when the two are
/// the same function type (every parameter, the return type, `unsafe extern "C"`);
/// the check is a constant, evaluated by the compiler and never emitted.
macro_rules! doca_functions {
    ($($name:ident: fn($($arg:ty),*) -> $ret:ty;)*) => {
        /// The DOCA functions the doctor calls, looked up in the loaded libraries.
        struct Api {
            $($name: Option<unsafe extern "C" fn($($arg),*) -> $ret>,)*
        }

        $(const _: unsafe extern "C" fn($($arg),*) -> $ret = sys::$name;)*

        /// Their C names, in the order of [`Api`]'s fields.
        const FUNCTIONS: &[&str] = &[$(stringify!($name)),*];

        impl Api {
            /// Looks every function up in `libs` (first match).
            fn resolve(libs: &[&'static Library]) -> Api {
                Api {
                    $(
                        // SAFETY: the type is the bundled bindings' prototype of the
                        // function of this name (checked against them above), which
                        // the build checks against the installed headers.
                        $name: unsafe { lookup(libs, concat!(stringify!($name), "\0")) },
                    )*
                }
            }

            /// `(name, exported)` for each function.
            fn exported(&self) -> Vec<(&'static str, bool)> {
                vec![$((stringify!($name), self.$name.is_some())),*]
            }
        }
    };
}

doca_functions! {
    doca_version_runtime: fn() -> *const c_char;
    doca_error_get_name: fn(doca_error_t) -> *const c_char;
    doca_devinfo_create_list: fn(*mut *mut *mut doca_devinfo, *mut u32) -> doca_error_t;
    doca_devinfo_destroy_list: fn(*mut *mut doca_devinfo) -> doca_error_t;
    doca_devinfo_get_pci_addr_str: fn(*const doca_devinfo, *mut c_char) -> doca_error_t;
    doca_devinfo_get_ibdev_name: fn(*const doca_devinfo, *mut c_char, u32) -> doca_error_t;
    doca_devinfo_get_iface_name: fn(*const doca_devinfo, *mut c_char, u32) -> doca_error_t;
    doca_dpa_cap_is_supported: fn(*const doca_devinfo) -> doca_error_t;
    doca_dev_open: fn(*mut doca_devinfo, *mut *mut doca_dev) -> doca_error_t;
    doca_dev_close: fn(*mut doca_dev) -> doca_error_t;
    doca_dpa_create: fn(*mut doca_dev, *mut *mut doca_dpa) -> doca_error_t;
    doca_dpa_destroy: fn(*mut doca_dpa) -> doca_error_t;
    doca_dpa_get_max_threads_per_kernel: fn(*const doca_dpa, *mut c_uint) -> doca_error_t;
    doca_dpa_get_kernel_max_run_time: fn(*const doca_dpa, *mut c_ulonglong) -> doca_error_t;
    doca_dpa_get_core_num: fn(*mut doca_dpa, *mut c_uint) -> doca_error_t;
    doca_dpa_get_num_eus_per_core: fn(*mut doca_dpa, *mut c_uint) -> doca_error_t;
    doca_dpa_get_total_num_eus_available: fn(*mut doca_dpa, *mut c_uint) -> doca_error_t;
}

/// The function `name` (NUL-terminated) of the first of `libs` that exports it.
///
/// # Safety
///
/// `T` must be the function-pointer type of the C function `name`.
unsafe fn lookup<T: Copy>(libs: &[&'static Library], name: &str) -> Option<T> {
    libs.iter().find_map(|lib| {
        // SAFETY: the caller vouches for `T`; the library is never unloaded (see
        // `load`), so the pointer copied out of the symbol stays valid.
        unsafe { lib.get::<T>(name.as_bytes()) }.ok().map(|s| *s)
    })
}

/// Loads the library at `path` (a file, or a bare name for the loader's search)
/// and keeps it loaded for the rest of the process.
fn load(path: &OsStr) -> Result<&'static Library, String> {
    // SAFETY: loading runs the library's initialisers; these are DOCA's own
    // libraries (found by their names in the install's directories), which DOCA
    // programs load the same way at start-up.
    let lib = unsafe { Library::new(path) }.map_err(|e| e.to_string())?;
    // Never unloaded: DOCA keeps threads and handlers alive that must not
    // outlive their code, and the function pointers taken from it stay valid.
    Ok(Box::leak(Box::new(lib)))
}

/// The directories to search, each with why, in order, without repeats.
fn search_dirs(install: Option<&Install>, env: &EnvReader) -> Vec<(PathBuf, &'static str)> {
    let arch = std::env::consts::ARCH;
    let multiarch = format!("{arch}-linux-gnu");
    let mut dirs: Vec<(PathBuf, &'static str)> = Vec::new();
    if let Some(install) = install {
        for d in install.link_dirs(&[]) {
            dirs.push((d, "pkg-config libdir"));
        }
    }
    if let Some(prefix) = env.get_os("DOCA_PREFIX").filter(|p| !p.is_empty()) {
        let prefix = PathBuf::from(prefix);
        dirs.push((prefix.join("lib").join(&multiarch), "DOCA_PREFIX"));
        dirs.push((prefix.join("lib"), "DOCA_PREFIX"));
    }
    if let Some(path) = env.get_os("LD_LIBRARY_PATH") {
        for d in std::env::split_paths(&path).filter(|d| !d.as_os_str().is_empty()) {
            dirs.push((d, "LD_LIBRARY_PATH"));
        }
    }
    let standard = [
        Path::new(DOCA_PREFIX_DEFAULT).join("lib").join(&multiarch),
        Path::new(DOCA_PREFIX_DEFAULT).join("lib"),
        Path::new("/usr/lib").join(&multiarch),
        Path::new("/lib").join(&multiarch),
        PathBuf::from("/usr/lib64"),
        PathBuf::from("/usr/lib"),
    ];
    dirs.extend(standard.into_iter().map(|d| (d, "standard location")));
    let mut seen = std::collections::BTreeSet::new();
    dirs.retain(|(d, _)| seen.insert(d.clone()));
    dirs
}

/// `name` in `dir`: the file itself, else its versioned files (`name.N…`, first in
/// name order).
fn candidates(dir: &Path, name: &str) -> Vec<PathBuf> {
    let plain = dir.join(name);
    if plain.is_file() {
        return vec![plain];
    }
    let prefix = format!("{name}.");
    let mut versioned: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|f| f.to_str())
                .is_some_and(|f| f.starts_with(&prefix))
        })
        .collect();
    versioned.sort();
    versioned
}

/// Finds and loads the libraries; returns what was loaded and the report.
fn load_libraries(dirs: &[(PathBuf, &'static str)]) -> (Vec<&'static Library>, Libraries) {
    let mut report = Libraries {
        searched: dirs
            .iter()
            .map(|(d, why)| Searched {
                dir: d.display().to_string(),
                from: why,
            })
            .collect(),
        ..Libraries::default()
    };
    let mut libs = Vec::new();
    'each: for (name, required) in LIBRARIES {
        for (dir, _) in dirs {
            for path in candidates(dir, name) {
                match load(path.as_os_str()) {
                    Ok(lib) => {
                        libs.push(lib);
                        report.loaded.push(Loaded {
                            name: (*name).to_owned(),
                            path: path.display().to_string(),
                        });
                        continue 'each;
                    }
                    Err(e) => report.errors.push(format!("{}: {e}", path.display())),
                }
            }
        }
        // The dynamic loader's own search (ld.so.cache, the program's RUNPATH).
        match load(OsStr::new(name)) {
            Ok(lib) => {
                libs.push(lib);
                report.loaded.push(Loaded {
                    name: (*name).to_owned(),
                    path: format!("{name} (the dynamic loader's search)"),
                });
            }
            Err(_) if *required => report.missing.push((*name).to_owned()),
            Err(_) => report.optional_missing.push((*name).to_owned()),
        }
    }
    (libs, report)
}

/// A C string DOCA returned, or `None` for NULL.
///
/// # Safety
///
/// `p` is NULL or a NUL-terminated string that stays valid while read.
unsafe fn c_text(p: *const c_char) -> Option<String> {
    // SAFETY: as the caller vouches.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// The text of a NUL-terminated buffer DOCA filled.
fn buffer_text(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf
        .iter()
        .take_while(|c| **c != 0)
        .map(|c| *c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

impl Api {
    /// `doca_error_get_name(rc)`, or the number.
    fn error(&self, call: &str, rc: doca_error_t) -> String {
        let name = self.doca_error_get_name.and_then(|f| {
            // SAFETY: DOCA returns a static string (or NULL) for any code.
            unsafe { c_text(f(rc)) }
        });
        format!("{call} failed: {}", name.unwrap_or_else(|| rc.to_string()))
    }

    /// `f` or the error that the library does not export `name`.
    fn need<T>(f: Option<T>, name: &str) -> Result<T, String> {
        f.ok_or_else(|| format!("{name} is not exported by the loaded DOCA libraries"))
    }

    /// `doca_version_runtime()`.
    fn runtime_version(&self) -> Option<String> {
        let f = self.doca_version_runtime?;
        // SAFETY: no arguments; DOCA returns a static version string.
        unsafe { c_text(f()) }.filter(|v| !v.trim().is_empty())
    }

    /// The limits of the DPA of `info`: a device opened and a DPA context created
    /// (never started) for the five queries, then destroyed and closed.
    fn limits(&self, info: *mut doca_devinfo) -> Result<Limits, String> {
        let open = Self::need(self.doca_dev_open, "doca_dev_open")?;
        let close = Self::need(self.doca_dev_close, "doca_dev_close")?;
        let create = Self::need(self.doca_dpa_create, "doca_dpa_create")?;
        let destroy = Self::need(self.doca_dpa_destroy, "doca_dpa_destroy")?;
        let threads_of = Self::need(
            self.doca_dpa_get_max_threads_per_kernel,
            "doca_dpa_get_max_threads_per_kernel",
        )?;
        let run_time_of = Self::need(
            self.doca_dpa_get_kernel_max_run_time,
            "doca_dpa_get_kernel_max_run_time",
        )?;
        let cores_of = Self::need(self.doca_dpa_get_core_num, "doca_dpa_get_core_num")?;
        let eus_of = Self::need(
            self.doca_dpa_get_num_eus_per_core,
            "doca_dpa_get_num_eus_per_core",
        )?;
        let total_of = Self::need(
            self.doca_dpa_get_total_num_eus_available,
            "doca_dpa_get_total_num_eus_available",
        )?;
        let mut dev: *mut doca_dev = std::ptr::null_mut();
        // SAFETY: `info` is an element of the live device list; `dev` is a valid
        // out-pointer.
        let rc = unsafe { open(info, &mut dev) };
        if rc != sys::DOCA_SUCCESS {
            return Err(self.error("doca_dev_open", rc));
        }
        let mut dpa: *mut doca_dpa = std::ptr::null_mut();
        // SAFETY: an open device; a valid out-pointer.
        let rc = unsafe { create(dev, &mut dpa) };
        let result = if rc != sys::DOCA_SUCCESS {
            Err(self.error("doca_dpa_create", rc))
        } else {
            let (mut threads, mut run_time, mut cores, mut eus, mut total) = (0, 0, 0, 0, 0);
            // SAFETY: a created, not started, DPA context (DOCA answers the five
            // queries before doca_dpa_start); a valid out-pointer.
            let rc_threads = unsafe { threads_of(dpa, &mut threads) };
            // SAFETY: as above.
            let rc_run_time = unsafe { run_time_of(dpa, &mut run_time) };
            // SAFETY: as above.
            let rc_cores = unsafe { cores_of(dpa, &mut cores) };
            // SAFETY: as above.
            let rc_eus = unsafe { eus_of(dpa, &mut eus) };
            // SAFETY: as above.
            let rc_total = unsafe { total_of(dpa, &mut total) };
            let answers = [
                ("doca_dpa_get_max_threads_per_kernel", rc_threads),
                ("doca_dpa_get_kernel_max_run_time", rc_run_time),
                ("doca_dpa_get_core_num", rc_cores),
                ("doca_dpa_get_num_eus_per_core", rc_eus),
                ("doca_dpa_get_total_num_eus_available", rc_total),
            ]
            .into_iter()
            .find(|(_, rc)| *rc != sys::DOCA_SUCCESS)
            .map_or(Ok(()), |(call, rc)| Err(self.error(call, rc)));
            // SAFETY: the context created above, destroyed once.
            unsafe { destroy(dpa) };
            answers.map(|()| Limits {
                max_threads_per_kernel: threads,
                kernel_max_run_time_s: run_time,
                cores,
                eus_per_core: eus,
                eus_available: total,
            })
        };
        // SAFETY: the device opened above, closed once (its context is gone).
        unsafe { close(dev) };
        result
    }

    /// The device list, each with its names and, with a DPA, its limits.
    fn devices(&self) -> Result<Vec<DeviceEntry>, String> {
        let create = Self::need(self.doca_devinfo_create_list, "doca_devinfo_create_list")?;
        let destroy = Self::need(self.doca_devinfo_destroy_list, "doca_devinfo_destroy_list")?;
        let mut list: *mut *mut doca_devinfo = std::ptr::null_mut();
        let mut count: u32 = 0;
        // SAFETY: valid out-pointers.
        let rc = unsafe { create(&mut list, &mut count) };
        if rc != sys::DOCA_SUCCESS {
            return Err(self.error("doca_devinfo_create_list", rc));
        }
        let mut out = Vec::new();
        for i in 0..count as usize {
            // SAFETY: DOCA's list holds `count` device infos.
            let info = unsafe { *list.add(i) };
            let mut pci: [c_char; PCI_ADDR_SIZE] = [0; PCI_ADDR_SIZE];
            let mut ibdev = [0 as c_char; IBDEV_NAME_SIZE as usize];
            let mut iface = [0 as c_char; IFACE_NAME_SIZE as usize];
            if let Some(f) = self.doca_devinfo_get_pci_addr_str {
                // SAFETY: a listed device info; a buffer of DOCA_DEVINFO_PCI_ADDR_SIZE.
                unsafe { f(info, pci.as_mut_ptr()) };
            }
            if let Some(f) = self.doca_devinfo_get_ibdev_name {
                // SAFETY: a listed device info; the buffer and its size.
                unsafe { f(info, ibdev.as_mut_ptr(), IBDEV_NAME_SIZE) };
            }
            if let Some(f) = self.doca_devinfo_get_iface_name {
                // SAFETY: a listed device info; the buffer and its size.
                unsafe { f(info, iface.as_mut_ptr(), IFACE_NAME_SIZE) };
            }
            let has_dpa = self.doca_dpa_cap_is_supported.is_some_and(|f| {
                // SAFETY: a listed device info.
                unsafe { f(info) == sys::DOCA_SUCCESS }
            });
            out.push(DeviceEntry {
                pci_addr: buffer_text(&pci),
                ibdev_name: buffer_text(&ibdev),
                iface_name: buffer_text(&iface),
                has_dpa,
                limits: has_dpa.then(|| self.limits(info)),
            });
        }
        // SAFETY: the list created above, destroyed once after its last use.
        unsafe { destroy(list) };
        Ok(out)
    }
}

/// Where the doca-rdmi rows and the RDMI check belong: RDMI and DOCA Verbs.
fn source_of(name: &str) -> &'static str {
    if name.starts_with("doca_rdmi_") || name.starts_with("doca_verbs_") {
        "doca-rdmi"
    } else {
        "doca-dpa"
    }
}

/// Gathers the facts: the libraries of `probed` (the discovery's answer for the
/// environment `env`) and what they answer.
pub(crate) fn gather(env: &EnvReader, probed: Result<&Install, &DiscoveryError>) -> Facts {
    let install = probed.ok();
    let (libs, mut libraries) = load_libraries(&search_dirs(install, env));
    let discovery_error = probed.err().map(ToString::to_string);
    libraries.pkg_config_error = discovery_error
        .as_deref()
        .map(|text| text.lines().next().unwrap_or_default().to_owned());
    // What the build says of an install it refuses (too old, mismatched, broken).
    let refusal = discovery_error.filter(|_| probed.is_err_and(DiscoveryError::is_broken_install));
    let ready = libraries.missing.is_empty();
    let api = Api::resolve(&libs);

    let runtime = if ready { api.runtime_version() } else { None };
    let header = match (install, &refusal) {
        (Some(i), _) => i
            .version_header
            .as_ref()
            .map(|h| h.version.to_string())
            .unwrap_or_else(|| "not found in the install's include directories".to_owned()),
        (None, Some(_)) => {
            "not read (the build refuses the install: see the versions check)".to_owned()
        }
        (None, None) => "not found (pkg-config found no install)".to_owned(),
    };
    let pkg_config = install
        .map(Install::pkg_config_versions)
        .unwrap_or_default();
    let doca_version = runtime
        .clone()
        .or_else(|| install.map(|i| i.version.to_string()))
        .unwrap_or_default();
    let devices = if ready {
        api.devices()
    } else {
        Err(format!(
            "DOCA's libraries were not loaded ({} missing)",
            libraries.missing.join(", ")
        ))
    };
    let symbols = if ready {
        api.exported()
            .into_iter()
            .map(|(name, exported)| Row {
                source: source_of(name),
                name,
                header: "",
                marker: "UNKNOWN",
                declared: true,
                exported: Some(exported),
                usable: exported,
            })
            .collect()
    } else {
        Vec::new()
    };
    let rdmi_loaded = libraries.loaded.iter().any(|l| l.name == "libdoca_rdmi.so");
    let absent_reason = match install {
        _ if !rdmi_loaded => Some(format!(
            "libdoca_rdmi.so was not found (looked in {} and the dynamic loader's search)",
            libraries.searched_list()
        )),
        Some(i) if !i.has("doca-rdmi") => Some(
            "pkg-config finds no doca-rdmi module: crates built against this install have no RDMI"
                .to_owned(),
        ),
        _ => None,
    };
    debug_assert_eq!(FUNCTIONS.len(), api.exported().len());
    Facts {
        backend: "hardware",
        bindings: [
            "none: this doctor loads DOCA's libraries at run time".to_owned(),
            "none: this doctor loads DOCA's libraries at run time".to_owned(),
        ],
        sim_profile: None,
        sim: None,
        prefix: install
            .and_then(|i| i.modules.get("doca-dpa"))
            .and_then(|m| m.prefix.as_ref())
            .map(|p| p.display().to_string()),
        libraries: Some(libraries),
        refusal,
        versions: Versions {
            header,
            build: Vec::new(),
            pkg_config,
            runtime,
        },
        doca_version,
        devices,
        symbols,
        rdmi: RdmiReport { absent_reason },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_function_is_listed_once() {
        let mut names = FUNCTIONS.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FUNCTIONS.len());
        assert!(FUNCTIONS.iter().all(|n| n.starts_with("doca_")));
    }

    #[test]
    fn search_order_and_no_repeats() {
        let env = EnvReader::fixed([("DOCA_PREFIX", "/p"), ("LD_LIBRARY_PATH", "/a::/b:/p/lib")]);
        let dirs: Vec<(String, &str)> = search_dirs(None, &env)
            .into_iter()
            .map(|(d, w)| (d.display().to_string(), w))
            .collect();
        let pos = |d: &str| dirs.iter().position(|(x, _)| x == d).unwrap();
        assert!(pos("/p/lib") < pos("/a"));
        assert!(pos("/a") < pos("/b"));
        assert!(pos("/b") < pos("/opt/mellanox/doca/lib"));
        assert_eq!(dirs.iter().filter(|(d, _)| d == "/p/lib").count(), 1);
        assert_eq!(dirs[pos("/p/lib")].1, "DOCA_PREFIX");
        assert!(!dirs.iter().any(|(d, _)| d.is_empty()));
    }

    #[test]
    fn versioned_files_are_candidates() {
        let dir = std::env::temp_dir().join(format!("doctor-cand-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("libdoca_dpa.so.3.0.58"), b"").unwrap();
        std::fs::write(dir.join("libdoca_dpa.so.3"), b"").unwrap();
        let c = candidates(&dir, "libdoca_dpa.so");
        assert_eq!(
            c,
            vec![
                dir.join("libdoca_dpa.so.3"),
                dir.join("libdoca_dpa.so.3.0.58")
            ]
        );
        std::fs::write(dir.join("libdoca_dpa.so"), b"").unwrap();
        assert_eq!(
            candidates(&dir, "libdoca_dpa.so"),
            vec![dir.join("libdoca_dpa.so")]
        );
        assert!(candidates(&dir, "libdoca_rdmi.so").is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_that_is_not_a_library_is_an_error_and_the_search_goes_on() {
        let dir = std::env::temp_dir().join(format!("doctor-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("libdoca_common.so"), b"not an ELF file").unwrap();
        let (libs, report) = load_libraries(&[(dir.clone(), "LD_LIBRARY_PATH")]);
        assert!(
            report
                .errors
                .iter()
                .any(|e| e.contains("libdoca_common.so")),
            "{report:?}"
        );
        // Nothing else provides DOCA on this machine (the test host has none).
        if libs.is_empty() {
            assert!(report.missing.contains(&"libdoca_common.so".to_owned()));
            assert!(report.missing.contains(&"libdoca_dpa.so".to_owned()));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
