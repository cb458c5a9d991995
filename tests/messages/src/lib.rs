//! Nothing: the package exists for its tests (`tests/messages.rs`).
