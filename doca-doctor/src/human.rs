//! The human-readable report: the verdict table, then the details (versions,
//! dpacc, devices with their DPA limits, symbol audit, RDMI).

use super::bindings::{differences, BindingsCheck, NoInstall, Outcome};
use super::check::{worst, Verdict};
use super::report::Report;

/// How many lines of a refusal's message the text report shows after its differing
/// items (`--json` has all).
const MESSAGE_LINES: usize = 12;

/// The bindings check section: each set's outcome, a refusal's message indented.
fn bindings_section(b: &BindingsCheck) -> String {
    let mut out = String::from(
        "\nBindings check (what a hardware build without the `bindgen` feature says of the \
         installed headers)\n",
    );
    match &b.no_install {
        Some(NoInstall::NotFound(why)) => {
            out.push_str(&format!("  not checked: no DOCA install found: {why}\n"));
            return out;
        }
        Some(NoInstall::Refused(message)) => {
            out.push_str("  will be refused before the headers are read:\n");
            for line in message.lines() {
                out.push_str(&format!("    {line}\n"));
            }
            return out;
        }
        None => {}
    }
    out.push_str(&format!("  headers in: {}\n", b.include_dirs.join(", ")));
    for s in &b.sets {
        let message = s.message.as_deref().unwrap_or_default();
        let first = message.lines().next().unwrap_or_default().trim();
        let verdict = match (s.result, s.checked) {
            (Outcome::Accepted, Some(n)) => format!("accepted ({n} items checked)"),
            (Outcome::Accepted, None) => "accepted".to_owned(),
            (Outcome::Refused, _) => "will be refused; way out: the `bindgen` feature".to_owned(),
            (Outcome::Absent, _) => format!("nothing to check: {first}"),
            (Outcome::Unchecked, _) => format!("not checked: {first}"),
        };
        out.push_str(&format!("  {}: {verdict}\n", s.set));
        if s.result == Outcome::Refused {
            let items = differences(message);
            for item in &items {
                out.push_str(&format!("    - {item}\n"));
            }
            // The rest of the message: the compiler's output, or what follows a
            // message's first line when it names no item.
            let named = message.starts_with("  - ");
            let rest: Vec<&str> = message
                .lines()
                .skip_while(|l| l.starts_with("  - "))
                .skip(usize::from(!named))
                .collect();
            for line in rest.iter().take(MESSAGE_LINES) {
                out.push_str(&format!("      {line}\n"));
            }
            if rest.len() > MESSAGE_LINES {
                out.push_str(&format!(
                    "      ({} more lines: see `doca-doctor --json`)\n",
                    rest.len() - MESSAGE_LINES
                ));
            }
        }
    }
    out
}

