//! Builds the DPA applications of the examples and the integration tests (dpacc on
//! hardware, the host compiler against doca-sim's device headers on the sim).
//!
//! The kernels that take RDMI device types (`examples/kernels/rdmi/`,
//! `tests/kernels/rdmi/`) are part of the apps only where the DOCA this build uses
//! has RDMI (`DEP_DOCA_DPA_RDMI=present`; the sim always has it). No public DOCA
//! release ships RDMI headers, so on such an install (DOCA 3.0, say) neither the
//! device compiler nor the host launchers could name those types. The Rust code
//! that launches them is inside `doca::rdmi::if_rdmi!`, which is only expanded where
//! RDMI is present too; elsewhere the RDMI example and tests say why they are
//! skipped.
//!
//! The same for the kernels that take DOCA RDMA's `doca_dpa_dev_rdma_t`
//! (`examples/kernels/rdma/`, `tests/kernels/rdma/`): part of the apps where the
//! install has `doca-rdma.pc` (`DEP_DOCA_DPA_RDMA=present`), whose `doca_rdma.h` the
//! host launchers include; their Rust code is inside `doca::rdma::if_rdma!`. And
//! for the DPA Comms kernels (`examples/kernels/comch/`, `tests/kernels/comch/`),
//! whose handle types the host's `doca_comch_consumer.h` / `_producer.h` declare:
//! part of the apps where the install has `doca-comch.pc`
//! (`DEP_DOCA_DPA_COMCH=present`); their Rust code is inside `doca::comch::if_comch!`.
//!
//! And for the DPA Verbs kernels (`examples/kernels/verbs/`, `tests/kernels/verbs/`),
//! which take `doca_dpa_dev_verbs_qp_t` (declared by the host's `doca_verbs.h`) and
//! include `doca_dpa_dev_verbs.h`: part of the apps where the install has
//! `doca-verbs.pc` (`DEP_DOCA_DPA_VERBS=present`) and is DOCA 3.2 or later
//! (`DEP_DOCA_DPA_VERSION`); their Rust code is inside `doca::verbs::if_dpa_verbs!`.
//!
//! `kernels/examples` and `kernels/tests` are symbolic links to `examples/kernels`
//! and `tests/kernels`: the sources stay where the examples and tests are, and
//! `cargo package` (which follows the links) puts them in this package's tarball,
//! so its verification build finds them.
fn main() {
    println!("cargo::rerun-if-env-changed=DEP_DOCA_DPA_RDMI");
    println!("cargo::rerun-if-env-changed=DEP_DOCA_DPA_RDMA");
    println!("cargo::rerun-if-env-changed=DEP_DOCA_DPA_COMCH");
    println!("cargo::rerun-if-env-changed=DEP_DOCA_DPA_VERBS");
    println!("cargo::rerun-if-env-changed=DEP_DOCA_DPA_VERSION");
    let present = |var: &str| std::env::var(var).is_ok_and(|v| v.trim() == "present");
    let (rdmi, rdma) = (present("DEP_DOCA_DPA_RDMI"), present("DEP_DOCA_DPA_RDMA"));
    let mut examples =
        doca_build_support::dpa_app::DpaApp::new("doca_examples").sources_in("kernels/examples");
    let mut tests =
        doca_build_support::dpa_app::DpaApp::new("doca_tests").sources_in("kernels/tests");
    if rdmi {
        examples = examples.sources_in("kernels/examples/rdmi");
        tests = tests.sources_in("kernels/tests/rdmi");
    }
    if rdma {
        examples = examples.sources_in("kernels/examples/rdma");
        tests = tests.sources_in("kernels/tests/rdma");
    }
    if present("DEP_DOCA_DPA_COMCH") {
        examples = examples.sources_in("kernels/examples/comch");
        tests = tests.sources_in("kernels/tests/comch");
    }
    let dpa_verbs = std::env::var("DEP_DOCA_DPA_VERSION")
        .ok()
        .and_then(|v| doca_build_support::version::DocaVersion::parse(v.trim()).ok())
        .is_some_and(|v| (v.major, v.minor) >= (3, 2));
    if present("DEP_DOCA_DPA_VERBS") && dpa_verbs {
        examples = examples.sources_in("kernels/examples/verbs");
        tests = tests.sources_in("kernels/tests/verbs");
    }
    examples.build_or_exit();
    tests.build_or_exit();
    // A second application with a kernel named like one of `doca_tests`, in sim
    // builds (where each application's functions have symbols of their own; on
    // hardware the names would collide at link time).
    println!("cargo::rerun-if-env-changed=DEP_DOCA_DPA_BACKEND");
    if std::env::var("DEP_DOCA_DPA_BACKEND").is_ok_and(|v| v.trim() == "sim") {
        doca_build_support::dpa_app::DpaApp::new("doca_tests_twin")
            .sources_in("kernels/tests/twin")
            .build_or_exit();
    }
}
