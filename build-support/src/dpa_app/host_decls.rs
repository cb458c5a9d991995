//! The host side of a DPA application, generated from its C sources: the Rust
//! declarations that `doca_dpa::include_app!` includes, and one small C function per
//! device function that makes DOCA's variadic call with the exact C parameter types.
//!
//! The C prototype is the single truth about a kernel. Each parameter's C type is mapped
//! to a Rust parameter type ([`rust_param`]); the generated C launcher takes every
//! argument with its C ABI type and passes it to `doca_dpa_kernel_launch_update_*` or
//! `doca_dpa_rpc` cast to the type the kernel declares, so default argument promotion and
//! layout are decided by the C compiler, exactly as in a C host program. A Rust
//! declaration that disagrees with the C cannot be written without `unsafe`, because
//! there is no Rust declaration to write.

use std::fmt::Write as _;

use super::error::{DpaAppError, ParamRefusal};
use super::parse::{DeviceFunction, FunctionKind, Param, StructDef};
use super::sim_source::sim_kernel_symbol;
use crate::backend::Backend;

/// How one C parameter type crosses from Rust to the generated C launcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RustParam {
    /// The Rust parameter type, relative to `doca_dpa`'s root (`u64`, `param::DevPtr`).
    pub rust: &'static str,
    /// The Rust type of the value handed to the C launcher (`u64`, `u32`, `f32`…).
    pub abi_rust: &'static str,
    /// The C type of the launcher's parameter (`uint64_t`, `float`…).
    pub abi_c: &'static str,
}

const fn rp(rust: &'static str, abi_rust: &'static str, abi_c: &'static str) -> RustParam {
    RustParam {
        rust,
        abi_rust,
        abi_c,
    }
}

/// A DOCA device handle (or address) typedef, whose ABI is `uint64_t`.
const fn h64(rust: &'static str) -> RustParam {
    rp(rust, "u64", "uint64_t")
}

/// C types (after the parser's normalisation) and their Rust parameter types. DOCA's
/// device handle typedefs map to marker types of `doca_dpa::param`, for which only
/// values that keep their object alive are arguments.
const TYPE_TABLE: &[(&str, RustParam)] = &[
    ("uint64_t", rp("u64", "u64", "uint64_t")),
    ("uint32_t", rp("u32", "u32", "uint32_t")),
    ("int64_t", rp("i64", "i64", "int64_t")),
    ("int32_t", rp("i32", "i32", "int32_t")),
    ("int", rp("i32", "i32", "int32_t")),
    ("signed int", rp("i32", "i32", "int32_t")),
    ("unsigned int", rp("u32", "u32", "uint32_t")),
    ("unsigned", rp("u32", "u32", "uint32_t")),
    // The DPA and every host DOCA supports are LP64.
    ("long", rp("i64", "i64", "int64_t")),
    ("unsigned long", rp("u64", "u64", "uint64_t")),
    ("long long", rp("i64", "i64", "int64_t")),
    ("unsigned long long", rp("u64", "u64", "uint64_t")),
    ("size_t", rp("u64", "u64", "uint64_t")),
    // An integer as wide as an address (LP64): a plain value like `uint64_t`, which
    // NVIDIA's RDMA samples use for a host address their RPCs reach through an mmap
    // handle. The device cannot reach memory through it without such a handle, so it
    // is no `param::DevPtr` (which only DPA memory that the launch keeps alive passes).
    ("uintptr_t", rp("u64", "u64", "uint64_t")),
    ("float", rp("f32", "f32", "float")),
    ("double", rp("f64", "f64", "double")),
    ("doca_dpa_dev_uintptr_t", DEV_PTR),
    ("doca_dpa_dev_t", h64("param::Dpa")),
    ("doca_dpa_dev_sync_event_t", h64("param::SyncEvent")),
    ("doca_dpa_dev_completion_t", h64("param::Completion")),
    (
        "doca_dpa_dev_notification_completion_t",
        h64("param::Notification"),
    ),
    ("doca_dpa_dev_async_ops_t", h64("param::AsyncOps")),
    ("doca_dpa_dev_hash_table_t", h64("param::HashTable")),
    ("doca_dpa_dev_mmap_t", rp("param::Mmap", "u32", "uint32_t")),
    (
        "doca_dpa_dev_rdmi_connection_t",
        h64("param::RdmiConnection"),
    ),
    ("doca_rdmi_dev_poster_t", h64("param::RdmiPoster")),
    ("doca_dpa_dev_rdma_t", h64("param::Rdma")),
    ("doca_dpa_dev_verbs_qp_t", h64("param::VerbsQp")),
    ("doca_dpa_dev_comch_producer_t", h64("param::ComchProducer")),
    ("doca_dpa_dev_comch_consumer_t", h64("param::ComchConsumer")),
    (
        "doca_dpa_dev_comch_consumer_completion_t",
        h64("param::ComchConsumerCompletion"),
    ),
    (
        "doca_dpa_dev_sync_event_remote_net_t",
        h64("param::RemoteEvent"),
    ),
];

/// An untyped DPA address: `void *`, `doca_dpa_dev_uintptr_t`, such a member of a
/// struct. Nothing says what the device reads there, so safe code gives it no memory
/// (`doca_dpa::Untyped` is `unsafe` to make).
const DEV_PTR: RustParam = h64("param::DevPtr");

