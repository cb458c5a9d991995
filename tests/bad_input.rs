//! The bad-input matrix: every input DOCA (or a documented rule) forbids is
//! refused with a typed error naming the call, nothing panics, and nothing is
//! left behind (on the sim, checked with its live-object accounting; on
//! hardware only the error is checked).
//!
//! Kernel argument count and type mismatches do not compile (see the
//! `compile_fail` doctests of `doca_dpa::lifecycle_rules`); at run time the
//! raw call with a function that is not a kernel of the app is refused.

mod common;

use common::doca_tests;
use doca::dpa::{
    AsyncOps, CompletionBuilder, Device, DpaBuffer, Error, ErrorKind, Gate, Launcher, WaitEvent,
};

/// Runs `f` and checks it left no sim object behind.
#[cfg(doca_backend = "sim")]
fn leak_checked(f: impl FnOnce()) {
    let scope = doca::sim::Scope::new();
    f();
    assert_eq!(scope.live_total(), 0, "left {:?}", scope.live_objects());
}

#[cfg(not(doca_backend = "sim"))]
fn leak_checked(f: impl FnOnce()) {
    f();
}

#[track_caller]
fn invalid(err: Error, call: &str) {
    assert_eq!(err.kind(), ErrorKind::InvalidArgument, "{err}");
    assert_eq!(err.call(), Some(call), "{err}");
}

#[test]
fn allocation_sizes_zero_and_huge() {
    leak_checked(|| {
        let dpa = common::dpa();
        invalid(
            DpaBuffer::<u64>::new(&dpa, 0).unwrap_err(),
            "doca_dpa_mem_alloc",
        );
        invalid(
            DpaBuffer::<u64>::new(&dpa, usize::MAX).unwrap_err(),
            "doca_dpa_mem_alloc",
        );
        invalid(
            DpaBuffer::<u8>::from_slice(&dpa, &[]).unwrap_err(),
            "doca_dpa_mem_alloc",
        );
        // Fits the address space, not the DPA heap: DOCA refuses it.
        let err = DpaBuffer::<u8>::new(&dpa, 1 << 50).unwrap_err();
        assert_eq!(err.call(), Some("doca_dpa_mem_alloc"), "{err}");
        assert!(err.is_no_memory() || err.is_invalid_argument(), "{err}");
    });
}

#[test]
fn copies_out_of_bounds() {
    leak_checked(|| {
        let dpa = common::dpa();
        let buf = DpaBuffer::<u32>::from_slice(&dpa, &[1, 2, 3, 4]).unwrap();
        invalid(buf.write(3, &[9, 9]).unwrap_err(), "doca_dpa_h2d_memcpy");
        invalid(
            buf.write(usize::MAX, &[9]).unwrap_err(),
            "doca_dpa_h2d_memcpy",
        );
        let mut two = [0u32; 2];
        invalid(buf.read(3, &mut two).unwrap_err(), "doca_dpa_d2h_memcpy");
        invalid(
            buf.read(usize::MAX, &mut two).unwrap_err(),
            "doca_dpa_d2h_memcpy",
        );
        assert_eq!(buf.to_vec().unwrap(), [1, 2, 3, 4], "nothing was written");
    });
}

#[test]
fn thread_counts_and_wait_thresholds() {
    leak_checked(|| {
        let dpa = common::dpa();
        let launcher = Launcher::new(&dpa).unwrap();
        let max = dpa.limits().max_threads_per_kernel;
        for threads in [0, max + 1, u32::MAX] {
            let err = launcher.launch(&doca_tests::noop, threads, ()).unwrap_err();
            invalid(err, "doca_dpa_kernel_launch_update_add");
        }
        let event = WaitEvent::new(&dpa, doca::dpa::Export::No).unwrap();
        for threshold in [255u8, u8::MAX] {
            invalid(
                Gate::new(&event, threshold).unwrap_err(),
                "doca_dpa_kernel_launch_update_add",
            );
        }
        assert_eq!(launcher.submitted(), 0);
    });
}

