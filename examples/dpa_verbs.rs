//! DPA Verbs (DOCA 3.2+): a kernel of this repository posts RDMA writes on a
//! queue pair the host created on the DPA datapath and connected, and the host
//! checks what arrived.
//!
//! The host makes a verbs context, a protection domain and a doorbell region
//! (UAR) on the DPA, then two queue pairs, each reporting to a DPA completion
//! context of its own, and connects each to the other (a loopback: on hardware the
//! peer's queue pair number and GID would come over a channel of the service's
//! own). An RPC (`kernels/verbs/dpa_verbs.c`) is given the initiator queue pair as
//! a typed `doca_dpa_dev_verbs_qp_t` argument, with its completion context and
//! the two buffers' memory maps: it writes each value with its own RDMA write and
//! waits for its completion. The host then reads the target buffer back and
//! checks every value.
//!
//! `cargo run --example dpa_verbs`

doca::verbs::if_no_dpa_verbs! {
    fn main() {
        match doca::verbs::availability() {
            doca::verbs::Availability::Absent(why) => {
                println!("DPA Verbs is not available in this build: {why}")
            }
            other => println!("DPA Verbs is not available in this build: {other:?}"),
        }
    }
}

doca::verbs::if_dpa_verbs! {
    use std::time::Duration;

    use doca::dpa::{AccessFlags, CompletionBuilder, Device, Dpa, DpaBuffer, DpaMmap};
    use doca::verbs::{DpaUar, Gid, Peer, ProtectionDomain, Qp, QpBuilder, VerbsContext};

    include!("common_app.rs.in");

    /// How many values the kernel writes.
    const VALUES: usize = 8;
    /// The first value (the others follow it).
    const FIRST: u64 = 0x5eed_0000;
    const RPC: Duration = Duration::from_secs(10);

    /// A queue pair on `dpa`'s datapath reporting to a completion context of its own.
    fn qp(dpa: &Dpa, pd: &ProtectionDomain, uar: &DpaUar) -> doca::dpa::Result<Qp> {
        let completion = CompletionBuilder::new(dpa, 16)?.start()?;
        QpBuilder::new(pd, dpa, &completion, uar)?
            .send_queue_size(4)?
            .recv_queue_size(4)?
            .create()
    }

    fn main() -> Result<(), Report> {
        println!(
            "backend: {} (DOCA {})",
            doca::dpa::build_info::BACKEND,
            doca::dpa::build_info::DOCA_VERSION
        );
        let device = Device::open_first_with_dpa()?;
        let dpa = Dpa::start(&device, doca_examples::app())?;
        let verbs = VerbsContext::new(&device)?;
        let pd = ProtectionDomain::new(&verbs)?;
        let uar = DpaUar::new(&dpa)?;

        let (initiator, target) = (qp(&dpa, &pd, &uar)?, qp(&dpa, &pd, &uar)?);
        let (ni, nt) = (initiator.number(), target.number());
        // The loopback's GID: both queue pairs are on this port.
        let gid = Gid::default();
        let initiator = initiator.connect(&Peer::new(nt, gid))?;
        let target = target.connect(&Peer::new(ni, gid))?;
        println!("connected: queue pair {ni} <-> queue pair {nt} (both in RTS)");

        let src = DpaBuffer::<u64>::new(&dpa, VALUES)?;
        let src_map = DpaMmap::with_access(&dpa, &src, 0, VALUES, AccessFlags::RDMA_ALL)?;
        let dst = DpaBuffer::<u64>::from_slice(&dpa, &[0; VALUES])?;
        let dst_map = DpaMmap::with_access(&dpa, &dst, 0, VALUES, AccessFlags::RDMA_ALL)?;

        let completed = dpa.rpc(
            &doca_examples::verbs_write_values,
            (
                &initiator,
                initiator.completion(),
                &src,
                &src_map,
                &dst,
                &dst_map,
                VALUES as u32,
                FIRST,
            ),
            RPC,
        )?;
        if completed != VALUES as u64 {
            return Err(format!("{completed} of {VALUES} writes completed").into());
        }
        let landed = dst.to_vec()?;
        for (i, value) in landed.iter().enumerate() {
            let expected = FIRST + i as u64;
            println!("slot {i}: {value:#x} (expected {expected:#x})");
            if *value != expected {
                return Err(format!("slot {i} holds {value:#x}, not {expected:#x}").into());
            }
        }
        println!("DPA Verbs: {VALUES} RDMA writes posted by the kernel on queue pair {ni}, every value checked at queue pair {nt}'s side");
        drop((initiator, target));
        Ok(())
    }
}
