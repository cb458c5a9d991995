//! The audit table: one row per DOCA function, with its marker, whether a header declares
//! it and whether a library exports it; its text file form and its Rust source form.

use std::collections::BTreeMap;
use std::fmt;

use super::cond::{blank_inactive, Conditions};
use super::exports::Exports;
use super::scan::{scan_declarations, Marker};

/// One function in the audit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditRow {
    /// The C function name.
    pub name: String,
    /// The file name of the header that declares it; empty when no scanned header does.
    pub header: String,
    /// Its marker ([`Marker::Unmarked`] when undeclared).
    pub marker: Marker,
    /// Whether a scanned header declares it.
    pub declared: bool,
    /// Whether the libraries export it; `None` when that could not be checked.
    pub exported: Option<bool>,
}

impl AuditRow {
    /// Declared, and exported (or not checkable): bindings for it exist and should link.
    pub fn available(&self) -> bool {
        self.declared && self.exported != Some(false)
    }

    /// Exported by a library but declared by no header: usable only through a hand
    /// declaration.
    pub fn hand_declarable(&self) -> bool {
        !self.declared && self.exported == Some(true)
    }
}

/// A header given to [`Audit::build`]: its file name and its text.
#[derive(Debug, Clone)]
pub struct HeaderText {
    /// The file name (`doca_dpa.h`), recorded in each row.
    pub file_name: String,
    /// The header's contents.
    pub text: String,
}

/// The audit of a set of headers and libraries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Audit {
    /// The rows, in header order then declaration order; extra names last.
    pub rows: Vec<AuditRow>,
}

/// A malformed audit file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditParseError {
    /// 1-based line number.
    pub line: usize,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for AuditParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "audit file line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for AuditParseError {}

/// The first line of an audit file.
pub const TSV_HEADER: &str = "name\theader\tmarker\tdeclared\texported";

impl Audit {
    /// Scans `headers` for function declarations (those the preprocessor keeps under
    /// `cond`: a function declared only for another platform is not declared), adds a
    /// row for each name in `extras` that no header declares, and fills `exported` from
    /// `exports` (`None` everywhere when `exports` is `None`). A name declared twice
    /// keeps its first declaration.
    pub fn build(
        headers: &[HeaderText],
        extras: &[&str],
        exports: Option<&Exports>,
        cond: &Conditions,
    ) -> Self {
        let status = |name: &str| exports.and_then(|e| e.status(name));
        let mut rows: Vec<AuditRow> = Vec::new();
        let mut seen = BTreeMap::new();
        for h in headers {
            for d in scan_declarations(&blank_inactive(&h.text, cond)) {
                if seen.contains_key(&d.name) {
                    continue;
                }
                seen.insert(d.name.clone(), rows.len());
                rows.push(AuditRow {
                    exported: status(&d.name),
                    name: d.name,
                    header: h.file_name.clone(),
                    marker: d.marker,
                    declared: true,
                });
            }
        }
        for extra in extras {
            if seen.contains_key(*extra) {
                continue;
            }
            seen.insert((*extra).to_owned(), rows.len());
            rows.push(AuditRow {
                name: (*extra).to_owned(),
                header: String::new(),
                marker: Marker::Unmarked,
                declared: false,
                exported: status(extra),
            });
        }
        Audit { rows }
    }

    /// The row for `name`.
    pub fn get(&self, name: &str) -> Option<&AuditRow> {
        self.rows.iter().find(|r| r.name == name)
    }

    /// Names of the rows that are [`available`](AuditRow::available).
    pub fn available_names(&self) -> Vec<&str> {
        self.rows
            .iter()
            .filter(|r| r.available())
            .map(|r| r.name.as_str())
            .collect()
    }

    /// Names of the rows that are [`hand_declarable`](AuditRow::hand_declarable).
    pub fn hand_declared_names(&self) -> Vec<&str> {
        self.rows
            .iter()
            .filter(|r| r.hand_declarable())
            .map(|r| r.name.as_str())
            .collect()
    }

    /// Adds the rows of `other` whose names are not present yet.
    pub fn merge(&mut self, other: &Audit) {
        for row in &other.rows {
            if self.get(&row.name).is_none() {
                self.rows.push(row.clone());
            }
        }
    }

    /// The tab-separated text form: [`TSV_HEADER`], then one row per line
    /// (`-` for an empty header; `yes`/`no` for declared; `yes`/`no`/`unknown` for exported).
    pub fn to_tsv(&self) -> String {
        let mut out = String::from(TSV_HEADER);
        out.push('\n');
        for r in &self.rows {
            let header = if r.header.is_empty() { "-" } else { &r.header };
            let declared = if r.declared { "yes" } else { "no" };
            let exported = match r.exported {
                Some(true) => "yes",
                Some(false) => "no",
                None => "unknown",
            };
            out.push_str(&format!(
                "{}\t{header}\t{}\t{declared}\t{exported}\n",
                r.name, r.marker
            ));
        }
        out
    }