/// Lays `rows` out in columns separated by two spaces (the last column is not
/// padded), each line indented by `indent` spaces.
pub(crate) fn table(rows: &[Vec<String>], indent: usize) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0; columns];
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = " ".repeat(indent);
        for (i, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if i + 1 < row.len() {
                let pad = widths[i] - cell.chars().count() + 2;
                line.push_str(&" ".repeat(pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn cells(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// The report as text.
pub(crate) fn render(r: &Report) -> String {
    let mut out = if r.libraries.is_some() {
        format!(
            "doca-doctor {}: the installed DOCA, its libraries loaded at run time\n\n",
            env!("CARGO_PKG_VERSION")
        )
    } else {
        format!(
            "doca-doctor {}: crates built for the {} backend\nbindings: DPA {}; RDMI {}\n\n",
            env!("CARGO_PKG_VERSION"),
            r.backend,
            r.bindings[0],
            r.bindings[1],
        )
    };
    if let Some(libs) = &r.libraries {
        out.push_str("DOCA libraries (loaded at run time)\n");
        let mut rows: Vec<Vec<String>> = libs
            .loaded
            .iter()
            .map(|l| vec![l.name.clone(), l.path.clone()])
            .collect();
        for m in &libs.missing {
            rows.push(vec![m.clone(), "MISSING (required)".to_owned()]);
        }
        for m in &libs.optional_missing {
            rows.push(vec![m.clone(), "not found (optional)".to_owned()]);
        }
        out.push_str(&table(&rows, 2));
        if !libs.missing.is_empty() {
            out.push_str(&format!("  looked in: {}\n", libs.searched_list()));
        }
        for e in &libs.errors {
            out.push_str(&format!("  not loadable: {e}\n"));
        }
        out.push('\n');
    }
    if let Some(sim) = &r.sim {
        out.push_str(&format!("sim device profile: {}\n", sim.profile_source));
        if let Some(e) = &sim.config_error {
            out.push_str(&format!("sim configuration refused: {e}\n"));
        }
        out.push('\n');
    }

    // Verdicts.
    let mut rows = vec![cells(&["CHECK", "VERDICT", "REQUIRED", "SUMMARY"])];
    for c in &r.checks {
        rows.push(vec![
            c.id.to_owned(),
            c.verdict.as_str().to_owned(),
            if c.required { "yes" } else { "no" }.to_owned(),
            c.summary.clone(),
        ]);
    }
    out.push_str(&table(&rows, 0));
    let fixes: Vec<String> = r
        .checks
        .iter()
        .filter(|c| c.verdict != Verdict::Ok)
        .filter_map(|c| {
            c.fix
                .as_ref()
                .map(|f| format!("  {} ({}): {f}\n", c.id, c.verdict.as_str()))
        })
        .collect();
    if !fixes.is_empty() {
        out.push_str("\nFixes\n");
        out.extend(fixes);
    }

    // Versions.
    out.push_str("\nDOCA versions\n");
    let v = &r.versions.versions;
    let mut rows = vec![vec!["doca_version.h".to_owned(), v.header.clone()]];
    for (krate, version) in &v.build {
        rows.push(vec![format!("{krate} build"), version.clone()]);
    }
    if v.pkg_config.is_empty() {
        let why = if r.backend == "sim" {
            "none (sim: reference headers)"
        } else {
            "none"
        };
        rows.push(cells(&["pkg-config", why]));
    }
    for (module, version) in &v.pkg_config {
        rows.push(vec![format!("pkg-config {module}"), version.clone()]);
    }
    let runtime = v.runtime.as_deref().unwrap_or("unknown");
    let runtime_label = if r.backend == "sim" {
        "runtime (sim profile)"
    } else {
        "runtime (doca_version_runtime)"
    };
    rows.push(cells(&[runtime_label, runtime]));
    let matched = match r.versions.matched {
        Some(true) => "yes",
        Some(false) => "NO",
        None => "unknown",
    };
    rows.push(cells(&["four-way match", matched]));
    out.push_str(&table(&rows, 2));

    // dpacc.
    out.push_str("\ndpacc\n");
    let d = &r.dpacc;
    if !d.needed {
        out.push_str("  not needed (sim)\n");
    } else {
        let mut rows = Vec::new();
        let path = d.path.clone().unwrap_or_else(|| "not found".to_owned());
        let by = d
            .found_by
            .map(|s| format!(" (from {s})"))
            .unwrap_or_default();
        rows.push(vec!["path".to_owned(), format!("{path}{by}")]);
        rows.push(vec![
            "version".to_owned(),
            d.version.clone().unwrap_or_else(|| "unknown".to_owned()),
        ]);
        rows.push(vec!["DOCA".to_owned(), d.doca_version.clone()]);
        let pairing = match (d.pairing, d.known_dpacc) {
            (Some("same-install"), _) => "the DOCA install's own dpacc".to_owned(),
            (Some("known"), _) => "known to match this DOCA".to_owned(),
            (Some("mismatch"), _) => "MISMATCH: known to belong to another DOCA".to_owned(),
            (Some(_), Some(k)) => format!("not verified (this DOCA ships dpacc {k})"),
            (Some(_), None) => "not verified".to_owned(),
            (None, _) => "not checked".to_owned(),
        };
        rows.push(vec!["pairing".to_owned(), pairing]);
        if let Some(own) = &d.install_dpacc {
            rows.push(vec!["install's dpacc".to_owned(), own.clone()]);
        }
        if let Some(e) = &d.error {
            rows.push(vec!["error".to_owned(), e.clone()]);
        }
        out.push_str(&table(&rows, 2));
    }

    // Devices.
    out.push_str("\nDevices\n");
    match &r.devices {
        Err(e) => out.push_str(&format!("  could not be listed: {e}\n")),
        Ok(list) if list.is_empty() => out.push_str("  none\n"),
        Ok(list) => {
            let mut rows = vec![cells(&[
                "PCI ADDRESS",
                "NAME",
                "IFACE",
                "DPA",
                "MAX THREADS/KERNEL",
                "KERNEL MAX RUN TIME",
                "CORES",
                "EUS/CORE",
                "EUS AVAILABLE",
            ])];
            let mut errors = Vec::new();
            for dev in list {
                let mut row = vec![
                    dev.pci_addr.clone(),
                    dev.ibdev_name.clone(),
                    dev.iface_name.clone(),
                    if dev.has_dpa { "yes" } else { "no" }.to_owned(),
                ];
                match &dev.limits {
                    Some(Ok(l)) => row.extend([
                        l.max_threads_per_kernel.to_string(),
                        format!("{} s", l.kernel_max_run_time_s),
                        l.cores.to_string(),
                        l.eus_per_core.to_string(),
                        l.eus_available.to_string(),
                    ]),
                    Some(Err(e)) => {
                        row.extend(cells(&["?", "?", "?", "?", "?"]));
                        errors.push(format!("  {}: limits: {e}\n", dev.label()));
                    }
                    None => row.extend(cells(&["-", "-", "-", "-", "-"])),
                }
                rows.push(row);
            }
            out.push_str(&table(&rows, 2));
            out.extend(errors);
        }
    }

    // Symbols.
    out.push_str("\nSymbol audit\n");
    let rows: Vec<Vec<String>> = r
        .symbols
        .per_crate()
        .iter()
        .map(|c| vec![c.source.to_owned(), c.describe()])
        .collect();
    out.push_str(&table(&rows, 2));
    if !r.symbols.missing.is_empty() {
        out.push_str(&format!(
            "  declared but not exported: {}\n",
            r.symbols.missing.join(", ")
        ));
    }
    if !r.symbols.unchecked.is_empty() {
        out.push_str(&format!(
            "  exports not checked: {}\n",
            r.symbols.unchecked.join(", ")
        ));
    }

    // RDMI.
    out.push_str("\nRDMI\n");
    match &r.rdmi.absent_reason {
        None => out.push_str("  available\n"),
        Some(reason) => out.push_str(&format!("  absent: {reason}\n")),
    }

    out.push_str(&bindings_section(&r.bindings_check));

    let required = if r.required.is_empty() {
        String::new()
    } else {
        format!(", required: {}", r.required.join(", "))
    };
    out.push_str(&format!(
        "\nResult: {} (exit status {}{required})\n",
        worst(&r.checks).as_str(),
        r.exit_code()
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_columns() {
        let rows = vec![cells(&["A", "BB", "C"]), cells(&["long", "x", "end"])];
        assert_eq!(table(&rows, 1), " A     BB  C\n long  x   end\n");
        assert_eq!(table(&[], 0), "");
        // Ragged rows and non-ASCII widths.
        let rows = vec![cells(&["é", "1"]), cells(&["ab"])];
        assert_eq!(table(&rows, 0), "é   1\nab\n");
    }
}