/// The Rust side of parameter `p` of `f` (1-based `position`), or why it has none.
pub fn rust_param(
    f: &DeviceFunction,
    position: usize,
    p: &Param,
) -> Result<RustParam, DpaAppError> {
    if p.c_type.contains('*') {
        return Ok(DEV_PTR);
    }
    TYPE_TABLE
        .iter()
        .find(|(c, _)| *c == p.c_type)
        .map(|(_, r)| r.clone())
        .ok_or_else(|| refuse(f, position, p, ParamRefusal::UnknownType))
}

/// The error refusing parameter `p` of `f` (1-based `position`).
fn refuse(f: &DeviceFunction, position: usize, p: &Param, refusal: ParamRefusal) -> DpaAppError {
    DpaAppError::UnsupportedParam {
        file: f.file.clone(),
        line: f.line,
        kernel: f.name.clone(),
        position,
        param: match &p.name {
            Some(n) => format!("{} {n}", p.c_type),
            None => p.c_type.clone(),
        },
        refusal,
    }
}

/// The application struct that a parameter of C type `c_type` passes by value: the
/// type names it (`struct NAME`, or the `ALIAS` of `typedef struct NAME { … } ALIAS`)
/// and every field has a Rust declaration.
pub(crate) fn by_value_struct<'a>(c_type: &str, structs: &'a [StructDef]) -> Option<&'a StructDef> {
    let tag = c_type.strip_prefix("struct ");
    declared_structs(structs).into_iter().find(|s| match tag {
        Some(tag) => s.name == tag,
        None => s.alias.as_deref() == Some(c_type),
    })
}

/// Element types of typed pointer parameters (`T *` becomes `param::Ptr<R>`), beyond
/// the scalar parameter types of [`TYPE_TABLE`]: the narrow integers, which cannot be
/// passed by value but can be pointed to. `char` is unsigned on the DPA (RISC-V).
const POINTEE_TABLE: &[(&str, &str)] = &[
    ("uint8_t", "u8"),
    ("int8_t", "i8"),
    ("char", "u8"),
    ("unsigned char", "u8"),
    ("signed char", "i8"),
    ("uint16_t", "u16"),
    ("int16_t", "i16"),
    ("short", "i16"),
    ("unsigned short", "u16"),
];

/// The Rust element type of a one-level pointer's pointee, its qualifiers dropped:
/// `void` for `void` (`const void *`: any DPA memory, `param::DevPtr`), else that of a
/// scalar, or a struct of the application as `super::NAME`; `None` for a type that is
/// not a pointer, for `T **` (an address of addresses, whose targets nothing would keep
/// alive) or when the pointee has no Rust type. A DOCA handle or device-address typedef
/// has none: an array of them would carry handles and addresses that nothing checks
/// against the context or keeps alive (as `T **` would), so safe code could hand the
/// kernel a forged or freed one.
fn pointee_type(c_type: &str, structs: &[StructDef]) -> Option<String> {
    let star = c_type.find('*')?;
    if c_type[star + 1..].contains('*') {
        return None;
    }
    let words: Vec<&str> = c_type[..star]
        .split_whitespace()
        .filter(|w| !matches!(*w, "const" | "volatile" | "restrict" | "__restrict"))
        .collect();
    let pointee = words.join(" ");
    if pointee == "void" {
        return Some("void".to_owned());
    }
    if let Some((_, r)) = TYPE_TABLE.iter().find(|(c, _)| *c == pointee) {
        return (!r.rust.starts_with("param::")).then(|| r.abi_rust.to_owned());
    }
    if let Some((_, r)) = POINTEE_TABLE.iter().find(|(c, _)| *c == pointee) {
        return Some((*r).to_owned());
    }
    by_value_struct(&pointee, structs).map(|def| format!("super::{}", rust_ident(&def.name)))
}

/// The parameter type of a struct field that points at plain data whose Rust
/// element type is `elem` (one of [`pointee_type`]'s scalars).
fn plain_pointer_param(elem: &str) -> Option<&'static str> {
    Some(match elem {
        "u8" => "param::Ptr<u8>",
        "i8" => "param::Ptr<i8>",
        "u16" => "param::Ptr<u16>",
        "i16" => "param::Ptr<i16>",
        "u32" => "param::Ptr<u32>",
        "i32" => "param::Ptr<i32>",
        "u64" => "param::Ptr<u64>",
        "i64" => "param::Ptr<i64>",
        "f32" => "param::Ptr<f32>",
        "f64" => "param::Ptr<f64>",
        _ => return None,
    })
}

/// How one parameter crosses from Rust to the generated C launcher: as a value (a
/// scalar of the type table, or a pointer: a DPA address), or as a struct passed by
/// value (whose device layout the launcher receives by address and copies into a C
/// value of the struct type).
enum Crossing<'a> {
    /// A value of the type table, or a pointer (as `uint64_t`); a number
    /// (`uint32_t n`) or a typed pointer (`T *`) also carries its marker.
    Value(RustParam, Option<Named>),
    Struct(&'a StructDef),
}

/// The names of a parameter's marker, which makes a mismatch's message name the
/// parameter: `sig` (the `__sig` type: a number crosses as
/// `param::Scalar<u32, super::__param::FUNCTION::PARAMETER::CTYPE>`, a typed pointer as
/// `param::Ptr<R, super::__param::FUNCTION::PARAMETER>`), `param` (the parameter) and,
/// for a number, `c_type` (its C type as an identifier: `unsigned_long`).
struct Named {
    sig: String,
    param: String,
    c_type: Option<String>,
}

