//! DPA Comms: two DPA threads exchange messages over two DOCA Comch message
//! queues, and the host checks what arrived.
//!
//! Ping sends 1, 2, … 5 to pong; pong answers each with ten times it; ping sends
//! the next value once the answer arrived. Each thread runs when its consumer
//! completion context has a message, reads every message into its log in DPA
//! memory, answers, acknowledges, posts its receives again and asks to be woken by
//! the next (`kernels/comch/msgq.c`). An RPC posts the first receives and sends the
//! first value, with the consumers and the producer as typed arguments; the host
//! then waits for both threads' last message and checks both logs.
//!
//! `cargo run --example dpa_msgq`

doca::comch::if_no_comch! {
    fn main() {
        match doca::comch::availability() {
            doca::comch::Availability::Absent(why) => {
                println!("DPA Comms is not available in this build: {why}")
            }
            other => println!("DPA Comms is not available in this build: {other:?}"),
        }
    }
}

doca::comch::if_comch! {
    use std::mem::ManuallyDrop;
    use std::time::Duration;

    use doca::comch::{
        Consumer, ConsumerCompletion, ConsumerCompletionBuilder, MessageQueue,
        MessageQueueBuilder, Producer,
    };
    use doca::dpa::{
        CompletionBuilder, CompletionEvent, Dev, Device, Dpa, DpaBox, DpaBuffer, DpaThread,
        Export, ThreadBuilder,
    };

    include!("common_app.rs.in");

    /// The rounds of the exchange (`MSGQ_ROUNDS` of the kernels).
    const ROUNDS: u32 = 5;
    /// Receives each consumer has posted at a time.
    const RECEIVES: u32 = 2;

    /// One side: the thread's state and log, the producer it sends with, and (held
    /// until its thread finished) its consumer, consumer completion and thread.
    struct Side {
        name: &'static str,
        state: DpaBox<doca_examples::msgq_side>,
        log: DpaBuffer<u32>,
        producer: Option<Producer>,
        running: ManuallyDrop<(Consumer, ConsumerCompletion, DpaThread)>,
    }

    impl Side {
        /// The side's thread, started, its consumer completion context, and its
        /// consumer on `inbox`; its state is written by [`Side::start`].
        fn new(dpa: &Dpa, name: &'static str, inbox: &MessageQueue) -> Result<Side, Report> {
            let log = DpaBuffer::<u32>::new(dpa, ROUNDS as usize)?;
            // The thread needs its state before its completion context and consumer
            // exist: their handles come after.
            // SAFETY: the thread uses no handle before `start` gives them all (it
            // runs only once `run_thread` made it runnable, after that).
            let blank = unsafe {
                doca_examples::msgq_side {
                    producer: Dev::null(),
                    consumer: Dev::null(),
                    completion: Dev::null(),
                    done: Dev::null(),
                    log: Dev::null(),
                    peer: 0,
                    pong: 0,
                    received: 0,
                    sender: 0,
                    busy: 0,
                    bytes: 0,
                }
            };
            let state = DpaBox::new(dpa, &blank)?;
            let thread = ThreadBuilder::new(dpa, &doca_examples::msgq_thread, (&state,))?.start()?;
            let completion = ConsumerCompletionBuilder::new(&thread)?
                .max_receives(RECEIVES)?
                .imm_data_len(4)?
                .start()?;
            let consumer = inbox
                .consumer(&completion)?
                .imm_data_len(4)?
                .max_receives(RECEIVES)?
                .start()?;
            println!(
                "{name}: consumer {} of its queue, completion context of {} messages",
                consumer.id(),
                completion.max_receives()
            );
            // The consumer holds its completion context, which holds the thread,
            // which holds this state: kept references there would be a cycle that
            // is never freed. The running part is dropped only once the thread
            // finished (`finish`); on an early return it is leaked, so the thread
            // never outlives it.
            Ok(Side {
                name,
                state,
                log,
                producer: None,
                running: ManuallyDrop::new((consumer, completion, thread)),
            })
        }

        /// Writes the thread's state (its producer, sending to consumer `to` of the
        /// producer's queue; its consumer and completion context; the `done` event
        /// and its log) and makes the thread runnable.
        fn start(&mut self, producer: Producer, to: &Consumer, done: &CompletionEvent) -> Result<(), Report> {
            self.state.set(&doca_examples::msgq_side {
                producer: Dev::new(&producer)?,
                // SAFETY: the consumer and its completion context outlive the
                // thread's last activation: `running` is dropped only after it.
                consumer: unsafe { Dev::unkept(&self.running.0) }?,
                // SAFETY: as above.
                completion: unsafe { Dev::unkept(&self.running.1) }?,
                done: Dev::new(done)?,
                log: Dev::new(&self.log)?,
                peer: to.id(),
                pong: u32::from(self.name == "pong"),
                received: 0,
                sender: 0,
                busy: 0,
                bytes: 0,
            })?;
            println!("{}: producer {} sends to consumer {}", self.name, producer.id(), to.id());
            self.producer = Some(producer);
            self.running.1.run_thread()?;
            Ok(())
        }

        /// Once its thread handled its last message: checks its log, then lets the
        /// running part go.
        fn finish(self, expected: &[u32], sender: u32) -> Result<(), Report> {
            let state = self.state.get()?;
            let log = self.log.to_vec()?;
            println!(
                "{}: received {} messages {:?} ({} bytes each) from producer {}; {} sends found the peer's queue full",
                self.name, state.received, log, state.bytes, state.sender, state.busy
            );
            // Its thread finished (it reports last): the running part may go.
            drop(ManuallyDrop::into_inner(self.running));
            if log != expected || state.received != ROUNDS {
                return Err(format!("{}: expected {expected:?}, received {log:?}", self.name).into());
            }
            if state.sender != sender || state.bytes != 4 {
                return Err(format!("{}: messages came from the wrong producer or with the wrong length", self.name).into());
            }
            println!("{}: check passed", self.name);
            Ok(())
        }
    }

    fn main() -> Result<(), Report> {
        println!(
            "backend: {} (DOCA {})",
            doca::dpa::build_info::BACKEND,
            doca::dpa::build_info::DOCA_VERSION
        );
        let device = Device::open_first_with_dpa()?;
        println!("immediate data: up to {} bytes", doca::comch::max_imm_data_len(&device)?);
        let dpa = Dpa::start(&device, doca_examples::app())?;
        let done = CompletionEvent::new(&dpa, Export::ToDpa)?;
        // Ping's messages go to pong on one queue, pong's answers on the other.
        let (to_pong, to_ping) = (MessageQueueBuilder::new(&dpa)?.start()?, MessageQueueBuilder::new(&dpa)?.start()?);
        let mut ping = Side::new(&dpa, "ping", &to_ping)?;
        let mut pong = Side::new(&dpa, "pong", &to_pong)?;
        // The producers' sends report to a DPA completion context (only errors,
        // with the flags the kernels post with).
        let sends = CompletionBuilder::new(&dpa, 16)?.start()?;
        let (ping_producer, pong_producer) = (
            to_pong.producer(&sends)?.max_sends(4)?.start()?,
            to_ping.producer(&sends)?.max_sends(4)?.start()?,
        );
        let (ping_id, pong_id) = (ping_producer.id(), pong_producer.id());
        ping.start(ping_producer, &pong.running.0, &done)?;
        pong.start(pong_producer, &ping.running.0, &done)?;

        dpa.rpc(
            &doca_examples::msgq_start,
            (
                &ping.running.0,
                &pong.running.0,
                ping.producer.as_ref().ok_or("ping has no producer")?,
                pong.running.0.id(),
                RECEIVES,
            ),
            Duration::from_secs(10),
        )?;
        // Both threads add 1 once they handled their last message.
        done.wait_gt(1, Duration::from_secs(30))?;
        let pong_got: Vec<u32> = (1..=ROUNDS).collect();
        let ping_got: Vec<u32> = pong_got.iter().map(|v| v * 10).collect();
        ping.finish(&ping_got, pong_id)?;
        pong.finish(&pong_got, ping_id)?;
        if let Some(fault) = dpa.fault_report() {
            return Err(format!("the DPA context faulted: {fault}").into());
        }
        println!("DPA Comms exchange done: {ROUNDS} rounds, every message checked");
        Ok(())
    }
}