#[test]
fn an_event_without_a_dpa_handle_passed_to_a_kernel() {
    leak_checked(|| {
        let dpa = common::dpa();
        let launcher = Launcher::new(&dpa).unwrap();
        let event = doca::dpa::CompletionEvent::new(&dpa, doca::dpa::Export::No).unwrap();
        let err = launcher
            .launch(&doca_tests::set_event, 1, (&event, 5u64))
            .unwrap_err();
        let message = err.to_string();
        invalid(err, "doca_sync_event_get_dpa_handle");
        // What to do, in the API's own names (it once named a parameter that does
        // not exist).
        assert!(
            message.contains("made with `Export::No`")
                && message.contains("make it with `Export::ToDpa`"),
            "{message}"
        );
        assert_eq!(launcher.submitted(), 0);
    });
}

#[test]
fn queue_sizes_zero() {
    leak_checked(|| {
        let dpa = common::dpa();
        invalid(
            CompletionBuilder::new(&dpa, 0).unwrap_err(),
            "doca_dpa_completion_create",
        );
        let comp = CompletionBuilder::new(&dpa, 4).unwrap().start().unwrap();
        invalid(
            AsyncOps::new(&dpa, 0, 1, &comp).unwrap_err(),
            "doca_dpa_async_ops_create",
        );
    });
}

/// Completion user data is 24 bits wide in DOCA; `AsyncOps::new` takes a
/// `u64` and refuses wider values before calling DOCA.
#[test]
fn completion_user_data_of_24_bits_or_more() {
    leak_checked(|| {
        let dpa = common::dpa();
        let comp = CompletionBuilder::new(&dpa, 4).unwrap().start().unwrap();
        assert!(AsyncOps::new(&dpa, 2, (1 << 24) - 1, &comp).is_ok());
        for user_data in [1u64 << 24, u64::MAX] {
            let err = AsyncOps::new(&dpa, 2, user_data, &comp).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidArgument, "{err}");
            assert_eq!(err.call(), Some("doca_dpa_async_ops_create"), "{err}");
        }
    });
}

#[test]
fn device_names_and_pci_addresses() {
    leak_checked(|| {
        for bad in [
            "not-a-pci-address",
            "",
            "0000:03:00",
            "zzzz:zz:zz.z",
            "0000:03:00.8",
        ] {
            let err = Device::open_by_pci(bad).unwrap_err();
            assert!(err.is_invalid_argument(), "{bad:?}: {err}");
        }
        invalid(
            Device::open_by_pci("not-a-pci-address").unwrap_err(),
            "doca_devinfo_is_equal_pci_addr",
        );
        for missing in ["ffff:ff:1f.7", "0000:99:00.0"] {
            let err = Device::open_by_pci(missing).unwrap_err();
            assert!(err.is_not_found(), "{missing}: {err}");
            assert!(
                matches!(&err, Error::NoSuchDevice { seen, .. } if !seen.is_empty()),
                "{err}"
            );
            assert!(
                err.to_string().contains(missing),
                "the address is not echoed: {err}"
            );
            assert!(err.to_string().contains("devices seen"), "{err}");
        }
        for name in ["mlx5_999", "no such device", "mlx5_0\0x"] {
            let err = Device::open_by_ibdev_name(name).unwrap_err();
            assert!(err.is_not_found(), "{name:?}: {err}");
            assert!(err.to_string().contains(name), "{err}");
        }
        invalid(
            Device::open_by_ibdev_name("").unwrap_err(),
            "doca_devinfo_get_ibdev_name",
        );
    });
}

