//! Making the committed check file of a binding set ([`doca_build_support::check`]) at regeneration
//! time: libclang (loaded at run time, as bindgen loads it) reads the reference headers
//! with bindgen's arguments and gives, for every item of the set's committed bindings,
//! its C spelling — a function's type, a typedef's target, a record's tag, size,
//! alignment and the offset and type of each field — which [`render`] writes as the
//! `DOCA_RS_*` lines the compiler checks against an installed DOCA.

// libclang's constants keep their C names.
#![allow(non_upper_case_globals)]

use std::collections::BTreeMap;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clang_sys::*;

use doca_build_support::binding_set::{resolve_headers, BindingSet};
use doca_build_support::bundled::{committed_items, CommittedKind, VERSION_MACROS};

/// One field of a record: its name, byte offset (`None` for a bit-field) and C type
/// (`None` when the type has no name a check can write, an anonymous struct say).
#[derive(Debug, Clone, PartialEq, Eq)]
struct FieldInfo {
    name: String,
    offset: Option<u64>,
    c_type: Option<String>,
}

/// A record (struct or union) or an enum: its size, alignment and fields.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Layout {
    size: u64,
    align: u64,
    fields: Vec<FieldInfo>,
    /// Enums: whether C gives them a signed integer type.
    signed: bool,
}

/// What libclang says of the reference headers' declarations, by name.
#[derive(Debug, Default)]
struct Decls {
    /// Function name → its type (`doca_error_t (struct doca_dpa *)`) and, when the type
    /// has 64-bit integers, the type with each of them spelled either way
    /// ([`int64_variants`]).
    functions: BTreeMap<String, (String, Vec<String>)>,
    /// Typedef name → its target's spelling and, when the target has no writable name
    /// (an anonymous struct or enum) or is a record or enum, its layout.
    typedefs: BTreeMap<String, (String, Option<Layout>)>,
    /// `struct x` / `union x` / `enum x` → layout.
    tagged: BTreeMap<String, Layout>,
}

/// Owns a libclang string and gives its text.
fn take(s: CXString) -> String {
    // SAFETY: `s` is a CXString libclang just returned; clang_getCString gives a
    // NUL-terminated buffer (or null) valid until clang_disposeString, called once here
    // after the text is copied.
    unsafe {
        let p = clang_getCString(s);
        let text = if p.is_null() {
            String::new()
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        };
        clang_disposeString(s);
        text
    }
}

fn type_spelling(t: CXType) -> String {
    // SAFETY: `t` comes from libclang for a translation unit that is still alive.
    take(unsafe { clang_getTypeSpelling(t) })
}

fn cursor_spelling(c: CXCursor) -> String {
    // SAFETY: as in type_spelling, for a cursor.
    take(unsafe { clang_getCursorSpelling(c) })
}

/// Whether a spelling is one a C file can write (not `struct (unnamed at …)`).
fn writable(spelling: &str) -> bool {
    !spelling.contains("(unnamed") && !spelling.contains("(anonymous")
}

extern "C" fn visit_field(c: CXCursor, data: CXClientData) -> CXVisitorResult {
    // SAFETY: `data` is the `&mut Vec<FieldInfo>` that `layout` passes to
    // clang_Type_visitFields, which calls this function only during that call.
    let fields = unsafe { &mut *(data as *mut Vec<FieldInfo>) };
    // SAFETY: `c` is a field cursor of a live translation unit.
    let (bit_field, offset_bits, t) = unsafe {
        (
            clang_Cursor_isBitField(c) != 0,
            clang_Cursor_getOffsetOfField(c),
            clang_getCursorType(c),
        )
    };
    let name = cursor_spelling(c);
    let c_type = type_spelling(t);
    if !name.is_empty() {
        fields.push(FieldInfo {
            name,
            offset: (!bit_field && offset_bits >= 0).then_some(offset_bits as u64 / 8),
            c_type: writable(&c_type).then_some(c_type),
        });
    }
    CXVisit_Continue
}

