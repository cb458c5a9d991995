//! Tests of the parent module.

use super::*;

fn parse(text: &str) -> Result<Vec<DeviceFunction>, DpaAppError> {
    parse_device_functions(Path::new("k.c"), text)
}

/// A device function as one line: `Kind ret name(type|param, …)`.
pub(crate) fn sig(f: &DeviceFunction) -> String {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| match &p.name {
            Some(n) => format!("{}|{n}", p.c_type),
            None => p.c_type.clone(),
        })
        .collect();
    format!(
        "{:?} {} {}({})",
        f.kind,
        f.return_type,
        f.name,
        params.join(", ")
    )
}

#[test]
fn struct_tag_and_prototypes_are_not_functions() {
    let text = "struct arg { uint64_t a; } __dpa_global__;\n\
                    typedef struct { int x; } __dpa_global__ pair_t;\n\
                    __dpa_global__ void later(uint64_t a);\n\
                    static const uint64_t table[] = { 1, 2 };\n\
                    static uint64_t helper(uint64_t x) { return x; }\n\
                    __dpa_global__ void later(uint64_t a) { (void)a; }\n";
    let fs = parse(text).unwrap();
    assert_eq!(fs.len(), 1);
    assert_eq!(sig(&fs[0]), "Global void later(uint64_t|a)");
    assert_eq!(fs[0].line, 6);
}

fn refusal(text: &str) -> (String, usize, ParamRefusal) {
    match parse(text) {
        Err(DpaAppError::UnsupportedParam {
            kernel,
            position,
            refusal,
            ..
        }) => (kernel, position, refusal),
        other => panic!("{other:?}"),
    }
}

#[test]
fn unnamed_params_and_a_macro_call_before() {
    let text = "REGISTER_SOMETHING(x)\n__dpa_global__ void unnamed(uint64_t, const uint32_t *) {}";
    let fs = parse(text).unwrap();
    assert_eq!(
        sig(&fs[0]),
        "Global void unnamed(uint64_t, const uint32_t *)"
    );
    assert_eq!(fs[0].line, 2);
}

#[test]
fn refusals() {
    use ParamRefusal as R;
    let cases = [
        (
            "__dpa_global__ void k(union u x) {}",
            ("k", 1, R::UnionByValue),
        ),
        (
            "__dpa_global__ void k(uint64_t a[4]) {}",
            ("k", 1, R::Array),
        ),
        (
            "__dpa_global__ void k(uint64_t a, void (*cb)(uint64_t)) {}",
            ("k", 2, R::FunctionPointer),
        ),
        (
            "__dpa_global__ void k(uint64_t a, ...) {}",
            ("k", 2, R::Variadic),
        ),
        (
            "__dpa_global__ void k(long double d) {}",
            ("k", 1, R::FloatingPoint),
        ),
        ("__dpa_global__ void k(uint16_t h) {}", ("k", 1, R::Narrow)),
        (
            "__dpa_global__ void k(unsigned char c) {}",
            ("k", 1, R::Narrow),
        ),
        ("__dpa_global__ void k(const) {}", ("k", 1, R::NoType)),
    ];
    for (text, (kernel, position, r)) in cases {
        assert_eq!(refusal(text), (kernel.to_owned(), position, r), "{text}");
    }
    // Pointers to the same types are fine.
    let fs =
        parse("__dpa_global__ void k(struct arg *s, union u *v, char *c, double *d) {}").unwrap();
    assert_eq!(
        sig(&fs[0]),
        "Global void k(struct arg *|s, union u *|v, char *|c, double *|d)"
    );
}

#[test]
fn refusal_message_names_file_kernel_and_parameter() {
    let e = parse_device_functions(
        Path::new("/src/k.c"),
        "\n__dpa_global__ void ping(uint64_t a,\n union arg s) {}",
    )
    .unwrap_err();
    let t = e.to_string();
    assert!(
        t.starts_with("/src/k.c:2: device function `ping`, parameter 2 (`union arg s`)"),
        "{t}"
    );
    assert!(t.contains("pointer"), "{t}");
}

#[test]
fn too_many_params() {
    let params: Vec<String> = (0..33).map(|i| format!("uint64_t a{i}")).collect();
    let text = format!("__dpa_global__ void big({}) {{}}", params.join(", "));
    match parse(&text) {
        Err(DpaAppError::TooManyParams {
            kernel, count, max, ..
        }) => {
            assert_eq!((kernel.as_str(), count, max), ("big", 33, 32));
        }
        other => panic!("{other:?}"),
    }
    let params: Vec<String> = (0..32).map(|i| format!("uint64_t a{i}")).collect();
    let text = format!("__dpa_global__ void big({}) {{}}", params.join(", "));
    assert_eq!(parse(&text).unwrap()[0].params.len(), 32);
}

