//! The symbol audit: which DOCA functions the headers declare (and with which
//! EXPERIMENTAL / STABLE / DEPRECATED marker) and which the installed libraries export.
//!
//! * [`decls`]: the functions the headers declare for the target and their markers,
//!   from the C preprocessor's output.
//! * [`exports`]: ELF dynamic symbols of shared libraries.
//! * [`table`]: the combined [`Audit`], its tab-separated file form (read back by the
//!   safe crates' build scripts from a `DEP_*` path) and its Rust table form.

pub mod decls;
pub mod exports;
pub mod table;

pub use crate::check::BINDGEN_DEFINES;
pub use decls::{declarations, Declaration, Marker};
pub use exports::{exports_of, find_shared_library, Exports, ExportsError};
pub use table::{Audit, AuditParseError, AuditRow, TSV_HEADER};

/// Functions that some DOCA releases export without declaring them in a header. A row is
/// always asked about them; when one is exported but undeclared, the -sys crate emits
/// `doca_hand_declared="NAME"` and the safe crate may declare it by hand.
pub const HAND_DECLARABLE: &[&str] = &["doca_rdmi_connection_as_ctx", "doca_rdmi_poster_as_ctx"];

/// Exports that the software DPA (`doca-sim`) provides beyond what the reference headers
/// declare (it implements every declared function, plus these).
pub const SIM_EXTRA_EXPORTS: &[&str] = &["doca_rdmi_connection_as_ctx"];
