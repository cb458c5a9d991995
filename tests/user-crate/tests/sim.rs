#![cfg(doca_backend = "sim")]
//! The fixture's tests, on the sim (doca's `sim` feature in [dev-dependencies]).
//! They use the sim's hooks, so a hardware build (DOCA_BACKEND=hardware on a
//! BlueField runner) compiles them out; `doca_backend` is set by the DPA app build.
//! The second test is the README's `tests/sim.rs` (scripts/user-crate-test.sh
//! checks they agree).

use doca::dpa::{Device, Dpa, ErrorCode};
use doca::sim::{Nth, Scope};
use doca_user_fixture::{add_on_dpa, user_kernels};

#[test]
fn the_kernel_adds() {
    assert_eq!(doca::dpa::build_info::BACKEND, "sim");
    let scope = Scope::new();
    {
        let device = Device::open_first_with_dpa().expect("the sim's DPA device");
        let dpa = Dpa::start(&device, user_kernels::app()).expect("starting the context");
        assert_eq!(add_on_dpa(&dpa, 4, 2, 3).unwrap(), [5, 6, 7, 8]);
    }
    assert_eq!(scope.live_total(), 0, "a DOCA object leaked");
}

#[test]
fn a_failed_allocation_is_reported_and_leaks_nothing() {
    let scope = Scope::new(); // this thread's faults and object accounting
    {
        let device = Device::open_first_with_dpa().unwrap();
        let dpa = Dpa::start(&device, user_kernels::app()).unwrap();
        scope.inject("doca_dpa_mem_alloc", Nth::At(1), ErrorCode::NO_MEMORY).unwrap();
        let err = add_on_dpa(&dpa, 4, 2, 3).unwrap_err();
        assert!(err.is_no_memory(), "{err}");
        assert_eq!(add_on_dpa(&dpa, 2, 1, 1).unwrap(), [2, 3]);
    }
    scope.assert_all_fired();
    assert_eq!(scope.live_total(), 0);
}
