//! The C file that turns the sources of a DPA application into an application of the
//! software DPA: the table of `doca_sim_app.h` and the `struct doca_dpa_app *<app>`
//! global that host code declares.

use std::fmt::Write as _;
use std::path::Path;

use super::host_decls::by_value_struct;
use super::parse::{DeviceFunction, FunctionKind, StructDef};

/// Quotes `s` as a C string literal.
fn c_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {
                let _ = write!(out, "\\{:03o}", c as u32 & 0xff);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Text for a `//` comment: one line.
fn comment(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

/// `float` or `double` for a floating-point parameter type.
fn float_kind(c_type: &str) -> Option<&str> {
    matches!(c_type, "float" | "double").then_some(c_type)
}

/// Where each argument of `k` sits in the launch's array of 8-byte slots, and how many
/// slots they take in all, as C constant expressions: a scalar takes one slot, a struct
/// passed by value as many as its size needs (`DOCA_SIM_GEN_SLOTS`).
fn slot_layout(k: &DeviceFunction, structs: &[StructDef]) -> (Vec<String>, String) {
    let mut scalars = 0usize;
    let mut struct_slots: Vec<String> = Vec::new();
    let expr = |scalars: usize, struct_slots: &[String]| {
        if struct_slots.is_empty() {
            scalars.to_string()
        } else {
            format!("({scalars} + {})", struct_slots.join(" + "))
        }
    };
    let mut offsets = Vec::new();
    for p in &k.params {
        offsets.push(expr(scalars, &struct_slots));
        if is_struct(&p.c_type, structs) {
            struct_slots.push(format!("DOCA_SIM_GEN_SLOTS({})", p.c_type));
        } else {
            scalars += 1;
        }
    }
    (offsets, expr(scalars, &struct_slots))
}

/// Whether a parameter of C type `c_type` is a struct passed by value.
fn is_struct(c_type: &str, structs: &[StructDef]) -> bool {
    !c_type.contains('*') && by_value_struct(c_type, structs).is_some()
}

/// The prefix of the generated helpers of `kernel`.
fn helper(kernel: &str) -> String {
    format!("doca_sim_gen_{kernel}")
}

/// The host symbol of device function `kernel` of application `app` in a sim build:
/// its application's own (`doca_sim_app_<length of app>_<app>__<kernel>`, the length
/// making it unique), so two applications of one program may each define a function
/// of the same name and each runs its own. The generated launchers and the Rust
/// declarations name it; the C name stays a weak alias of it, for C host programs
/// (NVIDIA's samples) that name the function as dpacc's host code does.
pub fn sim_kernel_symbol(app: &str, kernel: &str) -> String {
    format!("doca_sim_app_{}_{app}__{kernel}", app.len())
}

/// The C source of the application `app_name` for the software DPA.
///
/// `sources` are included by absolute path, in order, so the whole application is one
/// translation unit (its sources share file scope: two `static` helpers of the same name
/// in two sources collide, unlike with dpacc). `kernels` are the device functions found in
/// them. Each is defined under its [`sim_kernel_symbol`] (a macro renames it while the
/// sources are included), and the generated code below calls it by that symbol: the
/// functions are called by their application's identity, never by a global C name that
/// another application (or a `weak` definition) could share. After the table, each C
/// name is defined as a weak alias of its symbol. For each kernel the file has:
///
/// * a `_Static_assert` per scalar parameter that its type is 4 or 8 bytes (narrower
///   types are promoted by `...` and cannot be read back with their own type), and one
///   that all arguments fit `DOCA_SIM_MAX_KERNEL_ARGS` 8-byte slots;
/// * `<helper>_read(va_list *ap, uint64_t *args)`, which reads each variadic launch
///   argument with the parameter's exact type and stores it in its slots (a scalar
///   widened into one; a struct passed by value, `structs`, copied into as many as it
///   needs);
/// * `<helper>_invoke(const uint64_t *args)`, which calls the function with each
///   argument converted back to its type and returns the RPC's value (0 for kernels);
/// * `<helper>_sizes[]`, the `sizeof` of each parameter;
///
/// The kernel's `num_params` in the table counts slots, which is what the sim copies.
///
/// then the `struct doca_sim_kernel` table, the `struct doca_sim_app` descriptor and the
/// global `struct doca_dpa_app *<app_name>` pointing at it.
///
/// Paths must be absolute and free of `"` and line breaks (checked by the caller).
pub fn sim_app_source(
    app_name: &str,
    sources: &[&Path],
    kernels: &[DeviceFunction],
    structs: &[StructDef],
) -> String {
    let mut c = String::new();
    let _ = writeln!(
        c,
        "// Generated by doca-build-support: DPA application `{app_name}` built for the\n\
         // software DPA (doca-sim). Do not edit; it is rewritten on every build.\n"
    );
    c.push_str("#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n\n");
    c.push_str("#include <doca_dpa_dev.h>\n#include <doca_sim_app.h>\n#include <string.h>\n\n");
    c.push_str(
        "// Floating-point arguments are kept as the bits of their own type.\n\
         static inline float doca_sim_gen_float_arg(const uint64_t *slot)\n\
         {\n\tfloat v;\n\tmemcpy(&v, slot, sizeof(v));\n\treturn v;\n}\n\
         static inline double doca_sim_gen_double_arg(const uint64_t *slot)\n\
         {\n\tdouble v;\n\tmemcpy(&v, slot, sizeof(v));\n\treturn v;\n}\n\
         // The 8-byte argument slots a struct passed by value takes.\n\
         #define DOCA_SIM_GEN_SLOTS(type) ((sizeof(type) + 7) / 8)\n\n",
    );
    c.push_str(
        "// The application's sources, as one translation unit: in the software DPA they\n\
         // share file scope. Their device functions are defined under symbols of this\n\
         // application's own.\n",
    );
    for k in kernels {
        let _ = writeln!(
            c,
            "#define {} {}",
            k.name,
            sim_kernel_symbol(app_name, &k.name)
        );
    }
    for s in sources {
        let _ = writeln!(c, "#include \"{}\"", s.display());
    }
    for k in kernels {
        let _ = writeln!(c, "#undef {}", k.name);
    }
    c.push('\n');

    for k in kernels {
        let h = helper(&k.name);
        let n = k.params.len();
        let (offsets, total) = slot_layout(k, structs);
        let _ = writeln!(
            c,
            "// {} `{}` ({}:{})",
            match k.kind {
                FunctionKind::Global => "kernel",
                FunctionKind::Rpc => "RPC",
            },
            k.name,
            comment(&k.file.display().to_string()),
            k.line
        );
        // Per parameter: its size assertion (a scalar's), how `_read` stores it, the
        // helper that reads a struct back, and how `_invoke` passes it.
        let [mut asserts, mut read, mut helpers] = <[String; 3]>::default();
        let mut call_args = Vec::new();
        for (i, (p, off)) in k.params.iter().zip(&offsets).enumerate() {
            let t = &p.c_type;
            if is_struct(t, structs) {
                let _ = writeln!(
                    read,
                    "\t{{ {t} v = va_arg(*ap, {t}); memcpy(&args[{off}], &v, sizeof(v)); }}"
                );
                let _ = writeln!(
                    helpers,
                    "static inline {t} {h}_arg{i}(const uint64_t *args)\n\
                     {{\n\t{t} v;\n\tmemcpy(&v, &args[{off}], sizeof(v));\n\treturn v;\n}}"
                );
                call_args.push(format!("{h}_arg{i}(args)"));
                continue;
            }
            let what = match &p.name {
                Some(name) => format!("parameter {} (`{}`)", i + 1, name),
                None => format!("parameter {}", i + 1),
            };
            let msg = format!(
                "{}: {what} of type `{t}` is neither 4 nor 8 bytes: launch arguments pass \
                 through `...` with their own type (use a 32- or 64-bit integer, handle or \
                 pointer)",
                k.name
            );
            let _ = writeln!(
                asserts,
                "_Static_assert(sizeof({t}) == 4 || sizeof({t}) == 8,\n\t       {m});",
                m = c_string(&msg)
            );
            let _ = match float_kind(t) {
                // `float` arrives promoted to `double`; the bits of the value in its own
                // type are kept in its slot.
                Some(t) => {
                    call_args.push(format!("doca_sim_gen_{t}_arg(&args[{off}])"));
                    writeln!(
                        read,
                        "\t{{ {t} v = ({t})va_arg(*ap, double); memcpy(&args[{off}], &v, sizeof(v)); }}"
                    )
                }
                None => {
                    call_args.push(format!("({t})(uintptr_t)args[{off}]"));
                    writeln!(
                        read,
                        "\targs[{off}] = (uint64_t)(uintptr_t)va_arg(*ap, {t});"
                    )
                }
            };
        }
        c.push_str(&asserts);
        let msg = format!(
            "{}: its arguments take more than DOCA_SIM_MAX_KERNEL_ARGS 8-byte slots (structs \
             passed by value take one per 8 bytes)",
            k.name
        );
        let _ = writeln!(
            c,
            "_Static_assert({total} <= DOCA_SIM_MAX_KERNEL_ARGS,\n\t       {});",
            c_string(&msg)
        );
        if n > 0 {
            let _ = writeln!(
                c,
                "static void {h}_read(va_list *ap, uint64_t *args)\n{{\n{read}}}"
            );
        }
        c.push_str(&helpers);
        let _ = writeln!(c, "static uint64_t {h}_invoke(const uint64_t *args)\n{{");
        if n == 0 {
            c.push_str("\t(void)args;\n");
        }
        let sym = sim_kernel_symbol(app_name, &k.name);
        let call = if call_args.is_empty() {
            format!("{sym}()")
        } else {
            format!("{sym}(\n\t\t{})", call_args.join(",\n\t\t"))
        };
        let _ = match k.kind {
            FunctionKind::Rpc => writeln!(c, "\treturn {call};"),
            FunctionKind::Global => writeln!(c, "\t{call};\n\treturn 0;"),
        };
        c.push_str("}\n");
        if n > 0 {
            // Informational (the sim copies slots); a struct's size may not fit a byte.
            let sizes: Vec<String> = k
                .params
                .iter()
                .map(|p| format!("(uint8_t)sizeof({})", p.c_type))
                .collect();
            let _ = writeln!(
                c,
                "static const uint8_t {h}_sizes[{n}] = {{ {} }};",
                sizes.join(", ")
            );
        }
        c.push('\n');
    }

    c.push_str("static const struct doca_sim_kernel doca_sim_gen_kernels[] = {\n");
    for k in kernels {
        let h = helper(&k.name);
        let n = k.params.len();
        let (_, slots) = slot_layout(k, structs);
        let (sizes, read) = if n > 0 {
            (format!("{h}_sizes"), format!("{h}_read"))
        } else {
            ("NULL".to_owned(), "NULL".to_owned())
        };
        let _ = writeln!(
            c,
            "\t{{\n\t\t.name = {},\n\t\t.func = (void (*)(void)){},\n\t\t.kind = {},\n\
             \t\t.num_params = {slots},\n\t\t.param_sizes = {sizes},\n\t\t.read_args = {read},\n\
             \t\t.invoke = {h}_invoke,\n\t}},",
            c_string(&k.name),
            sim_kernel_symbol(app_name, &k.name),
            k.kind.sim_constant(),
        );
    }
    c.push_str("};\n\n");
    c.push_str(
        "// The C names, for C host programs that name the functions as dpacc's host code\n\
         // does (`extern doca_dpa_func_t name;`): weak, so that another application's\n\
         // function of the same name does not collide with them.\n",
    );
    for k in kernels {
        let sym = sim_kernel_symbol(app_name, &k.name);
        let _ = writeln!(
            c,
            "extern __typeof__({sym}) {} __attribute__((weak, alias({})));",
            k.name,
            c_string(&sym)
        );
    }
    c.push('\n');
    let _ = writeln!(
        c,
        "static const struct doca_sim_app doca_sim_gen_app = {{\n\
         \t.magic = DOCA_SIM_APP_MAGIC,\n\
         \t.abi_version = DOCA_SIM_APP_ABI,\n\
         \t.num_kernels = (uint32_t)(sizeof(doca_sim_gen_kernels) / sizeof(doca_sim_gen_kernels[0])),\n\
         \t.name = {},\n\
         \t.kernels = doca_sim_gen_kernels,\n\
         }};\n",
        c_string(app_name)
    );
    let _ = writeln!(
        c,
        "// What host code declares as `extern struct doca_dpa_app *{app_name};`.\n\
         struct doca_dpa_app;\n\
         struct doca_dpa_app *{app_name} = (struct doca_dpa_app *)(uintptr_t)&doca_sim_gen_app;"
    );
    c
}

#[cfg(test)]
mod tests;
