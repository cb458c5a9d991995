//! The DPA heap: `doca_dpa_mem_alloc/free`, host↔DPA copies and memset.
//!
//! A DPA heap address is a real host address, so kernels compiled for the
//! host dereference it as they would on the device. With memory checking on
//! (the default) every block is fenced by [`crate::memcheck`], so a kernel's
//! access outside a live block traps and is reported as a device fault.

use std::alloc::{alloc, dealloc, Layout};
use std::collections::BTreeMap;

use crate::dma;
use crate::error::{codes, fail, SimResult};
use crate::memcheck::{self, Damage, ALIGN};
use crate::registry;

/// Model choice: fresh blocks are filled with this byte, because DOCA does not
/// zero them and code that forgets to initialise should see garbage.
pub(crate) const UNINIT_FILL: u8 = 0xCD;

/// The host call that allocates heap blocks (named in fault reports).
const MADE_BY: &str = "doca_dpa_mem_alloc";

/// Canaries checked at the end of a launch (the rest at free): bounds the
/// cost a launch pays for a context with very many blocks.
const CANARY_CHECKS_PER_LAUNCH: usize = 256;

#[derive(Debug)]
struct Block {
    len: usize,
    scope: u64,
}

/// The allocations of one DPA context.
#[derive(Debug)]
pub(crate) struct Heap {
    /// Whether blocks are fenced (`crate::memcheck`).
    checked: bool,
    blocks: BTreeMap<usize, Block>,
    used: u64,
    /// Unchecked heaps only: blocks freed while kernels of the context were
    /// running.
    ///
    /// Model choice: their host memory is released only once no kernel of
    /// the context runs, so a kernel still using a freed block (a device-side
    /// bug on hardware) cannot corrupt host memory in the sim. (A checked heap
    /// makes such blocks inaccessible instead, so the kernel's access traps.)
    quarantine: Vec<(usize, Block)>,
}

/// The accounting kind of a heap block.
pub(crate) const KIND: &str = "dpa_heap_block";

impl Heap {
    /// A heap whose blocks are fenced when `checked`.
    pub(crate) fn new(checked: bool) -> Heap {
        Heap {
            checked,
            blocks: BTreeMap::new(),
            used: 0,
            quarantine: Vec::new(),
        }
    }

    /// Allocates `size` bytes within a heap of `capacity` bytes.
    ///
    /// Model choice: a zero size is INVALID_VALUE.
    pub(crate) fn alloc(&mut self, size: usize, capacity: u64) -> SimResult<u64> {
        if size == 0 {
            return Err(fail(codes::INVALID_VALUE, "zero-sized DPA allocation"));
        }
        if self.used.saturating_add(size as u64) > capacity {
            return Err(fail(codes::NO_MEMORY, "DPA heap exhausted"));
        }
        let addr = if self.checked {
            memcheck::alloc(size, UNINIT_FILL, MADE_BY)?
        } else {
            let layout = Layout::from_size_align(size, ALIGN)
                .map_err(|_| fail(codes::NO_MEMORY, "allocation too large"))?;
            // SAFETY: `layout` has a non-zero size.
            let ptr = unsafe { alloc(layout) };
            if ptr.is_null() {
                return Err(fail(
                    codes::NO_MEMORY,
                    "host allocation for the DPA heap failed",
                ));
            }
            // SAFETY: `ptr` is a fresh allocation of `size` bytes.
            unsafe { ptr.write_bytes(UNINIT_FILL, size) };
            ptr as usize
        };
        let scope = registry::account_resource(KIND);
        self.blocks.insert(addr, Block { len: size, scope });
        self.used += size as u64;
        Ok(addr as u64)
    }

    /// Frees a block by its start address; `busy` when kernels of the
    /// context may still be running; `by` is the host call freeing it.
    /// Returns the damage found in the block's canaries (checked heaps).
    pub(crate) fn free(
        &mut self,
        addr: u64,
        busy: bool,
        by: &'static str,
    ) -> SimResult<Option<Damage>> {
        let block = self.blocks.remove(&(addr as usize)).ok_or(fail(
            codes::INVALID_VALUE,
            "not the start of a live DPA allocation",
        ))?;
        self.used -= block.len as u64;
        Ok(self.retire(addr as usize, block, busy, by))
    }

    fn retire(
        &mut self,
        addr: usize,
        block: Block,
        busy: bool,
        by: &'static str,
    ) -> Option<Damage> {
        if self.checked {
            registry::release_resource(block.scope, KIND);
            memcheck::free(addr, by)
        } else if busy {
            self.quarantine.push((addr, block));
            None
        } else {
            Self::release(addr, &block);
            None
        }
    }

    /// Releases blocks freed while kernels were running (none are now).
    pub(crate) fn release_quarantine(&mut self) {
        for (addr, block) in std::mem::take(&mut self.quarantine) {
            Self::release(addr, &block);
        }
    }

    fn release(addr: usize, block: &Block) {
        registry::release_resource(block.scope, KIND);
        // SAFETY: the block was allocated in `alloc` with this size and alignment
        // and is removed from the map before being released, so only once.
        unsafe {
            dealloc(
                addr as *mut u8,
                Layout::from_size_align_unchecked(block.len, ALIGN),
            )
        };
    }

