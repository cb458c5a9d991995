//! Declares the DPA application the build script made with (fake) dpacc and
//! prints what it linked, one `key=value` per line, for
//! scripts/fake-prefix-test.sh to check. It starts no context: the fake
//! dpacc's application symbol is NULL.

// `kernels/kprobe.c`, built with `--app-name=kprobe_app`; the declarations are
// generated from its C prototypes by the build script.
doca_dpa::include_app!(kprobe_app);

fn main() {
    let app = kprobe_app::app();
    println!("backend={}", doca_dpa::build_info::BACKEND);
    println!("app={}", app.name());
    println!("kernel={}", kprobe_app::kprobe_fill.name());
}
