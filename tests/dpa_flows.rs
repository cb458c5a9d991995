//! The DPA sample flows, asserted: kernel launch, wait event, RPC, memory,
//! and the error rows the type system does not rule out.

mod common;

use std::time::Duration;

use common::{doca_tests, dpa};
use doca::dpa::{
    DpaBuffer, Error, Export, Gate, Kernel, KernelArgs, KernelSig, Launcher, Untyped, WaitEvent,
};

const LONG: Duration = Duration::from_secs(20);

#[test]
fn launch_writes_every_rank() {
    let dpa = dpa();
    let out = DpaBuffer::<u64>::new(&dpa, 64).unwrap();
    out.fill_bytes(0).unwrap();
    let launcher = Launcher::new(&dpa).unwrap();
    launcher
        .launch(&doca_tests::write_ranks, 64, (&out, 100u64))
        .unwrap()
        .wait(LONG)
        .unwrap();
    let got = out.to_vec().unwrap();
    assert_eq!(got, (0..64).map(|r| 100 + r).collect::<Vec<u64>>());
    assert_eq!(launcher.completed().unwrap(), 1);
}

/// Two applications of one program with a kernel of the same name (`write_ranks` of
/// `doca_tests` and of `doca_tests_twin`): each runs its own code (issue #33, R4: the
/// sim's glue called kernels by their C name, so one ran the other's).
#[cfg(doca_backend = "sim")]
#[test]
fn same_named_kernels_of_two_apps_each_run_their_own() {
    use doca_test_kernels::doca_tests_twin;
    let device = common::device();
    let (dpa, twin) = (
        doca::dpa::Dpa::start(&device, doca_tests::app()).unwrap(),
        doca::dpa::Dpa::start(&device, doca_tests_twin::app()).unwrap(),
    );
    let out = DpaBuffer::<u64>::new(&dpa, 4).unwrap();
    let twin_out = DpaBuffer::<u64>::new(&twin, 4).unwrap();
    let (launcher, twin_launcher) = (Launcher::new(&dpa).unwrap(), Launcher::new(&twin).unwrap());
    let launch = launcher
        .launch(&doca_tests::write_ranks, 4, (&out, 7u64))
        .unwrap();
    let twin_launch = twin_launcher
        .launch(&doca_tests_twin::write_ranks, 4, (&twin_out, 7u64))
        .unwrap();
    launch.wait(LONG).unwrap();
    twin_launch.wait(LONG).unwrap();
    assert_eq!(out.to_vec().unwrap(), [7, 8, 9, 10]);
    assert_eq!(twin_out.to_vec().unwrap(), [7000, 7001, 7002, 7003]);
}

#[test]
fn arguments_keep_their_c_types() {
    let dpa = dpa();
    let out = DpaBuffer::<u64>::new(&dpa, 4).unwrap();
    let launcher = Launcher::new(&dpa).unwrap();
    launcher
        .launch(
            &doca_tests::mixed_args,
            1,
            (
                // SAFETY: `mixed_args` writes 4 `uint64_t` words into its untyped `out`
                // (tests/kernels/launch.c), and the buffer holds 4.
                unsafe { Untyped::new(&out) },
                0xdead_beef_u32,
                1u64 << 40,
                -5i32,
                -(1i64 << 50),
            ),
        )
        .unwrap()
        .wait(LONG)
        .unwrap();
    assert_eq!(
        out.to_vec().unwrap(),
        vec![0xdead_beef, 1 << 40, (-5i64) as u64, (-(1i64 << 50)) as u64]
    );
}

#[test]
fn instances_run_concurrently_and_meet_at_a_barrier() {
    let dpa = dpa();
    let counter = DpaBuffer::<u64>::from_slice(&dpa, &[0]).unwrap();
    let out = DpaBuffer::<u64>::new(&dpa, 64).unwrap();
    let launcher = Launcher::new(&dpa).unwrap();
    launcher
        .launch(&doca_tests::barrier, 64, (&counter, &out))
        .unwrap()
        .wait(LONG)
        .unwrap();
    assert!(out.to_vec().unwrap().iter().all(|seen| *seen == 64));
}

