//! Sync events: locations before start, start/stop/destroy rules, get /
//! update_set / update_add, the host waits and their masks, and DPA handles.

mod common;

use std::ptr::null_mut;
use std::time::Duration;

use common::*;

/// A started event with CPU publisher and subscriber.
fn host_event(dev: *mut abi::doca_dev) -> *mut abi::doca_sync_event {
    let ev = new_event();
    ok!(abi::doca_sync_event_add_publisher_location_cpu(ev, dev));
    ok!(abi::doca_sync_event_add_subscriber_location_cpu(ev, dev));
    ok!(abi::doca_sync_event_start(ev));
    ev
}

#[test]
fn start_needs_a_publisher_and_a_subscriber() {
    let scope = Scope::new();
    let dev = open_dev(BF3);
    let ev = new_event();
    // Model choice: INVALID_VALUE without both locations.
    fails!(INVALID_VALUE, abi::doca_sync_event_start(ev));
    ok!(abi::doca_sync_event_add_publisher_location_cpu(ev, dev));
    fails!(INVALID_VALUE, abi::doca_sync_event_start(ev));
    let ev2 = new_event();
    ok!(abi::doca_sync_event_add_subscriber_location_cpu(ev2, dev));
    fails!(INVALID_VALUE, abi::doca_sync_event_start(ev2));
    ok!(abi::doca_sync_event_destroy(ev2));
    ok!(abi::doca_sync_event_add_subscriber_location_cpu(ev, dev));
    ok!(abi::doca_sync_event_start(ev));
    fails!(BAD_STATE, abi::doca_sync_event_start(ev));
    drop_event(ev);
    fails!(INVALID_VALUE, abi::doca_sync_event_create(null_mut()));
    let ev3 = new_event();
    fails!(
        INVALID_VALUE,
        abi::doca_sync_event_add_publisher_location_cpu(ev3, null_mut())
    );
    fails!(
        INVALID_VALUE,
        abi::doca_sync_event_add_subscriber_location_dpa(ev3, null_mut())
    );
    ok!(abi::doca_sync_event_destroy(ev3));
    close_dev(dev);
    assert_no_leaks(&scope);
}