    /// Parses the text written by [`Audit::to_tsv`]. Blank lines are ignored.
    pub fn parse_tsv(text: &str) -> Result<Self, AuditParseError> {
        let mut lines = text.lines().enumerate();
        let err = |line: usize, message: String| AuditParseError {
            line: line + 1,
            message,
        };
        match lines.next() {
            Some((_, first)) if first.trim_end() == TSV_HEADER => {}
            Some((i, first)) => {
                return Err(err(
                    i,
                    format!("expected the column line `{TSV_HEADER}`, found `{first}`"),
                ))
            }
            None => return Err(err(0, "empty audit file".to_owned())),
        }
        let mut rows = Vec::new();
        for (i, line) in lines {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.split('\t').collect();
            let [name, header, marker, declared, exported] = fields[..] else {
                return Err(err(
                    i,
                    format!("expected 5 tab-separated fields, found {}", fields.len()),
                ));
            };
            if name.is_empty() {
                return Err(err(i, "empty name".to_owned()));
            }
            let marker = Marker::parse(marker)
                .ok_or_else(|| err(i, format!("unknown marker `{marker}`")))?;
            let declared = match declared {
                "yes" => true,
                "no" => false,
                other => return Err(err(i, format!("declared must be yes/no, not `{other}`"))),
            };
            let exported = match exported {
                "yes" => Some(true),
                "no" => Some(false),
                "unknown" => None,
                other => {
                    return Err(err(
                        i,
                        format!("exported must be yes/no/unknown, not `{other}`"),
                    ))
                }
            };
            rows.push(AuditRow {
                name: name.to_owned(),
                header: if header == "-" {
                    String::new()
                } else {
                    header.to_owned()
                },
                marker,
                declared,
                exported,
            });
        }
        Ok(Audit { rows })
    }

    /// Rust source defining `pub struct SymbolInfo` and `pub static SYMBOLS: &[SymbolInfo]`
    /// holding every row (for `include!` in a -sys crate).
    pub fn to_rust_table(&self) -> String {
        self.rust_table(None::<fn(&AuditRow) -> bool>)
    }

    /// Like [`Audit::to_rust_table`], with an extra `usable: bool` field computed by
    /// `usable` (for the safe crates: available and allowed by their features).
    pub fn to_rust_table_with_usable(&self, usable: impl Fn(&AuditRow) -> bool) -> String {
        self.rust_table(Some(usable))
    }

    fn rust_table(&self, usable: Option<impl Fn(&AuditRow) -> bool>) -> String {
        let mut out = String::new();
        out.push_str(
            "/// One DOCA function as seen when this crate was built: where it is declared, its\n\
             /// marker, and whether the library provides it.\n\
             #[derive(Debug, Clone, Copy, PartialEq, Eq)]\n\
             pub struct SymbolInfo {\n\
             \x20   /// The C function name.\n\
             \x20   pub name: &'static str,\n\
             \x20   /// The header that declares it (empty when no header does).\n\
             \x20   pub header: &'static str,\n\
             \x20   /// `EXPERIMENTAL`, `STABLE`, `DEPRECATED` or `UNMARKED`.\n\
             \x20   pub marker: &'static str,\n\
             \x20   /// Whether a header declares it.\n\
             \x20   pub declared: bool,\n\
             \x20   /// Whether the library exports it (`None`: could not be checked).\n\
             \x20   pub exported: Option<bool>,\n",
        );
        if usable.is_some() {
            out.push_str(
                "    /// Whether this build's wrappers may call it (available, and STABLE or the\n\
                 \x20   /// `experimental` feature is on).\n\
                 \x20   pub usable: bool,\n",
            );
        }
        out.push_str(
            "}\n\n/// Every DOCA function this build knows about.\npub static SYMBOLS: &[SymbolInfo] = &[\n",
        );
        for r in &self.rows {
            out.push_str(&format!(
                "    SymbolInfo {{ name: {:?}, header: {:?}, marker: {:?}, declared: {}, exported: {:?}",
                r.name,
                r.header,
                r.marker.as_str(),
                r.declared,
                r.exported
            ));
            if let Some(f) = &usable {
                out.push_str(&format!(", usable: {}", f(r)));
            }
            out.push_str(" },\n");
        }
        out.push_str("];\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Audit {
        let headers = [HeaderText {
            file_name: "doca_fx.h".into(),
            text: "DOCA_EXPERIMENTAL doca_error_t doca_a(void);\n\
                   DOCA_STABLE doca_error_t doca_b(int x);\n\
                   DOCA_EXPERIMENTAL doca_error_t doca_c(void);\n\
                   doca_error_t doca_a(void);\n"
                .into(),
        }];
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
            &Conditions::for_target_os("linux"),
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
        let unchecked = Audit::build(
            &[HeaderText {
                file_name: "x.h".into(),
                text: "int doca_x(void);".into(),
            }],
            &[],
            None,
            &Conditions::for_target_os("linux"),
        );
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
}