/// 190 threads (the most a kernel of a BlueField-3 runs) that wait for each
/// other through DPA memory, with a yielding and a pure spinning barrier:
/// the launch completes only if every instance makes progress while the
/// others wait.
#[test]
fn a_full_width_launch_meets_at_a_barrier() {
    let dpa = dpa();
    let threads = dpa.limits().max_threads_per_kernel.min(190);
    let launcher = Launcher::new(&dpa).unwrap();
    meet_at(&launcher, &doca_tests::barrier, threads);
    // Valgrind runs one thread at a time and leaves a spinning one only at the
    // end of its time slice: even 8 pure spinners can outlast the kernel run-time
    // limit there on a loaded machine, so the pure-spin barrier runs natively only.
    if !common::under_valgrind() {
        meet_at(&launcher, &doca_tests::spin_barrier, threads);
    }
}

/// Launches a `(counter, out)` barrier kernel on `threads` threads and checks
/// that every thread saw all of them arrive.
fn meet_at<S: KernelSig>(launcher: &Launcher, kernel: &Kernel<S>, threads: u32)
where
    for<'a> (&'a DpaBuffer<u64>, &'a DpaBuffer<u64>): KernelArgs<S::Params, S>,
{
    let dpa = launcher.dpa();
    let counter = DpaBuffer::<u64>::from_slice(dpa, &[0]).unwrap();
    let out = DpaBuffer::<u64>::new(dpa, threads as usize).unwrap();
    out.fill_bytes(0).unwrap();
    launcher
        .launch(kernel, threads, (&counter, &out))
        .unwrap()
        .wait(LONG)
        .unwrap();
    let seen = out.to_vec().unwrap();
    assert!(
        seen.iter().all(|s| *s == u64::from(threads)),
        "every thread of `{}` saw all {threads} arrive: {seen:?}",
        kernel.name()
    );
}

#[test]
fn one_event_counts_many_launches() {
    let dpa = dpa();
    let launcher = Launcher::new(&dpa).unwrap();
    for _ in 0..100 {
        launcher
            .launch(&doca_tests::noop, 1, ())
            .unwrap()
            .wait(LONG)
            .unwrap();
    }
    assert_eq!(launcher.completed().unwrap(), 100);
    for _ in 0..10 {
        std::mem::drop(launcher.launch(&doca_tests::noop, 1, ()).unwrap());
    }
    launcher.wait_all(LONG).unwrap();
    assert_eq!(launcher.completed().unwrap(), 110);
}

#[test]
fn a_gated_kernel_waits_for_the_host() {
    let dpa = dpa();
    let gate_event = WaitEvent::new(&dpa, Export::No).unwrap();
    let out = DpaBuffer::<u64>::from_slice(&dpa, &[0]).unwrap();
    let launcher = Launcher::new(&dpa).unwrap();
    let launch = launcher
        .launch_gated(
            Gate::new(&gate_event, 1).unwrap(),
            &doca_tests::write_ranks,
            1,
            (&out, 42u64),
        )
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        !launch.is_complete().unwrap(),
        "the kernel ran before the host released it"
    );
    assert_eq!(out.to_vec().unwrap(), vec![0]);
    gate_event.set(1).unwrap();
    launch.wait(LONG).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![42]);
}

#[test]
fn rpc_returns_the_kernel_value() {
    let dpa = dpa();
    assert_eq!(
        dpa.rpc(&doca_tests::add, (40u64, 2u64), common::RPC_TIMEOUT)
            .unwrap(),
        42
    );
}

/// RPCs on one context are made on one host thread, started by the first and
/// reused by the next (not a thread per call), on the context's own: another
/// context gets its own thread.
#[test]
fn repeated_rpcs_reuse_the_contexts_rpc_thread() {
    let dpa = dpa();
    assert_eq!(dpa.rpc_thread(), None, "no RPC yet, no thread");
    let mut threads = Vec::new();
    for i in 0..10u64 {
        let sum = dpa
            .rpc(&doca_tests::add, (i, 2u64), common::RPC_TIMEOUT)
            .unwrap();
        assert_eq!(sum, i + 2);
        threads.push(dpa.rpc_thread().expect("an RPC ran on a thread"));
    }
    assert!(threads.iter().all(|t| *t == threads[0]), "{threads:?}");
    assert_ne!(threads[0], std::thread::current().id());
    let other = common::dpa();
    other
        .rpc(&doca_tests::add, (1u64, 2u64), common::RPC_TIMEOUT)
        .unwrap();
    assert_ne!(other.rpc_thread(), Some(threads[0]));
}

