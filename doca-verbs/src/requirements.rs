//! The DOCA functions each part of this crate calls, shared with the build script
//! (through `#[path]`), which sets a part's cfg only when every function it needs is
//! declared, exported and allowed by the `experimental` feature;
//! [`availability`](crate::availability()) reads the same lists to say why a part
//! is absent. doca-rdmi's `verbs` part lists [`CORE`] again (its build script
//! cannot read this file from a published package): a build where the two
//! disagreed would not compile, since RDMI names these types.

/// Verbs contexts, protection domains and completion queues (`doca_verbs_api`).
pub(crate) const CORE: &[&str] = &[
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
];

/// Queue pairs on the DPA datapath with their UMEMs and UAR (`doca_verbs_dpa_qp`,
/// DOCA 3.2+; the module is also gated on `doca_ge_3_2`).
pub(crate) const DPA_QP: &[&str] = &[
    "doca_dpa_mem_alloc",
    "doca_dpa_completion_create",
    "doca_umem_dpa_create",
    "doca_umem_destroy",
    "doca_uar_dpa_create",
    "doca_uar_destroy",
    "doca_verbs_qp_init_attr_create",
    "doca_verbs_qp_init_attr_destroy",
    "doca_verbs_qp_init_attr_set_external_datapath_en",
    "doca_verbs_qp_init_attr_set_external_umem",
    "doca_verbs_qp_init_attr_set_external_dbr_umem",
    "doca_verbs_qp_init_attr_set_external_uar",
    "doca_verbs_qp_init_attr_set_pd",
    "doca_verbs_qp_init_attr_set_sq_wr",
    "doca_verbs_qp_init_attr_set_rq_wr",
    "doca_verbs_qp_init_attr_set_qp_type",
    "doca_verbs_qp_init_attr_set_send_dpa_completion",
    "doca_verbs_qp_init_attr_set_receive_dpa_completion",
    "doca_verbs_qp_init_attr_set_send_max_sges",
    "doca_verbs_qp_init_attr_set_receive_max_sges",
    "doca_verbs_qp_create",
    "doca_verbs_qp_destroy",
    "doca_verbs_qp_get_qpn",
    "doca_verbs_qp_get_dpa_handle",
    "doca_verbs_qp_attr_create",
    "doca_verbs_qp_attr_destroy",
    "doca_verbs_qp_attr_set_next_state",
    "doca_verbs_qp_attr_set_allow_remote_write",
    "doca_verbs_qp_attr_set_allow_remote_read",
    "doca_verbs_qp_attr_set_pkey_index",
    "doca_verbs_qp_attr_set_port_num",
    "doca_verbs_qp_attr_set_rq_psn",
    "doca_verbs_qp_attr_set_dest_qp_num",
    "doca_verbs_qp_attr_set_min_rnr_timer",
    "doca_verbs_qp_attr_set_path_mtu",
    "doca_verbs_qp_attr_set_ah_attr",
    "doca_verbs_qp_attr_set_sq_psn",
    "doca_verbs_qp_attr_set_ack_timeout",
    "doca_verbs_qp_attr_set_retry_cnt",
    "doca_verbs_qp_attr_set_rnr_retry",
    "doca_verbs_qp_modify",
    "doca_verbs_ah_attr_create",
    "doca_verbs_ah_attr_destroy",
    "doca_verbs_ah_attr_set_gid",
    "doca_verbs_ah_attr_set_addr_type",
    "doca_verbs_ah_attr_set_sgid_index",
    "doca_verbs_ah_attr_set_hop_limit",
];

/// Every part: its cfg and the functions it needs.
pub(crate) const PARTS: &[(&str, &[&str])] =
    &[("doca_verbs_api", CORE), ("doca_verbs_dpa_qp", DPA_QP)];
