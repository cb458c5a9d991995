//! User memory on the DPA (`struct doca_umem`, made by `doca_umem_dpa_create`
//! over DPA heap memory): what the rings and doorbell record of a queue pair on
//! the DPA datapath live in. DOCA 3.2+.

use std::fmt;
use std::sync::Arc;

use doca_dpa::core::{Outcome, Owned};
use doca_dpa::{AccessFlags, Dpa, DpaBuffer, FamilyMember, Member, Result};

use crate::error::{invalid, verbs_call};

doca_dpa::__doca_object!(
    /// `doca_umem`.
    RawUmem: doca_verbs_sys::doca_umem,
    destroy doca_umem_destroy
);

/// Destroyed (its handle's `Drop`) once every queue pair made with it, which
/// holds an `Arc` of this, is gone; its memory after it (a later field).
pub(crate) struct UmemInner {
    /// In its DPA context's family.
    raw: Owned<RawUmem>,
    /// The DPA memory it registers: freed only once the UMEM was destroyed.
    memory: Option<DpaBuffer<u8>>,
    access: AccessFlags,
    pub(crate) dpa: Dpa,
}

impl UmemInner {
    /// The raw `doca_umem`, for calls made while `guard` (of its DPA context's family)
    /// lives.
    pub(crate) fn as_ptr(
        &self,
        guard: &doca_dpa::FamilyGuard<'_>,
    ) -> *mut doca_verbs_sys::doca_umem {
        self.raw.as_ptr(guard)
    }
}

impl FamilyMember for UmemInner {
    fn family_of(&self) -> &Dpa {
        &self.dpa
    }
}

impl Drop for UmemInner {
    fn drop(&mut self) {
        let outcome = self.raw.teardown();
        if !matches!(outcome, Outcome::Done | Outcome::Left) {
            // Still registered: the device may reach the memory through it.
            if let Some(memory) = self.memory.take() {
                doca_dpa::core::bury(memory);
            }
        }
        outcome.report();
    }
}

/// DPA heap memory registered as a UMEM (`doca_dpa_mem_alloc`, then
/// `doca_umem_dpa_create`; EXPERIMENTAL). The memory is the UMEM's own: no
/// safe API reads or writes it (the device does, through the queue pair whose
/// rings or doorbell record it holds), and it is freed only after the UMEM is
/// destroyed, or leaked with it when DOCA refuses.
///
/// Cheap to clone; destroyed (`doca_umem_destroy`, then `doca_dpa_mem_free`) at
/// its DPA context family's guard when the last clone and every queue pair made
/// with it are gone.
#[derive(Clone)]
pub struct DpaUmem {
    pub(crate) inner: Arc<Member<UmemInner>>,
}

impl fmt::Debug for DpaUmem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DpaUmem")
            .field("dpa", &self.inner.dpa.serial())
            .field("len", &self.len())
            .field("access", &self.inner.access)
            .finish_non_exhaustive()
    }
}

impl DpaUmem {
    /// Allocates `len` bytes of `dpa`'s heap (`doca_dpa_mem_alloc`) and registers
    /// them with `access` (`doca_umem_dpa_create`, at the DPA context family's
    /// guard). A length of 0 is refused before any DOCA call.
    pub fn new(dpa: &Dpa, len: usize, access: AccessFlags) -> Result<DpaUmem> {
        const CALL: &str = "doca_umem_dpa_create";
        if len == 0 {
            return Err(invalid(CALL, "a UMEM of 0 bytes"));
        }
        let memory = DpaBuffer::<u8>::new(dpa, len)?;
        // SAFETY: the address goes to DOCA only, with the buffer kept by the UMEM
        // (`memory`), which is freed after the UMEM is destroyed, or buried with it.
        let addr = unsafe { memory.dev_ptr().raw() };
        let mut raw = std::ptr::null_mut();
        dpa.with_ctx(|ctx, _| {
            // SAFETY: a started DPA context and `len` bytes of its heap, which the
            // UMEM keeps (above), under the family's guard; valid out-pointer.
            unsafe {
                verbs_call!(doca_umem_dpa_create(
                    ctx.cast(),
                    addr as _,
                    len as _,
                    access.bits() as _,
                    &mut raw
                ))
            }
        })?;
        Ok(DpaUmem {
            inner: Arc::new(Member::new(UmemInner {
                // SAFETY: what doca_umem_dpa_create just returned: NULL or a new object
                // that nothing else owns, handed over here, in its DPA context's family.
                raw: unsafe { Owned::new(CALL, raw, dpa.domain()) }?,
                memory: Some(memory),
                access,
                dpa: dpa.clone(),
            })),
        })
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.inner.memory.as_ref().map_or(0, DpaBuffer::len)
    }

    /// Always false (an empty UMEM cannot be made); for clippy's sake.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What it was registered for.
    pub fn access(&self) -> AccessFlags {
        self.inner.access
    }

    /// The DPA context whose memory it is.
    pub fn dpa(&self) -> &Dpa {
        &self.inner.dpa
    }
}