/// The layout of a record or enum type (its canonical type).
fn layout(t: CXType) -> Layout {
    let mut fields: Vec<FieldInfo> = Vec::new();
    // SAFETY: `t` is a type of a live translation unit; visit_field gets `fields` as
    // its client data for the duration of the call only.
    let (size, align, kind) = unsafe {
        let canonical = clang_getCanonicalType(t);
        if canonical.kind == CXType_Record {
            clang_Type_visitFields(
                canonical,
                visit_field,
                &mut fields as *mut Vec<FieldInfo> as *mut c_void,
            );
        }
        (
            clang_Type_getSizeOf(canonical),
            clang_Type_getAlignOf(canonical),
            canonical.kind,
        )
    };
    let signed = kind == CXType_Enum && {
        // SAFETY: the declaration cursor of an enum type of a live translation unit.
        let int = unsafe { clang_getEnumDeclIntegerType(clang_getTypeDeclaration(t)) };
        !type_spelling(int).starts_with("unsigned")
    };
    Layout {
        size: size.max(0) as u64,
        align: align.max(0) as u64,
        fields,
        signed,
    }
}

/// The integer typedefs bindgen gives the pointer-sized Rust types.
const POINTER_SIZED: &[&str] = &["size_t", "ssize_t", "uintptr_t", "intptr_t", "ptrdiff_t"];

/// `t` with every 64-bit integer in it (through pointers) spelled `base` (`long`
/// or `long long`, with `unsigned` for unsigned ones); `None` when it has none.
fn respelled(t: CXType, long_long: bool) -> Option<String> {
    // SAFETY: `t` is a type of a live translation unit.
    let c = unsafe { clang_getCanonicalType(t) };
    // SAFETY: as above.
    let constant = unsafe { clang_isConstQualifiedType(c) } != 0;
    // SAFETY: as above.
    let volatile = unsafe { clang_isVolatileQualifiedType(c) } != 0;
    let quals = match (constant, volatile) {
        (true, true) => "const volatile ",
        (true, false) => "const ",
        (false, true) => "volatile ",
        (false, false) => "",
    };
    let width = if long_long { "long long" } else { "long" };
    #[allow(non_upper_case_globals)]
    match c.kind {
        CXType_Pointer => {
            // SAFETY: a pointer type of a live translation unit.
            let pointee = respelled(unsafe { clang_getPointeeType(c) }, long_long)?;
            Some(
                format!("{pointee} *{}", quals.trim_end())
                    .trim_end()
                    .to_owned(),
            )
        }
        // SAFETY: as above; clang_Type_getSizeOf of an integer type is its width.
        CXType_Long | CXType_LongLong if unsafe { clang_Type_getSizeOf(c) } == 8 => {
            Some(format!("{quals}{width}"))
        }
        // SAFETY: as above.
        CXType_ULong | CXType_ULongLong if unsafe { clang_Type_getSizeOf(c) } == 8 => {
            Some(format!("{quals}unsigned {width}"))
        }
        _ => None,
    }
}

