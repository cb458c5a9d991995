//! The DPA heap: `doca_dpa_mem_alloc/free`, host↔DPA copies and memset.
//!
//! A DPA heap address is a real host address, so kernels compiled for the
//! host dereference it as they would on the device.

use std::alloc::{alloc, dealloc, Layout};
use std::collections::BTreeMap;

use crate::error::{codes, fail, SimResult};
use crate::registry;

/// Alignment of every heap block (a cache line, as DPA allocations are).
const ALIGN: usize = 64;

/// Model choice: fresh blocks are filled with this byte, because DOCA does not
/// zero them and code that forgets to initialise should see garbage.
pub(crate) const UNINIT_FILL: u8 = 0xCD;

#[derive(Debug)]
struct Block {
    len: usize,
    scope: u64,
}

/// The allocations of one DPA context.
#[derive(Debug, Default)]
pub(crate) struct Heap {
    blocks: BTreeMap<usize, Block>,
    used: u64,
    /// Blocks freed while kernels of the context were running.
    ///
    /// Model choice: their host memory is released only once no kernel of
    /// the context runs, so a kernel still using a freed block (a device-side
    /// bug on hardware) cannot corrupt host memory in the sim.
    quarantine: Vec<(usize, Block)>,
}

/// The accounting kind of a heap block.
pub(crate) const KIND: &str = "dpa_heap_block";

impl Heap {
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
        let scope = registry::account_resource(KIND);
        self.blocks.insert(ptr as usize, Block { len: size, scope });
        self.used += size as u64;
        Ok(ptr as u64)
    }

    /// Frees a block by its start address; `busy` when kernels of the
    /// context may still be running.
    pub(crate) fn free(&mut self, addr: u64, busy: bool) -> SimResult {
        let block = self.blocks.remove(&(addr as usize)).ok_or(fail(
            codes::INVALID_VALUE,
            "not the start of a live DPA allocation",
        ))?;
        self.used -= block.len as u64;
        if busy {
            self.quarantine.push((addr as usize, block));
        } else {
            Self::release(addr as usize, &block);
        }
        Ok(())
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

    /// Frees everything (the context is being destroyed); `busy` as for
    /// [`Heap::free`].
    pub(crate) fn clear(&mut self, busy: bool) {
        for (addr, block) in std::mem::take(&mut self.blocks) {
            if busy {
                self.quarantine.push((addr, block));
            } else {
                Self::release(addr, &block);
            }
        }
        self.used = 0;
        if !busy {
            self.release_quarantine();
        }
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
        let mut heap = Heap::default();
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
            heap.free(a + 1, false).unwrap_err().code,
            codes::INVALID_VALUE
        );
        heap.free(a, false).unwrap();
        assert!(heap.check_range(a, 1).is_err());
    }

    #[test]
    fn capacity_and_zero_size() {
        let mut heap = Heap::default();
        assert_eq!(heap.alloc(0, 100).unwrap_err().code, codes::INVALID_VALUE);
        assert_eq!(heap.alloc(101, 100).unwrap_err().code, codes::NO_MEMORY);
        let a = heap.alloc(60, 100).unwrap();
        assert_eq!(heap.alloc(60, 100).unwrap_err().code, codes::NO_MEMORY);
        heap.free(a, true).unwrap();
        assert!(
            heap.alloc(60, 100).is_ok(),
            "quarantined bytes no longer count as used"
        );
        heap.release_quarantine();
    }
}
