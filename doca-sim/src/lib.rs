//! doca-sim (placeholder, being written).
