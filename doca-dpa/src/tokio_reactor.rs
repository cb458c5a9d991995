//! The `tokio` feature's [`Reactor`]: the engine's notification handle registered
//! with tokio's I/O driver (`tokio::io::unix::AsyncFd`), so awaiting needs no thread
//! of its own.

use std::os::fd::RawFd;
use std::task::{Context, Poll};

use tokio::io::unix::AsyncFd;

use crate::reactor::Reactor;

/// The handle as tokio registers it. The engine owns the descriptor; this only
/// names it (dropping the registration does not close it).
struct Handle(RawFd);

impl std::os::fd::AsRawFd for Handle {
    fn as_raw_fd(&self) -> RawFd {
        self.0
    }
}

/// Watches an engine's handle with the I/O driver of the tokio runtime it was made
/// in.
pub(crate) struct TokioReactor {
    fd: AsyncFd<Handle>,
    /// The runtime whose driver `fd` is registered with.
    runtime: tokio::runtime::Id,
}

impl TokioReactor {
    /// A reactor on the current tokio runtime, if there is one (`None` outside a
    /// runtime; an error if tokio refused the handle). The runtime must have its
    /// I/O driver enabled (`enable_io` or `enable_all`; tokio panics otherwise).
    /// Runs no user code.
    pub(crate) fn current(fd: RawFd) -> Option<std::io::Result<TokioReactor>> {
        let runtime = tokio::runtime::Handle::try_current().ok()?.id();
        // SAFETY: `fd` is the engine's notification handle, open until the engine is
        // destroyed; the engine drops this reactor before `doca_pe_destroy` closes it,
        // and `Handle` always returns that same descriptor.
        let registered =
            unsafe { AsyncFd::register_with_interest(Handle(fd), tokio::io::Interest::READABLE) };
        Some(
            registered
                .map(|fd| TokioReactor { fd, runtime })
                .map_err(|e| e.into_parts().1),
        )
    }

    /// Whether the current runtime (if any) is the one this registration belongs to.
    pub(crate) fn is_current(&self) -> bool {
        tokio::runtime::Handle::try_current().is_ok_and(|h| h.id() == self.runtime)
    }
}

impl Reactor for TokioReactor {
    fn poll_readable(
        &self,
        _fd: RawFd,
        cx: &mut Context<'_>,
        drain: &dyn Fn(),
    ) -> Poll<std::io::Result<()>> {
        match self.fd.poll_read_ready(cx) {
            Poll::Ready(Ok(mut guard)) => {
                drain();
                guard.clear_ready();
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => Poll::Pending,
        }
    }
}
