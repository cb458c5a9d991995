//! DPA Comms message queues through the safe API: messages between kernels, the
//! lifecycle rules (stops refused while in use, in DOCA's order once free) and the
//! configuration checks. In builds without DOCA Comch only the absence is checked.

mod common;

doca::comch::if_comch! {
    #[path = "comch/flows.rs"]
    mod flows;
    #[path = "comch/setup.rs"]
    mod setup;
}

doca::comch::if_no_comch! {
    #[test]
    fn comch_absence_is_explained() {
        match doca::comch::availability() {
            doca::comch::Availability::Absent(why) => assert!(!why.is_empty()),
            other => panic!("{other:?}: the Comch wrappers are not compiled, so DPA Comms must be absent"),
        }
    }
}
