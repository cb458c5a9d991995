//! The exported symbols of installed shared libraries (ELF dynamic symbol table).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use object::{Object, ObjectSymbol, SymbolKind};

/// A library whose exports could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExportsError {
    /// The file could not be read (missing, permissions, dangling symlink…).
    #[error("cannot read {}: {message}", .path.display())]
    Io {
        /// The path that was read.
        path: PathBuf,
        /// The operating system's message.
        message: String,
    },
    /// The file is not a shared object `object` can parse (a linker script, say).
    #[error("cannot read the dynamic symbols of {}: {message}", .path.display())]
    Parse {
        /// The path that was read.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
}

/// The names of the functions and data objects that the shared library at `path` defines
/// and exports (global or weak binding, defined, in the dynamic symbol table). Symlinks
/// (`libdoca_dpa.so` → `libdoca_dpa.so.3`) are followed. ELF version suffixes are not
/// part of the names.
pub fn exports_of(path: &Path) -> Result<BTreeSet<String>, ExportsError> {
    let data = std::fs::read(path).map_err(|e| ExportsError::Io {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    let file = object::File::parse(&*data).map_err(|e| ExportsError::Parse {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    let defined = file.dynamic_symbols().filter(|s| {
        !s.is_undefined()
            && (s.is_global() || s.is_weak())
            && matches!(s.kind(), SymbolKind::Text | SymbolKind::Data)
    });
    Ok(defined
        .filter_map(|s| s.name().ok().filter(|n| !n.is_empty()).map(str::to_owned))
        .collect())
}

/// Finds the shared library for link name `name` (`doca_dpa` → `libdoca_dpa.so`) in
/// `dirs`, in order; when only versioned files exist (`libdoca_dpa.so.3`), the shortest
/// such name is used.
pub fn find_shared_library(name: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
    let plain = format!("lib{name}.so");
    for dir in dirs {
        let candidate = dir.join(&plain);
        if candidate.exists() {
            return Some(candidate);
        }
        let prefix = format!("{plain}.");
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut versioned: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
            .map(|e| e.path())
            .collect();
        versioned.sort_by_key(|p| (p.as_os_str().len(), p.clone()));
        if let Some(p) = versioned.into_iter().next() {
            return Some(p);
        }
    }
    None
}

/// Directories where the dynamic linker usually finds libraries that pkg-config leaves
/// out of `--libs` (system directories), for `arch` (`x86_64`, `aarch64`).
pub fn system_library_dirs(arch: &str) -> Vec<PathBuf> {
    [
        format!("/usr/lib/{arch}-linux-gnu"),
        format!("/lib/{arch}-linux-gnu"),
        "/usr/lib64".to_owned(),
        "/usr/lib".to_owned(),
        "/lib64".to_owned(),
        "/lib".to_owned(),
    ]
    .into_iter()
    .map(PathBuf::from)
    .collect()
}

/// The union of the exports of several libraries, and whether every one could be read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exports {
    /// Every exported name found.
    pub symbols: BTreeSet<String>,
    /// True when every library asked about was found and read; then a name missing from
    /// `symbols` is known not to be exported.
    pub complete: bool,
    /// Libraries that could not be found or read, with the reason.
    pub problems: Vec<String>,
}

impl Exports {
    /// A complete set with exactly these names (the sim: it exports what it declares).
    pub fn known<I: IntoIterator<Item = S>, S: Into<String>>(names: I) -> Self {
        Exports {
            symbols: names.into_iter().map(Into::into).collect(),
            complete: true,
            ..Exports::default()
        }
    }

    /// Reads the libraries `link_names` (e.g. `doca_dpa`, `doca_common`) from `dirs`.
    /// Libraries that cannot be found or read are recorded in `problems`, never a panic.
    pub fn of_libraries(link_names: &[String], dirs: &[PathBuf]) -> Self {
        let mut out = Exports {
            complete: true,
            ..Exports::default()
        };
        for name in link_names {
            match find_shared_library(name, dirs) {
                None => {
                    out.complete = false;
                    out.problems.push(format!(
                        "lib{name}.so not found in {}",
                        crate::join_paths(dirs, ", ")
                    ));
                }
                Some(path) => match exports_of(&path) {
                    Ok(names) => out.symbols.extend(names),
                    Err(e) => {
                        out.complete = false;
                        out.problems.push(e.to_string());
                    }
                },
            }
        }
        out
    }

    /// `Some(true)` if exported, `Some(false)` if known not to be, `None` if it could not be
    /// checked (some library was unreadable and the name was not found in the others).
    pub fn status(&self, name: &str) -> Option<bool> {
        if self.symbols.contains(name) {
            Some(true)
        } else if self.complete {
            Some(false)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests;