/// The crossing of parameter `p` of `f` (1-based `position`), or why it has none.
fn crossing<'a>(
    f: &DeviceFunction,
    position: usize,
    p: &Param,
    structs: &'a [StructDef],
) -> Result<Crossing<'a>, DpaAppError> {
    if p.c_type.contains('*') {
        // The launcher passes the address as `uint64_t` (what `rust_param` says for
        // every pointer); the Rust side keeps the element type.
        let named = match pointee_type(&p.c_type, structs).as_deref() {
            Some("void") => None,
            Some(elem) => {
                let param = param_ident(p, position);
                let sig = format!(
                    "param::Ptr<{elem}, super::__param::{}::{param}>",
                    rust_ident(&f.name)
                );
                let c_type = None;
                Some(Named { sig, param, c_type })
            }
            None => return Err(refuse(f, position, p, ParamRefusal::UnknownPointee)),
        };
        return Ok(Crossing::Value(DEV_PTR, named));
    }
    if let Some(def) = by_value_struct(&p.c_type, structs) {
        return Ok(Crossing::Struct(def));
    }
    if p.c_type.starts_with("struct ") {
        return Err(refuse(f, position, p, ParamRefusal::StructByValue));
    }
    let rust = rust_param(f, position, p)?;
    let number = matches!(rust.rust, "u64" | "u32" | "i64" | "i32" | "f32" | "f64");
    let named = number.then(|| {
        let param = param_ident(p, position);
        let c_type = p.c_type.replace(' ', "_");
        Named {
            sig: format!(
                "param::Scalar<{}, super::__param::{}::{param}::{c_type}>",
                rust.rust,
                rust_ident(&f.name)
            ),
            param,
            c_type: Some(c_type),
        }
    });
    Ok(Crossing::Value(rust, named))
}

/// Parameter `p`'s name as a Rust identifier (`arg{position}` when the prototype
/// gives none).
fn param_ident(p: &Param, position: usize) -> String {
    rust_ident(&p.name.clone().unwrap_or_else(|| format!("arg{position}")))
}

/// Names the generated module uses for itself; a device function cannot take them.
const RESERVED: &[&str] = &["app", "__ffi", "__sig", "__param", "__dpa", "APP_NAME"];

/// Rust keywords, which become raw identifiers (`r#type`).
const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "box", "break", "const", "continue", "crate", "dyn", "else", "enum",
    "extern", "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro", "match",
    "mod", "move", "mut", "priv", "pub", "ref", "return", "static", "struct", "trait", "true",
    "try", "type", "unsafe", "use", "where", "while", "yield",
];

fn rust_ident(name: &str) -> String {
    if RUST_KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_owned()
    }
}

/// The host symbol of device function `f` of application `app` in a `backend` build:
/// its C name, which dpacc's host code defines, or in the sim its application's own
/// ([`sim_kernel_symbol`]), so that a function is called by its application's
/// identity.
fn host_symbol(app: &str, f: &DeviceFunction, backend: Backend) -> String {
    match backend {
        Backend::Sim => sim_kernel_symbol(app, &f.name),
        Backend::Hardware | Backend::Docs => f.name.clone(),
    }
}

/// The C name of the generated launcher of `f` in application `app`.
pub fn launcher_symbol(app: &str, f: &DeviceFunction) -> String {
    match f.kind {
        FunctionKind::Global => format!("doca_gen_{app}_launch_{}", f.name),
        FunctionKind::Rpc => format!("doca_gen_{app}_rpc_{}", f.name),
    }
}

/// The prototype as a C programmer would write it, for doc comments.
fn prototype(f: &DeviceFunction) -> String {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| match &p.name {
            Some(n) if p.c_type.ends_with('*') => format!("{}{n}", p.c_type),
            Some(n) => format!("{} {n}", p.c_type),
            None => p.c_type.clone(),
        })
        .collect();
    let marker = match f.kind {
        FunctionKind::Global => "__dpa_global__",
        FunctionKind::Rpc => "__dpa_rpc__",
    };
    format!("{marker} {} {}({})", f.return_type, f.name, c_list(&params))
}

/// A C parameter list: the items joined by commas, `void` when there are none.
fn c_list<S: std::borrow::Borrow<str>>(items: &[S]) -> String {
    if items.is_empty() {
        "void".to_owned()
    } else {
        items.join(", ")
    }
}

/// Every parameter's crossing, or the first that has none.
fn crossings<'a>(
    f: &DeviceFunction,
    structs: &'a [StructDef],
) -> Result<Vec<Crossing<'a>>, DpaAppError> {
    f.params
        .iter()
        .enumerate()
        .map(|(i, p)| crossing(f, i + 1, p, structs))
        .collect()
}

/// Checks that every device function of the app can be declared in Rust.
pub(crate) fn check_functions(
    functions: &[DeviceFunction],
    structs: &[StructDef],
) -> Result<(), DpaAppError> {
    for f in functions {
        if RESERVED.contains(&f.name.as_str()) {
            return Err(DpaAppError::ReservedKernelName {
                name: f.name.clone(),
                file: f.file.clone(),
            });
        }
        crossings(f, structs)?;
    }
    Ok(())
}