#[test]
fn locations_after_start_and_destroy_while_started_are_bad_state() {
    let scope = Scope::new();
    let ctx = Ctx::started(noop_app());
    let ev = host_event(ctx.dev);
    fails!(
        BAD_STATE,
        abi::doca_sync_event_add_publisher_location_cpu(ev, ctx.dev)
    );
    fails!(
        BAD_STATE,
        abi::doca_sync_event_add_subscriber_location_cpu(ev, ctx.dev)
    );
    fails!(
        BAD_STATE,
        abi::doca_sync_event_add_publisher_location_dpa(ev, ctx.dpa)
    );
    fails!(
        BAD_STATE,
        abi::doca_sync_event_add_subscriber_location_dpa(ev, ctx.dpa)
    );
    ok!(abi::doca_sync_event_stop(ev));
    fails!(BAD_STATE, abi::doca_sync_event_stop(ev));
    // Stopped: values are out of reach, locations can be added again.
    let mut v = 0;
    fails!(BAD_STATE, abi::doca_sync_event_get(ev, &mut v));
    ok!(abi::doca_sync_event_add_subscriber_location_dpa(
        ev, ctx.dpa
    ));
    ok!(abi::doca_sync_event_destroy(ev));
    fails!(INVALID_VALUE, abi::doca_sync_event_destroy(ev));
    // Not modelled locations.
    let ev = new_event();
    fails!(
        NOT_SUPPORTED,
        abi::doca_sync_event_add_publisher_location_remote_pci(ev)
    );
    fails!(
        NOT_SUPPORTED,
        abi::doca_sync_event_add_subscriber_location_remote_pci(ev)
    );
    fails!(NOT_SUPPORTED, abi::doca_sync_event_set_addr(ev, null_mut()));
    fails!(
        NOT_SUPPORTED,
        abi::doca_sync_event_set_doca_buf(ev, null_mut())
    );
    fails!(NOT_SUPPORTED, abi::doca_sync_event_set_addr(ev, null_mut()));
    fails!(
        NOT_SUPPORTED,
        abi::doca_sync_event_add_publisher_location_gpu(ev, null_mut())
    );
    // An event is also a context (for tasks: see sync_event_tasks.rs); a
    // pointer that is not an event has none.
    assert!(!ffi!(abi::doca_sync_event_as_ctx(ev)).is_null());
    assert!(ffi!(abi::doca_sync_event_as_ctx(null_mut())).is_null());
    ok!(abi::doca_sync_event_destroy(ev));
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn get_set_and_add() {
    let scope = Scope::new();
    let dev = open_dev(BF3);
    let ev = new_event();
    let mut v = 0;
    let mut fetched = 0;
    // Model choice: values are only reachable while started.
    fails!(BAD_STATE, abi::doca_sync_event_get(ev, &mut v));
    fails!(BAD_STATE, abi::doca_sync_event_update_set(ev, 1));
    fails!(
        BAD_STATE,
        abi::doca_sync_event_update_add(ev, 1, &mut fetched)
    );
    fails!(BAD_STATE, abi::doca_sync_event_wait_gt(ev, 0, u64::MAX));
    ok!(abi::doca_sync_event_destroy(ev));

    let ev = host_event(dev);
    assert_eq!(get(ev), 0, "a new event is 0");
    ok!(abi::doca_sync_event_update_set(ev, 41));
    ok!(abi::doca_sync_event_update_add(ev, 1, &mut fetched));
    assert_eq!(fetched, 41, "add returns the previous value");
    assert_eq!(get(ev), 42);
    ok!(abi::doca_sync_event_update_add(ev, u64::MAX, &mut fetched));
    assert_eq!(get(ev), 41, "adds wrap around");
    fails!(
        INVALID_VALUE,
        abi::doca_sync_event_update_add(ev, 1, null_mut())
    );
    fails!(INVALID_VALUE, abi::doca_sync_event_get(ev, null_mut()));
    drop_event(ev);
    close_dev(dev);
    assert_no_leaks(&scope);
}

#[test]
fn waits_that_already_hold_return_at_once() {
    let scope = Scope::new();
    let dev = open_dev(BF3);
    let ev = host_event(dev);
    ok!(abi::doca_sync_event_update_set(ev, 0x1_05));
    let e = SendPtr(ev);
    let done = with_timeout(Duration::from_secs(2), move || {
        let ev = e.ptr();
        let mut codes = Vec::new();
        // (value & mask) compared with the threshold.
        codes.push(ffi!(abi::doca_sync_event_wait_gt(ev, 4, 0xff)));
        codes.push(ffi!(abi::doca_sync_event_wait_gt_yield(
            ev,
            0x104,
            u64::MAX
        )));
        codes.push(ffi!(abi::doca_sync_event_wait_eq(ev, 5, 0xff)));
        codes.push(ffi!(abi::doca_sync_event_wait_eq_yield(ev, 0x100, 0xf00)));
        codes.push(ffi!(abi::doca_sync_event_wait_neq(ev, 4, 0xff)));
        codes.push(ffi!(abi::doca_sync_event_wait_neq_yield(ev, 0, 0x100)));
        codes
    });
    assert_eq!(done, Some(vec![SUCCESS; 6]), "a wait that holds blocked");
    drop_event(ev);
    close_dev(dev);
    assert_no_leaks(&scope);
}

#[test]
fn waits_block_until_the_value_changes() {
    let scope = Scope::new();
    let dev = open_dev(BF3);
    type Wait = unsafe extern "C" fn(*mut abi::doca_sync_event, u64, u64) -> Code;
    // (wait, threshold, mask, value that does not satisfy, value that does)
    let cases: [(Wait, u64, u64, u64, u64); 6] = [
        (abi::doca_sync_event_wait_gt, 9, u64::MAX, 9, 10),
        (abi::doca_sync_event_wait_gt_yield, 0, 0xf0, 0x0f, 0x10),
        (abi::doca_sync_event_wait_eq, 7, 0xff, 0x106, 0x207),
        (abi::doca_sync_event_wait_eq_yield, 3, u64::MAX, 2, 3),
        (abi::doca_sync_event_wait_neq, 1, 0x1, 0x3, 0x2),
        (abi::doca_sync_event_wait_neq_yield, 0, u64::MAX, 0, 1),
    ];
    for (i, (wait, threshold, mask, before, after)) in cases.into_iter().enumerate() {
        let ev = host_event(dev);
        ok!(abi::doca_sync_event_update_set(ev, before));
        let e = SendPtr(ev);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(ffi!(wait(e.ptr(), threshold, mask)));
        });
        assert!(
            rx.recv_timeout(Duration::from_millis(50)).is_err(),
            "case {i}: returned before the value changed"
        );
        ok!(abi::doca_sync_event_update_set(ev, after));
        assert_eq!(
            rx.recv_timeout(Duration::from_secs(2)),
            Ok(SUCCESS),
            "case {i}: did not wake up"
        );
        drop_event(ev);
    }
    close_dev(dev);
    assert_no_leaks(&scope);
}

