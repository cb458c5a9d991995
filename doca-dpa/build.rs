//! Turns the -sys crate's symbol audit into `doca_sym` cfgs (filtered by the
//! `experimental` feature) and the run-time audit table, plus `doca_dpa_wait_tasks`
//! when every call of an awaitable event (`doca::dpa::Engine`) is usable.
fn main() {
    doca_build_support::safe::emit_cfgs_with(
        &["DOCA_DPA"],
        &[(
            "doca_dpa_wait_tasks",
            &[
                "doca_sync_event_as_ctx",
                "doca_pe_connect_ctx",
                "doca_ctx_start",
                "doca_ctx_stop",
                "doca_ctx_get_state",
                "doca_sync_event_cap_task_wait_neq_is_supported",
                "doca_sync_event_task_wait_neq_set_conf",
                "doca_sync_event_task_wait_neq_alloc_init",
                "doca_pe_create",
                "doca_pe_get_notification_handle",
            ],
        )],
    );
}