/// A function type with every 64-bit integer among its result and parameters (through
/// pointers) spelled `long` or `long long` in every combination, when it has any (empty
/// otherwise): Rust sees both spellings as one type (`u64`, `i64`), C does not, and the
/// real headers spell some of them otherwise than the reference headers (`doca_be64_t`
/// is `__be64`, an `unsigned long long`, on Linux). Parameters without such an integer
/// keep their spelling (its typedef names resolve in the installed headers).
fn int64_variants(t: CXType) -> Vec<String> {
    // SAFETY: `t` is a function type of a live translation unit.
    let (result, n, variadic) = unsafe {
        (
            clang_getResultType(t),
            clang_getNumArgTypes(t),
            clang_isFunctionTypeVariadic(t) != 0,
        )
    };
    let params: Vec<CXType> = (0..n.max(0) as c_uint)
        // SAFETY: `i` is below the function type's number of parameters.
        .map(|i| unsafe { clang_getArgType(t, i) })
        .collect();
    let positions: Vec<CXType> = std::iter::once(result).chain(params).collect();
    // bindgen maps these to `usize`/`isize`, not to `u64`/`i64`: their spelling stays.
    let pointer_sized = |t: CXType| {
        type_spelling(t)
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .any(|w| POINTER_SIZED.contains(&w))
    };
    let varied: Vec<usize> = (0..positions.len())
        .filter(|&i| !pointer_sized(positions[i]) && respelled(positions[i], false).is_some())
        .collect();
    if varied.is_empty() {
        return Vec::new();
    }
    (0..1u32 << varied.len())
        .map(|mask| {
            let spelled: Vec<String> = positions
                .iter()
                .enumerate()
                .map(|(i, &p)| match varied.iter().position(|&v| v == i) {
                    Some(bit) => respelled(p, mask & (1 << bit) != 0).unwrap_or_default(),
                    None => type_spelling(p),
                })
                .collect();
            let mut args = spelled[1..].join(", ");
            if variadic {
                args.push_str(if args.is_empty() { "..." } else { ", ..." });
            } else if args.is_empty() {
                args.push_str("void");
            }
            format!("{} ({args})", spelled[0])
        })
        .collect()
}

extern "C" fn visit_top(c: CXCursor, _parent: CXCursor, data: CXClientData) -> CXChildVisitResult {
    // SAFETY: `data` is the `&mut Decls` that `read_decls` passes to clang_visitChildren,
    // which calls this function only during that call.
    let decls = unsafe { &mut *(data as *mut Decls) };
    // SAFETY: `c` is a cursor of a live translation unit.
    let (kind, t, definition) = unsafe {
        (
            c.kind,
            clang_getCursorType(c),
            clang_isCursorDefinition(c) != 0,
        )
    };
    let name = cursor_spelling(c);
    match kind {
        CXCursor_FunctionDecl => {
            decls
                .functions
                .insert(name, (type_spelling(t), int64_variants(t)));
        }
        CXCursor_TypedefDecl => {
            // SAFETY: a typedef cursor of a live translation unit.
            let target = unsafe { clang_getTypedefDeclUnderlyingType(c) };
            // SAFETY: as above.
            let canonical = unsafe { clang_getCanonicalType(target) }.kind;
            let spelled = type_spelling(target);
            let needs_layout =
                !writable(&spelled) || canonical == CXType_Record || canonical == CXType_Enum;
            decls
                .typedefs
                .insert(name, (spelled, needs_layout.then(|| layout(target))));
        }
        CXCursor_StructDecl | CXCursor_UnionDecl | CXCursor_EnumDecl
            if definition && !name.is_empty() =>
        {
            let spelled = type_spelling(t);
            if writable(&spelled) {
                decls.tagged.insert(spelled, layout(t));
            }
        }
        _ => {}
    }
    CXChildVisit_Continue
}

/// Why the check file could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckGenError {
    /// libclang could not be loaded or could not parse the headers.
    Libclang(String),
    /// A committed item has no declaration libclang found (a doca-rs bug).
    Unknown(String),
}

impl std::fmt::Display for CheckGenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckGenError::Libclang(m) => write!(f, "libclang: {m}"),
            CheckGenError::Unknown(m) => write!(
                f,
                "no declaration in the reference headers for {m}, so it cannot be checked"
            ),
        }
    }
}

impl std::error::Error for CheckGenError {}

