//! The deprecated names of the first API (CHANGELOG.md, "Migrating from the first
//! API") still work as their notes say: `handle()` gives a `Dev`, which a kernel
//! takes and which keeps its object alive.
#![allow(deprecated)]

mod common;

use std::time::Duration;

use common::{doca_tests, dpa};
use doca::dpa::{CompletionEvent, Export, Launcher};

const LONG: Duration = Duration::from_secs(20);

#[test]
fn handle_forwards_to_dev() {
    let dpa = dpa();
    let launcher = Launcher::new(&dpa).unwrap();
    let event = CompletionEvent::new(&dpa, Export::ToDpa).unwrap();
    let handle = event.handle().unwrap();
    launcher
        .launch(&doca_tests::set_event, 1, (handle, 5u64))
        .unwrap()
        .wait(LONG)
        .unwrap();
    assert_eq!(
        event.get().unwrap(),
        5,
        "the kernel set the event through the Dev"
    );

    // An event without a DPA handle says so, as the kernel argument would.
    let err = CompletionEvent::new(&dpa, Export::No)
        .unwrap()
        .handle()
        .unwrap_err();
    assert!(err.is_invalid_argument(), "{err}");
    assert!(dpa.handle().is_ok());
}
