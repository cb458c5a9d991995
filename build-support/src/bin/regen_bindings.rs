//! Regenerates the committed bindings (placeholder, being written).
fn main() {}
