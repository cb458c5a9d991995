//! `doca_sync_event.h`: sync events shared by the host and the DPA.

use std::sync::{Arc, Mutex};

use crate::abi;
use crate::dev::{obj, Dev};
use crate::dpa::{Dpa, DpaCore};
use crate::error::{codes, fail, SimResult};
use crate::export::{doca_api, not_modelled, out};
use crate::registry::{self, SimObject};

use task::{erase, EventCtx, EventTasks, Kind, Op};
use value::{Compare, EventCore};

mod task;
pub(crate) mod value;

/// Where an event is published from or subscribed to.
#[derive(Clone)]
enum Location {
    Cpu,
    Dpa(Arc<DpaCore>),
    /// A peer across the network (publisher only).
    RemoteNet,
}

#[derive(Default)]
struct EventState {
    publishers: Vec<Location>,
    subscribers: Vec<Location>,
    started: bool,
    /// DPA handles exported from this event, retracted when it is destroyed.
    handles: Vec<u64>,
    /// The blob of `doca_sync_event_export_to_remote_net`, valid while the
    /// event exists.
    net_export: Option<Box<[u8]>>,
}

/// `struct doca_sync_event`.
pub(crate) struct SyncEvent {
    pub(crate) core: Arc<EventCore>,
    state: Arc<Mutex<EventState>>,
    /// The event as a context: its tasks (see [`task`]).
    tasks: Arc<EventTasks>,
}
impl SimObject for SyncEvent {
    const KIND: &'static str = "doca_sync_event";
}

impl SyncEvent {
    fn state(&self) -> std::sync::MutexGuard<'_, EventState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether a kernel on `dpa` may wait on this event (a started event with
    /// that DPA among its subscribers).
    pub(crate) fn dpa_may_wait(&self, dpa: &Arc<DpaCore>) -> SimResult {
        self.dpa_role(
            dpa,
            |s| &s.subscribers,
            "the wait event has no DPA subscriber location for this context",
        )
    }

    /// Whether a kernel on `dpa` may update this event.
    pub(crate) fn dpa_may_publish(&self, dpa: &Arc<DpaCore>) -> SimResult {
        self.dpa_role(
            dpa,
            |s| &s.publishers,
            "the completion event has no DPA publisher location for this context",
        )
    }

    fn dpa_role(
        &self,
        dpa: &Arc<DpaCore>,
        side: impl Fn(&EventState) -> &Vec<Location>,
        why: &'static str,
    ) -> SimResult {
        let state = self.state();
        if !state.started {
            return Err(fail(codes::BAD_STATE, "sync event is not started"));
        }
        let present = side(&state)
            .iter()
            .any(|l| matches!(l, Location::Dpa(d) if d.shares_device_context(dpa)));
        if present {
            Ok(())
        } else {
            Err(fail(codes::INVALID_VALUE, why))
        }
    }
}

fn event<'a>(ptr: *const abi::doca_sync_event) -> SimResult<&'a SyncEvent> {
    obj::<SyncEvent, _>(ptr)
}

/// The task side of a sync event.
fn tasks_of(ptr: *const abi::doca_sync_event) -> SimResult<Arc<EventTasks>> {
    Ok(event(ptr)?.tasks.clone())
}

/// Starts (or stops) an event in the state it shares with its context: the
/// same rules as `doca_sync_event_start` / `_stop`.
fn set_started(state: &Mutex<EventState>, start: bool) -> SimResult {
    let mut state = state.lock().unwrap_or_else(|p| p.into_inner());
    if start {
        if state.started {
            return Err(fail(codes::BAD_STATE, "sync event already started"));
        }
        if state.publishers.is_empty() || state.subscribers.is_empty() {
            return Err(fail(
                codes::INVALID_VALUE,
                "a sync event needs a publisher and a subscriber location",
            ));
        }
    } else if !state.started {
        return Err(fail(codes::BAD_STATE, "sync event is not started"));
    }
    state.started = start;
    Ok(())
}

fn configure(ptr: *mut abi::doca_sync_event, publisher: bool, location: Location) -> SimResult {
    let ev = event(ptr)?;
    let mut state = ev.state();
    if state.started {
        return Err(fail(
            codes::BAD_STATE,
            "locations must be added before the event starts",
        ));
    }
    if publisher {
        state.publishers.push(location);
    } else {
        state.subscribers.push(location);
    }
    Ok(())
}