/// The C definition of `def` for the launchers' translation unit: the same tag and
/// members, so a value of it is a value of the application's type, and assertions
/// that its layout is the generated Rust one. Pointer members
/// become `void *` (their pointee need not be visible to host code; every object
/// pointer has the same representation and calling convention).
fn launcher_struct(def: &StructDef) -> String {
    let mut c = format!("struct {} {{\n", def.name);
    for f in &def.fields {
        let ty = if f.c_type.contains('*') {
            "void *"
        } else {
            f.c_type.as_str()
        };
        let _ = writeln!(c, "\t{ty} {};", f.name);
    }
    c.push_str("};\n");
    // The launcher copies `sizeof` bytes from the Rust value: the host compiler
    // must agree with the Rust layout, on hardware builds too.
    c.push_str(&layout_asserts(def));
    c
}

/// Whether a parameter, or a field of an application struct, is of the C type
/// `handle` (a DPA handle typedef of a host header the launchers include only then).
fn uses_handle(functions: &[DeviceFunction], structs: &[StructDef], handle: &str) -> bool {
    let named = |c_type: &str| c_type.split_whitespace().any(|w| w == handle);
    functions
        .iter()
        .flat_map(|f| &f.params)
        .any(|p| named(&p.c_type))
        || structs
            .iter()
            .flat_map(|s| &s.fields)
            .any(|f| named(&f.c_type))
}

/// The C file of the launchers: for each kernel,
/// `doca_error_t doca_gen_<app>_launch_<kernel>(const struct doca_gen_launch *l, <ABI params>)`
/// which calls `doca_dpa_kernel_launch_update_add` (or `_set`) with `&<kernel>` and each
/// argument cast to the kernel's parameter type; for each RPC,
/// `doca_error_t doca_gen_<app>_rpc_<rpc>(struct doca_dpa *dpa, uint64_t *ret, <ABI params>)`.
///
/// It is host code: compiled by the host C compiler against the installed DOCA headers
/// (or the sim's reference headers), with the application's include directories so that
/// typedefs shared by host and device resolve. It names each function by its host
/// symbol in a `backend` build (in the sim, its application's own).
pub fn launcher_source(
    app: &str,
    functions: &[DeviceFunction],
    structs: &[StructDef],
    backend: Backend,
) -> Result<String, DpaAppError> {
    let mut c = String::new();
    let _ = writeln!(
        c,
        "// Generated by doca-build-support: the host launchers of DPA application `{app}`.\n\
         // Do not edit; it is rewritten on every build.\n\
         #include <stddef.h>\n\
         #include <stdint.h>\n\
         #include <string.h>\n\
         #include <doca_dpa.h>\n\
         #include <doca_sync_event.h>\n\
         #include <doca_mmap.h>\n\
         #if defined(__has_include)\n\
         #if __has_include(<doca_rdmi_connection.h>)\n\
         #include <doca_rdmi_connection.h>\n\
         #endif\n\
         #if __has_include(<doca_rdmi_poster.h>)\n\
         #include <doca_rdmi_poster.h>\n\
         #endif\n\
         #if __has_include(<doca_comch_consumer.h>)\n\
         #include <doca_comch_consumer.h>\n\
         #include <doca_comch_producer.h>\n\
         #endif\n\
         #endif\n\
         {handle_headers}\n\
         // The fixed arguments of a launch; `doca_dpa::RawLaunch` has the same layout.\n\
         struct doca_gen_launch {{\n\
         \tstruct doca_dpa *dpa;\n\
         \tstruct doca_sync_event *wait_event;\n\
         \tuint64_t wait_threshold;\n\
         \tstruct doca_sync_event *comp_event;\n\
         \tuint64_t comp_count;\n\
         \tuint32_t num_threads;\n\
         \tuint32_t add;\n\
         }};\n",
        handle_headers = [
            // Only then: DOCA's doca_rdma.h needs librdmacm's headers, which an
            // installation that builds no RDMA program may lack.
            ("doca_dpa_dev_rdma_t", "#include <doca_rdma.h>\n"),
            // Only then: doca_verbs.h (which declares the QP handle) is newer than DOCA 3.0.
            ("doca_dpa_dev_verbs_qp_t", "#include <doca_verbs.h>\n"),
        ]
        .iter()
        .filter(|(handle, _)| uses_handle(functions, structs, handle))
        .map(|(_, include)| *include)
        .collect::<String>()
    );
    let mut defined: Vec<&str> = Vec::new();
    for f in functions {
        for x in crossings(f, structs)? {
            if let Crossing::Struct(def) = x {
                if !defined.contains(&def.name.as_str()) {
                    defined.push(&def.name);
                    let _ = writeln!(
                        c,
                        "// `struct {}` of {}:{}, passed by value.\n{}",
                        def.name,
                        def.file.display(),
                        def.line,
                        launcher_struct(def)
                    );
                }
            }
        }
    }
    for f in functions {
        let params = crossings(f, structs)?;
        let _ = writeln!(c, "// {} ({}:{})", prototype(f), f.file.display(), f.line);
        let func = host_symbol(app, f, backend);
        let _ = writeln!(c, "extern doca_dpa_func_t {func};");
        // The launcher's own parameters, each after a comma; the copies of its struct
        // arguments; the arguments it passes on.
        let [mut tail, mut copies, mut pass] = <[String; 3]>::default();
        for (i, (cp, x)) in f.params.iter().zip(&params).enumerate() {
            let abi_c = match x {
                Crossing::Value(p, _) => p.abi_c,
                Crossing::Struct(def) => {
                    // A struct argument arrives as the address of its device layout: copied
                    // into a C value of the struct type, passed by value as a C host program
                    // would.
                    let n = &def.name;
                    let _ = write!(tail, ", const void *a{i}");
                    let _ = write!(
                        copies,
                        "\tstruct {n} v{i};\n\tmemcpy(&v{i}, a{i}, sizeof(v{i}));\n"
                    );
                    let _ = write!(pass, ", v{i}");
                    continue;
                }
            };
            let _ = write!(tail, ", {abi_c} a{i}");
            let _ = if cp.c_type.contains('*') {
                // The pointee type need not be visible here; every object pointer
                // has the representation of `void *` on the DPA and host ABIs.
                write!(pass, ", (void *)(uintptr_t)a{i}")
            } else if matches!(abi_c, "float" | "double") {
                write!(pass, ", a{i}")
            } else {
                write!(pass, ", ({})a{i}", cp.c_type)
            };
        }
        let (lead, call) = match f.kind {
            FunctionKind::Global => (
                "const struct doca_gen_launch *l",
                format!(
                    "\tif (l->add)\n\
                     \t\treturn doca_dpa_kernel_launch_update_add(l->dpa, l->wait_event, l->wait_threshold,\n\
                     \t\t\tl->comp_event, l->comp_count, l->num_threads, &{func}{pass});\n\
                     \treturn doca_dpa_kernel_launch_update_set(l->dpa, l->wait_event, l->wait_threshold,\n\
                     \t\tl->comp_event, l->comp_count, l->num_threads, &{func}{pass});\n"
                ),
            ),
            FunctionKind::Rpc => (
                "struct doca_dpa *dpa, uint64_t *ret",
                format!("\treturn doca_dpa_rpc(dpa, &{func}, ret{pass});\n"),
            ),
        };
        let sym = launcher_symbol(app, f);
        let _ = writeln!(
            c,
            "doca_error_t {sym}({lead}{tail});\ndoca_error_t {sym}({lead}{tail})\n{{\n{copies}{call}}}\n"
        );
    }
    Ok(c)
}

