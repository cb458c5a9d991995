//! The DOCA functions each part of this crate calls, shared with the build script
//! (through `#[path]`), which sets a part's cfg only when every function it needs is
//! declared, exported and allowed by the `experimental` feature;
//! [`availability`](crate::availability()) reads the same lists to say why a part
//! is absent.

/// The contexts and connections (`doca_rdma_api`).
pub(crate) const CONTEXT: &[&str] = &[
    "doca_rdma_create",
    "doca_rdma_destroy",
    "doca_rdma_as_ctx",
    "doca_rdma_set_permissions",
    "doca_rdma_set_grh_enabled",
    "doca_rdma_set_gid_index",
    "doca_rdma_cap_get_max_send_queue_size",
    "doca_rdma_cap_get_max_recv_queue_size",
    "doca_rdma_set_send_queue_size",
    "doca_rdma_set_recv_queue_size",
    "doca_rdma_set_max_num_connections",
    "doca_rdma_dpa_completion_attach",
    "doca_rdma_get_dpa_handle",
    "doca_rdma_export",
    "doca_rdma_connect",
    "doca_rdma_connection_get_id",
    "doca_ctx_set_datapath_on_dpa",
    "doca_ctx_start",
    "doca_ctx_stop",
    "doca_dpa_completion_create",
];

/// Memory maps made from a peer's export (`doca_rdma_remote_mmap`).
pub(crate) const REMOTE_MMAP: &[&str] = &[
    "doca_mmap_create_from_export",
    "doca_mmap_dev_get_dpa_handle",
    "doca_mmap_destroy",
    "doca_dpa_create",
    // doca-dpa's memory maps, whose `RdmaExport` a remote map is made from.
    "doca_mmap_set_dpa_memrange",
    "doca_dpa_mem_alloc",
];

/// Remote-net sync events made from a peer's export (`doca_rdma_remote_event`).
pub(crate) const REMOTE_EVENT: &[&str] = &[
    "doca_sync_event_remote_net_create_from_export",
    "doca_sync_event_remote_net_get_dpa_handle",
    "doca_sync_event_remote_net_destroy",
    "doca_dpa_create",
];

/// Every part: its cfg and the functions it needs.
pub(crate) const PARTS: &[(&str, &[&str])] = &[
    ("doca_rdma_api", CONTEXT),
    ("doca_rdma_remote_mmap", REMOTE_MMAP),
    ("doca_rdma_remote_event", REMOTE_EVENT),
];