fn started<'a>(ptr: *const abi::doca_sync_event) -> SimResult<&'a SyncEvent> {
    let ev = event(ptr)?;
    if !ev.state().started {
        return Err(fail(codes::BAD_STATE, "sync event is not started"));
    }
    Ok(ev)
}

fn host_wait(ptr: *mut abi::doca_sync_event, cmp: Compare, value: u64, mask: u64) -> SimResult {
    let ev = started(ptr)?;
    ev.core.wait(cmp, value, mask, || false);
    Ok(())
}

doca_api! {
    /// Creates an idle sync event with value 0.
    fn doca_sync_event_create(event: *mut *mut abi::doca_sync_event) {
        if event.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        let core: Arc<EventCore> = Arc::default();
        let tasks = EventTasks::new(core.clone());
        let ev = registry::register(SyncEvent { core, state: Arc::default(), tasks });
        out(event, ev.cast())
    }

    /// Destroys a sync event, stopping it first if it is started.
    ///
    /// Model choice: the 3.0 header documents only INVALID_VALUE (NULL) for
    /// destroy, and NVIDIA's DPA samples destroy started events without
    /// stopping them, so a started event is stopped, then destroyed
    /// (docs/sim-model.md).
    fn doca_sync_event_destroy(event: *mut abi::doca_sync_event) {
        let ev = self::event(event)?;
        // Model choice (docs/sim-model.md): a started event is stopped, then destroyed.
        ev.state().started = false;
        if let Some(ctx) = ev.tasks.existing_ctx() {
            crate::ctx::destroy_ctx(ctx)?;
        }
        // SAFETY: checked above; only this call frees it.
        let ev = unsafe { registry::unregister::<SyncEvent, _>(event) }?;
        for handle in ev.state().handles.drain(..) {
            registry::retract(handle);
        }
        Ok(())
    }

    /// Adds the host CPU of `dev` as a publisher.
    fn doca_sync_event_add_publisher_location_cpu(event: *mut abi::doca_sync_event, dev: *mut abi::doca_dev) {
        obj::<Dev, _>(dev)?;
        configure(event, true, Location::Cpu)
    }

    /// Adds a DPA context as a publisher.
    fn doca_sync_event_add_publisher_location_dpa(event: *mut abi::doca_sync_event, dpa: *mut abi::doca_dpa) {
        let core = obj::<Dpa, _>(dpa)?.core.clone();
        configure(event, true, Location::Dpa(core))
    }

    /// Adds the host CPU of `dev` as a subscriber.
    fn doca_sync_event_add_subscriber_location_cpu(event: *mut abi::doca_sync_event, dev: *mut abi::doca_dev) {
        obj::<Dev, _>(dev)?;
        configure(event, false, Location::Cpu)
    }

    /// Adds a DPA context as a subscriber.
    fn doca_sync_event_add_subscriber_location_dpa(event: *mut abi::doca_sync_event, dpa: *mut abi::doca_dpa) {
        let core = obj::<Dpa, _>(dpa)?.core.clone();
        configure(event, false, Location::Dpa(core))
    }

    /// Starts the event in standalone mode.
    ///
    /// Model choice: at least one publisher and one subscriber are required
    /// (INVALID_VALUE otherwise); starting twice is BAD_STATE. An event used as
    /// a context is started with `doca_ctx_start` instead, under the same rules.
    fn doca_sync_event_start(event: *mut abi::doca_sync_event) {
        set_started(&self::event(event)?.state, true)
    }

    /// Stops a started event.
    fn doca_sync_event_stop(event: *mut abi::doca_sync_event) {
        set_started(&self::event(event)?.state, false)
    }

    /// Exports the event to a DPA context that is one of its locations.
    fn doca_sync_event_get_dpa_handle(event: *mut abi::doca_sync_event, dpa: *mut abi::doca_dpa, dpa_dev_se_handle: *mut abi::doca_dpa_dev_sync_event_t) {
        let ev = self::event(event)?;
        let core = obj::<Dpa, _>(dpa)?.core.clone();
        if !core.device.profile.sync_event_export {
            return Err(fail(codes::NOT_SUPPORTED, "this device cannot export sync events to its DPA"));
        }
        let mut state = ev.state();
        let is_location = state
            .publishers
            .iter()
            .chain(state.subscribers.iter())
            .any(|l| matches!(l, Location::Dpa(d) if d.shares_device_context(&core)));
        if !is_location {
            return Err(fail(codes::INVALID_VALUE, "the DPA is neither a publisher nor a subscriber of this event"));
        }
        let handle = registry::publish(ev.core.clone());
        state.handles.push(handle);
        out(dpa_dev_se_handle, handle)
    }

    /// Whether sync events can be exported to the DPA of this device.
    fn doca_sync_event_cap_is_export_to_dpa_supported(devinfo: *const abi::doca_devinfo) {
        let info = obj::<crate::dev::DevInfo, _>(devinfo)?;
        if info.model.profile.sync_event_export {
            Ok(())
        } else {
            Err(fail(codes::NOT_SUPPORTED, "no DPA on this device"))
        }
    }

    /// Reads the value.
    fn doca_sync_event_get(event: *mut abi::doca_sync_event, value: *mut u64) {
        out(value, started(event)?.core.get())
    }

    /// Adds to the value and returns the previous one.
    fn doca_sync_event_update_add(event: *mut abi::doca_sync_event, value: u64, fetched: *mut u64) {
        let ev = started(event)?;
        if fetched.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        out(fetched, ev.core.add(value))
    }

    /// Sets the value.
    fn doca_sync_event_update_set(event: *mut abi::doca_sync_event, value: u64) {
        started(event)?.core.set(value);
        Ok(())
    }

    /// Blocks until `(value & mask) > value_arg`.
    fn doca_sync_event_wait_gt(event: *mut abi::doca_sync_event, value: u64, mask: u64) {
        host_wait(event, Compare::Gt, value, mask)
    }

    /// As `doca_sync_event_wait_gt`, yielding between polls.
    fn doca_sync_event_wait_gt_yield(event: *mut abi::doca_sync_event, value: u64, mask: u64) {
        host_wait(event, Compare::Gt, value, mask)
    }

    /// Blocks until `(value & mask) == value_arg`.
    fn doca_sync_event_wait_eq(event: *mut abi::doca_sync_event, value: u64, mask: u64) {
        host_wait(event, Compare::Eq, value, mask)
    }

    /// As `doca_sync_event_wait_eq`, yielding between polls.
    fn doca_sync_event_wait_eq_yield(event: *mut abi::doca_sync_event, value: u64, mask: u64) {
        host_wait(event, Compare::Eq, value, mask)
    }

    /// Blocks until `(value & mask) != value_arg`.
    fn doca_sync_event_wait_neq(event: *mut abi::doca_sync_event, value: u64, mask: u64) {
        host_wait(event, Compare::Neq, value, mask)
    }

    /// As `doca_sync_event_wait_neq`, yielding between polls.
    fn doca_sync_event_wait_neq_yield(event: *mut abi::doca_sync_event, value: u64, mask: u64) {
        host_wait(event, Compare::Neq, value, mask)
    }

    /// The event as a DOCA context (always the same one), for tasks completed
    /// by a progress engine; NULL for a pointer that is not an event.
    fn doca_sync_event_as_ctx(event: *mut abi::doca_sync_event) -> *mut abi::doca_ctx {
        let Ok(ev) = self::event(event) else {
            return std::ptr::null_mut();
        };
        let state = ev.state.clone();
        let tasks = ev.tasks.clone();
        ev.tasks.ctx(move || {
            Arc::new(EventCtx {
                tasks,
                set_started: Box::new(move |start| set_started(&state, start)),
            })
        }) as *mut abi::doca_ctx
    }
}

