//! An RDMI connection and poster driven by a DPA kernel.
//!
//! Sets up a device, one of its representors, a DPA context, two DPA
//! completion contexts (polled by the kernel, no DPA thread), a verbs context
//! and protection domain, then an RDMI connection and poster on the DPA
//! datapath. A kernel receives their DPA handles:
//!
//! - on the software DPA it sends N messages through the sim's loopback
//!   (poster → connection), reads one completion per message on each side,
//!   and marks the receives consumed; the host checks the handles came back
//!   unchanged, the completion counts, and the data in the receive buffer,
//!   then acknowledges the receives;
//! - on hardware the kernel only records the handles it received (DOCA's
//!   device-side RDMI API is not public): the example checks the hand-off
//!   and runs the host-side lifecycle.
//!
//! Finally it tears everything down explicitly and prints the order.
//!
//! `cargo run --example rdmi_connection` (`DOCA_DEVICE=<pci or mlx5_N>` picks
//! a device). RDMI connections are made for representors, which a
//! BlueField's Arm side lists: on the software DPA, whose default profile is
//! the host's view, the example runs on its DPU view unless `DOCA_SIM_PROFILE`
//! names another.

doca::rdmi::if_no_rdmi! {
    fn main() {
        match doca::rdmi::availability() {
            doca::rdmi::Availability::Absent(why) => println!("RDMI is not available in this build: {why}"),
            other => println!("RDMI is not available in this build: {other:?}"),
        }
    }
}

