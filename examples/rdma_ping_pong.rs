//! DPA-initiated RDMA ping-pong with DOCA RDMA on the DPA datapath, as NVIDIA's
//! `dpa_ping_pong` sample runs it: two RDMA contexts in one process, connected to
//! each other, each with a DPA thread woken by its own completion context.
//!
//! An RPC posts both sides' first receives and the ping side's first send. From
//! then on the DPA threads play alone: every receive marks its value seen,
//! reposts the receive buffer and sends the side's next value back, until each
//! side received the values 0 to 99. Each side then checks it saw every value
//! exactly once and sets an event the host waits on; the host prints both sides'
//! counts and checks.
//!
//! `cargo run --example rdma_ping_pong`

include!("rdma_absent.rs.in");

doca::rdma::if_rdma! {
    use std::mem::ManuallyDrop;
    use std::time::Duration;

    use doca::dpa::{
        AccessFlags, Completion, CompletionBuilder, CompletionEvent, Dev, Device, Dpa, DpaBox,
        DpaBuffer, DpaMmap, DpaThread, Export, ThreadBuilder,
    };
    use doca::rdma::{PendingConnection, Rdma, RdmaBuilder};

    include!("common_app.rs.in");

    /// Values each side receives (`PP_VALUES` of the kernels).
    const VALUES: usize = 100;

    /// What one side's thread reads and writes besides its context and
    /// completion.
    struct Memory {
        recv_buf: DpaBuffer<u64>,
        send_buf: DpaBuffer<u64>,
        seen: DpaBuffer<u64>,
        recv_map: DpaMmap,
        send_map: DpaMmap,
        done: CompletionEvent,
    }

    impl Memory {
        fn new(dpa: &Dpa) -> doca::dpa::Result<Memory> {
            let recv_buf = DpaBuffer::<u64>::from_slice(dpa, &[u64::MAX])?;
            let send_buf = DpaBuffer::<u64>::new(dpa, VALUES + 1)?;
            Ok(Memory {
                recv_map: DpaMmap::with_access(dpa, &recv_buf, 0, 1, AccessFlags::RDMA_ALL)?,
                send_map: DpaMmap::with_access(dpa, &send_buf, 0, VALUES + 1, AccessFlags::RDMA_ALL)?,
                seen: DpaBuffer::<u64>::from_slice(dpa, &[0; VALUES])?,
                done: CompletionEvent::new(dpa, Export::ToDpa)?,
                recv_buf,
                send_buf,
            })
        }

        /// The thread state for the given completion and context handles.
        fn state(
            &self,
            comp: Dev<doca::dpa::param::Completion>,
            rdma: Dev<doca::dpa::param::Rdma>,
        ) -> doca::dpa::Result<doca_examples::pp_side> {
            Ok(doca_examples::pp_side {
                comp,
                rdma,
                recv_buf: Dev::new(&self.recv_buf)?,
                send_buf: Dev::new(&self.send_buf)?,
                seen: Dev::new(&self.seen)?,
                recv_mmap: Dev::new(&self.recv_map)?,
                send_mmap: Dev::new(&self.send_map)?,
                done: Dev::new(&self.done)?,
                received: 0,
                sent: 0,
            })
        }
    }

    /// One side: its memory, its thread's state, and (held until the thread
    /// finished) its context, completion and thread.
    struct Side {
        name: &'static str,
        memory: Memory,
        state: DpaBox<doca_examples::pp_side>,
        running: ManuallyDrop<(Rdma, Completion, DpaThread)>,
    }

    impl Side {
        fn new(dpa: &Dpa, name: &'static str) -> Result<Side, Report> {
            let memory = Memory::new(dpa)?;
            // The thread needs its state before the completion that wakes it and the
            // context that completes into it exist: their handles come after.
            // SAFETY: the kernel uses neither handle before `state.set` below gives
            // them (the thread runs only once `run_thread` made it runnable).
            let state = DpaBox::new(dpa, &memory.state(unsafe { Dev::null() }, unsafe { Dev::null() })?)?;
            let thread = ThreadBuilder::new(dpa, &doca_examples::pp_thread, (&state,))?.start()?;
            let completion = CompletionBuilder::new(dpa, 128)?.thread(&thread)?.start()?;
            let rdma = RdmaBuilder::new(dpa, &completion)?
                .permissions(AccessFlags::RDMA_ALL)
                .grh(true)
                .recv_queue_size(16)?
                .start()?;
            // The context holds its completion, which holds the thread, which holds
            // this state: kept references here would be a cycle that is never
            // freed. The running part is dropped only once the thread finished
            // (`finish`); on an early return it is leaked, so the thread never
            // outlives it.
            let running = ManuallyDrop::new((rdma, completion, thread));
            state.set(&memory.state(
                // SAFETY: the completion and the context outlive the thread's last
                // activation: `running` is dropped only after the thread finished.
                unsafe { Dev::unkept(&running.1) }?,
                // SAFETY: as above.
                unsafe { Dev::unkept(&running.0) }?,
            )?)?;
            running.1.run_thread()?;
            Ok(Side {
                name,
                memory,
                state,
                running,
            })
        }

        /// Waits for the side's thread to report, then lets its running part go.
        fn finish(self) -> Result<u64, Report> {
            let result = self.memory.done.wait_gt(0, Duration::from_secs(60))?;
            let state = self.state.get()?;
            let seen = self.memory.seen.to_vec()?;
            let once = seen.iter().filter(|n| **n == 1).count();
            println!(
                "{}: received {} values, sent {}, {once} of {VALUES} values seen exactly once, reported {result}",
                self.name, state.received, state.sent
            );
            // The thread finished (it reports last): the running part may go.
            drop(ManuallyDrop::into_inner(self.running));
            if result != 1 || once != VALUES || state.received != VALUES as u64 {
                return Err(format!("{}: not every value arrived exactly once", self.name).into());
            }
            Ok(state.received)
        }
    }

    fn main() -> Result<(), Report> {
        println!(
            "backend: {} (DOCA {})",
            doca::dpa::build_info::BACKEND,
            doca::dpa::build_info::DOCA_VERSION
        );
        let device = Device::open_first_with_dpa()?;
        let dpa = Dpa::start(&device, doca_examples::app())?;
        let (ping, pong) = (Side::new(&dpa, "ping")?, Side::new(&dpa, "pong")?);

        // One connection each way: the details a service would send its peer.
        let (a, b): (PendingConnection, PendingConnection) =
            (ping.running.0.export()?, pong.running.0.export()?);
        let a_details = a.details().to_vec();
        let links = ManuallyDrop::new((a.connect(b.details())?, b.connect(&a_details)?));
        println!(
            "connected: ping connection {} <-> pong connection {}",
            links.0.id(),
            links.1.id()
        );

        dpa.rpc(
            &doca_examples::pp_start,
            (&ping.state, &pong.state),
            Duration::from_secs(10),
        )?;
        let received = [ping.finish()?, pong.finish()?];
        drop(ManuallyDrop::into_inner(links));
        println!(
            "ping-pong done: {} and {} receives, every value exactly once on each side",
            received[0], received[1]
        );
        Ok(())
    }
}
