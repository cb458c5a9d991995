//! DOCA RDMI through the safe API: the lifecycle rows, the misuse rows the
//! types do not rule out, the checklist of the RDMI facts (symbols present,
//! lifecycle order, single-completion smoke, DPA handle round-trip, attach
//! after start → BAD_STATE through the raw layer), acknowledgements and the
//! asynchronous stop.
//!
//! The tests that move data use the software DPA's loopback device functions
//! (DOCA's device-side RDMI API is not public) and skip, saying so, on
//! hardware. In builds without RDMI only the absence is checked.

mod common;

doca::rdmi::if_rdmi! {
    #[path = "rdmi/flows.rs"]
    mod flows;
}

doca::rdmi::if_no_rdmi! {
    #[test]
    fn rdmi_absence_is_explained() {
        match doca::rdmi::availability() {
            doca::rdmi::Availability::Absent(why) => assert!(!why.is_empty()),
            other => panic!("{other:?}: the RDMI wrappers are not compiled, so RDMI must be absent"),
        }
        assert!(!doca::rdmi::absent_reasons().is_empty());
    }
}
