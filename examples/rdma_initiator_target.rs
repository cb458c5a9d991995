//! DPA-initiated RDMA with DOCA RDMA on the DPA datapath: an initiator and a
//! target context in one process, as NVIDIA's `dpa_initiator_target` sample runs
//! them.
//!
//! Two RDMA contexts share a DPA context; each exports two connections, and each
//! connection is connected with the peer's details (bytes a service would send
//! over its own channel). The target has a DPA thread woken by its completion
//! context: each activation logs the value and immediate of one receive and
//! reposts the receive buffer; after the last value it wakes a second thread
//! through a notification completion, which sets the event the host waits on.
//! The host posts the first receive and four sends with immediates, alternating
//! between the two connections, through RPCs; then it checks and prints what the
//! target received. (NVIDIA's sample sends from host memory; this one sends from
//! DPA memory, each value from its own slot.)
//!
//! `cargo run --example rdma_initiator_target`

include!("rdma_absent.rs.in");

doca::rdma::if_rdma! {
    use std::mem::ManuallyDrop;
    use std::time::Duration;

    use doca::dpa::{
        AccessFlags, CompletionBuilder, CompletionEvent, Dev, Device, Dpa, DpaBox, DpaBuffer,
        DpaMmap, Export, NotificationCompletion, ThreadBuilder,
    };
    use doca::rdma::{Connection, Rdma, RdmaBuilder};

    include!("common_app.rs.in");

    /// Values the initiator sends (`IT_VALUES` of the kernels).
    const VALUES: usize = 4;
    /// The immediate of value `v` is `IMMEDIATE_BASE + v`.
    const IMMEDIATE_BASE: u32 = 100;
    /// `DOCA_DPA_DEV_COMP_RECV_SEND_IMM`: a receive of a send with immediate.
    const RECV_SEND_IMM: u64 = 3;
    const RPC: Duration = Duration::from_secs(10);

    /// A context on `dpa` reporting to `completion`, with two connections and room
    /// for every receive, as the sample configures its contexts.
    fn rdma(dpa: &Dpa, completion: &doca::dpa::Completion) -> doca::dpa::Result<Rdma> {
        RdmaBuilder::new(dpa, completion)?
            .permissions(AccessFlags::RDMA_ALL)
            .grh(true)
            .max_connections(2)?
            .recv_queue_size(VALUES as u32)?
            .start()
    }

    /// Exports a connection on each side and connects each with the other's
    /// details: (initiator side, target side).
    fn connect(initiator: &Rdma, target: &Rdma) -> Result<(Connection, Connection), Report> {
        let (a, b) = (initiator.export()?, target.export()?);
        let a_details = a.details().to_vec();
        let a = a.connect(b.details())?;
        let b = b.connect(&a_details)?;
        Ok((a, b))
    }

    fn main() -> Result<(), Report> {
        println!(
            "backend: {} (DOCA {})",
            doca::dpa::build_info::BACKEND,
            doca::dpa::build_info::DOCA_VERSION
        );
        let device = Device::open_first_with_dpa()?;
        let dpa = Dpa::start(&device, doca_examples::app())?;

        let initiator_completion = CompletionBuilder::new(&dpa, 16)?.start()?;
        let initiator = rdma(&dpa, &initiator_completion)?;

        // The target's receive buffer, its log, and the reporting thread.
        let recv_buf = DpaBuffer::<u64>::from_slice(&dpa, &[0])?;
        let recv_map = DpaMmap::with_access(&dpa, &recv_buf, 0, 1, AccessFlags::RDMA_ALL)?;
        let log = DpaBuffer::<u64>::new(&dpa, 3 * VALUES)?;
        let done = CompletionEvent::new(&dpa, Export::ToDpa)?;
        let report_state = DpaBox::new(
            &dpa,
            &doca_examples::it_report_state {
                done: Dev::new(&done)?,
                value: VALUES as u64,
            },
        )?;
        let reporter =
            ThreadBuilder::new(&dpa, &doca_examples::it_report_thread, (&report_state,))?.start()?;
        let notify = NotificationCompletion::new(&reporter)?;
        notify.run_thread()?;

        // The receiving thread needs its state before the completion that wakes it
        // and the context that completes into it exist: their handles come after.
        let state = |comp, rdma| -> doca::dpa::Result<doca_examples::it_target_state> {
            Ok(doca_examples::it_target_state {
                comp,
                notify: Dev::new(&notify)?,
                rdma,
                recv_buf: Dev::new(&recv_buf)?,
                recv_mmap: Dev::new(&recv_map)?,
                pad: 0,
                log: Dev::new(&log)?,
                received: 0,
            })
        };
        // SAFETY: the kernel uses neither handle before `state.set` below gives them.
        let receiver_state = DpaBox::new(&dpa, &state(unsafe { Dev::null() }, unsafe { Dev::null() })?)?;
        let receiver =
            ThreadBuilder::new(&dpa, &doca_examples::it_target_thread, (&receiver_state,))?.start()?;
        let target_completion = CompletionBuilder::new(&dpa, 16)?.thread(&receiver)?.start()?;
        let target = rdma(&dpa, &target_completion)?;
        // The context holds its completion, which holds the thread, which holds this
        // state: kept references here would be a cycle that is never freed. The
        // target side is dropped only once the thread finished (below); on an early
        // return it is leaked instead, so the thread never outlives it.
        let target = ManuallyDrop::new((target, target_completion, receiver));
        receiver_state.set(&state(
            // SAFETY: the completion and the context outlive the thread's last
            // activation: `target` is dropped only after the thread finished.
            unsafe { Dev::unkept(&target.1) }?,
            // SAFETY: as above.
            unsafe { Dev::unkept(&target.0) }?,
        )?)?;
        target.1.run_thread()?;

        let mut links = ManuallyDrop::new(Vec::new());
        for _ in 0..2 {
            links.push(connect(&initiator, &target.0)?);
        }
        println!(
            "connected: initiator connections {:?} <-> target connections {:?}",
            links.iter().map(|(a, _)| a.id()).collect::<Vec<_>>(),
            links.iter().map(|(_, b)| b.id()).collect::<Vec<_>>()
        );

        dpa.rpc(&doca_examples::it_post_receive, (&target.0, &recv_map, &recv_buf), RPC)?;
        let send_slots = DpaBuffer::<u64>::new(&dpa, VALUES)?;
        let send_map =
            DpaMmap::with_access(&dpa, &send_slots, 0, VALUES, AccessFlags::LOCAL_READ_WRITE)?;
        for i in 0..VALUES {
            let (conn, _) = &links[i % 2];
            let value = i as u64 + 1;
            let immediate = IMMEDIATE_BASE + value as u32;
            println!("send #{i}: value {value}, immediate {immediate}, connection {}", conn.id());
            dpa.rpc(
                &doca_examples::it_post_send_imm,
                (conn, conn.id(), &send_map, &send_slots, i as u32, value, immediate),
                RPC,
            )?;
        }

        let reported = done.wait_gt(0, Duration::from_secs(30))?;
        let log = log.to_vec()?;
        let mut seen = [false; VALUES];
        for (i, entry) in log.chunks(3).enumerate() {
            let (value, immediate, kind) = (entry[0], entry[1], entry[2]);
            println!("received #{i}: value {value}, immediate {immediate}, completion type {kind}");
            let slot = value
                .checked_sub(1)
                .map(|s| s as usize)
                .filter(|s| *s < VALUES)
                .ok_or_else(|| format!("receive #{i} holds {value}, not a value that was sent"))?;
            if std::mem::replace(&mut seen[slot], true) {
                return Err(format!("value {value} arrived twice").into());
            }
            if immediate != u64::from(IMMEDIATE_BASE) + value {
                return Err(format!("value {value} came with immediate {immediate}").into());
            }
            if kind != RECV_SEND_IMM {
                return Err(format!("value {value} came in a completion of type {kind}").into());
            }
        }
        if reported != VALUES as u64 {
            return Err(format!("the reporting thread set {reported}, not {VALUES}").into());
        }
        println!("the target received all {VALUES} values, each once, with its immediate; the reporter set {reported}");

        // The receiving thread finished: the target side may go.
        drop(ManuallyDrop::into_inner(links));
        drop(ManuallyDrop::into_inner(target));
        Ok(())
    }
}
