//! The DPA applications of doca-rs's own examples (`examples/kernels/*.c`, app
//! `doca_examples`) and of its integration tests and benchmarks (`tests/kernels/*.c`,
//! app `doca_tests`; in sim builds also `doca_tests_twin`, tests/kernels/twin), built
//! by this package's build script and declared here from
//! their C prototypes. Using a declaration links its app; nothing else links it.

doca_dpa::include_app!(pub doca_examples);
doca_dpa::include_app!(pub doca_tests);
// Sim builds: a kernel named like one of `doca_tests`, with other code.
#[cfg(doca_backend = "sim")]
doca_dpa::include_app!(pub doca_tests_twin);
