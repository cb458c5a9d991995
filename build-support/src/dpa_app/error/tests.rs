//! Tests of the parent module.

use super::*;

#[test]
fn command_quoting() {
    let s = quote_command(
        std::path::Path::new("/x/dpacc"),
        &["a".into(), "-hostcc-options=-fPIC -O2".into(), "".into()],
    );
    assert_eq!(s, "/x/dpacc a '-hostcc-options=-fPIC -O2' ''");
}

#[test]
fn tool_not_found_mentions_the_sim_for_dpacc_only() {
    let e = DpaAppError::ToolNotFound {
        tool: "dpacc",
        env_var: "DPACC",
        tried: vec!["$DPACC (unset)".into(), "dpacc on PATH".into()],
    };
    let t = e.to_string();
    assert!(
        t.contains("Set DPACC") && t.contains("the `sim` feature"),
        "{t}"
    );
    let e = DpaAppError::ToolNotFound {
        tool: "dpa-app-attributes2blob",
        env_var: "DOCA_DPA_ATTRS2BLOB",
        tried: vec![],
    };
    assert!(!e.to_string().contains("the `sim` feature"));
}