// ------------------------------------------------------------- tasks

/// The `*_set_conf` of each task type (the model is in [`task`]): they take
/// the event, so they live beside it.
macro_rules! task_conf {
    ($($kind:expr, $cb:ty: fn $conf:ident,)*) => {$(
        doca_api! {
            /// Configures tasks of this type (idle context only).
            fn $conf(event: *mut abi::doca_sync_event, completion_cb: $cb, error_cb: $cb, num_tasks: u32) {
                // SAFETY: `$cb` is this type's callback: an optional C function of
                // (task pointer, doca_data, doca_data).
                let (ok, err) = unsafe { (erase(completion_cb), erase(error_cb)) };
                task::configure(&*tasks_of(event)?, $kind, ok, err, num_tasks)
            }
        }
    )*};
}

task_conf! {
    Kind::Get, abi::doca_sync_event_task_get_completion_cb_t:
        fn doca_sync_event_task_get_set_conf,
    Kind::NotifySet, abi::doca_sync_event_task_notify_set_completion_cb_t:
        fn doca_sync_event_task_notify_set_set_conf,
    Kind::NotifyAdd, abi::doca_sync_event_task_notify_add_completion_cb_t:
        fn doca_sync_event_task_notify_add_set_conf,
    Kind::WaitEq, abi::doca_sync_event_task_wait_eq_completion_cb_t:
        fn doca_sync_event_task_wait_eq_set_conf,
    Kind::WaitNeq, abi::doca_sync_event_task_wait_neq_completion_cb_t:
        fn doca_sync_event_task_wait_neq_set_conf,
}

