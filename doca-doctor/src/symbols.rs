//! The symbol audit. In a linked build (the `sim` feature), the one the build
//! made for the functions the crates may call: `doca::dpa::build_info::SYMBOLS`
//! (DPA and the DOCA Core pieces) and the rows of
//! `doca::rdmi::build_info::SYMBOLS` that it lacks (RDMI and DOCA Verbs). Each
//! row says where the function is declared, its EXPERIMENTAL/STABLE marker,
//! whether the library exports it, and whether the crate's build lets its
//! wrappers call it. In a loaded build, the functions the doctor itself calls,
//! each looked up in the loaded libraries (marker `UNKNOWN`: no header was
//! read).

use std::collections::BTreeMap;

use super::check::{Check, Verdict};
use serde::{Serialize, Serializer};

/// One audited function (JSON: an element of `symbols.rows`, these fields).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Row {
    /// The crate whose audit it comes from: `doca-dpa` or `doca-rdmi`.
    #[serde(rename = "crate")]
    pub(crate) source: &'static str,
    /// The C function.
    pub(crate) name: &'static str,
    /// The header declaring it (empty when none does).
    pub(crate) header: &'static str,
    /// `EXPERIMENTAL`, `STABLE`, `DEPRECATED` or `UNMARKED`.
    pub(crate) marker: &'static str,
    /// Declared by a header.
    pub(crate) declared: bool,
    /// Exported by the libraries (`None`: not checked).
    pub(crate) exported: Option<bool>,
    /// The crate's build lets its wrappers call it: available (declared and
    /// not known to be missing, or exported and hand-declarable), and STABLE
    /// or the crate's `experimental` feature on.
    pub(crate) usable: bool,
}

/// The `symbols` object of the JSON report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SymbolsReport {
    /// Every row.
    pub(crate) rows: Vec<Row>,
    /// Declared by a header but not exported by the library.
    pub(crate) missing: Vec<&'static str>,
    /// Exports not checked at build time.
    pub(crate) unchecked: Vec<&'static str>,
}

impl SymbolsReport {
    /// The counts of each crate's rows, in the order the crates first appear.
    pub(crate) fn per_crate(&self) -> Vec<CrateCounts> {
        let mut out: Vec<CrateCounts> = Vec::new();
        for r in &self.rows {
            let i = match out.iter().position(|c| c.source == r.source) {
                Some(i) => i,
                None => {
                    out.push(CrateCounts {
                        source: r.source,
                        ..CrateCounts::default()
                    });
                    out.len() - 1
                }
            };
            let c = &mut out[i];
            c.total += 1;
            *c.markers.entry(r.marker).or_default() += 1;
            c.declared += usize::from(r.declared);
            c.exported += usize::from(r.exported == Some(true));
            c.usable += usize::from(r.usable);
        }
        out
    }
}

/// The `symbols` object of the JSON report: the counts over every row, then the
/// lists and the rows.
impl Serialize for SymbolsReport {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Symbols<'a> {
            total: usize,
            declared: usize,
            exported: usize,
            experimental: usize,
            stable: usize,
            usable: usize,
            missing: &'a [&'static str],
            unchecked: &'a [&'static str],
            rows: &'a [Row],
        }
        let count = |f: fn(&Row) -> bool| self.rows.iter().filter(|r| f(r)).count();
        Symbols {
            total: self.rows.len(),
            declared: count(|r| r.declared),
            exported: count(|r| r.exported == Some(true)),
            experimental: count(|r| r.marker == "EXPERIMENTAL"),
            stable: count(|r| r.marker == "STABLE"),
            usable: count(|r| r.usable),
            missing: &self.missing,
            unchecked: &self.unchecked,
            rows: &self.rows,
        }
        .serialize(s)
    }
}

/// Counts for one crate's audit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CrateCounts {
    /// The crate.
    pub(crate) source: &'static str,
    /// Functions audited.
    pub(crate) total: usize,
    /// Per marker.
    pub(crate) markers: BTreeMap<&'static str, usize>,
    /// Declared by a header.
    pub(crate) declared: usize,
    /// Known to be exported.
    pub(crate) exported: usize,
    /// Usable.
    pub(crate) usable: usize,
}