#[test]
fn rpc_must_return_uint64() {
    for (text, found) in [
        ("__dpa_rpc__ uint32_t r(void) { return 0; }", "uint32_t"),
        ("__dpa_rpc__ void r(void) { }", "void"),
        (
            "__dpa_rpc__ unsigned long r(void) { return 0; }",
            "unsigned long",
        ),
    ] {
        match parse(text) {
            Err(DpaAppError::RpcReturnType {
                kernel, found: f, ..
            }) => {
                assert_eq!((kernel.as_str(), f.as_str()), ("r", found));
            }
            other => panic!("{text}: {other:?}"),
        }
    }
    // Storage classes and the marker's position do not matter.
    let fs = parse("static inline uint64_t __dpa_rpc__ r(void) { return 1; }").unwrap();
    assert_eq!(sig(&fs[0]), "Rpc uint64_t r()");
}

#[test]
fn unreadable_and_duplicate_definitions() {
    assert!(matches!(
        parse("__dpa_global__ void (*f(void))(int) { return 0; }"),
        Err(DpaAppError::UnsupportedDeclaration { .. })
    ));
    assert!(matches!(
        parse("__dpa_global__ __dpa_rpc__ uint64_t f(void) { return 0; }"),
        Err(DpaAppError::UnsupportedDeclaration { .. })
    ));
    assert!(matches!(
        parse("__dpa_global__ void a(void) {}\n__dpa_global__ void a(void) {}"),
        Err(DpaAppError::DuplicateKernel { .. })
    ));
}

/// Every truncation of a realistic file, and odd fragments, give a result or an
/// error, never a panic.
#[test]
fn no_panic_on_broken_input() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dpa_app/kernels/realistic.c");
    let text = std::fs::read_to_string(&path).unwrap();
    let cuts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    for &cut in &cuts {
        let _ = parse_device_functions(&path, &text[..cut]);
    }
    for odd in [
        "__dpa_global__",
        "__dpa_global__ (",
        "__dpa_global__ void f(",
        "__dpa_global__ void f) {",
        "__dpa_global__ ) ( {",
        "__dpa_global__ void f(uint64_t a)) {}",
        "__dpa_rpc__ uint64_t f(((( {",
        "__attribute__(( __dpa_global__ void f(void) {",
        "__attribute__ __dpa_global__ void f(void) {}",
        "}}}} __dpa_global__ void f(void) {}",
        "__dpa_global__ void f(,) {}",
        "__dpa_global__ void f(uint64_t a,) {}",
        "__dpa_global__ void f(*) {}",
        "\"unterminated\n__dpa_global__ void f(void) {}",
        "/* unterminated __dpa_global__ void f(void) {}",
        "'",
        "#",
        "...",
    ] {
        let _ = parse(odd);
    }
}

#[test]
fn nested_braces_in_bodies() {
    let text =
        "__dpa_global__ void a(uint64_t x) { if (x) { struct { int y; } z = {0}; (void)z; } }\n\
                    __dpa_rpc__ uint64_t b(void) { return 0; }\n";
    let names: Vec<String> = parse(text).unwrap().into_iter().map(|f| f.name).collect();
    assert_eq!(names, ["a", "b"]);
}

#[test]
fn structs_with_plain_fields() {
    let src = "struct state { uint64_t count; const doca_dpa_dev_sync_event_t done; };\n\
                   struct skip { uint64_t a[4]; };\n\
                   typedef struct pair { uint32_t a; uint64_t b; } pair_t;\n\
                   static struct state global = { 0 };\n\
                   __dpa_global__ void k(uint64_t a) { struct state local; (void)local; }\n\
                   struct bits { uint32_t a : 3; };\n";
    let got = parse_structs(Path::new("k.c"), src);
    let names: Vec<&str> = got.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["state", "pair"]);
    assert_eq!(
        got[0].fields,
        [
            Field {
                c_type: "uint64_t".into(),
                name: "count".into()
            },
            Field {
                c_type: "doca_dpa_dev_sync_event_t".into(),
                name: "done".into()
            }
        ]
    );
    assert_eq!(got[1].line, 3);
    assert_eq!(got[0].alias, None);
    assert_eq!(got[1].alias.as_deref(), Some("pair_t"));
}

/// A packed or realigned struct (NVIDIA's initiator-target samples' thread arguments,
/// `} __attribute__((__packed__, aligned(8)));`) is not laid out as its fields say: it
/// gets no declaration, so no generated layout assertion can fail on it. Other
/// attributes leave a struct declared.
#[test]
fn structs_with_layout_attributes_are_skipped() {
    let src = "struct arg { uint32_t h; size_t len; } __attribute__((__packed__, aligned(8)));\n\
               struct wide { uint32_t a; } __attribute__((aligned(16)));\n\
               struct tight { uint32_t a; uint64_t b; } __attribute__((packed));\n\
               struct plain { uint32_t a; uint64_t b; } __attribute__((unused));\n";
    let got = parse_structs(Path::new("k.c"), src);
    let names: Vec<&str> = got.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["plain"]);
}