doca_api! {
    /// Allocates a get task.
    fn doca_sync_event_task_get_alloc_init(event: *mut abi::doca_sync_event, ret_val_ptr: *mut u64, user_data: abi::doca_data, task: *mut *mut abi::doca_sync_event_task_get) {
        task::allocate(&tasks_of(event)?, Kind::Get, Op::Get { ret: ret_val_ptr }, user_data, task)
    }

    /// Allocates a notify-set task.
    fn doca_sync_event_task_notify_set_alloc_init(event: *mut abi::doca_sync_event, set_val: u64, user_data: abi::doca_data, task: *mut *mut abi::doca_sync_event_task_notify_set) {
        task::allocate(&tasks_of(event)?, Kind::NotifySet, Op::Set { value: set_val }, user_data, task)
    }

    /// Allocates a notify-add task.
    fn doca_sync_event_task_notify_add_alloc_init(event: *mut abi::doca_sync_event, inc_val: u64, fetched_val_ptr: *mut u64, user_data: abi::doca_data, task: *mut *mut abi::doca_sync_event_task_notify_add) {
        task::allocate(&tasks_of(event)?, Kind::NotifyAdd, Op::Add { inc: inc_val, fetched: fetched_val_ptr }, user_data, task)
    }

    /// Allocates a wait-equal task.
    fn doca_sync_event_task_wait_eq_alloc_init(event: *mut abi::doca_sync_event, wait_val: u64, mask: u64, user_data: abi::doca_data, task: *mut *mut abi::doca_sync_event_task_wait_eq) {
        let op = Op::Wait { cmp: Compare::Eq, value: wait_val, mask };
        task::allocate(&tasks_of(event)?, Kind::WaitEq, op, user_data, task)
    }

    /// Allocates a wait-not-equal task.
    fn doca_sync_event_task_wait_neq_alloc_init(event: *mut abi::doca_sync_event, wait_val: u64, mask: u64, user_data: abi::doca_data, task: *mut *mut abi::doca_sync_event_task_wait_neq) {
        let op = Op::Wait { cmp: Compare::Neq, value: wait_val, mask };
        task::allocate(&tasks_of(event)?, Kind::WaitNeq, op, user_data, task)
    }
}

// ------------------------------------------------------------- remote net

/// What a remote-net handle designates in the handle table: the export of
/// an event (`doca_sync_event_export_to_remote_net`) or a DPA handle of its
/// remote side (`doca_dpa_dev_sync_event_remote_net_t`), which DPA RDMA
/// signals name (`doca_dpa_dev_rdma_signal_set/_add`).
struct NetEvent(Arc<EventCore>);

/// The event a live `doca_dpa_dev_sync_event_remote_net_t` names (the sim's
/// remote-net events are a loopback: the remote event is the local one).
pub(crate) fn remote_net_event(handle: u64) -> Option<Arc<EventCore>> {
    registry::resolve::<NetEvent>(handle).map(|n| n.0.clone())
}

/// `struct doca_sync_event_remote_net`: the remote side of an exported event.
pub(crate) struct RemoteNetEvent {
    core: Arc<EventCore>,
    /// DPA handles made from it, retracted when it is destroyed.
    handles: Mutex<Vec<u64>>,
}
impl SimObject for RemoteNetEvent {
    const KIND: &'static str = "doca_sync_event_remote_net";
}

