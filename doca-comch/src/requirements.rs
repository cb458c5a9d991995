//! The DOCA functions this crate calls, shared with the build script (through
//! `#[path]`), which sets `doca_comch_api` only when every one is declared, exported
//! and allowed by the `experimental` feature; [`availability`](crate::availability())
//! reads the same list to say why the API is absent.

/// Message queues, consumers, consumer completions and producers (`doca_comch_api`):
/// they only work together, so they are one part.
pub(crate) const MSGQ: &[&str] = &[
    "doca_comch_msgq_create",
    "doca_comch_msgq_destroy",
    "doca_comch_msgq_set_dpa_consumer",
    "doca_comch_msgq_set_dpa_producer",
    "doca_comch_msgq_set_max_num_consumers",
    "doca_comch_msgq_set_max_num_producers",
    "doca_comch_msgq_start",
    "doca_comch_msgq_stop",
    "doca_comch_msgq_consumer_create",
    "doca_comch_msgq_producer_create",
    "doca_comch_consumer_destroy",
    "doca_comch_consumer_get_id",
    "doca_comch_consumer_as_ctx",
    "doca_comch_consumer_cap_get_max_imm_data_len",
    "doca_comch_consumer_get_imm_data_len",
    "doca_comch_consumer_set_imm_data_len",
    "doca_comch_consumer_set_dev_max_num_recv",
    "doca_comch_consumer_set_completion",
    "doca_comch_consumer_get_dpa_handle",
    "doca_comch_consumer_completion_create",
    "doca_comch_consumer_completion_set_dpa_thread",
    "doca_comch_consumer_completion_destroy",
    "doca_comch_consumer_completion_start",
    "doca_comch_consumer_completion_stop",
    "doca_comch_consumer_completion_get_dpa_handle",
    "doca_comch_consumer_completion_set_max_num_consumers",
    "doca_comch_consumer_completion_get_max_num_consumers",
    "doca_comch_consumer_completion_set_max_num_recv",
    "doca_comch_consumer_completion_get_max_num_recv",
    "doca_comch_consumer_completion_set_imm_data_len",
    "doca_comch_consumer_completion_get_imm_data_len",
    "doca_comch_producer_destroy",
    "doca_comch_producer_get_id",
    "doca_comch_producer_as_ctx",
    "doca_comch_producer_set_dev_max_num_send",
    "doca_comch_producer_dpa_completion_attach",
    "doca_comch_producer_get_dpa_handle",
    "doca_ctx_set_datapath_on_dpa",
    "doca_ctx_start",
    "doca_ctx_stop",
    "doca_dev_as_devinfo",
    // doca-dpa's threads and DPA completions, which consumers and producers use.
    "doca_dpa_thread_create",
    "doca_dpa_thread_run",
    "doca_dpa_completion_create",
];

/// Every part: its cfg and the functions it needs.
pub(crate) const PARTS: &[(&str, &[&str])] = &[("doca_comch_api", MSGQ)];