/// The Rust declarations of application `app`, included by
/// `doca_dpa::include_app!(app)` inside `pub mod app { use doca_dpa::__private as __dpa; … }`.
///
/// They define `app()`, one `Kernel` or `Rpc` constant per device function (named like
/// it, with the C prototype as its documentation), the signature types in `__sig`, and
/// the `extern "C"` declarations of the application symbol, the device functions' host
/// symbols and the generated launchers in `__ffi`.
///
/// `__ffi` carries one `#[link(kind = "static")]` per name of `link_libs` (the
/// launchers first, as they refer to the application's symbols), so every crate that
/// includes the declarations links the archives itself: a binary that declares an app
/// links it without naming the crate whose build script built it, and two crates that
/// include the same app in one program share one copy (archive members are taken once).
/// Empty for documentation builds, which build no archive. Each function's host
/// symbol is the one of a `backend` build (in the sim, its application's own).
pub fn rust_source(
    app: &str,
    functions: &[DeviceFunction],
    structs: &[StructDef],
    link_libs: &[String],
    backend: Backend,
) -> Result<String, DpaAppError> {
    let mut r = String::new();
    let _ = writeln!(
        r,
        "// Generated by doca-build-support from the C sources of DPA application `{app}`.\n\
         // Do not edit; it is rewritten on every build.\n\n\
         /// The `--app-name` this application was built with.\n\
         pub const APP_NAME: &str = \"{app}\";\n\n\
         /// The application (`struct doca_dpa_app *{app}`), for `Dpa::start`.\n\
         pub fn app() -> __dpa::App {{\n\
         \x20   // SAFETY: `{app}` is the application symbol defined by the DPA image that\n\
         \x20   // doca-build-support built from these sources and linked into this program.\n\
         \x20   unsafe {{ __dpa::App::from_symbol(__ffi::{app}, APP_NAME) }}\n\
         }}\n\n\
         fn __app_symbol() -> *mut __dpa::sys::doca_dpa_app {{\n\
         \x20   // SAFETY: as in `app()`; the symbol is only read.\n\
         \x20   unsafe {{ __ffi::{app} }}\n\
         }}\n"
    );
    let mut ffi = String::new();
    let mut sigs = String::new();
    let mut markers = String::new();
    for f in functions {
        let params = crossings(f, structs)?;
        let id = rust_ident(&f.name);
        let named: String = params
            .iter()
            .filter_map(|p| match p {
                Crossing::Value(_, Some(Named { param, c_type: None, .. })) => Some(format!(
                    "        /// Names this pointer parameter in compiler messages.\n        #[derive(Debug)]\n        pub enum {param} {{}}\n"
                )),
                Crossing::Value(_, Some(Named { param, c_type: Some(c_type), .. })) => Some(format!(
                    "        /// Names this number parameter and its C type in compiler messages.\n        pub mod {param} {{\n            #[derive(Debug)]\n            pub enum {c_type} {{}}\n        }}\n"
                )),
                _ => None,
            })
            .collect();
        if !named.is_empty() {
            let _ = writeln!(
                markers,
                "    /// The pointer and number parameters of `{name}`.\n    pub mod {id} {{\n{named}    }}",
                name = f.name,
            );
        }
        let doc = format!(
            "`{}`\n///\n/// Defined at `{}:{}`.",
            prototype(f),
            f.file.display(),
            f.line
        );
        // Per parameter: its type in `__sig`, the value `__sig` hands to the launcher,
        // the launcher's parameter type as `__ffi` declares it, and how `__sig` passes
        // value `a{i}`.
        let [mut sig_params, mut abi_decl, mut abi_tuple, mut binding, mut forward] =
            <[String; 5]>::default();
        for (i, x) in params.iter().enumerate() {
            let (sig, abi, ffi, arg) = match x {
                Crossing::Value(p, named) => {
                    let sig = named.as_ref().map_or(p.rust, |n| n.sig.as_str());
                    let arg = format!("a{i}");
                    (sig.to_owned(), p.abi_rust.to_owned(), p.abi_rust, arg)
                }
                Crossing::Struct(def) => {
                    let (n, id) = (&def.name, rust_ident(&def.name));
                    (
                        format!("param::ByValue<super::{id}>"),
                        format!("__dpa::StructAbi<super::__repr_{n}::{id}>"),
                        "*const ::core::ffi::c_void",
                        format!("::core::ptr::addr_of!(a{i}).cast()"),
                    )
                }
            };
            let _ = write!(sig_params, "{sig},");
            let _ = write!(abi_decl, ", a{i}: {ffi}");
            let _ = write!(abi_tuple, "{abi},");
            let _ = write!(binding, "a{i},");
            let _ = write!(forward, ", {arg}");
        }
        let sym = launcher_symbol(app, f);
        // What differs between a kernel and an RPC: the signature trait and its method,
        // the method's leading parameters, the launcher's, and the arguments forwarded.
        let (sig_trait, method, lead, ffi_lead, args, what) = match f.kind {
            FunctionKind::Global => {
                let _ = writeln!(
                    r,
                    "/// {doc}\npub const {id}: __dpa::Kernel<__sig::{id}> =\n\
                     \x20   // SAFETY: `__ffi::{id}` is the host symbol of this application's\n\
                     \x20   // `{name}` and `__sig::{id}` its generated signature.\n\
                     \x20   unsafe {{ __dpa::Kernel::generated(__app_symbol, \"{name}\", __ffi::{id}) }};\n",
                    name = f.name
                );
                (
                    "KernelSig",
                    "launch",
                    "l: &__dpa::RawLaunch",
                    "l: *const __dpa::RawLaunch",
                    "l",
                    "kernel",
                )
            }
            FunctionKind::Rpc => {
                let _ = writeln!(
                    r,
                    "/// {doc}\npub const {id}: __dpa::Rpc<__sig::{id}> =\n\
                     \x20   // SAFETY: `{name}` is a function of this application and\n\
                     \x20   // `__sig::{id}` its generated signature.\n\
                     \x20   unsafe {{ __dpa::Rpc::generated(__app_symbol, \"{name}\") }};\n",
                    name = f.name
                );
                let lead = "dpa: *mut __dpa::sys::doca_dpa, ret: *mut u64";
                ("RpcSig", "call", lead, lead, "dpa, ret", "RPC")
            }
        };
        let host = host_symbol(app, f, backend);
        let _ = writeln!(
            ffi,
            "        #[link_name = \"{host}\"]\n        pub(super) fn {id}();"
        );
        let _ = writeln!(
            ffi,
            "        pub(super) fn {sym}({ffi_lead}{abi_decl}) -> __dpa::sys::doca_error_t;"
        );
        let _ = writeln!(
            sigs,
            "    /// The signature of `{name}`.\n\
             \x20   #[derive(Debug)]\n\
             \x20   pub enum {id} {{}}\n\
             \x20   // SAFETY: `Params` is generated from the C prototype of `{name}` and\n\
             \x20   // `{method}` calls its generated C launcher, which passes each value\n\
             \x20   // with the {what}'s C parameter type.\n\
             \x20   unsafe impl __dpa::{sig_trait} for {id} {{\n\
             \x20       type Params = ({sig_params});\n\
             \x20       const NAME: &'static str = \"{name}\";\n\
             \x20       unsafe fn {method}({lead}, ({binding}): ({abi_tuple})) -> __dpa::sys::doca_error_t {{\n\
             \x20           // SAFETY: forwarded from the caller's contract.\n\
             \x20           unsafe {{ super::__ffi::{sym}({args}{forward}) }}\n\
             \x20       }}\n\
             \x20   }}",
            name = f.name
        );
    }
    for def in declared_structs(structs) {
        struct_source(&mut r, def);
    }
    // One block per archive: the declarations' block links the last, empty blocks
    // link the others (first on the command line).
    let (links, last_link) = match link_libs.split_last() {
        Some((last, others)) => (
            others
                .iter()
                .map(|lib| {
                    format!(
                        "    #[link(name = \"{lib}\", kind = \"static\")]\n    unsafe extern \"C\" {{}}\n"
                    )
                })
                .collect::<String>(),
            format!("    #[link(name = \"{last}\", kind = \"static\")]\n"),
        ),
        None => (String::new(), String::new()),
    };
    if !markers.is_empty() {
        let _ = writeln!(
            r,
            "/// Marker types that name parameters (`param::Ptr`'s and `param::Scalar`'s second argument).\n\
             #[doc(hidden)]\n\
             #[allow(non_camel_case_types, non_snake_case)]\n\
             pub mod __param {{\n{markers}}}\n"
        );
    }
    let _ = writeln!(
        r,
        "/// Signature types of the device functions (one per function).\n\
         #[doc(hidden)]\n\
         #[allow(non_camel_case_types)]\n\
         pub mod __sig {{\n\
         \x20   #[allow(unused_imports)]\n\
         \x20   use super::__dpa::{{self, param}};\n\
         {sigs}}}\n\n\
         #[allow(non_upper_case_globals, dead_code)]\n\
         mod __ffi {{\n\
         \x20   #[allow(unused_imports)]\n\
         \x20   use super::__dpa;\n\
         {links}{last_link}\
         \x20   unsafe extern \"C\" {{\n\
         \x20       pub(super) static {app}: *mut __dpa::sys::doca_dpa_app;\n\
         {ffi}    }}\n\
         }}"
    );
    Ok(r)
}

