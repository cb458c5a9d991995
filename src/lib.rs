//! `doca`: the facade of doca-rs (placeholder, being written).
