//! The audit table: one row per DOCA function, with its marker, whether a header declares
//! it and whether a library exports it; its text file form and its Rust source form.

use std::collections::BTreeSet;

use super::decls::{Declaration, Marker};
use super::exports::Exports;

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

    /// Exported by a library but declared by no header, and one of the functions a
    /// safe crate declares by hand then ([`HAND_DECLARABLE`](super::HAND_DECLARABLE)).
    pub fn hand_declarable(&self) -> bool {
        let known = super::HAND_DECLARABLE.contains(&self.name.as_str());
        known && !self.declared && self.exported == Some(true)
    }
}

/// The audit of a set of headers and libraries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Audit {
    /// The rows, in header order then declaration order; extra names last.
    pub rows: Vec<AuditRow>,
}

/// A malformed audit file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("audit file line {line}: {message}")]
pub struct AuditParseError {
    /// 1-based line number.
    pub line: usize,
    /// What was wrong.
    pub message: String,
}

/// The first line of an audit file.
pub const TSV_HEADER: &str = "name\theader\tmarker\tdeclared\texported";

impl Audit {
    /// A row for each of `declarations` (what the compiler sees for the target, see
    /// [`super::decls`]), then for each name in `extras` that none declares, with
    /// `exported` from `exports` (`None` everywhere when `exports` is `None`).
    pub fn build(declarations: &[Declaration], extras: &[&str], exports: Option<&Exports>) -> Self {
        let status = |name: &str| exports.and_then(|e| e.status(name));
        // (name, header, marker, declared), first occurrence of each name.
        let declared = declarations
            .iter()
            .map(|d| (d.name.as_str(), d.header.as_str(), d.marker, true));
        let extras = extras.iter().map(|e| (*e, "", Marker::Unmarked, false));
        let mut seen = BTreeSet::new();
        let rows = declared
            .chain(extras)
            .filter(|(name, ..)| seen.insert(*name))
            .map(|(name, header, marker, declared)| AuditRow {
                name: name.to_owned(),
                header: header.to_owned(),
                marker,
                declared,
                exported: status(name),
            })
            .collect();
        Audit { rows }
    }

    /// The row for `name`.
    pub fn get(&self, name: &str) -> Option<&AuditRow> {
        self.rows.iter().find(|r| r.name == name)
    }

    /// Names of the rows that are [`available`](AuditRow::available).
    pub fn available_names(&self) -> Vec<&str> {
        self.names_where(AuditRow::available)
    }

    /// Names of the rows that are [`hand_declarable`](AuditRow::hand_declarable).
    pub fn hand_declared_names(&self) -> Vec<&str> {
        self.names_where(AuditRow::hand_declarable)
    }

    fn names_where(&self, f: impl Fn(&AuditRow) -> bool) -> Vec<&str> {
        let rows = self.rows.iter().filter(|r| f(r));
        rows.map(|r| r.name.as_str()).collect()
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
                header: (if header == "-" { "" } else { header }).to_owned(),
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
mod tests;