#[test]
fn thread_counts_and_thresholds_are_checked_before_doca() {
    let dpa = dpa();
    let launcher = Launcher::new(&dpa).unwrap();
    let max = dpa.limits().max_threads_per_kernel;
    for threads in [0, max + 1] {
        let err = launcher.launch(&doca_tests::noop, threads, ()).unwrap_err();
        assert!(
            matches!(
                err,
                Error::InvalidArgument {
                    call: "doca_dpa_kernel_launch_update_add",
                    ..
                }
            ),
            "{err}"
        );
    }
    let event = WaitEvent::new(&dpa, Export::No).unwrap();
    assert!(Gate::new(&event, 255).unwrap_err().is_invalid_argument());
    assert!(Gate::new(&event, 254).is_ok());
}

#[test]
fn memory_is_bounds_checked() {
    let dpa = dpa();
    assert!(DpaBuffer::<u64>::new(&dpa, 0)
        .unwrap_err()
        .is_invalid_argument());
    assert!(DpaBuffer::<u64>::new(&dpa, usize::MAX)
        .unwrap_err()
        .is_invalid_argument());
    let buf = DpaBuffer::<u32>::from_slice(&dpa, &[1, 2, 3, 4]).unwrap();
    assert!(buf.write(3, &[9, 9]).unwrap_err().is_invalid_argument());
    let mut two = [0u32; 2];
    buf.read(2, &mut two).unwrap();
    assert_eq!(two, [3, 4]);
    assert!(buf.read(3, &mut two).unwrap_err().is_invalid_argument());
}

#[test]
fn a_kernel_that_never_finishes_is_diagnosed_within_the_timeout() {
    let dpa = dpa();
    let stop = DpaBuffer::<u64>::from_slice(&dpa, &[0]).unwrap();
    let launcher = Launcher::new(&dpa).unwrap();
    let started = std::time::Instant::now();
    let err = launcher
        .launch(&doca_tests::spin_until, 1, (&stop,))
        .unwrap()
        .wait(Duration::from_millis(300))
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    match &err {
        Error::LaunchTimeout(d) => {
            assert!(!d.event_moved());
            assert!(!d.context_fatal);
            assert_eq!(d.kernel, "spin_until");
            let text = err.to_string();
            assert!(text.contains("never moved"), "{err}");
            // What happened, not what the run-time limit promises.
            assert!(
                text.contains("the kernel was still running when the wait gave up"),
                "{err}"
            );
            assert!(!text.contains("will be killed"), "{err}");
        }
        other => panic!("expected a timeout diagnosis, got {other}"),
    }
    // Let the kernel finish so teardown is clean.
    stop.write(0, &[1]).unwrap();
    launcher.wait_all(LONG).unwrap();
}

#[test]
fn a_device_fault_makes_the_context_fatal_and_it_stays_so() {
    use doca::dpa::Health;
    let dpa = dpa();
    assert_eq!(dpa.health().unwrap(), Health::Ok);
    let launcher = Launcher::new(&dpa).unwrap();
    let err = launcher
        .launch(&doca_tests::fault, 1, ())
        .unwrap()
        .wait(LONG)
        .unwrap_err();
    match &err {
        // On the sim the crash comes with its fault report; DOCA says only that the
        // context is fatal.
        Error::ContextFatal { fault: Some(f), .. } => {
            assert!(f.contains("fault") && f.contains("deliberate fault"), "{f}")
        }
        Error::LaunchTimeout(d) => assert!(d.context_fatal, "{err}"),
        other => panic!("expected a fatal diagnosis, got {other}"),
    }
    if doca::dpa::build_info::BACKEND == "sim" {
        assert!(
            matches!(err, Error::ContextFatal { fault: Some(_), .. }),
            "{err}"
        );
    }
    assert!(err.is_context_fatal());
    assert_eq!(dpa.health().unwrap(), Health::Fatal);
    let again = launcher.launch(&doca_tests::noop, 1, ()).unwrap_err();
    assert!(again.is_context_fatal(), "{again}");
    assert_eq!(dpa.health().unwrap(), Health::Fatal, "fatal is sticky");
}

