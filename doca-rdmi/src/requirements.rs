//! The DOCA functions each part of this crate calls. Shared with the build
//! script (through `#[path]`), which enables a part with the cfg
//! `doca_rdmi_api = "<part>"` only when every function it needs is declared,
//! exported and allowed by the `experimental` feature; [`crate::availability`]
//! reads the same lists to explain an absence.

/// One part of the crate and the DOCA functions it needs.
// `name` and `needs` are read by the build script.
#[allow(dead_code)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct Part {
    /// The value of the `doca_rdmi_api` cfg.
    pub(crate) name: &'static str,
    /// Other parts it builds on.
    pub(crate) needs: &'static [&'static str],
    /// The DOCA functions it calls unconditionally.
    pub(crate) symbols: &'static [&'static str],
}

/// Every part, dependencies first.
pub(crate) const PARTS: &[Part] = &[
    // doca-verbs's `doca_verbs_api` part (its `CORE` list): the verbs objects
    // RDMI is made on.
    Part {
        name: "verbs",
        needs: &[],
        symbols: &[
            "doca_dev_as_devinfo",
            "doca_verbs_context_create",
            "doca_verbs_context_destroy",
            "doca_verbs_pd_create",
            "doca_verbs_pd_destroy",
            "doca_verbs_cq_attr_create",
            "doca_verbs_cq_attr_destroy",
            "doca_verbs_cq_attr_set_cq_size",
            "doca_verbs_cq_create",
            "doca_verbs_cq_destroy",
        ],
    },
    Part {
        name: "ctx",
        needs: &[],
        symbols: &[
            "doca_ctx_start",
            "doca_ctx_stop",
            "doca_ctx_get_state",
            "doca_ctx_set_datapath_on_dpa",
            // doca-dpa's `Dpa` and `Completion`, the datapath and a completion source.
            "doca_dpa_create",
            "doca_dpa_thread_create",
            "doca_dpa_completion_create",
        ],
    },
    Part {
        name: "connection",
        needs: &["verbs", "ctx"],
        symbols: &[
            "doca_rdmi_connection_create",
            "doca_rdmi_connection_destroy",
            "doca_rdmi_connection_as_ctx",
            "doca_rdmi_connection_dpa_completion_attach",
            "doca_rdmi_connection_cq_attach",
            "doca_rdmi_connection_init_receive",
            "doca_rdmi_connection_get_dpa_handle",
        ],
    },
    Part {
        name: "poster",
        needs: &["verbs", "ctx"],
        symbols: &[
            "doca_rdmi_poster_create",
            "doca_rdmi_poster_destroy",
            "doca_rdmi_poster_as_ctx",
            "doca_rdmi_poster_dpa_completion_attach",
            "doca_rdmi_poster_cq_attach",
            "doca_rdmi_poster_get_dpa_handle",
        ],
    },
];
