//! Chooses the backend and produces the bindings (see doca-build-support).
fn main() {
    doca_build_support::sys::build(doca_build_support::sys::BindingSet::Rdma);
}
