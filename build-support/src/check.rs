//! The compile-time check of the bundled bindings against an installed DOCA: the C
//! compiler, not Rust code, judges whether the installed headers declare every bound
//! item as the reference headers the bindings were made from, as Rust sees it.
//!
//! Each set has a committed check file beside its bundled bindings
//! ([`BindingSet::check_file`]), one `DOCA_RS_*` line per item, made by
//! `cargo regen-bindings` from what libclang reads in the reference headers. A hardware
//! build without the `bindgen` feature compiles the installed headers, [`CHECK_MACROS`]
//! and those lines; presence comes from the preprocessor (`cc -E -dD`,
//! [`crate::audit::decls`]) and the symbols called from the object file. What each line
//! asserts, which differences are accepted (integers of one width and signedness, enum
//! and integer, typedef chains) and which refused, and how a refusal reads:
//! `docs/bindings-check.md`, the one page that states it.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use object::{Object, ObjectSymbol};

use crate::audit::decls::declarations_in;
use crate::binding_set::BindingSet;
use crate::bundled::{committed_items, CommittedKind, VERSION_MACROS};
use crate::dpa_app::parse::{lex, matching, Lexed};
use crate::env::EnvReader;

/// The defines bindgen is given, so the check sees what bindgen would.
pub const BINDGEN_DEFINES: &[&str] = &["DOCA_ALLOW_EXPERIMENTAL_API", "DOCA_ALLOW_DEPRECATED_API"];

/// The macros the check lines use (`docs/bindings-check.md`). Every message starts
/// `doca-rs check: <item>:`; `DOCA_RS_SAME` is "as Rust sees it" (compatible, or integers
/// of one width and signedness, which `_Generic` tells); the macros warn of nothing.
pub const CHECK_MACROS: &str = r#"
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#if defined(__has_builtin)
#if __has_builtin(__builtin_has_attribute)
#define DOCA_RS_NORETURN(name, noret) _Static_assert(__builtin_has_attribute(name, __noreturn__) == noret, "doca-rs check: " #name ": noreturn differs from the bindings");
#endif
#endif
#ifndef DOCA_RS_NORETURN
#define DOCA_RS_NORETURN(name, noret)
#endif
#define DOCA_RS_INT(type) _Generic((__typeof__(type) *)0, \
    _Bool *: 0x1b, char *: (CHAR_MIN < 0 ? 0x12 : 0x11), signed char *: 0x12, unsigned char *: 0x11, \
    short *: 0x22, unsigned short *: 0x21, int *: 0x42, unsigned int *: 0x41, \
    long *: 0x02 + 0x10 * sizeof(long), unsigned long *: 0x01 + 0x10 * sizeof(long), \
    long long *: 0x82, unsigned long long *: 0x81, default: 0)