#[test]
fn every_operation_on_a_fatal_context_says_it_is_fatal() {
    use doca::dpa::{CompletionBuilder, ThreadBuilder};
    let dpa = dpa();
    let buffer = DpaBuffer::<u64>::from_slice(&dpa, &[7]).unwrap();
    let launcher = Launcher::new(&dpa).unwrap();
    let crashed = launcher
        .launch(&doca_tests::fault, 1, ())
        .unwrap()
        .wait(LONG);
    assert!(crashed.unwrap_err().is_context_fatal());
    // Whatever DOCA refuses on a fatal context comes back as ContextFatal naming
    // the call, not as a raw code.
    let fatal = |what: &str, err: Error| {
        assert!(err.is_context_fatal(), "{what}: {err}");
        assert!(
            err.call().is_some_and(|c| c.starts_with("doca_")),
            "{what}: {err}"
        );
    };
    if doca::dpa::build_info::BACKEND == "sim" {
        fatal("alloc", DpaBuffer::<u64>::new(&dpa, 4).unwrap_err());
        fatal("h2d", buffer.write(0, &[1]).unwrap_err());
        fatal("d2h", buffer.to_vec().unwrap_err());
        fatal("memset", buffer.fill_bytes(0).unwrap_err());
        let completion = CompletionBuilder::new(&dpa, 4).and_then(CompletionBuilder::start);
        fatal("completion", completion.unwrap_err());
        let thread = ThreadBuilder::new(&dpa, &doca_tests::count_activations, (&buffer,))
            .and_then(ThreadBuilder::start);
        fatal("thread", thread.unwrap_err());
    }
}

#[test]
fn a_dpa_thread_runs_on_each_notification() {
    use doca::dpa::{NotificationCompletion, ThreadBuilder};
    let dpa = dpa();
    let counter = DpaBuffer::<u64>::from_slice(&dpa, &[0]).unwrap();
    let thread = ThreadBuilder::new(&dpa, &doca_tests::count_activations, (&counter,))
        .unwrap()
        .start()
        .unwrap();
    assert!(thread.id().is_ok());
    let notification = NotificationCompletion::new(&thread).unwrap();
    notification.run_thread().unwrap();
    for expected in 1..=3u64 {
        assert_eq!(
            dpa.rpc(&doca_tests::notify, (&notification,), common::RPC_TIMEOUT)
                .unwrap(),
            1
        );
        let deadline = std::time::Instant::now() + LONG;
        while counter.to_vec().unwrap()[0] < expected {
            assert!(
                std::time::Instant::now() < deadline,
                "activation {expected} never happened"
            );
            std::thread::yield_now();
        }
    }
    assert_eq!(counter.to_vec().unwrap()[0], 3);
}

#[test]
fn limits_and_handles_are_reported() {
    let dpa = dpa();
    let limits = dpa.limits();
    assert!(limits.max_threads_per_kernel >= 1);
    assert!(limits.eus_available <= limits.cores * limits.eus_per_core);
}

#[test]
fn devices_are_listed_and_bad_names_refused() {
    use doca::dpa::{devices, Device};
    let list = devices().unwrap();
    assert!(list.iter().any(|d| d.has_dpa));
    let first = &list[0];
    assert_eq!(Device::open_by_pci(&first.pci_addr).unwrap().info(), first);
    assert_eq!(
        Device::open_by_ibdev_name(&first.ibdev_name)
            .unwrap()
            .info(),
        first
    );
    assert!(Device::open_by_pci("not-a-pci-address")
        .unwrap_err()
        .is_invalid_argument());
    assert!(matches!(
        Device::open_by_pci("ffff:ff:1f.7").unwrap_err(),
        Error::NoSuchDevice { .. }
    ));
    assert!(matches!(
        Device::open_by_ibdev_name("mlx5_999").unwrap_err(),
        Error::NoSuchDevice { .. }
    ));
}

/// A sim build is for the release it claims (`DOCA_SIM_VERSION`, default 3.3): its
/// version, its version cfgs and the sim's run-time version all say it.
#[cfg(doca_backend = "sim")]
#[test]
fn a_sim_build_is_for_the_release_it_claims() {
    let claim = std::env::var("DOCA_SIM_VERSION").unwrap_or_default();
    let claim = match claim.trim() {
        "" => "3.3",
        c => c,
    };
    let minor: u32 = claim.strip_prefix("3.").unwrap().parse().unwrap();
    assert_eq!(doca::dpa::build_info::DOCA_VERSION, format!("{claim}.0001"));
    assert_eq!(
        [
            cfg!(doca_ge_3_0),
            cfg!(doca_ge_3_1),
            cfg!(doca_ge_3_2),
            cfg!(doca_ge_3_3)
        ],
        [true, minor >= 1, minor >= 2, minor >= 3]
    );
    const { assert!(!cfg!(doca_ge_3_4)) };
    // SAFETY: doca_version_runtime takes nothing and returns a static C string.
    let runtime = unsafe { std::ffi::CStr::from_ptr(doca::dpa::sys::doca_version_runtime()) };
    assert_eq!(runtime.to_str().unwrap(), format!("{claim}.0001"));
}

