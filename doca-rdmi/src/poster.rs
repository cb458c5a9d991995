//! RDMI posters (`struct doca_rdmi_poster`): the side that issues
//! DPA-initiated RDMA work. Configured by [`PosterBuilder`], used as a started
//! [`Poster`], stopped through [`StoppingPoster`].
//!
//! Every DOCA RDMI function is EXPERIMENTAL and its parameter types are
//! inferred; this module compiles against any integer width or pointer type
//! the installed header uses.

use std::fmt;
use std::sync::Arc;

use doca_dpa::{Dpa, Keep, KeepAlive, KernelArg, Result};
use doca_rdmi_sys as sys;

use crate::ctx::{CompletionSource, Config, Object};
use crate::error::{invalid, rdmi_call};
use crate::param;
use doca_verbs::VerbsContext;

/// What a poster uses besides its configuration: the connections it works with,
/// destroyed after it (DOCA's teardown order), and their datapath contexts,
/// checked against the poster's before it is created.
pub(crate) struct PosterUses {
    connections: Vec<KeepAlive>,
    contexts: Vec<Dpa>,
}

crate::ctx::rdmi_kind!(
    /// `doca_rdmi_poster`.
    RawPoster: doca_rdmi_poster, named "poster", uses PosterUses;
    create doca_rdmi_poster_create by create, configure by nothing_to_configure;
    hands back (), by nothing_to_hand_back;
    destroy doca_rdmi_poster_destroy,
    as_ctx doca_rdmi_poster_as_ctx,
    set_pd doca_rdmi_poster_set_pd if "doca_rdmi_poster_set_pd",
    dpa_completion_attach doca_rdmi_poster_dpa_completion_attach,
    cq_attach doca_rdmi_poster_cq_attach,
    set_input doca_rdmi_poster_set_input if "doca_rdmi_poster_set_input",
    get_dpa_handle doca_rdmi_poster_get_dpa_handle,
);

/// `doca_rdmi_poster_create` on the verbs context the caller holds, once the
/// connections were seen to run on the poster's datapath context.
fn create(config: &Config, uses: &PosterUses) -> Result<*mut sys::doca_rdmi_poster> {
    if let Some(other) = uses.contexts.iter().find(|d| !d.same_context(&config.dpa)) {
        return Err(invalid(
            "doca_rdmi_poster_create",
            format!(
                "a connection's datapath is DPA context #{}, the poster's is DPA context #{}",
                other.serial(),
                config.dpa.serial()
            ),
        ));
    }
    let mut raw = std::ptr::null_mut();
    let verbs = config.verbs.lock();
    // SAFETY: a live verbs context (held by the caller), under its lock; valid
    // out-pointer.
    unsafe {
        rdmi_call!(doca_rdmi_poster_create(
            config.verbs.as_ptr(&verbs),
            &mut raw
        ))
    }?;
    Ok(raw)
}

/// A poster hands nothing back when it is destroyed.
fn nothing_to_hand_back(_: &mut PosterUses) -> Result<()> {
    Ok(())
}

/// A poster has no configuration of its own.
///
/// # Safety
/// None needed: it makes no call.
unsafe fn nothing_to_configure(_: *mut sys::doca_rdmi_poster, _: &PosterUses) -> Result<()> {
    Ok(())
}

/// A poster and what it keeps alive (the shared RDMI object, `ctx.rs`).
type PosterInner = Object<RawPoster>;

/// An RDMI poster being configured; [`PosterBuilder::start`] makes the DOCA
/// calls. It has no DPA handle:
///
/// ```compile_fail
/// # fn f(b: doca_rdmi::PosterBuilder) {
/// let h = b.dpa_handle(); // handle before start
/// # }
/// ```
#[derive(Debug)]
pub struct PosterBuilder {
    config: Config,
    uses: PosterUses,
}

impl fmt::Debug for PosterUses {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PosterUses")
            .field("connections", &self.connections.len())
            .finish()
    }
}

impl PosterBuilder {
    /// A poster on `verbs` (the verbs context of the connections it works
    /// with), driven by kernels of `datapath`, delivering completions to
    /// `source` (which the poster keeps alive). No DOCA call.
    pub fn new(
        verbs: &VerbsContext,
        datapath: &Dpa,
        source: CompletionSource<'_>,
    ) -> PosterBuilder {
        PosterBuilder {
            config: Config::new(verbs, datapath, source),
            uses: PosterUses {
                connections: Vec::new(),
                contexts: Vec::new(),
            },
        }
    }

