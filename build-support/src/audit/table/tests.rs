//! Tests of the parent module.

use super::*;

fn decl(name: &str, marker: Marker) -> Declaration {
    Declaration {
        name: name.into(),
        marker,
        header: "doca_fx.h".into(),
    }
}

fn sample() -> Audit {
    let headers = [
        decl("doca_a", Marker::Experimental),
        decl("doca_b", Marker::Stable),
        decl("doca_c", Marker::Experimental),
        decl("doca_a", Marker::Unmarked),
    ];
    let exports = Exports {
        symbols: ["doca_a", "doca_b", "doca_rdmi_connection_as_ctx"]
            .into_iter()
            .map(String::from)
            .collect(),
        complete: true,
        ..Exports::default()
    };
    Audit::build(
        &headers,
        &["doca_rdmi_connection_as_ctx", "doca_b", "doca_ghost"],
        Some(&exports),
    )
}

#[test]
fn build_rows() {
    let a = sample();
    let names: Vec<&str> = a.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "doca_a",
            "doca_b",
            "doca_c",
            "doca_rdmi_connection_as_ctx",
            "doca_ghost"
        ]
    );
    assert_eq!(a.get("doca_c").unwrap().exported, Some(false));
    let extra = a.get("doca_rdmi_connection_as_ctx").unwrap();
    assert!(!extra.declared && extra.exported == Some(true) && extra.header.is_empty());
    assert_eq!(a.available_names(), ["doca_a", "doca_b"]);
    assert_eq!(a.hand_declared_names(), ["doca_rdmi_connection_as_ctx"]);
    let unchecked = Audit::build(&[decl("doca_x", Marker::Unmarked)], &[], None);
    assert_eq!(unchecked.rows[0].exported, None);
    assert!(unchecked.rows[0].available());
}

#[test]
fn tsv_round_trip() {
    let a = sample();
    let text = a.to_tsv();
    assert!(text.starts_with(TSV_HEADER));
    assert!(text.contains("doca_rdmi_connection_as_ctx\t-\tUNMARKED\tno\tyes\n"));
    assert_eq!(Audit::parse_tsv(&text).unwrap(), a);
    let mut with_unknown = a.clone();
    with_unknown.rows[0].exported = None;
    assert_eq!(
        Audit::parse_tsv(&with_unknown.to_tsv()).unwrap(),
        with_unknown
    );
}

#[test]
fn tsv_errors() {
    assert_eq!(Audit::parse_tsv("").unwrap_err().line, 1);
    assert!(Audit::parse_tsv("bogus\n").is_err());
    let e = Audit::parse_tsv(&format!("{TSV_HEADER}\na\tb\n")).unwrap_err();
    assert_eq!(e.line, 2);
    let e = Audit::parse_tsv(&format!("{TSV_HEADER}\n\na\th\tWEIRD\tyes\tyes\n")).unwrap_err();
    assert_eq!(e.line, 3);
    assert!(e.to_string().contains("WEIRD"));
    assert!(Audit::parse_tsv(&format!("{TSV_HEADER}\na\th\tSTABLE\tmaybe\tyes\n")).is_err());
    assert!(Audit::parse_tsv(&format!("{TSV_HEADER}\na\th\tSTABLE\tyes\tperhaps\n")).is_err());
    assert!(Audit::parse_tsv(&format!("{TSV_HEADER}\n\th\tSTABLE\tyes\tyes\n")).is_err());
    assert_eq!(
        Audit::parse_tsv(&format!("{TSV_HEADER}\r\n")).unwrap(),
        Audit::default()
    );
}

#[test]
fn rust_table_text() {
    let a = sample();
    let t = a.to_rust_table();
    assert!(t.contains("pub struct SymbolInfo"));
    assert!(t.contains("pub static SYMBOLS: &[SymbolInfo]"));
    assert!(t.contains(
            "SymbolInfo { name: \"doca_c\", header: \"doca_fx.h\", marker: \"EXPERIMENTAL\", declared: true, exported: Some(false) }"
        ));
    assert!(!t.contains("usable"));
    let u = a.to_rust_table_with_usable(|r| r.marker == Marker::Stable);
    assert!(u.contains("pub usable: bool"));
    assert!(u.contains("name: \"doca_b\", header: \"doca_fx.h\", marker: \"STABLE\", declared: true, exported: Some(true), usable: true }"));
}