/// DOCA 3.1 and later only: absent from builds for an older DOCA (a sim
/// build claiming 3.0 included), as the method is. (The method also needs
/// its EXPERIMENTAL function, which doca-dpa's default `experimental` feature
/// allows; this package's cfgs count STABLE functions only.)
#[cfg(doca_ge_3_1)]
#[test]
fn each_device_says_which_kind_of_pci_function_it_is() {
    use doca::dpa::{devices, PciFuncType};
    // On the sim, a BlueField's Arm side: a BlueField-3 PF, a BlueField-2 PF
    // and an SF of the BlueField-3.
    #[cfg(doca_backend = "sim")]
    let scope = doca::sim::Scope::new();
    #[cfg(doca_backend = "sim")]
    scope.set_profile(doca::sim::Profile::dpu_view());
    let kinds: Vec<(String, PciFuncType)> = devices()
        .unwrap()
        .iter()
        .map(|info| {
            (
                info.ibdev_name.clone(),
                info.open().unwrap().pci_func_type().unwrap(),
            )
        })
        .collect();
    assert!(
        kinds.iter().any(|(_, k)| *k == PciFuncType::Physical),
        "{kinds:?}"
    );
    if cfg!(doca_backend = "sim") {
        let kind = |name: &str| kinds.iter().find(|(n, _)| n == name).map(|k| k.1);
        assert_eq!(kind("mlx5_0"), Some(PciFuncType::Physical), "{kinds:?}");
        assert_eq!(kind("mlx5_2"), Some(PciFuncType::Physical), "{kinds:?}");
        assert_eq!(kind("mlx5_3"), Some(PciFuncType::Scalable), "{kinds:?}");
    }
}

#[test]
fn a_device_without_dpa_is_reported_as_such() {
    use doca::dpa::{devices, DpaBuilder};
    // Only where such a device exists (the sim's default profile has one).
    let Some(info) = devices().unwrap().into_iter().find(|d| !d.has_dpa) else {
        eprintln!("skipped: no device without a DPA here");
        return;
    };
    let device = info.open().unwrap();
    let err = DpaBuilder::new(&device).unwrap_err();
    assert!(err.is_no_dpa(), "{err}");
    assert!(err.to_string().contains(&info.ibdev_name), "{err}");
}

#[test]
fn representors_can_be_listed_and_filtered() {
    use doca::dpa::RepresentorFilter;
    common::on_the_dpu_side();
    let device = common::device();
    let all = device
        .open_representors(RepresentorFilter::empty())
        .unwrap();
    let net = device.open_representors(RepresentorFilter::NET).unwrap();
    assert_eq!(
        all.len(),
        net.len(),
        "every representor of the test device is a network one"
    );
    #[cfg(doca_backend = "sim")]
    assert!(!net.is_empty(), "the DPU view lists representors");
    for (i, rep) in net.iter().enumerate() {
        assert_eq!(rep.index(), i);
        assert!(!rep.as_ptr(&rep.lock()).is_null());
    }
}

/// On the sim's default profile (a BlueField's host side) there are no
/// representors to list, and the error says where they are and how to get
/// them on the sim, instead of an empty list.
#[cfg(doca_backend = "sim")]
#[test]
fn no_representors_on_the_host_side_is_an_error_that_says_where_they_are() {
    use doca::dpa::{ErrorKind, RepresentorFilter};
    let scope = doca::sim::Scope::new();
    scope.set_profile(doca::sim::Profile::host_view());
    let device = common::device();
    for filter in [RepresentorFilter::NET, RepresentorFilter::empty()] {
        let err = device.open_representors(filter).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NotSupported, "{err}");
        let text = err.to_string();
        for part in [
            "a network representor is not available: mlx5_0 (0000:03:00.0) has none",
            "representors exist only where the device is opened on a BlueField's Arm side",
            "doca::sim::set_global_profile(doca::sim::Profile::dpu_view())",
            "DOCA_SIM_PROFILE",
        ] {
            assert!(text.contains(part), "{part:?} is not in: {text}");
        }
    }
    // Emulated functions alone are another matter: an empty list.
    let emulated = device.open_representors(RepresentorFilter::EMULATED);
    assert!(emulated.unwrap().is_empty());
    // Selected before the device is opened, the Arm side's view lists them.
    scope.set_profile(doca::sim::Profile::dpu_view());
    let device = common::device();
    assert!(!device
        .open_representors(RepresentorFilter::NET)
        .unwrap()
        .is_empty());
}

