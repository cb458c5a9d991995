//! What the DPA Verbs tests share (tests/soundness.rs, tests/api_fuzz.rs,
//! tests/redteam_verbs.rs): two
//! queue pairs on the DPA datapath of one context, each with its own DPA
//! completion, connected to each other (a loopback).
// Not every test binary that includes it uses every helper.
#![allow(dead_code)]

use doca::dpa::{CompletionBuilder, Dpa, Result};
use doca::verbs::{ConnectedQp, DpaUar, Gid, Peer, ProtectionDomain, Qp, QpBuilder, VerbsContext};

/// A created (RST) queue pair on `dpa` with its own completion (16 entries).
pub(crate) fn qp(dpa: &Dpa, pd: &ProtectionDomain, uar: &DpaUar) -> Result<Qp> {
    let completion = CompletionBuilder::new(dpa, 16)?.start()?;
    QpBuilder::new(pd, dpa, &completion, uar)?.create()
}

/// What queue pairs on `dpa`'s datapath are made with: a verbs context on its
/// device, a protection domain of it, and a UAR on `dpa`.
pub(crate) fn datapath(dpa: &Dpa) -> Result<(VerbsContext, ProtectionDomain, DpaUar)> {
    let verbs = VerbsContext::new(dpa.device())?;
    let pd = ProtectionDomain::new(&verbs)?;
    Ok((verbs, pd, DpaUar::new(dpa)?))
}

/// Two queue pairs on `dpa`'s datapath, connected to each other.
pub(crate) fn pair(dpa: &Dpa) -> Result<(ConnectedQp, ConnectedQp)> {
    let (_verbs, pd, uar) = datapath(dpa)?;
    let (a, b) = (qp(dpa, &pd, &uar)?, qp(dpa, &pd, &uar)?);
    let (na, nb) = (a.number(), b.number());
    let a = a.connect(&Peer::new(nb, Gid::default()))?;
    let b = b.connect(&Peer::new(na, Gid::default()))?;
    Ok((a, b))
}
