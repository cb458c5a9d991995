//! The sim's copies into and out of memory that kernels use, done as a DMA
//! engine would: word by word with relaxed atomic accesses.
//!
//! DPA heap and host-registered memory are shared with running kernels:
//! `doca_dpa_d2h_memcpy` may read bytes a kernel is storing, and an RDMI
//! loopback copy may write a receive slot the host is reading. With plain
//! `ptr::copy` those would be data races, which are undefined behaviour in the
//! Rust memory model even when the program tolerates torn values. Relaxed
//! atomics make the sim's side of each access well-defined (a torn or stale
//! value is then the program's race, as on hardware), and cost the same plain
//! loads and stores on x86-64 and AArch64.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

const WORD: usize = std::mem::size_of::<u64>();

/// Copies `len` bytes from shared memory at `src` to `dst`.
///
/// # Safety
/// `src` must be valid for reads and `dst` for writes of `len` bytes, and
/// `dst` must not be shared with anyone while the copy runs (it is the
/// caller's buffer); `src` may be accessed concurrently by kernels.
pub(crate) unsafe fn copy_from_shared(dst: *mut u8, src: *const u8, len: usize) {
    let mut i = 0;
    if (src as usize) % WORD == 0 {
        while i + WORD <= len {
            // SAFETY: aligned, in bounds (caller's contract); AtomicU64 has
            // the layout of u64.
            let word = unsafe { AtomicU64::from_ptr(src.add(i) as *mut u64) }.load(Relaxed);
            // SAFETY: in bounds of `dst`, which nobody else touches.
            unsafe { dst.add(i).cast::<u64>().write_unaligned(word) };
            i += WORD;
        }
    }
    while i < len {
        // SAFETY: in bounds (caller's contract).
        let byte = unsafe { load_byte(src.add(i)) };
        // SAFETY: in bounds of `dst`.
        unsafe { dst.add(i).write(byte) };
        i += 1;
    }
}

/// Copies `len` bytes from `src` into shared memory at `dst`.
///
/// # Safety
/// `src` must be valid for reads (and not written concurrently: it is the
/// caller's buffer) and `dst` for writes of `len` bytes; `dst` may be
/// accessed concurrently by kernels or the host.
pub(crate) unsafe fn copy_to_shared(dst: *mut u8, src: *const u8, len: usize) {
    let mut i = 0;
    if (dst as usize) % WORD == 0 {
        while i + WORD <= len {
            // SAFETY: in bounds of `src`.
            let word = unsafe { src.add(i).cast::<u64>().read_unaligned() };
            // SAFETY: aligned, in bounds (caller's contract).
            unsafe { AtomicU64::from_ptr(dst.add(i) as *mut u64) }.store(word, Relaxed);
            i += WORD;
        }
    }
    while i < len {
        // SAFETY: in bounds (caller's contract).
        unsafe { store_byte(dst.add(i), src.add(i).read()) };
        i += 1;
    }
}

/// Fills `len` bytes of shared memory at `dst` with `value`.
///
/// # Safety
/// `dst` must be valid for writes of `len` bytes.
pub(crate) unsafe fn fill_shared(dst: *mut u8, value: u8, len: usize) {
    let mut i = 0;
    if (dst as usize) % WORD == 0 {
        let word = u64::from_ne_bytes([value; WORD]);
        while i + WORD <= len {
            // SAFETY: aligned, in bounds (caller's contract).
            unsafe { AtomicU64::from_ptr(dst.add(i) as *mut u64) }.store(word, Relaxed);
            i += WORD;
        }
    }
    while i < len {
        // SAFETY: in bounds (caller's contract).
        unsafe { store_byte(dst.add(i), value) };
        i += 1;
    }
}

/// Reads one byte of shared memory.
///
/// # Safety
/// `p` must be valid for reads.
pub(crate) unsafe fn load_byte(p: *const u8) -> u8 {
    // SAFETY: valid by the caller's contract; AtomicU8 has the layout of u8.
    unsafe { AtomicU8::from_ptr(p as *mut u8) }.load(Relaxed)
}

/// Reads one aligned word of shared memory.
///
/// # Safety
/// `p` must be valid for reads and aligned.
pub(crate) unsafe fn load_word(p: *const u64) -> u64 {
    // SAFETY: valid and aligned by the caller's contract.
    unsafe { AtomicU64::from_ptr(p as *mut u64) }.load(Relaxed)
}

/// Writes one byte of shared memory.
///
/// # Safety
/// `p` must be valid for writes.
pub(crate) unsafe fn store_byte(p: *mut u8, value: u8) {
    // SAFETY: valid by the caller's contract.
    unsafe { AtomicU8::from_ptr(p) }.store(value, Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_and_fills_at_every_alignment() {
        let src: Vec<u8> = (0..64u8).collect();
        for offset in 0..WORD {
            for len in [0, 1, 7, 8, 9, 31] {
                let mut shared = vec![0u8; 64];
                // SAFETY: both buffers hold offset + len <= 64 bytes.
                unsafe { copy_to_shared(shared.as_mut_ptr().add(offset), src.as_ptr(), len) };
                assert_eq!(&shared[offset..offset + len], &src[..len]);
                let mut back = vec![0u8; 64];
                // SAFETY: as above.
                unsafe { copy_from_shared(back.as_mut_ptr(), shared.as_ptr().add(offset), len) };
                assert_eq!(&back[..len], &src[..len]);
                // SAFETY: as above.
                unsafe { fill_shared(shared.as_mut_ptr().add(offset), 0xAB, len) };
                assert!(shared[offset..offset + len].iter().all(|b| *b == 0xAB));
                assert!(shared[offset + len..].iter().all(|b| *b != 0xAB));
            }
        }
    }
}