#define DOCA_RS_SAME(a, b) (__builtin_types_compatible_p(a, b) || (DOCA_RS_INT(a) != 0 && DOCA_RS_INT(a) == DOCA_RS_INT(b)))
#define DOCA_RS_IS(name, type) __builtin_types_compatible_p(__typeof__(name), type)
#define DOCA_RS_FN_OF(name, noret, type, same) \
    _Static_assert(same, "doca-rs check: " #name ": its type is not the reference type " #type); \
    DOCA_RS_NORETURN(name, noret) \
    void (*const doca_rs_ref_##name)(void) = (void (*)(void))&name;
#define DOCA_RS_FN(name, noret, type) DOCA_RS_FN_OF(name, noret, type, DOCA_RS_IS(name, type))
#define DOCA_RS_FN_INTS(name, noret, type, either) DOCA_RS_FN_OF(name, noret, type, either)
#define DOCA_RS_VALUE(name, v) _Static_assert((name) == (v) && (((name) < 0) == ((v) < 0)), "doca-rs check: " #name ": its value is not " #v);
#define DOCA_RS_STRLEN(name, n) _Static_assert(sizeof(name) == (n), "doca-rs check: " #name ": its length is not " #n);
#define DOCA_RS_TYPEDEF(name, type) _Static_assert(DOCA_RS_SAME(name, type), "doca-rs check: " #name ": it is not the reference type " #type);
#define DOCA_RS_LAYOUT(name, type, size, align) _Static_assert(sizeof(type) == (size) && _Alignof(type) == (align), "doca-rs check: " #name ": " #type " is not " #size " bytes aligned to " #align);
#define DOCA_RS_SIGNED(name, type, s) _Static_assert((DOCA_RS_INT(type) & 0xf) == ((s) ? 2 : 1), "doca-rs check: " #name ": the signedness of " #type " differs");
#define DOCA_RS_OFFSET(name, type, field, off) _Static_assert(offsetof(type, field) == (off), "doca-rs check: " #name ": field " #field " is not at offset " #off);
#define DOCA_RS_FIELD(name, type, field, ftype) _Static_assert(DOCA_RS_SAME(__typeof__(((type *)0)->field), ftype), "doca-rs check: " #name ": field " #field " is not " #ftype);
#define DOCA_RS_OPAQUE(name)
#define DOCA_RS_INSTALLED(name)
/* The values' sign test compares unsigned constants with 0 on purpose. */
#pragma GCC diagnostic ignored "-Wtype-limits"
"#;

/// The item a check line is about: the first argument of its `DOCA_RS_*` macro.
fn line_item(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("DOCA_RS_")?;
    let args = &rest[rest.find('(')? + 1..];
    let end = args.find([',', ')'])?;
    Some(args[..end].trim())
}

/// What the check found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckReport {
    /// Lines of the check the compiler passed.
    pub checked: usize,
    /// Bound functions the install does not declare (left out of the bindings).
    pub absent_functions: BTreeSet<String>,
    /// The installed `doca_version.h`'s version macros as `#define` lines.
    pub version_defines: String,
}

/// One item the install declares otherwise than the bundled bindings expect.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{item}: {expected}{}", .installed.as_ref().map(|t| format!("; the install declares {t}")).unwrap_or_default())]
pub struct Difference {
    /// The item (a function, typedef, record, enum or constant of the bindings).
    pub item: String,
    /// What the bindings expect, from the failing assertion (`its type is not the
    /// reference type doca_error_t (struct doca_dpa *)`).
    pub expected: String,
    /// The install's declaration as the compiler prints it, quoted (functions and
    /// typedefs).
    pub installed: Option<String>,
}

/// Why the check refused the install (or could not run).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// Items of the committed bindings that the check file does not cover.
    #[error(
        "the committed bindings declare items the committed check file does not cover, so \
         they cannot be checked against the installed headers: {} (a doca-rs bug; the \
         `bindgen` feature avoids it)",
        .0.join(", ")
    )]
    Uncovered(Vec<String>),
    /// The install declares these items differently, one a line first (`  - item: why`),
    /// then the compiler's output (`detail`).
    #[error("{}{}", differences_text(.differences), detail_text(.detail))]
    Differs {
        /// The items, each with what differs.
        differences: Vec<Difference>,
        /// The compiler's output or what else was found.
        detail: String,
    },
    /// The compiler could not be run.
    #[error("the C compiler could not run the check: {0}")]
    Compiler(String),
}

fn differences_text(differences: &[Difference]) -> String {
    differences.iter().map(|d| format!("  - {d}\n")).collect()
}

fn detail_text(detail: &str) -> String {
    if detail.trim().is_empty() {
        String::new()
    } else {
        format!("(the C compiler's output follows)\n{}", detail.trim_end())
    }
}

impl Difference {
    /// `item` differs: `expected` (the install's declaration not yet described).
    fn new(item: impl Into<String>, expected: impl Into<String>) -> Self {
        let (item, expected) = (item.into(), expected.into());
        Difference {
            item,
            expected,
            installed: None,
        }
    }
}

impl CheckError {
    /// A refusal of `items` for one reason, `why`.
    fn differs(items: impl IntoIterator<Item = String>, why: &str, detail: String) -> Self {
        let differences = items.into_iter().map(|item| Difference::new(item, why));
        CheckError::Differs {
            differences: differences.collect(),
            detail,
        }
    }
}

