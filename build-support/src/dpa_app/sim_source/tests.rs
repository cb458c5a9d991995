//! Tests of the parent module.

use super::*;
use crate::dpa_app::parse::parse_device_functions;

#[test]
fn c_strings() {
    assert_eq!(c_string("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\001\"");
}

#[test]
fn layout_of_one_kernel_and_one_rpc() {
    let src = Path::new("/abs/k.c");
    let ks = parse_device_functions(
        src,
        "__dpa_global__ void fill(doca_dpa_dev_uintptr_t out, uint32_t n) {}\n\
             __dpa_rpc__ uint64_t ping(void) { return 7; }\n",
    )
    .unwrap();
    let c = sim_app_source("my_app", &[src], &ks, &[]);
    for needle in [
            "#include \"/abs/k.c\"",
            "_Static_assert(sizeof(uint32_t) == 4 || sizeof(uint32_t) == 8,",
            "static void doca_sim_gen_fill_read(va_list *ap, uint64_t *args)",
            "\targs[0] = (uint64_t)(uintptr_t)va_arg(*ap, doca_dpa_dev_uintptr_t);",
            "\targs[1] = (uint64_t)(uintptr_t)va_arg(*ap, uint32_t);",
            "(doca_dpa_dev_uintptr_t)(uintptr_t)args[0],",
            "(uint32_t)(uintptr_t)args[1]);\n\treturn 0;",
            "static const uint8_t doca_sim_gen_fill_sizes[2] = { (uint8_t)sizeof(doca_dpa_dev_uintptr_t), (uint8_t)sizeof(uint32_t) };",
            "#define fill doca_sim_app_6_my_app__fill\n#define ping doca_sim_app_6_my_app__ping\n#include \"/abs/k.c\"\n#undef fill\n#undef ping\n",
            "\treturn doca_sim_app_6_my_app__ping();",
            "\tdoca_sim_app_6_my_app__fill(\n",
            ".func = (void (*)(void))doca_sim_app_6_my_app__ping,",
            "extern __typeof__(doca_sim_app_6_my_app__ping) ping __attribute__((weak, alias(\"doca_sim_app_6_my_app__ping\")));",
            ".kind = DOCA_SIM_KERNEL_RPC,",
            ".param_sizes = NULL,\n\t\t.read_args = NULL,",
            ".name = \"my_app\",",
            "struct doca_dpa_app;\nstruct doca_dpa_app *my_app = (struct doca_dpa_app *)(uintptr_t)&doca_sim_gen_app;",
        ] {
            assert!(c.contains(needle), "missing {needle:?} in\n{c}");
        }
    assert!(!c.contains("doca_sim_gen_ping_read"));
}