/// Marks a remote-net export blob of this sim; the export's id follows.
const NET_EXPORT_MAGIC: &[u8; 16] = b"doca-sim:se-net\0";

fn net_export_id(blob: &[u8]) -> Option<u64> {
    let id = blob.strip_prefix(NET_EXPORT_MAGIC.as_slice())?;
    Some(u64::from_le_bytes(id.try_into().ok()?))
}

/// The remote-net capabilities: those of devices that export sync events to
/// a DPA.
fn remote_net_capable(devinfo: *const abi::doca_devinfo) -> SimResult {
    if obj::<crate::dev::DevInfo, _>(devinfo)?
        .model
        .profile
        .sync_event_export
    {
        Ok(())
    } else {
        Err(fail(
            codes::NOT_SUPPORTED,
            "this device exports no sync events",
        ))
    }
}

doca_api! {
    /// Adds a network peer as a publisher.
    ///
    /// Model choice: remote-net events are a loopback inside one process
    /// (the peer is this process, through the export), which is how NVIDIA's
    /// DPA samples use them (docs/sim-model.md).
    fn doca_sync_event_add_publisher_location_remote_net(event: *mut abi::doca_sync_event) {
        configure(event, true, Location::RemoteNet)
    }

    /// Exports a started event that has a remote-net publisher.
    ///
    /// Model choice: the blob names the event inside this process (an id
    /// that `doca_sync_event_remote_net_create_from_export` resolves) and
    /// stays valid until the event is destroyed; exporting again returns the
    /// same blob.
    fn doca_sync_event_export_to_remote_net(event: *mut abi::doca_sync_event, data: *mut *const u8, sz: *mut usize) {
        let ev = self::event(event)?;
        if data.is_null() || sz.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        let mut state = ev.state();
        if !state.started {
            return Err(fail(codes::BAD_STATE, "sync event is not started"));
        }
        if !state.publishers.iter().any(|l| matches!(l, Location::RemoteNet)) {
            return Err(fail(codes::NOT_PERMITTED, "the event has no remote-net publisher location"));
        }
        if state.net_export.is_none() {
            let id = registry::publish(Arc::new(NetEvent(ev.core.clone())));
            state.handles.push(id);
            let mut blob = NET_EXPORT_MAGIC.to_vec();
            blob.extend_from_slice(&id.to_le_bytes());
            state.net_export = Some(blob.into_boxed_slice());
        }
        let blob = state.net_export.as_deref().unwrap_or_default();
        out(data, blob.as_ptr())?;
        out(sz, blob.len())
    }

    /// Creates the remote side of an event exported by this process.
    fn doca_sync_event_remote_net_create_from_export(dev: *mut abi::doca_dev, data: *const u8, sz: usize, event: *mut *mut abi::doca_sync_event_remote_net) {
        obj::<Dev, _>(dev)?;
        if data.is_null() || event.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL argument"));
        }
        // SAFETY: the caller passes `sz` readable bytes (the C contract).
        let blob = unsafe { std::slice::from_raw_parts(data, sz) };
        let id = net_export_id(blob).ok_or(fail(codes::INVALID_VALUE, "not a remote-net export of doca-sim"))?;
        let Some(net) = registry::resolve::<NetEvent>(id) else {
            return Err(fail(codes::NOT_FOUND, "the exported sync event no longer exists"));
        };
        let core = net.0.clone();
        let remote = registry::register(RemoteNetEvent { core, handles: Mutex::default() });
        out(event, remote.cast())
    }

    /// Destroys the remote side; its DPA handles are retracted.
    fn doca_sync_event_remote_net_destroy(event: *mut abi::doca_sync_event_remote_net) {
        // SAFETY: `unregister` checks the pointer; only this call frees it.
        let remote = unsafe { registry::unregister::<RemoteNetEvent, _>(event) }?;
        for handle in remote.handles.lock().unwrap_or_else(|p| p.into_inner()).drain(..) {
            registry::retract(handle);
        }
        Ok(())
    }

    /// The handle DPA RDMA signals name the remote event by.
    ///
    /// Model choice: a live handle of the event itself (the loopback of
    /// `doca_sync_event_add_publisher_location_remote_net`); the DPA context
    /// must be started on a device that can export sync events.
    fn doca_sync_event_remote_net_get_dpa_handle(event: *mut abi::doca_sync_event_remote_net, dpa: *mut abi::doca_dpa, dpa_remote_event: *mut abi::doca_dpa_dev_sync_event_remote_net_t) {
        let remote = obj::<RemoteNetEvent, _>(event)?;
        let core = obj::<Dpa, _>(dpa)?.core.clone();
        core.require_started()?;
        if !core.device.profile.sync_event_export {
            return Err(fail(codes::NOT_SUPPORTED, "this device cannot export sync events to its DPA"));
        }
        let handle = registry::publish(Arc::new(NetEvent(remote.core.clone())));
        remote.handles.lock().unwrap_or_else(|p| p.into_inner()).push(handle);
        out(dpa_remote_event, handle)
    }

    /// SUCCESS on devices that export sync events to a DPA.
    fn doca_sync_event_cap_is_export_to_remote_net_supported(devinfo: *const abi::doca_devinfo) {
        remote_net_capable(devinfo)
    }

    /// SUCCESS on devices that export sync events to a DPA.
    fn doca_sync_event_cap_remote_net_is_create_from_export_supported(devinfo: *const abi::doca_devinfo) {
        remote_net_capable(devinfo)
    }

    /// SUCCESS on devices that export sync events to a DPA.
    fn doca_sync_event_cap_remote_net_is_export_to_dpa_supported(devinfo: *const abi::doca_devinfo) {
        remote_net_capable(devinfo)
    }
}

