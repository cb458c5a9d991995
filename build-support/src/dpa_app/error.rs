//! [`DpaAppError`]: why a DPA application could not be built.

use std::ffi::OsString;
use std::path::PathBuf;

/// Why a kernel parameter cannot be used by the software DPA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParamRefusal {
    /// A `struct` passed by value.
    StructByValue,
    /// A `union` passed by value.
    UnionByValue,
    /// An array parameter (`uint64_t a[4]`).
    Array,
    /// A function pointer parameter.
    FunctionPointer,
    /// A variadic kernel (`...`).
    Variadic,
    /// `long double` or a complex type.
    FloatingPoint,
    /// A type narrower than 4 bytes (`char`, `short`, `bool`, `uint8_t`, `uint16_t`…).
    Narrow,
    /// A parameter without a type (only qualifiers, say).
    NoType,
    /// A type that has no Rust declaration (not a fixed-width integer, `float`,
    /// `double`, pointer or DOCA device handle typedef).
    UnknownType,
    /// A pointer whose pointee has no Rust element type (not `void`, a scalar or a
    /// declared struct).
    UnknownPointee,
}

impl ParamRefusal {
    fn explain(self) -> &'static str {
        match self {
            ParamRefusal::StructByValue => {
                "a struct passed by value must be defined in the application's sources (or \
                 a header they include with `#include \"…\"`) as a file-scope \
                 `struct NAME { … }` whose fields are all of supported types (no arrays, \
                 bit-fields or nested members; pointer members only to plain data \
                 (`uint64_t *`) or untyped (`void *`, doca_dpa_dev_uintptr_t)), so that its \
                 host declaration can be generated; otherwise pass a pointer to it in DPA \
                 memory (`struct NAME *`)"
            }
            ParamRefusal::UnionByValue => {
                "unions passed by value are not supported by the software DPA; pass a \
                 pointer in DPA memory instead"
            }
            ParamRefusal::Array => {
                "array parameters are not supported; pass a pointer to its elements in DPA \
                 memory (`T *`) instead"
            }
            ParamRefusal::FunctionPointer => "function pointer parameters are not supported",
            ParamRefusal::Variadic => "variadic device functions are not supported",
            ParamRefusal::FloatingPoint => {
                "long double and complex parameters are not supported; use float or double"
            }
            ParamRefusal::Narrow => {
                "types narrower than 4 bytes cannot pass through the variadic launch call \
                 (C promotes them); declare the parameter uint32_t or int32_t instead"
            }
            ParamRefusal::NoType => "the parameter has no type",
            ParamRefusal::UnknownPointee => {
                "a `T *` parameter takes DPA memory of `T`s, and this pointee has no Rust \
                 element type (`T **` and arrays of DOCA handles or device addresses have \
                 none: nothing would check or keep alive what they hold); point to a \
                 fixed-width integer (8 to 64 bits), float, double or a struct of the \
                 application's sources, or declare it `void *` or doca_dpa_dev_uintptr_t \
                 (which takes DPA memory only as an `unsafe` `Untyped`)"
            }
            ParamRefusal::UnknownType => {
                "its type has no Rust declaration; use one of: uint64_t, uint32_t, int64_t, \
                 int32_t, int, unsigned int, long, unsigned long, size_t, uintptr_t, float, double, \
                 a pointer, or a DOCA device handle typedef (doca_dpa_dev_uintptr_t, doca_dpa_dev_t, doca_dpa_dev_sync_event_t, \
                 doca_dpa_dev_completion_t, doca_dpa_dev_notification_completion_t, \
                 doca_dpa_dev_async_ops_t, doca_dpa_dev_hash_table_t, doca_dpa_dev_mmap_t, \
                 doca_dpa_dev_rdmi_connection_t, doca_rdmi_dev_poster_t, doca_dpa_dev_rdma_t, \
                 doca_dpa_dev_sync_event_remote_net_t, doca_dpa_dev_comch_producer_t, \
                 doca_dpa_dev_comch_consumer_t, doca_dpa_dev_comch_consumer_completion_t, \
                 doca_dpa_dev_verbs_qp_t)"
            }
        }
    }
}

