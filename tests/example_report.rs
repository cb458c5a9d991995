//! What the examples print when they fail: the error's `Display` text and its
//! `source()` chain (examples/report.rs.in), never the variant's `Debug` form.

mod common;

include!("../examples/report.rs.in");

use doca::dpa::Device;

/// As `fn main() -> Result<(), Report>` shows an error: `Error: ` and the `Debug` form.
fn shown(error: impl Into<Box<dyn std::error::Error>>) -> String {
    format!("Error: {:?}", Report::from(error))
}

#[test]
fn a_bad_doca_device_is_reported_in_words() {
    // What kernel_launch does with DOCA_DEVICE=mlx5_404.
    let err = Device::open_by_ibdev_name("mlx5_404").unwrap_err();
    let text = err.to_string();
    assert_eq!(shown(err), format!("Error: {text}"));
    assert!(
        text.contains("no DOCA device has IB device name mlx5_404"),
        "{text}"
    );
    assert!(!text.contains("NoSuchDevice {"), "{text}");
}

#[test]
fn a_device_without_a_dpa_is_reported_in_words() {
    if doca::dpa::build_info::BACKEND != "sim" {
        eprintln!("skipped: needs the sim's device profile with a device that has no DPA");
        return;
    }
    // The default sim profile's mlx5_2 has no DPA (kernel_launch with DOCA_DEVICE=mlx5_2).
    let device = Device::open_by_ibdev_name("mlx5_2").unwrap();
    let err = doca::dpa::Dpa::start(&device, common::doca_tests::app()).unwrap_err();
    let out = shown(err);
    assert!(
        out.starts_with("Error: mlx5_2 (0000:81:00.0) has no DPA"),
        "{out}"
    );
    assert!(out.contains("pick a device that has one"), "{out}");
    assert!(
        !out.contains("NoDpa {") && !out.contains("code: Some("),
        "{out}"
    );
}

/// An error wrapping another, as a user's own error type does.
#[derive(Debug)]
struct Wrapper {
    context: &'static str,
    inner: doca::dpa::Error,
    repeat_inner: bool,
}

impl std::fmt::Display for Wrapper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.repeat_inner {
            write!(f, "{}: {}", self.context, self.inner)
        } else {
            f.write_str(self.context)
        }
    }
}

impl std::error::Error for Wrapper {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.inner)
    }
}

#[test]
fn the_source_chain_is_shown_once() {
    let inner = || Device::open_by_pci("0000:99:00.0").unwrap_err();
    let inner_text = inner().to_string();
    let out = shown(Wrapper {
        context: "opening the configured device",
        inner: inner(),
        repeat_inner: false,
    });
    assert_eq!(
        out,
        format!("Error: opening the configured device\ncaused by: {inner_text}")
    );
    // A wrapper that already shows its source's text does not print it twice.
    let out = shown(Wrapper {
        context: "opening the configured device",
        inner: inner(),
        repeat_inner: true,
    });
    assert_eq!(out.matches(inner_text.as_str()).count(), 1, "{out}");
    assert!(!out.contains("caused by"), "{out}");
}