/// The layout of a struct whose fields all have Rust declarations: for each field
/// its Rust side and byte offset, then the size. Natural alignment, as the C
/// compilers of the DPA (RV64, LP64) and of every supported host lay such structs out;
/// the sim build asserts it against its compiler.
pub fn struct_layout(def: &StructDef) -> Option<(Vec<(RustParam, usize)>, usize)> {
    let mut offset = 0usize;
    let mut align_max = 1usize;
    let mut fields = Vec::new();
    for f in &def.fields {
        let r = if f.c_type.contains('*') {
            // `void *` (any DPA memory, given as `Untyped`) or a pointer to plain data
            // (`uint64_t *`: memory of exactly that element type). A pointer to a
            // struct is not declared (yet), and `T **` or a pointer to handles would
            // carry values nothing keeps alive: such a struct gets no Rust
            // declaration.
            match pointee_type(&f.c_type, &[])?.as_str() {
                "void" => DEV_PTR,
                elem => h64(plain_pointer_param(elem)?),
            }
        } else {
            TYPE_TABLE.iter().find(|(c, _)| *c == f.c_type)?.1.clone()
        };
        let size = match r.abi_rust {
            "u64" | "i64" | "f64" => 8,
            _ => 4,
        };
        offset = offset.next_multiple_of(size);
        align_max = align_max.max(size);
        fields.push((r, offset));
        offset += size;
    }
    Some((fields, offset.next_multiple_of(align_max)))
}

