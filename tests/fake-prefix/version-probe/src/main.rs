//! Prints the release the build is for and which version cfgs it got; with the
//! `api-3-1` / `api-3-2` features, names APIs of those releases unconditionally, so
//! that it compiles only where the build has them.

fn main() {
    println!("doca_version={}", doca_dpa_sys::build_info::DOCA_VERSION);
    println!("doca_ge_3_0={}", cfg!(doca_ge_3_0));
    println!("doca_ge_3_1={}", cfg!(doca_ge_3_1));
    println!("doca_ge_3_2={}", cfg!(doca_ge_3_2));
    println!("doca_ge_3_3={}", cfg!(doca_ge_3_3));
    #[cfg(feature = "api-3-1")]
    {
        // DOCA 3.1: the safe wrapper of doca_devinfo_get_pci_func_type.
        let api: fn(&doca_dpa::Device) -> doca_dpa::Result<doca_dpa::PciFuncType> =
            doca_dpa::Device::pci_func_type;
        std::hint::black_box(api);
        println!("api_3_1=present");
    }
    #[cfg(feature = "api-3-2")]
    {
        // DOCA 3.2: DPA Verbs' queue-pair handle (the raw binding; the bundled
        // bindings hold only what the install declares), and the safe queue
        // pairs on the DPA datapath with their UMEMs and UAR.
        std::hint::black_box(doca_verbs_sys::doca_verbs_qp_get_dpa_handle);
        let uar: fn(&doca_dpa::Dpa) -> doca_verbs::Result<doca_verbs::DpaUar> =
            doca_verbs::DpaUar::new;
        std::hint::black_box(uar);
        std::hint::black_box(doca_verbs::QpBuilder::new);
        println!("api_3_2=present");
        println!("dpa_verbs={:?}", doca_verbs::availability());
    }
}
