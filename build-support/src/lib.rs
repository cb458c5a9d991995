//! Build-script support for the doca-rs crates (placeholder, being written).