/// The host C compiler for the check, as `cc` finds it for `TARGET` (the host's when
/// unset, in tests).
pub(crate) fn compiler(env: &EnvReader, include_dirs: &[PathBuf]) -> Result<cc::Tool, CheckError> {
    let host = format!("{}-unknown-linux-gnu", std::env::consts::ARCH);
    let target = env.get("TARGET").unwrap_or_else(|| host.clone());
    // The `cc` crate reads CC, CFLAGS…: declared to cargo through the EnvReader.
    crate::dpa_app::sim::declare_cc_env(env, &target);
    let mut b = cc::Build::new();
    b.target(&target)
        .host(&env.get("HOST").unwrap_or(host))
        .opt_level(0)
        .cargo_metadata(false)
        .cargo_warnings(false)
        .includes(include_dirs);
    for d in BINDGEN_DEFINES {
        b.define(d, None);
    }
    // An attribute GCC ignores (and warns of) is one clang (bindgen) may apply: refuse.
    b.flag_if_supported("-Werror=attributes");
    b.try_get_compiler()
        .map_err(|e| CheckError::Compiler(e.to_string()))
}

fn run(cmd: &mut Command) -> Result<std::process::Output, CheckError> {
    cmd.output()
        .map_err(|e| CheckError::Compiler(format!("{cmd:?}: {e}")))
}