impl CrateCounts {
    /// `156 functions (140 EXPERIMENTAL, 16 STABLE): 156 declared, 156 exported, 156 usable`.
    pub(crate) fn describe(&self) -> String {
        let markers: Vec<String> = self
            .markers
            .iter()
            .map(|(m, n)| format!("{n} {m}"))
            .collect();
        format!(
            "{} functions ({}): {} declared, {} exported, {} usable",
            self.total,
            markers.join(", "),
            self.declared,
            self.exported,
            self.usable
        )
    }
}

fn shortlist(names: &[&str]) -> String {
    const SHOWN: usize = 5;
    let mut s = names
        .iter()
        .take(SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        s.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    s
}

/// The `symbols` check. Rows of doca-rdmi are skipped when the build has
/// no RDMI (the `rdmi` check says so).
pub(crate) fn evaluate(rows: Vec<Row>, rdmi_present: bool) -> (SymbolsReport, Check) {
    const ID: &str = "symbols";
    let relevant = |r: &&Row| rdmi_present || r.source != "doca-rdmi";
    let missing: Vec<&'static str> = rows
        .iter()
        .filter(relevant)
        .filter(|r| r.declared && r.exported == Some(false))
        .map(|r| r.name)
        .collect();
    let unchecked: Vec<&'static str> = rows
        .iter()
        .filter(relevant)
        .filter(|r| r.declared && r.exported.is_none())
        .map(|r| r.name)
        .collect();
    let report = SymbolsReport {
        rows,
        missing,
        unchecked,
    };
    let summary = report
        .per_crate()
        .iter()
        .map(|c| format!("{}: {}", c.source, c.describe()))
        .collect::<Vec<_>>()
        .join("; ");
    let check = if !report.missing.is_empty() {
        Check::with(
            ID,
            Verdict::Warn,
            true,
            format!("declared but not exported: {}", shortlist(&report.missing)),
            "the headers and the libraries come from different DOCA releases: reinstall DOCA, \
             then rebuild (cargo clean -p doca-dpa-sys -p doca-rdmi-sys)",
        )
    } else if !report.unchecked.is_empty() {
        Check::with(
            ID,
            Verdict::Warn,
            true,
            format!(
                "exports not checked at build time: {}",
                shortlist(&report.unchecked)
            ),
            "let the build read the DOCA libraries (see the cargo warnings of doca-dpa-sys), \
             then rebuild (cargo clean -p doca-dpa-sys -p doca-rdmi-sys)",
        )
    } else if report.rows.is_empty() {
        Check::with(
            ID,
            Verdict::Warn,
            true,
            "the build audited no function",
            "rebuild the -sys crates (cargo clean -p doca-dpa-sys -p doca-rdmi-sys)",
        )
    } else {
        Check::ok(ID, true, summary)
    };
    (report, check)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(source: &'static str, name: &'static str, exported: Option<bool>) -> Row {
        Row {
            source,
            name,
            header: "doca_dpa.h",
            marker: "EXPERIMENTAL",
            declared: true,
            exported,
            usable: exported != Some(false),
        }
    }

    #[test]
    fn all_present_is_ok() {
        let (r, c) = evaluate(
            vec![
                row("doca-dpa", "a", Some(true)),
                row("doca-rdmi", "b", Some(true)),
            ],
            true,
        );
        assert_eq!(c.verdict, Verdict::Ok);
        assert!(c.summary.contains("doca-dpa: 1 functions (1 EXPERIMENTAL)"));
        assert_eq!(r.per_crate().len(), 2);
    }

    #[test]
    fn missing_and_unchecked_warn() {
        let (r, c) = evaluate(vec![row("doca-dpa", "gone", Some(false))], true);
        assert_eq!(c.verdict, Verdict::Warn);
        assert_eq!(r.missing, ["gone"]);
        let (r, c) = evaluate(vec![row("doca-dpa", "unknown", None)], true);
        assert_eq!(c.verdict, Verdict::Warn);
        assert_eq!(r.unchecked, ["unknown"]);
        // Without RDMI, its rows are the rdmi check's business.
        let (r, c) = evaluate(vec![row("doca-rdmi", "rdmi_fn", Some(false))], false);
        assert_eq!(c.verdict, Verdict::Ok);
        assert!(r.missing.is_empty());
        assert_eq!(evaluate(vec![], true).1.verdict, Verdict::Warn);
    }

    #[test]
    fn shortlists() {
        assert_eq!(shortlist(&["a", "b"]), "a, b");
        assert_eq!(
            shortlist(&["a", "b", "c", "d", "e", "f", "g"]),
            "a, b, c, d, e and 2 more"
        );
    }
}
