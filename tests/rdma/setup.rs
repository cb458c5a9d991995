//! What the DOCA RDMA tests share (tests/rdma/flows.rs, tests/soundness.rs,
//! tests/api_fuzz.rs): a started context with its own completion, and two
//! contexts connected to each other.
// Not every test binary that includes it uses every helper.
#![allow(dead_code)]

use doca::dpa::{AccessFlags, CompletionBuilder, Dpa, Result};
use doca::rdma::{Connection, Rdma, RdmaBuilder};

/// A started context on `dpa` with its own completion (64 entries), every RDMA
/// permission, `connections` connections and a receive queue of 8.
pub(crate) fn rdma(dpa: &Dpa, connections: u16) -> Result<Rdma> {
    let completion = CompletionBuilder::new(dpa, 64)?.start()?;
    RdmaBuilder::new(dpa, &completion)?
        .permissions(AccessFlags::RDMA_ALL)
        .max_connections(connections)?
        .recv_queue_size(8)?
        .start()
}

/// Exports a connection on each of `a` and `b` and connects each with the
/// other's details: (a's connection, b's connection).
pub(crate) fn pair(a: &Rdma, b: &Rdma) -> Result<(Connection, Connection)> {
    let (x, y) = (a.export()?, b.export()?);
    let x_details = x.details().to_vec();
    let x = x.connect(y.details())?;
    let y = y.connect(&x_details)?;
    Ok((x, y))
}