/// The structs of the application that get Rust declarations.
pub fn declared_structs(structs: &[StructDef]) -> Vec<&StructDef> {
    structs
        .iter()
        .filter(|s| !RESERVED.contains(&s.name.as_str()) && struct_layout(s).is_some())
        .collect()
}

fn struct_source(r: &mut String, def: &StructDef) {
    let Some((fields, size)) = struct_layout(def) else {
        return;
    };
    let id = rust_ident(&def.name);
    let mut host = String::new();
    let mut repr = String::new();
    let mut lower = String::new();
    let mut pad = 0usize;
    let mut at = 0usize;
    // Explicit padding up to `to`, when the previous field ended before it.
    let mut pad_to = |to: usize, at: usize, repr: &mut String, lower: &mut String| {
        if to > at {
            let _ = writeln!(repr, "        pub(super) _pad{pad}: [u8; {}],", to - at);
            let _ = writeln!(lower, "            _pad{pad}: [0; {}],", to - at);
            pad += 1;
        }
    };
    for (f, (rp, offset)) in def.fields.iter().zip(&fields) {
        let name = rust_ident(&f.name);
        pad_to(*offset, at, &mut repr, &mut lower);
        at = offset + if rp.abi_rust.ends_with("64") { 8 } else { 4 };
        let (c, ty) = (&f.c_type, rp.rust);
        // A handle or address field keeps its object alive; a scalar is copied.
        let (host_ty, host_doc, repr_ty, repr_doc, lowered) = if ty.starts_with("param::") {
            (
                format!("__dpa::Dev<__dpa::{ty}>"),
                ": kept alive as long as the struct's memory; set it with `Dev::new(&object)?`",
                format!("__dpa::Handle<__dpa::{ty}>"),
                " (the handle, readable only with `unsafe`)",
                format!("__dpa::Handle::lowered(&self.{name}, keep)?"),
            )
        } else {
            let ty = ty.to_owned();
            (ty.clone(), "", ty, "", format!("self.{name}"))
        };
        let field = &f.name;
        let _ = writeln!(
            host,
            "    /// `{c} {field}`{host_doc}.\n    pub {name}: {host_ty},"
        );
        let _ = writeln!(
            repr,
            "        /// `{c} {field}`{repr_doc}.\n        pub {name}: {repr_ty},"
        );
        let _ = writeln!(lower, "            {name}: {lowered},");
    }
    pad_to(size, at, &mut repr, &mut lower);
    let _ = writeln!(
        r,
        "/// `struct {name}`, defined at `{file}:{line}`: its host form, for a\n\
         /// [`DpaBox`](__dpa::DpaBox) in DPA memory, whose handle and address fields\n\
         /// keep their objects alive.\n\
         #[allow(non_camel_case_types)]\n\
         #[derive(Debug)]\n\
         pub struct {id} {{\n{host}}}\n\n\
         /// The device layout of `struct {name}`.\n\
         #[doc(hidden)]\n\
         #[allow(non_camel_case_types)]\n\
         pub mod __repr_{name} {{\n\
         \x20   #[allow(unused_imports)]\n\
         \x20   use super::__dpa;\n\
         \x20   /// The device layout of `struct {name}` (explicit padding).\n\
         \x20   #[repr(C)]\n\
         \x20   #[derive(Clone, Copy, Debug)]\n\
         \x20   pub struct {id} {{\n{repr}    }}\n\
         }}\n\n\
         const _: () = assert!(::core::mem::size_of::<__repr_{name}::{id}>() == {size});\n\n\
         // SAFETY: `Repr` is generated from the C definition with its padding made\n\
         // explicit (no implicit padding; every field accepts any bits), and `lower`\n\
         // records what every handle and address field references.\n\
         unsafe impl __dpa::DeviceStruct for {id} {{\n\
         \x20   type Repr = __repr_{name}::{id};\n\
         \x20   const NAME: &'static str = \"{name}\";\n\
         \x20   fn lower(&self, {keep}: &mut __dpa::Keep<'_>) -> __dpa::Result<Self::Repr> {{\n\
         \x20       Ok(__repr_{name}::{id} {{\n{lower}        }})\n\
         \x20   }}\n\
         }}\n\n\
         // SAFETY: the value is the struct's device layout as `DeviceStruct::lower` makes\n\
         // it (recording what its fields keep alive); the generated launcher copies it\n\
         // into a C `struct {name}`.\n\
         unsafe impl __dpa::KernelArg<__dpa::param::ByValue<{id}>> for {id} {{\n\
         \x20   fn lower(&self, keep: &mut __dpa::Keep<'_>) -> __dpa::Result<__dpa::StructAbi<__repr_{name}::{id}>> {{\n\
         \x20       Ok(__dpa::StructAbi(__dpa::DeviceStruct::lower(self, keep)?))\n\
         \x20   }}\n\
         }}\n",
        name = def.name,
        file = def.file.display(),
        line = def.line,
        keep = if fields.iter().any(|(rp, _)| rp.rust.starts_with("param::")) {
            "keep"
        } else {
            "_keep"
        },
    );
}

