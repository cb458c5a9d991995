//! DPA hash tables (`doca_dpa_hash_table_*`): `u32` keys to `u64` values,
//! filled and read by kernels (`doca_dpa_dev_hash_table_add/remove/find`);
//! the host creates the table and passes its handle.

use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;

use doca_dpa_sys as sys;

use crate::app::{param, KernelArg};
use crate::dpa::Dpa;
use crate::error::{doca_call, Error, Result};

/// The DPA-side handle of a [`HashTable`] (`doca_dpa_dev_hash_table_t`),
/// borrowed from the table so it cannot outlive it:
///
/// ```compile_fail
/// # fn f(dpa: &doca_dpa::Dpa) -> doca_dpa::Result<()> {
/// let handle = {
///     let table = doca_dpa::HashTable::new(dpa, 16)?;
///     table.handle()
/// }; // the table is destroyed here, so its handle cannot be used below
/// let _ = handle;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HashTableHandle<'a> {
    raw: u64,
    _table: PhantomData<&'a ()>,
}

impl HashTableHandle<'_> {
    /// The raw handle value.
    pub fn raw(&self) -> u64 {
        self.raw
    }
}

impl<'a> KernelArg<'a, param::HashTable> for HashTableHandle<'a> {
    fn to_abi(&self) -> u64 {
        self.raw
    }
}

/// A DPA hash table of a started context: `doca_dpa_hash_table_create` and
/// `doca_dpa_hash_table_get_dpa_handle` (both EXPERIMENTAL);
/// `doca_dpa_hash_table_destroy` (EXPERIMENTAL) on drop. Holds the context.
///
/// DOCA rounds the number of entries up to a power of two: a table asked for
/// 5 entries holds 8. [`HashTable::requested_entries`] is what was asked for;
/// DOCA reports no capacity.
pub struct HashTable {
    ptr: NonNull<sys::doca_dpa_hash_table>,
    dpa: Dpa,
    handle: u64,
    requested: u32,
}

impl fmt::Debug for HashTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HashTable")
            .field("requested_entries", &self.requested)
            .field("handle", &self.handle)
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
        // SAFETY: a started context; valid out-pointer.
        doca_call!(doca_dpa_hash_table_create(
            dpa.as_ptr(),
            num_entries as _,
            &mut raw
        ))?;
        let ptr = NonNull::new(raw)
            .ok_or_else(|| Error::invalid("doca_dpa_hash_table_create", "DOCA returned NULL"))?;
        // From here the table is owned: an early return destroys it.
        let mut table = HashTable {
            ptr,
            dpa: dpa.clone(),
            handle: 0,
            requested: num_entries,
        };
        let mut h = 0;
        // SAFETY: our table; valid out-pointer.
        doca_call!(doca_dpa_hash_table_get_dpa_handle(raw, &mut h))?;
        table.handle = h as u64;
        tracing::debug!(target: "doca_dpa::hash_table", num_entries, handle = table.handle, "DPA hash table created");
        Ok(table)
    }

    /// The handle for kernels (a [`param::HashTable`] argument).
    pub fn handle(&self) -> HashTableHandle<'_> {
        HashTableHandle {
            raw: self.handle,
            _table: PhantomData,
        }
    }

    /// The number of entries asked for (DOCA rounds it up to a power of two).
    pub fn requested_entries(&self) -> u32 {
        self.requested
    }

    /// The context the table belongs to.
    pub fn dpa(&self) -> &Dpa {
        &self.dpa
    }

    /// The raw `doca_dpa_hash_table`, for calls this crate does not wrap.
    /// Valid while this table lives; do not destroy it.
    pub fn as_ptr(&self) -> *mut sys::doca_dpa_hash_table {
        self.ptr.as_ptr()
    }
}

impl<'a> KernelArg<'a, param::HashTable> for &'a HashTable {
    fn to_abi(&self) -> u64 {
        self.handle
    }
}

impl Drop for HashTable {
    fn drop(&mut self) {
        // SAFETY: our table, destroyed once, while the context (held) lives.
        if let Err(e) = doca_call!(doca_dpa_hash_table_destroy(self.ptr.as_ptr())) {
            tracing::warn!(target: "doca_dpa::hash_table", error = %e, "doca_dpa_hash_table_destroy failed during drop");
        }
    }
}
