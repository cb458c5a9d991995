//! DPA hash tables (`doca_dpa_hash_table_*`): `u32` keys to `u64` values,
//! filled and read by kernels (`doca_dpa_dev_hash_table_add/remove/find`);
//! the host creates the table and passes its handle.

use std::fmt;
use std::sync::Arc;

use doca_dpa_sys as sys;

use crate::app::{param, KernelArg};
use crate::core::Owned;
use crate::dpa::Dpa;
use crate::error::{doca_call, Error, Result};
use crate::family::{FamilyMember, Member};
use crate::keep::{Keep, KeepAlive};

crate::__doca_object!(
    /// `doca_dpa_hash_table`.
    RawHashTable: doca_dpa_sys::doca_dpa_hash_table,
    destroy doca_dpa_hash_table_destroy
);

/// A DPA hash table of a started context: `doca_dpa_hash_table_create` and
/// `doca_dpa_hash_table_get_dpa_handle` (both EXPERIMENTAL);
/// `doca_dpa_hash_table_destroy` (EXPERIMENTAL) on drop. Holds the context.
///
/// DOCA rounds the number of entries up to a power of two: a table asked for
/// 5 entries holds 8. [`HashTable::requested_entries`] is what was asked for;
/// DOCA reports no capacity.
pub struct HashTable {
    inner: Arc<Member<HashTableInner>>,
}

struct HashTableInner {
    raw: Owned<RawHashTable>,
    dpa: Dpa,
    handle: u64,
    requested: u32,
}

impl FamilyMember for HashTableInner {
    fn family_of(&self) -> &Dpa {
        &self.dpa
    }
}

impl Drop for HashTableInner {
    fn drop(&mut self) {
        // Destroyed while the context lives, at its RPC gate.
        self.dpa.teardown_child(&mut self.raw).report();
    }
}

impl fmt::Debug for HashTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HashTable")
            .field("requested_entries", &self.inner.requested)
            .finish()
    }
}

impl HashTable {
    /// Creates a table of (at least) `num_entries` entries. Zero is refused
    /// before the call.
    pub fn new(dpa: &Dpa, num_entries: u32) -> Result<HashTable> {
        if num_entries == 0 {
            return Err(Error::invalid(
                "doca_dpa_hash_table_create",
                "a hash table needs at least one entry",
            ));
        }
        let mut raw = std::ptr::null_mut();
        // SAFETY: a started context, under its family's guard; valid out-pointer.
        dpa.or_fatal(dpa.with_ctx(|ctx, _| unsafe {
            doca_call!(doca_dpa_hash_table_create(ctx, num_entries as _, &mut raw))
        }))?;
        // From here the table is owned: an early return destroys it.
        let mut table = Member::new(HashTableInner {
            // SAFETY: what doca_dpa_hash_table_create just returned: NULL or a new object that
            // nothing else owns, handed over here, in its context's family.
            raw: unsafe { Owned::new("doca_dpa_hash_table_create", raw, dpa.domain()) }?,
            dpa: dpa.clone(),
            handle: 0,
            requested: num_entries,
        });
        let mut h = 0;
        // SAFETY: our table, under its family's guard; valid out-pointer.
        dpa.with_ctx(|_, g| unsafe {
            doca_call!(doca_dpa_hash_table_get_dpa_handle(
                table.raw.as_ptr(g),
                &mut h
            ))
        })?;
        table.handle = h as u64;
        tracing::debug!(target: "doca_dpa::hash_table", num_entries, "DPA hash table created");
        Ok(HashTable {
            inner: Arc::new(table),
        })
    }

    /// The number of entries asked for (DOCA rounds it up to a power of two).
    pub fn requested_entries(&self) -> u32 {
        self.inner.requested
    }

    /// The context the table belongs to.
    pub fn dpa(&self) -> &Dpa {
        &self.inner.dpa
    }

    /// The raw `doca_dpa_hash_table`, for calls this crate does not wrap, made
    /// while `guard` (of its context's family: [`Dpa::enter`]) lives. Valid while
    /// this table lives; do not destroy it.
    pub fn as_ptr(&self, guard: &crate::FamilyGuard<'_>) -> *mut sys::doca_dpa_hash_table {
        self.inner.raw.as_ptr(guard)
    }
}

// SAFETY: the table's DPA handle; the keep record holds the table.
unsafe impl KernelArg<param::HashTable> for HashTable {
    fn lower(&self, keep: &mut Keep<'_>) -> Result<u64> {
        keep.check_context(&self.inner.dpa, "the hash table")?;
        keep.keep(KeepAlive::new(&self.inner));
        Ok(self.inner.handle)
    }
}
