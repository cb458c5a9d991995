//! DOCA RDMA on the DPA datapath through the safe API: a one-sided write and a
//! signal through a peer's exported map and event, connections and their
//! details (garbage included), the lifecycle rules (stop refused while in use,
//! a completion or handle of another DPA context refused) and the configuration
//! checks. In builds without DOCA RDMA only the absence is checked.

mod common;

doca::rdma::if_rdma! {
    #[path = "rdma/flows.rs"]
    mod flows;
    #[path = "rdma/setup.rs"]
    mod setup;
}

doca::rdma::if_no_rdma! {
    #[test]
    fn rdma_absence_is_explained() {
        match doca::rdma::availability() {
            doca::rdma::Availability::Absent(why) => assert!(!why.is_empty()),
            other => panic!("{other:?}: the RDMA wrappers are not compiled, so RDMA must be absent"),
        }
    }
}