/// The message of the assertion that device function `name` is not declared `weak`
/// (the build tells that failure apart by it).
pub(crate) fn weak_assert_message(name: &str) -> String {
    format!("device function `{name}` is declared weak")
}

/// C assertions, for a translation unit that includes the kernels' source, that each of
/// `kernels` has the prototype its generated declaration was made from (its address
/// has the type of a pointer to that function) and is not declared `weak`, and that the
/// compiler lays `structs` out as [`struct_layout`] says. A failing one names the
/// kernel or the struct.
///
/// A weak device function could be replaced, when the program is linked, by another
/// definition of its name (another application's, a library's), and its launches would
/// run that code (issue #33, R4). The compiler says whether a function is weak where it
/// can: GCC's `__builtin_has_attribute` sees `__attribute__((weak))` and `#pragma weak`;
/// a compiler without it (clang) skips that assertion.
pub fn declaration_asserts(kernels: &[DeviceFunction], structs: &[StructDef]) -> String {
    let mut c = String::new();
    let weak: String = kernels
        .iter()
        .map(|k| {
            format!(
                "_Static_assert(!__builtin_has_attribute({}, weak), \"{}\");\n",
                k.name,
                weak_assert_message(&k.name)
            )
        })
        .collect();
    if !weak.is_empty() {
        let _ = write!(
            c,
            "#if defined(__has_builtin)\n#if __has_builtin(__builtin_has_attribute)\n{weak}#endif\n#endif\n"
        );
    }
    for k in kernels {
        let params: Vec<&str> = k.params.iter().map(|p| p.c_type.as_str()).collect();
        let understood = format!("{} (*)({})", k.return_type, c_list(&params));
        let _ = writeln!(
            c,
            "_Static_assert(__builtin_types_compatible_p(__typeof__(&{n}), {understood}), \
             \"kernel {n} ({}:{}): the generated declaration reads its prototype as {}\");",
            k.file.display().to_string().replace(['"', '\\'], "_"),
            k.line,
            prototype(k).replace('"', "'"),
            n = k.name,
        );
    }
    c.push_str(&struct_layout_asserts(structs));
    c
}

/// C assertions that the compiler lays `structs` out as [`struct_layout`] says.
pub fn struct_layout_asserts(structs: &[StructDef]) -> String {
    declared_structs(structs)
        .into_iter()
        .map(layout_asserts)
        .collect()
}

/// C assertions that the compiler lays `def` out as [`struct_layout`] says (empty for
/// a struct without a Rust declaration).
fn layout_asserts(def: &StructDef) -> String {
    let mut c = String::new();
    let Some((fields, size)) = struct_layout(def) else {
        return c;
    };
    let _ = writeln!(
        c,
        "_Static_assert(sizeof(struct {n}) == {size}, \"struct {n}: the generated Rust layout \
         assumes {size} bytes\");",
        n = def.name
    );
    for (f, (_, offset)) in def.fields.iter().zip(&fields) {
        let _ = writeln!(
            c,
            "_Static_assert(offsetof(struct {n}, {f}) == {offset}, \"struct {n}: field {f} \
             is not at offset {offset} as the generated Rust layout assumes\");",
            n = def.name,
            f = f.name
        );
    }
    c
}

#[cfg(test)]
mod tests;