#[test]
fn explicit_destroy_waits_for_the_last_user() {
    let dpa = dpa();
    let buf = DpaBuffer::<u8>::new(&dpa, 8).unwrap();
    let clone = dpa.clone();
    match clone.destroy().unwrap_err() {
        Error::InUse { call, users } => {
            assert_eq!(call, "doca_dpa_destroy");
            assert_eq!(users, 2, "the original handle and the buffer");
        }
        other => panic!("expected InUse, got {other}"),
    }
    drop(buf);
    dpa.destroy().unwrap();
}

#[test]
fn thread_groups_and_async_ops_go_through_their_lifecycles() {
    use doca::dpa::{AsyncOps, CompletionBuilder, ThreadBuilder, ThreadGroup};
    let dpa = dpa();
    let counter = DpaBuffer::<u64>::from_slice(&dpa, &[0]).unwrap();
    let builders = (0..4)
        .map(|_| ThreadBuilder::new(&dpa, &doca_tests::count_activations, (&counter,)).unwrap())
        .collect();
    let group = ThreadGroup::new(&dpa, builders).unwrap();
    assert_eq!(group.threads().len(), 4);
    assert!(ThreadGroup::new(&dpa, Vec::new())
        .unwrap_err()
        .is_invalid_argument());

    let completion = CompletionBuilder::new(&dpa, 5).unwrap().start().unwrap();
    assert_eq!(completion.queue_size(), 8, "rounded up to a power of two");
    let ops = AsyncOps::new(&dpa, 3, 77, &completion).unwrap();
    assert_eq!(ops.queue_size(), 4);
    assert_eq!(ops.user_data(), 77);
}

// ---- DPA memory maps, hash tables, extended contexts, device logs, kernel
// events and completion-bound threads (issue 4).

#[test]
fn a_dpa_mmap_hands_kernels_its_32_bit_handle() {
    use doca::dpa::DpaMmap;
    let dpa = dpa();
    let buf = DpaBuffer::<u64>::new(&dpa, 16).unwrap();
    let map = DpaMmap::new(&dpa, &buf).unwrap();
    assert_eq!(map.len(), 16 * 8);
    let out = DpaBuffer::<u64>::from_slice(&dpa, &[0, 0]).unwrap();
    let tag = 0x1234_5678_9abc_def0_u64;
    let launcher = Launcher::new(&dpa).unwrap();
    launcher
        .launch(&doca_tests::i4_mmap_echo, 1, (&map, tag, &out))
        .unwrap()
        .wait(LONG)
        .unwrap();
    let echoed = out.to_vec().unwrap();
    assert!(
        echoed[0] != 0 && echoed[0] <= u64::from(u32::MAX),
        "a 32-bit handle: {echoed:?}"
    );
    assert_eq!(
        echoed[1], tag,
        "the u64 after the u32 handle arrives intact"
    );

    // A sub-range, and ranges refused before DOCA is called.
    let part = DpaMmap::with_range(&dpa, &buf, 4, 8).unwrap();
    assert_eq!(part.len(), 8 * 8);
    for (offset, count) in [(10, 7), (0, 0), (usize::MAX, 2)] {
        let err = DpaMmap::with_range(&dpa, &buf, offset, count).unwrap_err();
        assert!(err.is_invalid_argument(), "{offset}+{count}: {err}");
    }
}

#[test]
fn a_kernel_reads_a_hash_table_another_kernel_filled() {
    use doca::dpa::HashTable;
    let dpa = dpa();
    assert!(HashTable::new(&dpa, 0).unwrap_err().is_invalid_argument());
    let table = HashTable::new(&dpa, 5).unwrap();
    assert_eq!(table.requested_entries(), 5);
    let launcher = Launcher::new(&dpa).unwrap();
    launcher
        .launch(&doca_tests::i4_hash_put, 1, (&table, 10u32, 5u32))
        .unwrap()
        .wait(LONG)
        .unwrap();
    // Keys 9..=16: 9, 15 and 16 were never added.
    let out = DpaBuffer::<u64>::new(&dpa, 16).unwrap();
    launcher
        .launch(&doca_tests::i4_hash_get, 1, (&table, 9u32, 8u32, &out))
        .unwrap()
        .wait(LONG)
        .unwrap();
    let got = out.to_vec().unwrap();
    for (i, key) in (9u64..17).enumerate() {
        let (found, value) = (got[2 * i], got[2 * i + 1]);
        if (10..15).contains(&key) {
            assert_eq!((found, value), (1, key * 100), "key {key}");
        } else {
            assert_eq!((found, value), (0, 0), "key {key} was never added");
        }
    }
}