/// Why a DPA application could not be built. The [`Display`](std::fmt::Display) text is the
/// message a build script prints: it says what went wrong and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DpaAppError {
    /// The `--app-name` is not a C identifier.
    #[error(
        "`{name}` cannot be a DPA application name: {reason} (it becomes the C symbol \
         `struct doca_dpa_app *{name}` and dpacc's --app-name, so it must be a C identifier)"
    )]
    InvalidAppName {
        /// The name given.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A define's name is not a C identifier.
    #[error(
        "`{name}` cannot be defined: a macro name is a C identifier (pass the value \
         separately: .define(\"NAME\", Some(\"VALUE\")))"
    )]
    InvalidDefine {
        /// The name given.
        name: String,
    },
    /// No source file was given.
    #[error(
        "DPA application `{app}` has no sources; add them with .source(), .sources() or \
         .sources_in()"
    )]
    NoSources {
        /// The application.
        app: String,
    },
    /// A source directory holds no `*.c` file.
    #[error("no *.c file in {} (DPA sources expected)", .dir.display())]
    EmptySourceDir {
        /// The directory.
        dir: PathBuf,
    },
    /// A file or directory could not be read or written.
    #[error("{}: {message}", .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The system's message.
        message: String,
    },
    /// A path that cannot be used in the generated C or on the dpacc command line.
    #[error("cannot use the path {:?}: {reason}", .path.display())]
    UnusablePath {
        /// The path.
        path: PathBuf,
        /// Why.
        reason: &'static str,
    },
    /// A value that goes into one of dpacc's space-separated option strings contains
    /// whitespace.
    #[error(
        "the {what} `{value}` contains whitespace, which dpacc's option strings cannot \
         carry; use a path or value without spaces"
    )]
    WhitespaceInOption {
        /// What the value is (an include directory, a define…).
        what: &'static str,
        /// The value.
        value: String,
    },
    /// A variable cargo sets (or `links` metadata of doca-dpa-sys) is missing.
    #[error("{name} is not set: {hint}")]
    MissingEnv {
        /// The variable.
        name: &'static str,
        /// What provides it.
        hint: &'static str,
    },
    /// `DEP_DOCA_DPA_BACKEND` has an unknown value.
    #[error(
        "DEP_DOCA_DPA_BACKEND is `{value}`; expected hardware, sim or docs (is doca-dpa-sys \
         from the same doca-rs release as doca-build-support?)"
    )]
    UnknownBackend {
        /// The value.
        value: String,
    },
    /// `DEP_DOCA_DPA_VERSION` is not a DOCA version.
    #[error("DEP_DOCA_DPA_VERSION is `{value}`, which is not a DOCA version")]
    BadDocaVersion {
        /// The value.
        value: String,
    },
    /// A device function parameter the software DPA cannot pass.
    #[error(
        "{}:{line}: device function `{kernel}`, parameter {position} (`{param}`): {}",
        .file.display(), .refusal.explain()
    )]
    UnsupportedParam {
        /// The source file.
        file: PathBuf,
        /// The line of the function's name.
        line: usize,
        /// The device function.
        kernel: String,
        /// The parameter's position (1-based).
        position: usize,
        /// The parameter as written.
        param: String,
        /// Why it is refused.
        refusal: ParamRefusal,
    },
    /// More parameters than the software DPA passes (`DOCA_SIM_MAX_KERNEL_ARGS`).
    #[error(
        "{}:{line}: device function `{kernel}` has {count} parameters; the software DPA \
         passes at most {max} (pack them in a struct in DPA memory and pass its address)",
        .file.display()
    )]
    TooManyParams {
        /// The source file.
        file: PathBuf,
        /// The line of the function's name.
        line: usize,
        /// The device function.
        kernel: String,
        /// How many it declares.
        count: usize,
        /// The maximum.
        max: usize,
    },
    /// A `__dpa_rpc__` function that does not return `uint64_t`.
    #[error(
        "{}:{line}: __dpa_rpc__ function `{kernel}` returns `{found}`; RPC functions must \
         return uint64_t (the value doca_dpa_rpc hands back)",
        .file.display()
    )]
    RpcReturnType {
        /// The source file.
        file: PathBuf,
        /// The line of the function's name.
        line: usize,
        /// The function.
        kernel: String,
        /// The return type as written.
        found: String,
    },
    /// A `__dpa_global__`/`__dpa_rpc__` definition whose shape the scanner does not
    /// understand.
    #[error(
        "{}:{line}: cannot read this device function definition ({reason}): {text}\n(write \
         it as `__dpa_global__ void name(type a, type b) {{` or `__dpa_rpc__ uint64_t \
         name(…) {{`)",
        .file.display()
    )]
    UnsupportedDeclaration {
        /// The source file.
        file: PathBuf,
        /// Its line.
        line: usize,
        /// The declaration, as tokens joined by spaces.
        text: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// A device function is declared `weak` (as the compiler says, where it can: see
    /// [`declaration_asserts`](super::declaration_asserts)).
    #[error(
        "{}:{line}: device function `{name}` of DPA application `{app}` is declared weak: a \
         weak definition can be replaced, when the program is linked, by another function \
         of the same name (another application's, a library's), and its launches would run \
         that code; remove `__attribute__((weak))` / `#pragma weak` (two applications may \
         each define a function of the same name)",
        .file.display()
    )]
    WeakDeviceFunction {
        /// The application.
        app: String,
        /// The function.
        name: String,
        /// Its source file.
        file: PathBuf,
        /// The line of its name.
        line: usize,
    },
    /// Two device functions of one application have the same name.
    #[error(
        "device function `{name}` is defined twice in one DPA application: in {} and in {}",
        .first.display(), .second.display()
    )]
    DuplicateKernel {
        /// The name.
        name: String,
        /// Where it was first defined.
        first: PathBuf,
        /// Where it was defined again.
        second: PathBuf,
    },
    /// A device function has the name of the application symbol.
    #[error(
        "device function `{name}` in {} has the name of its DPA application; rename one of \
         them (both become C symbols)",
        .file.display()
    )]
    KernelNamedLikeApp {
        /// The name.
        name: String,
        /// Where the function is.
        file: PathBuf,
    },
    /// A device function has a name the generated Rust module uses for itself.
    #[error(
        "device function `{name}` in {} has a name the generated Rust declarations use \
         themselves (`app`, `APP_NAME`, `__ffi`, `__sig`, `__dpa`); rename it",
        .file.display()
    )]
    ReservedKernelName {
        /// The name.
        name: String,
        /// Where the function is.
        file: PathBuf,
    },
    /// No `__dpa_global__` or `__dpa_rpc__` function in any source.
    #[error(
        "DPA application `{app}` defines no __dpa_global__ or __dpa_rpc__ function; \
         scanned: {} (device functions defined in headers are not seen; define them in \
         the .c sources)",
        crate::join_paths(.sources, " ")
    )]
    NoKernels {
        /// The application.
        app: String,
        /// The sources scanned.
        sources: Vec<PathBuf>,
    },
    /// Compiling the application for the software DPA failed.
    #[error(
        "compiling DPA application `{app}` for the software DPA failed: {message}\n\
         (generated file: {}; the sources are compiled for the host against doca-sim's \
         device headers, which implement a subset of the DPA device API)",
        .generated.display()
    )]
    SimCompile {
        /// The application.
        app: String,
        /// The generated C file.
        generated: PathBuf,
        /// The message of the `cc` crate.
        message: String,
    },
    /// The C preprocessor could not read a source as the kernel compile sees it.
    #[error(
        "the C preprocessor could not read {} as the kernel compile sees it (with the \
         application's include directories and defines and the DOCA headers): {message}",
        .file.display()
    )]
    Preprocess {
        /// The source.
        file: PathBuf,
        /// The message of the `cc` crate.
        message: String,
    },
    /// The C compiler refused a source of the application, compiled alone as the kernel
    /// compile sees it: the application's own C error, in the compiler's words.
    #[error("{} does not compile:\n{message}", .file.display())]
    SourceCompile {
        /// The source.
        file: PathBuf,
        /// The compiler's message.
        message: String,
    },
    /// The compiler found that the generated declarations misread a kernel's prototype
    /// or a struct's layout (the scanner's mistake, a build error instead of a wrong
    /// declaration).
    #[error(
        "the generated declarations of DPA application `{app}` do not match its C sources \
         (a doca-build-support bug; please report it):\n{message}\n(generated file: {})",
        .generated.display()
    )]
    DeclarationCheck {
        /// The application.
        app: String,
        /// The generated check file.
        generated: PathBuf,
        /// The compiler's message.
        message: String,
    },
    /// The generated host launchers did not compile.
    #[error(
        "compiling the host launchers of DPA application `{app}` failed: {message}\n\
         (generated file: {}; it is host code compiled against the DOCA headers, with the \
         application's include directories)",
        .generated.display()
    )]
    LauncherCompile {
        /// The application.
        app: String,
        /// The generated C file.
        generated: PathBuf,
        /// The message of the `cc` crate.
        message: String,
    },
    /// A tool (dpacc, dpa-app-attributes2blob) was not found.
    #[error(
        "{tool} was not found; tried: {}. Set {env_var} to its path{}",
        .tried.join(", "),
        if *.tool == "dpacc" {
            ", install the DOCA DPA tools (dpacc ships with the DOCA SDK), or build for the \
             software DPA (the `sim` feature of `doca`)"
        } else {
            ""
        }
    )]
    ToolNotFound {
        /// The tool.
        tool: &'static str,
        /// The variable that selects it.
        env_var: &'static str,
        /// What was tried, in order.
        tried: Vec<String>,
    },
    /// A tool could not be run or exited with a failure.
    #[error(
        "`{}` failed ({status}){}",
        quote_command(.program, .args),
        match .output.trim() { "" => String::new(), out => format!(":\n{out}") }
    )]
    ToolFailed {
        /// The program.
        program: PathBuf,
        /// Its arguments.
        args: Vec<OsString>,
        /// The exit status, or why it could not run.
        status: String,
        /// What it wrote (stderr, then stdout).
        output: String,
    },
    /// `dpacc --version` printed no version number.
    #[error(
        "could not read a version number in the output of `{} --version`:\n{}",
        .dpacc.display(), .output.trim()
    )]
    DpaccVersionUnparseable {
        /// The compiler.
        dpacc: PathBuf,
        /// What it printed.
        output: String,
    },
    /// dpacc is known to belong to another DOCA release.
    #[error(
        "dpacc {dpacc_version} ({}) is the dpacc of DOCA {dpacc_doca_release}, but DOCA is \
         {doca_version}: kernels built by another release's dpacc fail at load or launch \
         time. Use the dpacc of the DOCA install (its tools/ directory), or the one the DOCA \
         Compatibility Policy lists for DOCA {doca_version}, and point DPACC at it (set \
         DOCA_DPACC_SKIP_VERSION_CHECK=1 to build anyway)",
        .dpacc.display()
    )]
    DpaccVersionMismatch {
        /// The compiler.
        dpacc: PathBuf,
        /// Its version, as printed.
        dpacc_version: String,
        /// The DOCA release (`3.1`) this dpacc is known to belong to.
        dpacc_doca_release: String,
        /// DOCA's version.
        doca_version: String,
    },
    /// A tool reported success without writing its output.
    #[error("{} succeeded but did not write {}", .program.display(), .path.display())]
    MissingOutput {
        /// The tool.
        program: PathBuf,
        /// The file it should have written.
        path: PathBuf,
    },
}

fn quote_command(program: &std::path::Path, args: &[OsString]) -> String {
    let quoted = args.iter().map(|a| {
        let a = a.to_string_lossy();
        if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '"' || c == '\'') {
            format!("'{}'", a.replace('\'', "'\\''"))
        } else {
            a.into_owned()
        }
    });
    let words: Vec<String> = std::iter::once(program.display().to_string())
        .chain(quoted)
        .collect();
    words.join(" ")
}

#[cfg(test)]
mod tests;
