//! Shared by the integration tests: the tests' DPA application and device
//! selection. The tests are backend-agnostic: on a BlueField runner they use
//! the device named by `DOCA_TEST_DEVICE` (PCI address or IB device name), or
//! the first one with a DPA.
#![allow(dead_code)]

use doca::dpa::{Device, Dpa};

doca::dpa::dpa_app! {
    /// The kernels of `tests/kernels/` (`--app-name=doca_tests`).
    pub mod doca_tests {
        kernel write_ranks(param::DevPtr, u64);
        kernel mixed_args(param::DevPtr, u32, u64, i32, i64);
        kernel barrier(param::DevPtr, param::DevPtr);
        kernel spin_until(param::DevPtr);
        kernel noop();
        kernel set_event(param::SyncEvent, u64);
        kernel fault();
        thread count_activations;
        rpc add(u64, u64);
        rpc notify(param::Notification);
        /// `rdmi_test_record(uint64_t poster, uint64_t connection, doca_dpa_dev_uintptr_t out)`
        kernel rdmi_test_record(
            ::doca::rdmi::param::RdmiPoster,
            ::doca::rdmi::param::RdmiConnection,
            param::DevPtr
        );
        /// `rdmi_test_send(uint64_t poster, uint64_t connection, uint32_t count,
        /// uint32_t first, doca_dpa_dev_uintptr_t out)`
        kernel rdmi_test_send(
            ::doca::rdmi::param::RdmiPoster,
            ::doca::rdmi::param::RdmiConnection,
            u32,
            u32,
            param::DevPtr
        );
        /// `rdmi_test_consume(uint64_t connection, uint32_t n, doca_dpa_dev_uintptr_t out)`
        kernel rdmi_test_consume(::doca::rdmi::param::RdmiConnection, u32, param::DevPtr);
        /// `rdmi_test_drain(doca_dpa_dev_completion_t comp, doca_dpa_dev_uintptr_t out, uint32_t max)`
        kernel rdmi_test_drain(param::Completion, param::DevPtr, u32);
        /// `i4_hash_put(doca_dpa_dev_hash_table_t ht, uint32_t first, uint32_t n)`
        kernel i4_hash_put(param::HashTable, u32, u32);
        /// `i4_hash_get(doca_dpa_dev_hash_table_t ht, uint32_t first, uint32_t n,
        /// doca_dpa_dev_uintptr_t out)`
        kernel i4_hash_get(param::HashTable, u32, u32, param::DevPtr);
        /// `i4_mmap_echo(uint32_t mmap, uint64_t tag, doca_dpa_dev_uintptr_t out)`
        kernel i4_mmap_echo(param::Mmap, u64, param::DevPtr);
        /// `i4_log(uint64_t value)`
        kernel i4_log(u64);
        /// `i4_event_wait(doca_dpa_dev_sync_event_t event, uint64_t threshold,
        /// doca_dpa_dev_uintptr_t out)`
        kernel i4_event_wait(param::SyncEvent, u64, param::DevPtr);
        /// `i4_on_completion(uint64_t arg)`
        thread i4_on_completion;
        /// `i4_post_completion(doca_dpa_dev_completion_t comp, uint32_t user_data,
        /// doca_dpa_dev_uintptr_t out)` (sim only)
        kernel i4_post_completion(param::Completion, u32, param::DevPtr);
    }
}

/// The device under test.
pub(crate) fn device() -> Device {
    let opened = match std::env::var("DOCA_TEST_DEVICE") {
        Ok(name) if name.contains(':') => Device::open_by_pci(&name),
        Ok(name) => Device::open_by_ibdev_name(&name),
        Err(_) => Device::open_first_with_dpa(),
    };
    opened.expect("no DPA device: set DOCA_TEST_DEVICE or run on the sim")
}

/// A started context running the tests' app.
pub(crate) fn dpa() -> Dpa {
    Dpa::start(&device(), doca_tests::app()).expect("starting the DPA context")
}