/// Parses `header` (a file including the set's headers) as bindgen does and collects the
/// declarations.
fn read_decls(header: &Path, include_dirs: &[PathBuf]) -> Result<Decls, CheckGenError> {
    if !clang_sys::is_loaded() {
        clang_sys::load().map_err(CheckGenError::Libclang)?;
    }
    let mut args: Vec<CString> = doca_build_support::audit::BINDGEN_DEFINES
        .iter()
        .map(|m| format!("-D{m}"))
        .chain(include_dirs.iter().map(|d| format!("-I{}", d.display())))
        .chain(["-xc".to_owned()])
        .filter_map(|a| CString::new(a).ok())
        .collect();
    let path = CString::new(header.display().to_string())
        .map_err(|e| CheckGenError::Libclang(e.to_string()))?;
    args.shrink_to_fit();
    let argv: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
    let mut decls = Decls::default();
    // SAFETY: `path` and every pointer of `argv` are NUL-terminated strings that outlive
    // the parse; the index and translation unit are disposed of once, after the visit;
    // visit_top gets `decls` as client data for the visit only.
    unsafe {
        let index = clang_createIndex(0, 0);
        let tu = clang_parseTranslationUnit(
            index,
            path.as_ptr(),
            argv.as_ptr(),
            argv.len() as c_int,
            std::ptr::null_mut(),
            0,
            CXTranslationUnit_None,
        );
        if tu.is_null() {
            clang_disposeIndex(index);
            return Err(CheckGenError::Libclang(format!(
                "could not parse {}",
                header.display()
            )));
        }
        let errors = (0..clang_getNumDiagnostics(tu))
            .map(|i| clang_getDiagnostic(tu, i as c_uint))
            .filter(|d| clang_getDiagnosticSeverity(*d) >= CXDiagnostic_Error)
            .count();
        clang_visitChildren(
            clang_getTranslationUnitCursor(tu),
            visit_top,
            &mut decls as *mut Decls as *mut c_void,
        );
        clang_disposeTranslationUnit(tu);
        clang_disposeIndex(index);
        if errors > 0 {
            return Err(CheckGenError::Libclang(format!(
                "{errors} errors parsing the headers of {}",
                header.display()
            )));
        }
    }
    Ok(decls)
}

/// The `DOCA_RS_*` lines of a record or enum `c_spelling`, bound as `rust_name`.
fn layout_lines(out: &mut String, rust_name: &str, c_spelling: &str, l: &Layout) {
    let _ = writeln!(
        out,
        "DOCA_RS_LAYOUT({rust_name}, {c_spelling}, {}, {})",
        l.size, l.align
    );
    if c_spelling.starts_with("enum ") || (l.fields.is_empty() && l.signed) {
        let _ = writeln!(
            out,
            "DOCA_RS_SIGNED({rust_name}, {c_spelling}, {})",
            u8::from(l.signed)
        );
    }
    for f in &l.fields {
        if let Some(offset) = f.offset {
            let _ = writeln!(
                out,
                "DOCA_RS_OFFSET({rust_name}, {c_spelling}, {}, {offset})",
                f.name
            );
        }
        if let Some(t) = &f.c_type {
            let _ = writeln!(
                out,
                "DOCA_RS_FIELD({rust_name}, {c_spelling}, {}, {t})",
                f.name
            );
        }
    }
}

/// The integer right-hand side of a committed `pub const NAME: T = V;` line, as a C
/// constant (`None` for a string or another value the check does not compare).
fn const_value(line: &str) -> Option<String> {
    let v = line.split_once(" = ")?.1.trim_end_matches(';').trim();
    let n: i128 = v.parse().ok()?;
    Some(if n < 0 {
        format!("({n}LL)")
    } else {
        format!("{n}ULL")
    })
}