#[test]
fn dpa_handles_need_the_dpa_as_a_location() {
    let scope = Scope::new();
    let ctx = Ctx::started(noop_app());
    let mut h = 0;
    let ev = host_event(ctx.dev);
    fails!(
        INVALID_VALUE,
        abi::doca_sync_event_get_dpa_handle(ev, ctx.dpa, &mut h)
    );
    drop_event(ev);
    // As subscriber or as publisher; before or after start.
    let ev = new_event();
    ok!(abi::doca_sync_event_add_publisher_location_cpu(ev, ctx.dev));
    ok!(abi::doca_sync_event_add_subscriber_location_dpa(
        ev, ctx.dpa
    ));
    ok!(abi::doca_sync_event_get_dpa_handle(ev, ctx.dpa, &mut h));
    assert_ne!(h, 0);
    ok!(abi::doca_sync_event_start(ev));
    let comp = ctx.comp_event();
    let mut h2 = 0;
    ok!(abi::doca_sync_event_get_dpa_handle(comp, ctx.dpa, &mut h2));
    assert_ne!(h, h2);
    // Another context is not a location of these events.
    let other = Ctx::started(noop_app());
    fails!(
        INVALID_VALUE,
        abi::doca_sync_event_get_dpa_handle(comp, other.dpa, &mut h2)
    );
    fails!(
        INVALID_VALUE,
        abi::doca_sync_event_get_dpa_handle(comp, null_mut(), &mut h2)
    );
    other.teardown();
    drop_event(ev);
    drop_event(comp);
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn dpa_handles_need_export_support() {
    let scope = Scope::new();
    scope.set_profile(bf3_profile(|d| d.sync_event_export = false));
    let ctx = Ctx::started(noop_app());
    fails!(
        NOT_SUPPORTED,
        abi::doca_sync_event_cap_is_export_to_dpa_supported(devinfo(ctx.dev))
    );
    let comp = ctx.comp_event();
    let mut h = 0;
    fails!(
        NOT_SUPPORTED,
        abi::doca_sync_event_get_dpa_handle(comp, ctx.dpa, &mut h)
    );
    // A remote-net event's DPA handle needs the same export support.
    let net = new_event();
    ok!(abi::doca_sync_event_add_publisher_location_remote_net(net));
    ok!(abi::doca_sync_event_add_subscriber_location_cpu(
        net, ctx.dev
    ));
    ok!(abi::doca_sync_event_start(net));
    let mut data = std::ptr::null();
    let mut sz = 0;
    ok!(abi::doca_sync_event_export_to_remote_net(
        net, &mut data, &mut sz
    ));
    let mut remote_ev = null_mut();
    ok!(abi::doca_sync_event_remote_net_create_from_export(
        ctx.dev,
        data,
        sz,
        &mut remote_ev
    ));
    let mut remote = 0;
    fails!(
        NOT_SUPPORTED,
        abi::doca_sync_event_remote_net_get_dpa_handle(remote_ev, ctx.dpa, &mut remote)
    );
    ok!(abi::doca_sync_event_remote_net_destroy(remote_ev));
    ok!(abi::doca_sync_event_destroy(net));
    drop_event(comp);
    ctx.teardown();
    assert_no_leaks(&scope);
}

/// The common setup of NVIDIA's DPA samples: an event a network peer
/// publishes, exported and re-created from the export (the sim's loopback),
/// with a DPA handle for the remote side.
#[test]
fn remote_net_events_export_and_come_back() {
    let scope = Scope::new();
    let ctx = Ctx::started(noop_app());
    let info = devinfo(ctx.dev);
    ok!(abi::doca_sync_event_cap_is_export_to_remote_net_supported(
        info
    ));
    ok!(abi::doca_sync_event_cap_remote_net_is_create_from_export_supported(info));
    ok!(abi::doca_sync_event_cap_remote_net_is_export_to_dpa_supported(info));
    fails!(
        NOT_SUPPORTED,
        abi::doca_sync_event_cap_is_export_to_remote_pci_supported(info)
    );
    // Tasks are modelled (sync_event_tasks.rs).
    ok!(abi::doca_sync_event_cap_task_wait_eq_is_supported(info));

    let ev = new_event();
    ok!(abi::doca_sync_event_add_publisher_location_remote_net(ev));
    ok!(abi::doca_sync_event_add_subscriber_location_cpu(
        ev, ctx.dev
    ));
    let mut data = std::ptr::null();
    let mut sz = 0;
    // Only a started event exports.
    fails!(
        BAD_STATE,
        abi::doca_sync_event_export_to_remote_net(ev, &mut data, &mut sz)
    );
    ok!(abi::doca_sync_event_start(ev));
    ok!(abi::doca_sync_event_export_to_remote_net(
        ev, &mut data, &mut sz
    ));
    assert!(!data.is_null() && sz > 0);
    let (first, first_sz) = (data, sz);
    ok!(abi::doca_sync_event_export_to_remote_net(
        ev, &mut data, &mut sz
    ));
    assert_eq!((data, sz), (first, first_sz), "one export per event");

    let mut remote = null_mut();
    ok!(abi::doca_sync_event_remote_net_create_from_export(
        ctx.dev,
        data,
        sz,
        &mut remote
    ));
    let mut handle = 0;
    ok!(abi::doca_sync_event_remote_net_get_dpa_handle(
        remote,
        ctx.dpa,
        &mut handle
    ));
    assert_ne!(handle, 0);
    // Garbage is not an export; an event without a remote-net publisher has none.
    let junk = [0u8; 24];
    let mut other = null_mut();
    fails!(
        INVALID_VALUE,
        abi::doca_sync_event_remote_net_create_from_export(
            ctx.dev,
            junk.as_ptr(),
            junk.len(),
            &mut other
        )
    );
    let plain = ctx.comp_event();
    fails!(
        NOT_PERMITTED,
        abi::doca_sync_event_export_to_remote_net(plain, &mut data, &mut sz)
    );
    drop_event(plain);
    // The remote side goes first or after: either order is clean. Once the
    // exported event is gone, its export no longer resolves.
    let saved = {
        // SAFETY: the sim's export blob of `sz` bytes, alive until `ev` goes.
        unsafe { std::slice::from_raw_parts(first, first_sz) }.to_vec()
    };
    ok!(abi::doca_sync_event_destroy(ev));
    fails!(
        NOT_FOUND,
        abi::doca_sync_event_remote_net_create_from_export(
            ctx.dev,
            saved.as_ptr(),
            saved.len(),
            &mut other
        )
    );
    ok!(abi::doca_sync_event_remote_net_destroy(remote));
    fails!(
        INVALID_VALUE,
        abi::doca_sync_event_remote_net_destroy(remote)
    );
    ctx.teardown();
    assert_no_leaks(&scope);
}
