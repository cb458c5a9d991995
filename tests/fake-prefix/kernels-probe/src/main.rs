//! Declares the DPA application the build script made with (fake) dpacc and
//! prints what it linked, one `key=value` per line, for
//! scripts/fake-prefix-test.sh to check. It starts no context: the fake
//! dpacc's application symbol is NULL.

doca_dpa::dpa_app! {
    /// `kernels/kprobe.c`, built with `--app-name=kprobe_app`.
    pub mod kprobe_app {
        /// `__dpa_global__ void kprobe_fill(doca_dpa_dev_uintptr_t out, uint64_t value)`
        kernel kprobe_fill(param::DevPtr, u64);
    }
}

fn main() {
    let app = kprobe_app::app();
    println!("backend={}", doca_dpa::build_info::BACKEND);
    println!("app={}", app.name());
    println!("kernel={}", kprobe_app::kprobe_fill.name());
}
