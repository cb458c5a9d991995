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

/// Every part: its cfg and the functions it needs.
pub(crate) const PARTS: &[(&str, &[&str])] = &[("doca_verbs_api", CORE)];