#[test]
fn a_context_extends_onto_another_device() {
    use doca::dpa::{build_info, devices, ErrorCode};
    let base = dpa();
    let base_pci = base.device().info().pci_addr.clone();
    let Some(info) = devices()
        .unwrap()
        .into_iter()
        .find(|d| d.pci_addr != base_pci)
    else {
        eprintln!("skipped: no second device to extend onto");
        return;
    };
    let other = info.open().unwrap();
    // Model note: DOCA extends onto a VF or SF of the base's device; the sim
    // accepts any other open device (its default profile's second device is a
    // BlueField-2), so hardware may refuse the device picked here.
    let extended = match base.extend(&other) {
        Ok(e) => e,
        Err(e) if build_info::BACKEND != "sim" => {
            eprintln!(
                "skipped: {} cannot be extended onto here: {e}",
                info.pci_addr
            );
            return;
        }
        Err(e) => panic!("the sim refused the extension: {e}"),
    };
    assert_eq!(extended.device().info(), other.info());
    assert_eq!(extended.app().name(), base.app().name());
    // Its limits are its own device's (`doca_dpa_get_*` on the extended
    // context): on the sim's default profile that is a BlueField-2, which
    // reports no kernel run-time limit and no threads.
    if build_info::BACKEND == "sim" {
        assert_eq!(extended.limits().kernel_max_run_time, Duration::ZERO);
        assert_eq!(extended.limits().max_threads_per_kernel, 0);
        assert_ne!(extended.limits(), base.limits());
    }
    // An extended context cannot be extended again (BAD_STATE).
    let again = extended.extend(&other).unwrap_err();
    assert_eq!(again.code(), Some(ErrorCode::BAD_STATE), "{again}");
    // The extended context keeps its base alive and goes first.
    match base.clone().destroy().unwrap_err() {
        Error::InUse { users, .. } => assert!(users >= 2, "{users}"),
        other => panic!("expected InUse, got {other}"),
    }
    extended.destroy().unwrap();
    base.destroy().unwrap();
}