    /// A connection this poster works with: the poster keeps it alive, so it is
    /// stopped and destroyed after the poster, as DOCA's teardown order requires,
    /// whatever order the values are dropped in. No DOCA call.
    #[cfg(doca_rdmi_api = "connection")]
    pub fn connection(mut self, connection: &crate::Connection) -> Self {
        self.uses
            .connections
            .push(KeepAlive::new(&connection.shared()));
        self.uses.contexts.push(connection.datapath().clone());
        self
    }

    crate::ctx::builder_methods!(
        "poster",
        Poster,
        set_pd "doca_rdmi_poster_set_pd",
        set_input "doca_rdmi_poster_set_input"
    );

    /// Creates, configures and starts the poster:
    /// `doca_rdmi_poster_create`, `doca_rdmi_poster_set_pd` (if a PD was
    /// given), `doca_rdmi_poster_as_ctx`, `doca_ctx_set_datapath_on_dpa`,
    /// `doca_rdmi_poster_dpa_completion_attach` or
    /// `doca_rdmi_poster_cq_attach`, `doca_rdmi_poster_set_input` for each
    /// input, `doca_ctx_start`, then `doca_rdmi_poster_get_dpa_handle`. All
    /// EXPERIMENTAL except `doca_ctx_start` (STABLE). On failure everything
    /// made so far is destroyed.
    pub fn start(self) -> Result<Poster> {
        Ok(Poster {
            inner: Object::start(self.config, self.uses)?,
        })
    }
}

/// A started RDMI poster: the only state with a DPA handle, which reaches kernels
/// only through the poster itself (a [`param::RdmiPoster`] argument or a `Dev`),
/// keeping it alive.
///
/// Dropping a poster stops and destroys it once nothing else uses it (launches,
/// threads and DPA structs given it hold it); failures are logged. The connections
/// given to [`PosterBuilder::connection`] are destroyed after it.
pub struct Poster {
    inner: Arc<PosterInner>,
}

impl fmt::Debug for Poster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Poster")
            .field("handle", &self.inner.handle())
            .finish_non_exhaustive()
    }
}

impl Poster {
    crate::ctx::started_methods!("poster", Poster, StoppingPoster, stops into (), "");

    /// Pushes `num_cqe` completion entries from the host to the poster's
    /// completion side (`doca_rdmi_poster_post`, EXPERIMENTAL). Bulk posting
    /// is the kernel's job; this is the host's path.
    ///
    /// `cqe_buf` is passed as the header wants it (a pointer, or an address
    /// in some headers). Refused before DOCA when empty or when `num_cqe` is
    /// 0.
    ///
    /// # Safety
    /// DOCA does not document when the device reads the entries: `cqe_buf`
    /// must hold `num_cqe` entries in the layout the device expects, be
    /// covered by the memory key `mkey`, and stay valid and unmoved, and not
    /// be written, until the device has consumed them (for example until the
    /// completions were seen).
    #[cfg(doca_sym = "doca_rdmi_poster_post")]
    pub unsafe fn post(&self, cqe_buf: &mut [u8], num_cqe: u32, mkey: u32) -> Result<()> {
        const CALL: &str = "doca_rdmi_poster_post";
        if cqe_buf.is_empty() || num_cqe == 0 {
            return Err(invalid(CALL, "nothing to post"));
        }
        let n = crate::error::fit(CALL, "num_cqe", num_cqe)?;
        let key = crate::error::fit(CALL, "mkey", mkey)?;
        // SAFETY: our started poster, under its family's lock; the caller keeps
        // the buffer valid as the contract above says. `as _` passes the address
        // as a pointer or an integer, whichever the header declares.
        self.inner.raw().with(|p, _| unsafe {
            rdmi_call!(doca_rdmi_poster_post(p, cqe_buf.as_mut_ptr() as _, n, key))
        })?
    }

    /// The raw `doca_rdmi_poster`, for calls made while `guard` (of its
    /// datapath's context family: [`Dpa::enter`](doca_dpa::Dpa::enter)) lives;
    /// valid while this value lives. Do not stop or destroy it.
    pub fn as_ptr(&self, guard: &doca_dpa::FamilyGuard<'_>) -> *mut sys::doca_rdmi_poster {
        self.inner.raw().get(guard)
    }
}

/// A poster whose stop was requested.
#[derive(Debug)]
pub struct StoppingPoster {
    inner: Box<PosterInner>,
}

impl StoppingPoster {
    crate::ctx::stopping_methods!("poster", StoppingPoster, hands back (), "");
}

// SAFETY: the started poster's DPA handle; the keep record holds the poster (and so
// the connections, completion and contexts it keeps alive).
unsafe impl KernelArg<param::RdmiPoster> for Poster {
    fn lower(&self, keep: &mut Keep<'_>) -> Result<u64> {
        self.inner.lower(keep, "the RDMI poster")
    }
}