doca::rdmi::if_rdmi! {
    // Everything below is used only when RDMI is built: a DOCA without RDMI
    // (3.0) builds this example warning-free too.
    use std::time::Duration;

    use doca::dpa::{CompletionBuilder, Device, Dpa, DpaBuffer, Launcher, RepresentorFilter};

    include!("common_app.rs.in");

    /// Messages the kernel sends (each fits a 64-byte slot of the sim).
    const MESSAGES: u32 = 8;
    /// Receive slots (more than MESSAGES: the window never fills).
    const SLOTS: usize = 16;
    /// Bytes per receive slot, as the kernel reads them: the sim's layout
    /// (`DOCA_SIM_RDMI_SLOT_BYTES`; on hardware this kernel receives nothing,
    /// and DOCA does not publish its layout, so the example names the size).
    const SLOT_BYTES: usize = 64;
    /// Report words: 8 counters, then one per receive.
    const REPORT_WORDS: usize = 8 + MESSAGES as usize;

    fn open_device() -> doca::dpa::Result<Device> {
        #[cfg(doca_backend = "sim")]
        if doca::sim::profile_source() == doca::sim::ProfileSource::Default {
            doca::sim::set_global_profile(doca::sim::Profile::dpu_view());
        }
        Device::open_named_or_first_with_dpa(std::env::var("DOCA_DEVICE").ok().as_deref())
    }

    /// The message the kernel sends as number `i`.
    fn expected_message(i: u32) -> Vec<u8> {
        format!("RDMI message #{:02}", i % 100).into_bytes()
    }

    fn main() -> Result<(), Report> {
        use doca::rdmi::{
            CompletionSource, ConnectionBuilder, PosterBuilder, ProtectionDomain, ReceiveBuffer,
            VerbsContext,
        };

        let sim = doca::dpa::build_info::BACKEND == "sim";
        println!(
            "backend: {} (DOCA {}); RDMI: {:?}",
            doca::dpa::build_info::BACKEND,
            doca::dpa::build_info::DOCA_VERSION,
            doca::rdmi::availability()
        );
        let device = open_device()?;
        let rep = device
            .open_representors(RepresentorFilter::NET)?
            .into_iter()
            .next()
            .ok_or("the device has no network representor for the connection")?;
        println!("device: {} ({}), representor #{}", device.info().ibdev_name, device.info().pci_addr, rep.index());

        let dpa = Dpa::start(&device, doca_examples::app())?;
        // One completion context per RDMI object, polled by the kernel.
        let conn_comp = CompletionBuilder::new(&dpa, 64)?.start()?;
        let poster_comp = CompletionBuilder::new(&dpa, 64)?.start()?;
        let verbs = VerbsContext::new(&device)?;
        let pd = ProtectionDomain::new(&verbs)?;

        // The poster works with the connection and keeps it alive, so the poster
        // is always destroyed first, as DOCA's teardown order asks.
        let conn = ConnectionBuilder::new(
            &verbs,
            &rep,
            &dpa,
            CompletionSource::Dpa(&conn_comp),
            ReceiveBuffer::with_slot_bytes(SLOTS * SLOT_BYTES, SLOT_BYTES)?,
        )
        .pd(&pd)
        .start()?;
        let poster = PosterBuilder::new(&verbs, &dpa, CompletionSource::Dpa(&poster_comp))
            .pd(&pd)
            .connection(&conn)
            .start()?;
        println!("started: connection and poster on the DPA datapath");
        let rq = conn.app_rq_info()?;
        println!("receive buffer for the kernel: mkey {:#x}, offset {}, {} bytes", rq.mkey, rq.offset, rq.size);

        let report = DpaBuffer::<u64>::new(&dpa, REPORT_WORDS)?;
        report.fill_bytes(0)?;
        let launcher = Launcher::new(&dpa)?;
        launcher
            .launch(
                &doca_examples::rdmi_loopback,
                1,
                (&poster, &conn, &conn_comp, &poster_comp, &report, MESSAGES),
            )?
            .wait(Duration::from_secs(10))?;
        let r = report.to_vec()?;

        // Two distinct handles reached the kernel (their values are DOCA's business).
        if r[0] == 0 || r[1] == 0 || r[0] == r[1] {
            return Err(format!("the kernel received handles {:#x}/{:#x}", r[0], r[1]).into());
        }
        println!("the kernel received both handles");

        if r[7] == 1 {
            let (sent, recvs, sends, consumed, error) = (r[2], r[3], r[4], r[5], r[6]);
            println!("kernel: sent {sent}, {recvs} receive and {sends} send completions, consumed {consumed}, error {error}");
            let n = u64::from(MESSAGES);
            if error != 0 || sent != n || recvs != n || sends != n || consumed != n {
                return Err("the kernel did not see exactly one completion per message on each side".into());
            }
            for i in 0..MESSAGES {
                let word = r[8 + i as usize];
                let (slot, len) = ((word >> 32) as usize, (word & 0xffff_ffff) as usize);
                let data = conn.received(slot)?;
                let want = expected_message(i);
                if len != want.len() || data[..len] != want[..] {
                    return Err(format!("slot {slot} holds {:?}, expected {:?}", &data[..len.min(data.len())], want).into());
                }
            }
            println!("the receive buffer holds the {MESSAGES} messages, in order");
            conn.recv_ack(MESSAGES)?;
            println!("host acknowledged {MESSAGES} receives");
        } else if sim {
            return Err("the kernel did not run the loopback on the software DPA".into());
        } else {
            println!("hardware: the kernel recorded the handles; the data path is your kernel's");
        }

        println!("teardown:");
        poster.stop()?;
        println!("  1. poster stopped and destroyed (doca_ctx_stop, doca_rdmi_poster_destroy)");
        let buffer = conn.stop()?;
        println!("  2. connection stopped and destroyed; its {}-byte receive buffer is back", buffer.len());
        drop(buffer);
        println!("  3. receive buffer freed (only after the connection was destroyed)");
        drop((conn_comp, poster_comp));
        println!("  4. DPA completions stopped and destroyed");
        pd.destroy()?;
        verbs.destroy()?;
        println!("  5. protection domain, then verbs context destroyed");
        drop((report, launcher, rep));
        dpa.destroy()?;
        println!("  6. DPA context stopped and destroyed");
        Ok(())
    }
}