/// `Device::open_named_or_first_with_dpa`, the examples' `DOCA_DEVICE`: a PCI address
/// (it has a `:`), an InfiniBand device name, or none for the first with a DPA; a name
/// no device has is refused naming it.
#[test]
fn a_named_device_or_the_first_with_a_dpa() {
    let first = Device::open_named_or_first_with_dpa(None).unwrap();
    assert!(first.info().has_dpa);
    let (pci, ibdev) = (&first.info().pci_addr, &first.info().ibdev_name);
    let by_pci = Device::open_named_or_first_with_dpa(Some(pci)).unwrap();
    assert_eq!(&by_pci.info().pci_addr, pci);
    let by_name = Device::open_named_or_first_with_dpa(Some(ibdev)).unwrap();
    assert_eq!(&by_name.info().ibdev_name, ibdev);
    for missing in ["mlx5_999", "0000:99:00.0"] {
        let err = Device::open_named_or_first_with_dpa(Some(missing)).unwrap_err();
        assert!(err.is_not_found(), "{missing}: {err}");
        assert!(err.to_string().contains(missing), "{err}");
    }
}

/// Errors name their cause: a device without a DPA, a machine without one,
/// every DOCA code, an unbounded wait.
#[test]
fn errors_name_the_cause() {
    use doca::dpa::{CompletionEvent, ErrorCode, Export};
    use std::time::Duration;
    for (code, name) in [
        (ErrorCode::SHUTDOWN, "DOCA_ERROR_SHUTDOWN"),
        (ErrorCode::CONNECTION_RESET, "DOCA_ERROR_CONNECTION_RESET"),
        (
            ErrorCode::CONNECTION_ABORTED,
            "DOCA_ERROR_CONNECTION_ABORTED",
        ),
        (
            ErrorCode::CONNECTION_INPROGRESS,
            "DOCA_ERROR_CONNECTION_INPROGRESS",
        ),
        (ErrorCode::NO_LOCK, "DOCA_ERROR_NO_LOCK"),
        (ErrorCode::UNEXPECTED, "DOCA_ERROR_UNEXPECTED"),
        (ErrorCode::ALREADY_EXIST, "DOCA_ERROR_ALREADY_EXIST"),
        (ErrorCode::EMPTY, "DOCA_ERROR_EMPTY"),
        (ErrorCode::AUTHENTICATION, "DOCA_ERROR_AUTHENTICATION"),
        (ErrorCode::BAD_CONFIG, "DOCA_ERROR_BAD_CONFIG"),
        (ErrorCode::SKIPPED, "DOCA_ERROR_SKIPPED"),
    ] {
        assert_eq!(code.name(), name);
    }

    // Waits: an unbounded wait that is already satisfied returns (no overflow),
    // and a wait that gives up is a host-side timeout, not a DOCA failure.
    leak_checked(|| {
        let dpa = common::dpa();
        let launcher = Launcher::new(&dpa).unwrap();
        let launch = launcher.launch(&doca_tests::noop, 1, ()).unwrap();
        launch.wait(Duration::MAX).unwrap();
        launcher.wait_all(Duration::MAX).unwrap();
        let event = CompletionEvent::new(&dpa, Export::No).unwrap();
        let err = event.wait_gt(0, Duration::from_millis(5)).unwrap_err();
        assert!(matches!(err, Error::WaitTimeout { .. }), "{err}");
        assert_eq!(err.call(), None, "{err}");
        assert_eq!(err.kind(), ErrorKind::Timeout);
    });

    // A machine whose only device has no DPA (a sim profile: sim builds only).
    #[cfg(doca_backend = "sim")]
    no_dpa_device();
}