// ------------------------------------------------------------------ tasks
//
// No sync event task can be allocated (see `not_modelled!` below), so the
// accessors that cannot fail do nothing or answer zero.

doca_api! {}

not_modelled! {
    /// Remote PCI publishers.
    fn doca_sync_event_add_publisher_location_remote_pci(event: *mut abi::doca_sync_event);
    /// Remote PCI subscribers.
    fn doca_sync_event_add_subscriber_location_remote_pci(event: *mut abi::doca_sync_event);
    /// Events backed by caller memory.
    fn doca_sync_event_set_addr(event: *mut abi::doca_sync_event, addr: *mut u64);
    /// Events backed by a DOCA buffer.
    fn doca_sync_event_set_doca_buf(event: *mut abi::doca_sync_event, buf: *mut abi::doca_buf);
    /// GPU publishers (the sim has no GPU).
    fn doca_sync_event_add_publisher_location_gpu(event: *mut abi::doca_sync_event, gpu: *mut abi::doca_gpu);
    /// GPU subscribers.
    fn doca_sync_event_add_subscriber_location_gpu(event: *mut abi::doca_sync_event, gpu: *mut abi::doca_gpu);
    /// GPU handles.
    fn doca_sync_event_get_gpu_handle(event: *mut abi::doca_sync_event, gpu: *mut abi::doca_gpu, gpu_dev_se: *mut *mut abi::doca_gpu_dev_sync_event_t);
    /// GPU handles.
    fn doca_sync_event_cap_is_export_to_gpu_supported(devinfo: *const abi::doca_devinfo);
    /// GPU handles of remote-net events.
    fn doca_sync_event_remote_net_get_gpu_handle(event: *mut abi::doca_sync_event_remote_net, gpu: *mut abi::doca_gpu, gpu_remote_event: *mut abi::doca_gpu_dev_sync_event_remote_net_t);
    /// GPU handles of remote-net events.
    fn doca_sync_event_cap_remote_net_is_export_to_gpu_supported(devinfo: *const abi::doca_devinfo);
    /// Exports over PCI.
    fn doca_sync_event_export_to_remote_pci(event: *mut abi::doca_sync_event, dev: *mut abi::doca_dev, data: *mut *const u8, sz: *mut usize);
    /// Exports over PCI.
    fn doca_sync_event_cap_is_export_to_remote_pci_supported(devinfo: *const abi::doca_devinfo);
    /// Events created from a PCI export.
    fn doca_sync_event_create_from_export(dev: *mut abi::doca_dev, data: *const u8, sz: usize, event: *mut *mut abi::doca_sync_event);
    /// Events created from a PCI export.
    fn doca_sync_event_cap_is_create_from_export_supported(devinfo: *const abi::doca_devinfo);
}
