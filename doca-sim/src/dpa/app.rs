//! DPA applications as the sim sees them: the table described by
//! `device-include/doca_sim_app.h`.

use std::ffi::{c_char, c_void, CStr};

use crate::error::{codes, fail, SimResult};

/// `DOCA_SIM_APP_MAGIC`.
pub(crate) const APP_MAGIC: u64 = 0x444F_4341_5349_4D41;
/// `DOCA_SIM_APP_ABI`.
pub(crate) const APP_ABI: u32 = 1;
/// `DOCA_SIM_MAX_KERNEL_ARGS`.
pub(crate) const MAX_KERNEL_ARGS: usize = 32;
/// `DOCA_SIM_KERNEL_GLOBAL`.
pub(crate) const KIND_GLOBAL: u32 = 0;
/// `DOCA_SIM_KERNEL_RPC`.
pub(crate) const KIND_RPC: u32 = 1;

/// `struct doca_sim_kernel`.
#[allow(unreachable_pub)]
#[repr(C)]
#[derive(Debug)]
pub struct KernelDesc {
    name: *const c_char,
    func: *const c_void,
    pub(crate) kind: u32,
    pub(crate) num_params: u32,
    _param_sizes: *const u8,
    read_args: *const c_void,
    pub(crate) invoke: unsafe extern "C" fn(args: *const u64) -> u64,
}

/// `struct doca_sim_app`.
#[allow(unreachable_pub)]
#[repr(C)]
#[derive(Debug)]
pub struct AppDesc {
    magic: u64,
    abi_version: u32,
    num_kernels: u32,
    name: *const c_char,
    kernels: *const KernelDesc,
}

/// A validated application table. Tables are static data of the program
/// (generated C), so references to them live for the whole process.
#[derive(Debug, Clone, Copy)]
pub(crate) struct App(&'static AppDesc);

// SAFETY: the table is immutable static data.
unsafe impl Send for App {}
// SAFETY: as above.
unsafe impl Sync for App {}

/// A kernel of a validated application.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Kernel(pub(crate) &'static KernelDesc);

// SAFETY: the table is immutable static data.
unsafe impl Send for Kernel {}
// SAFETY: as above.
unsafe impl Sync for Kernel {}

impl App {
    /// Checks that `ptr` (a `struct doca_dpa_app *`) designates a sim app table.
    ///
    /// Model choice: anything else (NULL, or an app built by dpacc for real
    /// hardware) is refused with INVALID_VALUE.
    pub(crate) fn from_ptr(ptr: *const c_void) -> SimResult<App> {
        if ptr.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL application"));
        }
        // SAFETY: a non-NULL `struct doca_dpa_app *` points to the app symbol
        // defined by the generated C file; we read only its header fields
        // after checking alignment, then its magic before trusting the rest.
        let desc = unsafe {
            if ptr.align_offset(std::mem::align_of::<AppDesc>()) != 0 {
                return Err(fail(codes::INVALID_VALUE, "misaligned application pointer"));
            }
            &*(ptr as *const AppDesc)
        };
        if desc.magic != APP_MAGIC {
            return Err(fail(
                codes::INVALID_VALUE,
                "not an application built for doca-sim (was it built by dpacc for hardware?)",
            ));
        }
        if desc.abi_version != APP_ABI {
            return Err(fail(
                codes::UNSUPPORTED_VERSION,
                "application table of another doca-sim version",
            ));
        }
        Ok(App(desc))
    }

    pub(crate) fn name(&self) -> &'static str {
        // SAFETY: the generated table stores a NUL-terminated literal.
        unsafe { CStr::from_ptr(self.0.name) }
            .to_str()
            .unwrap_or("?")
    }

    /// The table's address, which is the `struct doca_dpa_app *` C knows.
    pub(crate) fn as_ptr(&self) -> *const AppDesc {
        self.0
    }

    pub(crate) fn kernels(&self) -> &'static [KernelDesc] {
        if self.0.kernels.is_null() || self.0.num_kernels == 0 {
            return &[];
        }
        // SAFETY: the generated table has `num_kernels` entries.
        unsafe { std::slice::from_raw_parts(self.0.kernels, self.0.num_kernels as usize) }
    }

    /// Finds the kernel whose host address is `func`.
    pub(crate) fn kernel(&self, func: *const c_void) -> SimResult<Kernel> {
        self.kernels()
            .iter()
            .find(|k| k.func == func)
            .map(Kernel)
            .ok_or(fail(
                codes::INVALID_VALUE,
                "function is not a kernel of the application set on this context",
            ))
    }
}

impl Kernel {
    pub(crate) fn name(&self) -> &'static str {
        // SAFETY: the generated table stores a NUL-terminated literal.
        unsafe { CStr::from_ptr(self.0.name) }
            .to_str()
            .unwrap_or("?")
    }

    /// The kernel's host address (its `doca_dpa_func_t *`).
    pub(crate) fn func_ptr(&self) -> *const c_void {
        self.0.func
    }
}