#[test]
fn device_logs_go_to_the_log_file() {
    use doca::dpa::{build_info, DpaBuilder, LogLevel};
    let dir = std::env::temp_dir().join(format!("doca-rs-dpa-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("device.log");
    let trace = dir.join("device.trace");
    let _ = std::fs::remove_file(&log);
    let dpa = DpaBuilder::new(&common::device())
        .unwrap()
        .app(doca_tests::app())
        .unwrap()
        .log_level(LogLevel::Info)
        .unwrap()
        .log_file(&log)
        .unwrap()
        .trace_file(&trace)
        .unwrap()
        .start()
        .unwrap();
    Launcher::new(&dpa)
        .unwrap()
        .launch(&doca_tests::i4_log, 1, (4242u64,))
        .unwrap()
        .wait(LONG)
        .unwrap();
    if build_info::BACKEND == "sim" {
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(text.contains("i4_log says 4242"), "log file: {text:?}");
    } else {
        eprintln!("not checking the log file's content: DOCA writes device logs asynchronously");
    }
    drop(dpa);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_kernel_event_lets_one_kernel_release_another() {
    use doca::dpa::KernelEvent;
    let dpa = dpa();
    let event = KernelEvent::new(&dpa).unwrap();
    let out = DpaBuffer::<u64>::from_slice(&dpa, &[0]).unwrap();
    // Two launchers: each launch has its own completion event.
    let waiters = Launcher::new(&dpa).unwrap();
    let setters = Launcher::new(&dpa).unwrap();
    let waiting = waiters
        .launch(&doca_tests::i4_event_wait, 1, (&event, 5u64, &out))
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        !waiting.is_complete().unwrap(),
        "the waiter finished before the event was set"
    );
    setters
        .launch(&doca_tests::set_event, 1, (&event, 5u64))
        .unwrap()
        .wait(LONG)
        .unwrap();
    waiting.wait(LONG).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![5]);
}

#[test]
fn a_completion_wakes_its_bound_thread() {
    use doca::dpa::{build_info, CompletionBuilder, Dev, DpaBox, ThreadBuilder};
    use doca_tests::i4_completion_state as State;
    let dpa = dpa();
    // The thread needs its state before the completion it drains exists.
    let state = DpaBox::new(
        &dpa,
        &State {
            // SAFETY: the kernel tests the handle for 0 before using it.
            comp: unsafe { Dev::null() },
            consumed: 0,
            last_user_data: 0,
        },
    )
    .unwrap();
    let thread = ThreadBuilder::new(&dpa, &doca_tests::i4_on_completion, (&state,))
        .unwrap()
        .start()
        .unwrap();
    let completion = CompletionBuilder::new(&dpa, 4)
        .unwrap()
        .thread(&thread)
        .unwrap()
        .start()
        .unwrap();
    state
        .set(&State {
            // The completion holds the thread, which holds this state: a kept
            // reference here would be a cycle that is never freed.
            // SAFETY: the completion lives until the end of the test, after the
            // last activation (it is the thread's only waker and is dropped first).
            comp: unsafe { Dev::unkept(&completion) }.unwrap(),
            consumed: 0,
            last_user_data: 0,
        })
        .unwrap();
    completion.run_thread().unwrap();
    let unbound = CompletionBuilder::new(&dpa, 4).unwrap().start().unwrap();
    assert!(unbound.run_thread().unwrap_err().is_invalid_argument());

    if build_info::BACKEND != "sim" {
        eprintln!(
            "skipped the produced completions: without a producer context (RDMA, RDMI) only \
             the sim's doca_sim_dev_completion_post can post one"
        );
        return;
    }
    let out = DpaBuffer::<u64>::from_slice(&dpa, &[u64::MAX]).unwrap();
    let launcher = Launcher::new(&dpa).unwrap();
    for (i, user_data) in [7u32, 8, 9].into_iter().enumerate() {
        launcher
            .launch(
                &doca_tests::i4_post_completion,
                1,
                (&completion, user_data, &out),
            )
            .unwrap()
            .wait(LONG)
            .unwrap();
        assert_eq!(out.to_vec().unwrap(), vec![0], "the post failed");
        let deadline = std::time::Instant::now() + LONG;
        while state.get().unwrap().consumed < i as u64 + 1 {
            assert!(
                std::time::Instant::now() < deadline,
                "activation {i} never happened"
            );
            std::thread::yield_now();
        }
        assert_eq!(state.get().unwrap().last_user_data, u64::from(user_data));
    }
}

#[test]
fn structs_pass_by_value_to_kernels_and_rpcs() {
    use doca::dpa::Dev;
    let dpa = dpa();
    let pair = doca_tests::bv_pair { a: 1 << 40, b: 7 };
    assert_eq!(
        dpa.rpc(
            &doca_tests::bv_pair_sum,
            (3u32, &pair, 100u64),
            common::RPC_TIMEOUT
        )
        .unwrap(),
        (1 << 40) + 7 + 3 + 100
    );
    let point = doca_tests::bv_point {
        x: 1.5,
        y: 2.5,
        w: 10.0,
    };
    assert_eq!(
        dpa.rpc(
            &doca_tests::bv_point_weigh,
            (point, 5u32),
            common::RPC_TIMEOUT
        )
        .unwrap(),
        45
    );

    let out = DpaBuffer::<u64>::new(&dpa, 4).unwrap();
    let target = doca_tests::bv_target {
        // SAFETY: `bv_target_fill` writes `n` = 4 `uint64_t` words into the struct's
        // untyped `out` (tests/kernels/by_value.c), and the buffer holds 4.
        out: Dev::new(unsafe { Untyped::new(&out) }).unwrap(),
        n: 4,
        scale: 3,
    };
    let launcher = Launcher::new(&dpa).unwrap();
    let launch = launcher
        .launch(&doca_tests::bv_target_fill, 1, (&target, 10u64))
        .unwrap();
    // The launch keeps what the struct's fields reference.
    drop(target);
    launch.wait(LONG).unwrap();
    assert_eq!(out.to_vec().unwrap(), [10, 13, 16, 19]);
}

#[test]
fn a_context_nothing_shares_moves_to_another_thread() {
    let dpa = dpa();
    let clone = dpa.clone();
    // Shared: it stays.
    let dpa = dpa.into_send().unwrap_err();
    drop(clone);
    let buffer = DpaBuffer::<u64>::new(&dpa, 1).unwrap();
    let dpa = dpa.into_send().unwrap_err();
    drop(buffer);
    let moving = dpa.into_send().expect("nothing else shares it now");
    let worker = std::thread::spawn(move || {
        let dpa = moving.into_dpa();
        let out = DpaBuffer::<u64>::new(&dpa, 2).unwrap();
        let launcher = Launcher::new(&dpa).unwrap();
        launcher
            .launch(&doca_tests::write_ranks, 2, (&out, 40u64))
            .unwrap()
            .wait(LONG)
            .unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(worker.join().unwrap(), [40, 41]);
}