/// Runs the check of `set`'s committed bindings `committed` (its check file's text
/// `check`) against the installed `set_headers`, found with `include_dirs`; `work` is a
/// directory for the generated files.
pub fn check(
    env: &EnvReader,
    set: BindingSet,
    committed: &str,
    check: &str,
    set_headers: &[PathBuf],
    include_dirs: &[PathBuf],
    work: &Path,
) -> Result<CheckReport, CheckError> {
    let items = committed_items(committed);
    let covered: BTreeSet<&str> = check.lines().filter_map(line_item).collect();
    let uncovered: Vec<String> = items
        .iter()
        .filter(|i| i.kind == CommittedKind::Other || !covered.contains(i.name.as_str()))
        .map(|i| i.name.clone())
        .collect();
    if !uncovered.is_empty() {
        return Err(CheckError::Uncovered(uncovered));
    }
    let tool = compiler(env, include_dirs)?;
    let includes: String = set_headers
        .iter()
        .map(|h| format!("#include \"{}\"\n", h.display()))
        .collect();
    let headers_c = work.join(format!("doca_rs_{}_headers.c", set.name()));
    let write = |p: &Path, text: &str| {
        std::fs::write(p, text).map_err(|e| CheckError::Compiler(format!("{}: {e}", p.display())))
    };
    write(&headers_c, &includes)?;

    // What the preprocessor makes of the headers: declarations and every #define.
    let out = run(tool.to_command().arg("-E").arg("-dD").arg(&headers_c))?;
    if !out.status.success() {
        return Err(CheckError::differs(
            ["(the headers)".to_owned()],
            "the C preprocessor could not read them",
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    let Lexed {
        tokens,
        files,
        macros,
    } = lex(&headers_c, &String::from_utf8_lossy(&out.stdout));
    let declared: BTreeSet<String> = declarations_in(&tokens, &files)
        .into_iter()
        .filter(|d| set.headers().contains(&d.header.as_str()))
        .map(|d| d.name)
        .collect();
    // `struct __attribute__((…)) x;`: GCC ignores an attribute on a declaration without a
    // body, clang (bindgen) applies it to the later definition, so the two compilers
    // lay the record out differently: refuse it rather than pick one.
    let disputed: Vec<String> = tokens
        .windows(3)
        .enumerate()
        .filter(|(_, w)| (w[0].is("struct") || w[0].is("union")) && w[1].is("__attribute__"))
        .filter_map(|(i, _)| {
            let close = matching(&tokens, i + 2, "(", ")");
            let name = tokens.get(close + 1)?;
            tokens.get(close + 2)?.is(";").then(|| name.text.clone())
        })
        .filter(|name| items.iter().any(|i| i.name == *name))
        .collect();
    if !disputed.is_empty() {
        return Err(CheckError::differs(
            disputed,
            "an attribute on a declaration without a body: GCC ignores it, clang applies \
             it to the definition, so their layouts of the record differ",
            String::new(),
        ));
    }
    let functions: Vec<&str> = items
        .iter()
        .filter(|i| i.kind == CommittedKind::Function)
        .map(|i| i.name.as_str())
        .collect();
    let renamed: BTreeSet<String> = macros
        .iter()
        .filter(|(name, body)| body.is_some() && functions.contains(&name.as_str()))
        .map(|(name, _)| name.clone())
        .collect();
    if !renamed.is_empty() {
        return Err(CheckError::differs(
            renamed,
            "the headers #define a macro of this function's name, so the compiler may \
             call another symbol (or none) under that name",
            String::new(),
        ));
    }
    let absent_functions: BTreeSet<String> = functions
        .iter()
        .filter(|f| !declared.contains(**f))
        .map(|f| (*f).to_owned())
        .collect();
    let mut version_defines = String::new();
    for name in VERSION_MACROS {
        if let Some((_, Some(body))) = macros.iter().rev().find(|(n, _)| n == name) {
            let _ = writeln!(version_defines, "#define {name} {body}");
        }
    }

    // A bound constant whose name the preprocessed headers never mention (an older
    // DOCA's missing enumerator or macro) is not checked and stays in the bindings: no
    // function present uses it.
    let mentioned: BTreeSet<&str> = tokens
        .iter()
        .map(|t| t.text.as_str())
        .chain(macros.iter().map(|(n, _)| n.as_str()))
        .collect();
    let absent_constants: BTreeSet<&str> = items
        .iter()
        .filter(|i| i.kind == CommittedKind::Constant && !mentioned.contains(i.name.as_str()))
        .map(|i| i.name.as_str())
        .collect();

    // The check itself.
    let lines: Vec<&str> = check
        .lines()
        .filter(|l| {
            line_item(l)
                .is_some_and(|n| !absent_functions.contains(n) && !absent_constants.contains(n))
        })
        .collect();
    let check_c = work.join(format!("doca_rs_{}_check.c", set.name()));
    write(
        &check_c,
        &format!("{includes}{CHECK_MACROS}\n{}\n", lines.join("\n")),
    )?;
    let object = work.join(format!("doca_rs_{}_check.o", set.name()));
    let out = run(tool
        .to_command()
        .arg("-c")
        .arg(&check_c)
        .arg("-o")
        .arg(&object))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let mut differences = failed_assertions(&stderr);
        if differences.is_empty() {
            differences.push(Difference::new(
                "(see the compiler's output)",
                "the check did not compile",
            ));
        }
        let probe_c = work.join(format!("doca_rs_{}_probe.c", set.name()));
        describe_installed(&tool, &includes, &lines, &probe_c, &mut differences);
        return Err(CheckError::Differs {
            differences,
            detail: stderr,
        });
    }
    let data = std::fs::read(&object).map_err(|e| CheckError::Compiler(e.to_string()))?;
    let file = object::File::parse(&*data).map_err(|e| CheckError::Compiler(e.to_string()))?;
    let called: BTreeSet<&str> = file
        .symbols()
        .filter(|s| s.is_undefined())
        .filter_map(|s| s.name().ok())
        .collect();
    let renamed: Vec<String> = functions
        .iter()
        .filter(|f| !absent_functions.contains(**f) && !called.contains(**f))
        .map(|f| (*f).to_owned())
        .collect();
    if !renamed.is_empty() {
        return Err(CheckError::differs(
            renamed,
            "the compiler calls another symbol for this function (an asm label or a \
             renaming macro)",
            format!(
                "the object's undefined symbols: {}",
                called.into_iter().collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    Ok(CheckReport {
        checked: lines.len(),
        absent_functions,
        version_defines,
    })
}

/// The failed assertions of the check's compile, in order: each `doca-rs check: <item>:
/// <what>` of an error line (the macro definitions the compiler echoes below an error
/// hold `" #name "` and are not error lines).
fn failed_assertions(stderr: &str) -> Vec<Difference> {
    let mut found: Vec<Difference> = Vec::new();
    let error_lines = stderr.lines().filter(|l| l.contains("error"));
    for (_, message) in error_lines.filter_map(|l| l.split_once("doca-rs check: ")) {
        // GCC quotes the message; clang does not.
        let message = message.trim_end();
        let message = message.strip_suffix('"').unwrap_or(message);
        let Some((item, expected)) = message.split_once(": ") else {
            continue;
        };
        if !item.contains('#') && !found.iter().any(|d| d.item == item) {
            found.push(Difference::new(item, expected.trim()));
        }
    }
    found
}

/// Asks the compiler how the install declares each differing function and typedef: a
/// pointer to it initialised from an unrelated pointer type is a diagnostic
/// that prints the declared type (with its `aka`), one probe a line. A probe the
/// compiler says nothing of leaves [`Difference::installed`] empty.
fn describe_installed(
    tool: &cc::Tool,
    includes: &str,
    lines: &[&str],
    probe_c: &Path,
    differences: &mut [Difference],
) {
    let mut text = format!("{includes}struct doca_rs_probe;\n");
    let first_line = text.lines().count() + 1;
    let mut probed: Vec<usize> = Vec::new();
    for (i, d) in differences.iter().enumerate() {
        let line = lines.iter().find(|l| line_item(l) == Some(d.item.as_str()));
        let target = match line.and_then(|l| l.split_once('(')) {
            Some(("DOCA_RS_FN" | "DOCA_RS_FN_INTS", _)) => format!("__typeof__({})", d.item),
            Some(("DOCA_RS_TYPEDEF", _)) => d.item.clone(),
            _ => continue,
        };
        let _ = writeln!(
            text,
            "static {target} *doca_rs_probe_{i} = (struct doca_rs_probe *)0;"
        );
        probed.push(i);
    }
    if probed.is_empty() || std::fs::write(probe_c, &text).is_err() {
        return;
    }
    let Ok(out) = tool
        .to_command()
        .arg("-fsyntax-only")
        .arg("-Werror=incompatible-pointer-types")
        .arg(probe_c)
        .output()
    else {
        return;
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    let file = probe_c.display().to_string();
    for (n, &i) in probed.iter().enumerate() {
        let at = format!("{file}:{}:", first_line + n);
        let described = stderr
            .lines()
            .filter(|l| l.starts_with(&at))
            .find_map(|l| pointer_type_of(l.split_once(": ").map_or(l, |(_, m)| m)));
        differences[i].installed = described;
    }
}

/// The type a probe's pointer points to, from the compiler's diagnostic: its first
/// quoted type (GCC and clang both name the initialised pointer's type first), without
/// the pointer, quoted (`'doca_be64_t *' {aka 'long long unsigned int *'}` →
/// `` `doca_be64_t` (aka `long long unsigned int`) ``).
fn pointer_type_of(message: &str) -> Option<String> {
    let unpoint = |t: &str| match t.trim().strip_suffix('*') {
        Some(rest) => rest.trim_end().to_owned(),
        None => t.trim().replacen("(*)", "", 1),
    };
    // The segments between quotes: text, type, text (` {aka ` or ` (aka `), its aka.
    let mut parts = message.split(['\'', '`']).skip(1);
    let declared = unpoint(parts.next()?);
    let aka = matches!(parts.next().map(str::trim), Some("{aka" | "(aka"))
        .then(|| parts.next().map(unpoint))
        .flatten()
        .filter(|a| *a != declared);
    Some(match aka {
        Some(a) => format!("`{declared}` (aka `{a}`)"),
        None => format!("`{declared}`"),
    })
}

#[cfg(test)]
mod tests;