    /// Checks that `[addr, addr + len)` lies inside one live block.
    pub(crate) fn check_range(&self, addr: u64, len: usize) -> SimResult {
        let addr = addr as usize;
        let end = addr
            .checked_add(len)
            .ok_or(fail(codes::INVALID_VALUE, "DPA address range overflows"))?;
        match self.blocks.range(..=addr).next_back() {
            Some((start, block)) if end <= start + block.len => Ok(()),
            _ => Err(fail(
                codes::INVALID_VALUE,
                "DPA address range is outside every live allocation",
            )),
        }
    }

    /// Copies host memory into the heap (`doca_dpa_h2d_memcpy`).
    ///
    /// # Safety
    /// `src` must be valid for reads of `len` bytes.
    pub(crate) unsafe fn write(&self, addr: u64, src: *const u8, len: usize) -> SimResult {
        self.check_range(addr, len)?;
        // SAFETY: the destination lies in a live block (checked, and the
        // heap lock the caller holds keeps it alive); kernels may access it
        // concurrently, which `dma` copies allow.
        unsafe { dma::copy_to_shared(addr as *mut u8, src, len) };
        Ok(())
    }

    /// Copies heap memory to the host (`doca_dpa_d2h_memcpy`).
    ///
    /// # Safety
    /// `dst` must be valid for writes of `len` bytes.
    pub(crate) unsafe fn read(&self, addr: u64, dst: *mut u8, len: usize) -> SimResult {
        self.check_range(addr, len)?;
        // SAFETY: as in `write`, for the source.
        unsafe { dma::copy_from_shared(dst, addr as *const u8, len) };
        Ok(())
    }

    /// Fills heap memory (`doca_dpa_memset`).
    pub(crate) fn fill(&self, addr: u64, value: u8, len: usize) -> SimResult {
        self.check_range(addr, len)?;
        // SAFETY: the range lies in a live block, kept alive by the lock.
        unsafe { dma::fill_shared(addr as *mut u8, value, len) };
        Ok(())
    }

    /// Checks the canaries of (at most [`CANARY_CHECKS_PER_LAUNCH`]) live
    /// blocks; returns the first damage found.
    pub(crate) fn check_canaries(&self) -> Option<Damage> {
        if !self.checked || self.blocks.is_empty() {
            return None;
        }
        memcheck::check(
            self.blocks
                .keys()
                .rev()
                .take(CANARY_CHECKS_PER_LAUNCH)
                .copied(),
        )
    }

    /// Frees everything (the context is being destroyed); `busy` as for
    /// [`Heap::free`]. Returns the first canary damage found.
    pub(crate) fn clear(&mut self, busy: bool) -> Option<Damage> {
        let mut first = None;
        for (addr, block) in std::mem::take(&mut self.blocks) {
            let damage = self.retire(addr, block, busy, "doca_dpa_destroy");
            first = first.or(damage);
        }
        self.used = 0;
        if !busy {
            self.release_quarantine();
        }
        first
    }
}

impl Drop for Heap {
    fn drop(&mut self) {
        // The last reference to the context is gone, so no kernel runs.
        self.clear(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_follow_the_allocation() {
        for checked in [false, true] {
            bounds_follow(checked);
        }
    }

    fn bounds_follow(checked: bool) {
        let mut heap = Heap::new(checked);
        let a = heap.alloc(100, 1 << 20).unwrap();
        assert!(heap.check_range(a, 100).is_ok());
        assert!(heap.check_range(a + 10, 90).is_ok());
        assert_eq!(
            heap.check_range(a + 10, 91).unwrap_err().code,
            codes::INVALID_VALUE
        );
        assert_eq!(
            heap.check_range(a - 1, 1).unwrap_err().code,
            codes::INVALID_VALUE
        );
        // SAFETY: test reads the fresh block's first byte.
        assert_eq!(unsafe { *(a as *const u8) }, UNINIT_FILL);
        assert_eq!(
            heap.free(a + 1, false, "t").unwrap_err().code,
            codes::INVALID_VALUE
        );
        heap.free(a, false, "t").unwrap();
        assert!(heap.check_range(a, 1).is_err());
    }

    #[test]
    fn capacity_and_zero_size() {
        for checked in [false, true] {
            capacity(checked);
        }
    }

    fn capacity(checked: bool) {
        let mut heap = Heap::new(checked);
        assert_eq!(heap.alloc(0, 100).unwrap_err().code, codes::INVALID_VALUE);
        assert_eq!(heap.alloc(101, 100).unwrap_err().code, codes::NO_MEMORY);
        let a = heap.alloc(60, 100).unwrap();
        assert_eq!(heap.alloc(60, 100).unwrap_err().code, codes::NO_MEMORY);
        heap.free(a, true, "t").unwrap();
        assert!(
            heap.alloc(60, 100).is_ok(),
            "quarantined bytes no longer count as used"
        );
        heap.release_quarantine();
    }
}