/// The check file of `set` for its committed bindings `committed`, from the reference
/// headers in `include_dirs`.
pub fn render(
    set: BindingSet,
    committed: &str,
    include_dirs: &[PathBuf],
) -> Result<String, CheckGenError> {
    let sel = resolve_headers(set, include_dirs, &[]);
    let input = std::env::temp_dir().join(format!(
        "doca-rs-check-input-{}-{}.h",
        set.name(),
        std::process::id()
    ));
    let text: String = sel
        .used
        .iter()
        .map(|h| format!("#include \"{}\"\n", h.display()))
        .collect();
    std::fs::write(&input, text).map_err(|e| CheckGenError::Libclang(e.to_string()))?;
    let decls = read_decls(&input, include_dirs);
    let _ = std::fs::remove_file(&input);
    let decls = decls?;

    let mut out = format!(
        "{}\n// The compile-time check of the bundled {} bindings (doca-build-support's `check`\n\
         // module): each line asserts one item as the reference headers declare it.\n",
        doca_build_support::binding_set::GENERATED_HEADER,
        set.name()
    );
    let const_lines: BTreeMap<&str, &str> = committed
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("pub const ")?;
            Some((rest.split(':').next()?, l))
        })
        .collect();
    for item in committed_items(committed) {
        let name = item.name.as_str();
        let unknown = || CheckGenError::Unknown(format!("{:?} {name}", item.kind));
        match item.kind {
            CommittedKind::Function => {
                let (t, variants) = decls.functions.get(name).ok_or_else(unknown)?;
                let noreturn = committed.contains(&format!("pub fn {name}("))
                    && committed
                        .split(&format!("pub fn {name}("))
                        .nth(1)
                        .and_then(|rest| rest.split(';').next())
                        .is_some_and(|sig| sig.trim_end().ends_with("-> !"));
                if variants.is_empty() {
                    let _ = writeln!(out, "DOCA_RS_FN({name}, {}, {t})", u8::from(noreturn));
                } else {
                    let either: Vec<String> = variants
                        .iter()
                        .map(|v| format!("DOCA_RS_IS({name}, {v})"))
                        .collect();
                    let _ = writeln!(
                        out,
                        "DOCA_RS_FN_INTS({name}, {}, {t}, {})",
                        u8::from(noreturn),
                        either.join(" || ")
                    );
                }
            }
            // Taken from the installed doca_version.h, not checked.
            CommittedKind::Constant if VERSION_MACROS.contains(&name) => {
                let _ = writeln!(out, "DOCA_RS_INSTALLED({name})");
            }
            CommittedKind::Constant => match const_lines.get(name).and_then(|l| const_value(l)) {
                Some(v) => {
                    let _ = writeln!(out, "DOCA_RS_VALUE({name}, {v})");
                }
                // A string macro: the version string is rewritten from the installed
                // header; any other is checked by its length.
                None => {
                    let len = const_lines
                        .get(name)
                        .and_then(|l| l.split("&[u8; ").nth(1))
                        .and_then(|r| r.split(']').next())
                        .ok_or_else(unknown)?;
                    let _ = writeln!(out, "DOCA_RS_STRLEN({name}, {len})");
                }
            },
            CommittedKind::Type | CommittedKind::Alias => {
                if let Some((target, l)) = decls.typedefs.get(name) {
                    match l {
                        Some(l) if !writable(target) => layout_lines(&mut out, name, name, l),
                        _ => {
                            let _ = writeln!(out, "DOCA_RS_TYPEDEF({name}, {target})");
                        }
                    }
                } else {
                    let spelled = format!("enum {name}");
                    let l = decls.tagged.get(&spelled).ok_or_else(unknown)?;
                    layout_lines(&mut out, name, &spelled, l);
                }
            }
            CommittedKind::Struct | CommittedKind::Union => {
                let tag = if item.kind == CommittedKind::Struct {
                    "struct"
                } else {
                    "union"
                };
                let spelled = format!("{tag} {name}");
                match (decls.tagged.get(&spelled), decls.typedefs.get(name)) {
                    (Some(l), _) => layout_lines(&mut out, name, &spelled, l),
                    (None, Some((_, Some(l)))) => layout_lines(&mut out, name, name, l),
                    _ => return Err(unknown()),
                }
            }
            CommittedKind::OpaqueStruct => {
                let _ = writeln!(out, "DOCA_RS_OPAQUE({name})");
            }
            CommittedKind::Other => return Err(unknown()),
        }
    }
    Ok(out)
}