#[cfg(doca_backend = "sim")]
fn no_dpa_device() {
    use doca::dpa::{Dpa, ErrorCode};
    let scope = doca::sim::Scope::new();
    scope.set_profile(doca::sim::Profile {
        devices: vec![doca::sim::DeviceProfile::bluefield2(
            "mlx5_2",
            "p2",
            "0000:81:00.0",
        )],
        ..Default::default()
    });
    let err = Device::open_first_with_dpa().unwrap_err();
    assert!(err.is_no_dpa() && err.is_not_supported(), "{err}");
    assert!(
        err.to_string()
            .starts_with("each device DOCA sees (mlx5_2 (0000:81:00.0)) has no DPA"),
        "{err}"
    );
    let device = Device::open_by_ibdev_name("mlx5_2").unwrap();
    assert!(!device.info().has_dpa);
    let err = Dpa::start(&device, doca_tests::app()).unwrap_err();
    assert!(err.is_no_dpa(), "{err}");
    assert_eq!(err.code(), Some(ErrorCode::NOT_SUPPORTED));
    assert!(
        err.to_string()
            .starts_with("mlx5_2 (0000:81:00.0) has no DPA"),
        "{err}"
    );
}

/// A function pointer that is not a kernel of the app, through the raw call:
/// DOCA refuses it (INVALID_VALUE on the sim). The safe API cannot express
/// it: kernels come only from the generated declarations.
#[test]
fn unknown_kernel_through_the_raw_layer() {
    if doca::dpa::build_info::BACKEND != "sim" {
        eprintln!("skipped: launching a bogus function on hardware is undefined behaviour");
        return;
    }
    leak_checked(|| {
        let dpa = common::dpa();
        let event = doca::dpa::CompletionEvent::new(&dpa, doca::dpa::Export::No).unwrap();
        let mut not_a_kernel = 0u64;
        let guard = dpa.enter().unwrap();
        // SAFETY: the sim checks the function against the app's kernels
        // before running anything; under the family's guard.
        let rc = unsafe {
            let func: doca::dpa::sys::doca_dpa_func_t =
                std::mem::transmute((&mut not_a_kernel as *mut u64).cast::<std::ffi::c_void>());
            doca::dpa::sys::doca_dpa_kernel_launch_update_add(
                dpa.as_ptr(&guard),
                std::ptr::null_mut(),
                0,
                event.as_ptr(&guard),
                1,
                1,
                func,
            )
        };
        drop(guard);
        assert_eq!(rc, doca::dpa::ErrorCode::INVALID_VALUE.0);
    });
}

doca::rdmi::if_rdmi! {
    #[test]
    fn rdmi_empty_receive_buffers_and_over_acknowledgement() {
        use doca::dpa::RepresentorFilter;
        use doca::rdmi::{
            CompletionSource, ConnectionBuilder, ProtectionDomain, ReceiveBuffer, VerbsContext,
        };
        common::on_the_dpu_side();
        leak_checked(|| {
            invalid(ReceiveBuffer::new(0).unwrap_err(), "doca_rdmi_connection_init_receive");
            invalid(ReceiveBuffer::with_slots(0).unwrap_err(), "doca_rdmi_connection_init_receive");
            invalid(
                ReceiveBuffer::with_slot_bytes(64, 0).unwrap_err(),
                "doca_rdmi_connection_init_receive",
            );
            let dpa = common::dpa();
            let device = dpa.device().clone();
            let rep = device
                .open_representors(RepresentorFilter::NET)
                .unwrap()
                .into_iter()
                .next()
                .unwrap();
            let verbs = VerbsContext::new(&device).unwrap();
            let pd = ProtectionDomain::new(&verbs).unwrap();
            let comp = CompletionBuilder::new(&dpa, 16).unwrap().start().unwrap();
            let conn = ConnectionBuilder::new(
                &verbs,
                &rep,
                &dpa,
                CompletionSource::Dpa(&comp),
                ReceiveBuffer::with_slots(2).unwrap(),
            )
            .pd(&pd)
            .start()
            .unwrap();
            // Nothing consumed: acknowledging anything is more than consumed.
            for n in [1, 2, 3] {
                let err = conn.recv_ack(n).unwrap_err();
                assert_eq!(err.call(), Some("doca_rdmi_connection_recv_ack"), "{err}");
            }
            conn.stop().unwrap();
        });
    }
}
