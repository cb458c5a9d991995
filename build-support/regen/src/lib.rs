//! The maintainers' tool that makes doca-rs's committed bindings (`cargo regen-bindings`):
//! bindgen over the reference headers (`doca-sim/include`) with the configuration
//! hardware builds use ([`doca_build_support::bindgen_config`]), and, per binding set,
//! the check file a hardware build compiles against the installed headers
//! ([`doca_build_support::check`]), made with libclang ([`check_gen`]). A package of its
//! own, so that no build script's dependency carries it.

pub mod check_gen;
pub mod regen;
