//! Fenced memory: the sim's memory checker for the DPA heap.
//!
//! With checking on (the default), each DPA heap allocation gets its own
//! mapping: a wide inaccessible moat ([`MOAT`] on each side, `PROT_NONE`,
//! reserving address space only) around the pages that hold the block, and
//! the block placed so that its end touches the trailing moat (as Electric
//! Fence does). A kernel that runs past the end of a block, or anywhere
//! within a moat's width of it, traps at once; the trap is a device fault
//! (`crate::trap`) whose report names the allocation ([`describe`]).
//!
//! Model choices:
//! - blocks start on a [`ALIGN`]-byte boundary, as the heap promised before
//!   checking existed, so the end of a block whose size is not a multiple of
//!   64 is followed by up to 63 bytes of slack before the guard. The slack,
//!   and the [`REDZONE`] bytes before the block, are filled with
//!   [`CANARY`]; a damaged canary is reported as a bad access when the block
//!   is freed or a launch of its context ends (the trap cannot catch it);
//! - a freed block becomes `PROT_NONE` at once (even while kernels run: on
//!   hardware that memory is gone too) and its physical pages are released
//!   (the range is mapped over with a fresh `PROT_NONE` mapping), but its
//!   address range stays reserved in a quarantine of at most
//!   [`QUARANTINE_BLOCKS`] blocks, oldest evicted first, so a later access
//!   traps and is reported as a use after free naming the host call that
//!   freed it.
//!
//! Host memory a program registers (`doca_mmap_set_memrange`, RDMI receive
//! buffers) belongs to the program, not to the sim, so it is not fenced; the
//! sim's own copies into it are checked against the registered range.
//!
//! Checking is turned off by `memcheck = false` in the profile or
//! `DOCA_SIM_MEMCHECK=0` (which wins over the profile; `=1` forces it on).
//! The heap then uses ordinary allocations, as before.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Mutex, MutexGuard, OnceLock};

use crate::dma;
use crate::error::{codes, fail, SimResult};

/// Alignment of the start of every heap block (a cache line).
pub(crate) const ALIGN: usize = 64;
/// Canary bytes checked before the start of a block.
pub(crate) const REDZONE: usize = 64;
/// The byte the slack and red zone are filled with.
pub(crate) const CANARY: u8 = 0xFD;
/// Inaccessible address space on each side of a block: wide enough that an
/// index computed from the wrong buffer length (an out-of-bounds SAXPY over a
/// 1 GiB range) still lands in it rather than in host memory.
pub(crate) const MOAT: usize = 1 << 30;
/// Freed blocks kept inaccessible before their address space is reused.
pub(crate) const QUARANTINE_BLOCKS: usize = 4096;
/// Model choice: addresses below this are reported as NULL dereferences
/// (an access to a field of a struct reached through NULL); Linux refuses
/// to map them (`vm.mmap_min_addr`).
pub(crate) const NULL_LIMIT: u64 = 64 * 1024;

fn page() -> usize {
    static PAGE: OnceLock<usize> = OnceLock::new();
    // SAFETY: sysconf has no preconditions.
    *PAGE.get_or_init(|| match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        n if n > 0 => n as usize,
        _ => 4096,
    })
}

/// Whether a freed block is still reserved, and by which call it was freed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Live,
    Freed(&'static str),
}

#[derive(Debug)]
struct Region {
    /// The whole mapping (moats included).
    base: usize,
    len: usize,
    /// The block handed out.
    user: usize,
    size: usize,
    /// First accessible byte (the page holding `user - REDZONE`).
    data: usize,
    /// One past the last accessible byte (the start of the trailing moat).
    data_end: usize,
    made_by: &'static str,
    state: State,
}

#[derive(Default)]
struct Regions {
    by_base: BTreeMap<usize, Region>,
    quarantine: VecDeque<usize>,
}

impl Regions {
    /// Gives the address space of the oldest quarantined block back; false
    /// when none is quarantined.
    fn evict_oldest(&mut self) -> bool {
        let Some(old) = self.quarantine.pop_front() else {
            return false;
        };
        if let Some(r) = self.by_base.remove(&old) {
            // SAFETY: the region is freed and forgotten; nothing refers to it.
            unsafe { libc::munmap(r.base as *mut libc::c_void, r.len) };
        }
        true
    }
}

fn regions() -> MutexGuard<'static, Regions> {
    static REGIONS: OnceLock<Mutex<Regions>> = OnceLock::new();
    REGIONS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

fn round_up(n: usize, to: usize) -> Option<usize> {
    n.checked_add(to - 1).map(|v| v / to * to)
}

/// A fresh `PROT_NONE` reservation of `len` bytes. When the address space is
/// short (valgrind gives a program far less than the kernel does, and
/// `ulimit -v` can too), the oldest quarantined blocks give theirs back, one
/// at a time, until the reservation fits: keeping freed blocks fenced is a
/// best effort that yields to live allocations.
fn reserve(len: usize) -> Option<usize> {
    loop {
        // SAFETY: a fresh anonymous reservation; nothing else refers to it.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if base != libc::MAP_FAILED {
            return Some(base as usize);
        }
        if !regions().evict_oldest() {
            return None;
        }
    }
}

/// Allocates a fenced block of `size > 0` bytes, filled with `fill`.
pub(crate) fn alloc(size: usize, fill: u8, made_by: &'static str) -> SimResult<usize> {
    let page = page();
    let rounded = round_up(size, ALIGN).ok_or(fail(codes::NO_MEMORY, "allocation too large"))?;
    let data_len = rounded
        .checked_add(REDZONE)
        .and_then(|n| round_up(n, page))
        .ok_or(fail(codes::NO_MEMORY, "allocation too large"))?;
    let len = data_len
        .checked_add(2 * MOAT)
        .ok_or(fail(codes::NO_MEMORY, "allocation too large"))?;
    let base = reserve(len).ok_or(fail(
        codes::NO_MEMORY,
        "cannot reserve address space for a fenced DPA allocation",
    ))?;
    let data = base + MOAT;
    let data_end = data + data_len;
    // SAFETY: `[data, data_end)` lies inside the reservation just made.
    let rc = unsafe {
        libc::mprotect(
            data as *mut libc::c_void,
            data_len,
            libc::PROT_READ | libc::PROT_WRITE,
        )
    };
    if rc != 0 {
        // SAFETY: unmaps the reservation made above, which nobody else uses.
        unsafe { libc::munmap(base as *mut libc::c_void, len) };
        return Err(fail(
            codes::NO_MEMORY,
            "host memory for the DPA heap is exhausted",
        ));
    }
    let user = data_end - rounded;
    // SAFETY: `[data, data_end)` is now readable and writable and ours only.
    unsafe {
        std::ptr::write_bytes(data as *mut u8, CANARY, user - data);
        std::ptr::write_bytes(user as *mut u8, fill, size);
        std::ptr::write_bytes((user + size) as *mut u8, CANARY, rounded - size);
    }
    regions().by_base.insert(
        base,
        Region {
            base,
            len,
            user,
            size,
            data,
            data_end,
            made_by,
            state: State::Live,
        },
    );
    Ok(user)
}

/// Bytes of a damaged canary next to a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Damage {
    /// Damaged bytes after the end of the block (in the slack).
    pub(crate) after: usize,
    /// Damaged bytes before its start (in the red zone).
    pub(crate) before: usize,
    pub(crate) size: usize,
    pub(crate) made_by: &'static str,
}

impl Damage {
    /// "the 3 bytes after the end of a 100-byte allocation made by ... were
    /// overwritten".
    pub(crate) fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.after > 0 {
            parts.push(format!("{} byte(s) after the end", self.after));
        }
        if self.before > 0 {
            parts.push(format!("{} byte(s) before the start", self.before));
        }
        format!(
            "{} of a {}-byte allocation made by {} were overwritten",
            parts.join(" and "),
            self.size,
            self.made_by
        )
    }
}

/// Bytes in `[from, from + len)` that are not [`CANARY`], read a word at a
/// time where the range is aligned (a clean range costs a few loads).
fn damaged_bytes(from: usize, len: usize) -> usize {
    const WORD: usize = 8;
    let pattern = u64::from_ne_bytes([CANARY; WORD]);
    let mut n = 0;
    let mut i = 0;
    while i < len {
        let at = from + i;
        if at % WORD == 0 && len - i >= WORD {
            // SAFETY: `[from, from + len)` lies in the accessible pages of a
            // live region (its slack or red zone); aligned for u64.
            let word = unsafe { dma::load_word(at as *const u64) };
            if word != pattern {
                n += word.to_ne_bytes().iter().filter(|b| **b != CANARY).count();
            }
            i += WORD;
        } else {
            // SAFETY: as above, one byte.
            if unsafe { dma::load_byte(at as *const u8) } != CANARY {
                n += 1;
            }
            i += 1;
        }
    }
    n
}

fn damage_of(r: &Region) -> Option<Damage> {
    let rounded = r.data_end - r.user;
    let count = damaged_bytes;
    let after = count(r.user + r.size, rounded - r.size);
    let before = count(r.user - REDZONE, REDZONE);
    (after > 0 || before > 0).then_some(Damage {
        after,
        before,
        size: r.size,
        made_by: r.made_by,
    })
}

fn region_of_user(regions: &Regions, user: usize) -> Option<&Region> {
    regions
        .by_base
        .range(..=user)
        .next_back()
        .map(|(_, r)| r)
        .filter(|r| r.user == user && r.state == State::Live)
}

/// Checks the canaries of live blocks; returns the first damage found.
pub(crate) fn check(users: impl Iterator<Item = usize>) -> Option<Damage> {
    let regions = regions();
    users
        .filter_map(|user| region_of_user(&regions, user))
        .find_map(damage_of)
}

/// Frees a block made by [`alloc`]: it becomes inaccessible and is
/// quarantined. Returns the canary damage found, if any.
pub(crate) fn free(user: usize, freed_by: &'static str) -> Option<Damage> {
    let mut regions = regions();
    let base = region_of_user(&regions, user)?.base;
    let region = regions.by_base.get_mut(&base)?;
    let damage = damage_of(region);
    let data_len = region.data_end - region.data;
    // Replacing the pages with a fresh PROT_NONE mapping drops their
    // contents and physical memory but keeps the range reserved.
    // SAFETY: `[data, data_end)` is part of this region's reservation, which
    // only the sim maps; no Rust reference to it exists.
    let remapped = unsafe {
        libc::mmap(
            region.data as *mut libc::c_void,
            data_len,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
            -1,
            0,
        )
    };
    if remapped == libc::MAP_FAILED {
        // SAFETY: as above; at least make the pages inaccessible.
        unsafe { libc::mprotect(region.data as *mut libc::c_void, data_len, libc::PROT_NONE) };
    }
    region.state = State::Freed(freed_by);
    regions.quarantine.push_back(base);
    while regions.quarantine.len() > QUARANTINE_BLOCKS && regions.evict_oldest() {}
    damage
}

/// Where an address lies relative to the fenced blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Placement {
    /// Inside a live block (a trap there is not a bounds error).
    Inside {
        offset: usize,
        size: usize,
        made_by: &'static str,
    },
    /// Past the end of a live block.
    After {
        bytes: usize,
        size: usize,
        made_by: &'static str,
    },
    /// Before the start of a live block.
    Before {
        bytes: usize,
        size: usize,
        made_by: &'static str,
    },
    /// Inside (or next to) a freed, quarantined block.
    Freed {
        offset: i128,
        size: usize,
        made_by: &'static str,
        freed_by: &'static str,
    },
}

impl Placement {
    /// "8 bytes past the end of a 16384-byte allocation made by
    /// doca_dpa_mem_alloc".
    pub(crate) fn describe(&self) -> String {
        match self {
            Placement::Inside {
                offset,
                size,
                made_by,
            } => format!("{offset} bytes into a {size}-byte allocation made by {made_by}"),
            Placement::After {
                bytes,
                size,
                made_by,
            } => {
                format!("{bytes} bytes past the end of a {size}-byte allocation made by {made_by}")
            }
            Placement::Before {
                bytes,
                size,
                made_by,
            } => format!(
                "{bytes} bytes before the start of a {size}-byte allocation made by {made_by}"
            ),
            Placement::Freed {
                offset,
                size,
                made_by,
                freed_by,
            } => {
                let at = if *offset < 0 {
                    format!("{} bytes before", -offset)
                } else if *offset as usize >= *size {
                    format!("{} bytes past the end of", *offset as usize - size)
                } else {
                    format!("{offset} bytes into")
                };
                format!("{at} a {size}-byte allocation made by {made_by} and freed by {freed_by}")
            }
        }
    }

    pub(crate) fn is_freed(&self) -> bool {
        matches!(self, Placement::Freed { .. })
    }
}

/// Finds the fenced block an address falls in or next to (within its moats).
pub(crate) fn describe(addr: u64) -> Option<Placement> {
    let addr = usize::try_from(addr).ok()?;
    let regions = regions();
    let (_, r) = regions.by_base.range(..=addr).next_back()?;
    if addr >= r.base + r.len {
        return None;
    }
    if let State::Freed(freed_by) = r.state {
        return Some(Placement::Freed {
            offset: addr as i128 - r.user as i128,
            size: r.size,
            made_by: r.made_by,
            freed_by,
        });
    }
    Some(if addr < r.user {
        Placement::Before {
            bytes: r.user - addr,
            size: r.size,
            made_by: r.made_by,
        }
    } else if addr >= r.user + r.size {
        Placement::After {
            bytes: addr - (r.user + r.size),
            size: r.size,
            made_by: r.made_by,
        }
    } else {
        Placement::Inside {
            offset: addr - r.user,
            size: r.size,
            made_by: r.made_by,
        }
    })
}

/// Whether checking is on, given the profile's `memcheck` key:
/// `DOCA_SIM_MEMCHECK` wins when it is set (a malformed value fails every
/// DOCA call, see `crate::config`).
pub(crate) fn enabled(profile: bool) -> bool {
    match env_setting() {
        Ok(Some(on)) => on,
        _ => profile,
    }
}

/// What `DOCA_SIM_MEMCHECK` says: `Some(on)`, `None` when unset, or the
/// reason it is malformed.
pub(crate) fn env_setting() -> Result<Option<bool>, String> {
    static SETTING: OnceLock<Result<Option<bool>, String>> = OnceLock::new();
    SETTING
        .get_or_init(|| match std::env::var("DOCA_SIM_MEMCHECK") {
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => {
                Err("DOCA_SIM_MEMCHECK is not valid UTF-8".into())
            }
            Ok(v) => match v.trim() {
                "1" | "on" | "true" | "yes" => Ok(Some(true)),
                "0" | "off" | "false" | "no" => Ok(Some(false)),
                other => Err(format!(
                    "DOCA_SIM_MEMCHECK=`{other}` is neither 1/on/true/yes nor 0/off/false/no"
                )),
            },
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_ends_at_its_guard_and_is_described() {
        let user = alloc(100, 0xCD, "test_alloc").unwrap();
        assert_eq!(user % ALIGN, 0);
        assert_eq!(
            describe(user as u64 + 10),
            Some(Placement::Inside {
                offset: 10,
                size: 100,
                made_by: "test_alloc"
            })
        );
        // The slack after a 100-byte block is 28 bytes; the guard follows.
        assert_eq!(
            describe(user as u64 + 128).unwrap().describe(),
            "28 bytes past the end of a 100-byte allocation made by test_alloc"
        );
        assert!(describe(user as u64 - 8)
            .unwrap()
            .describe()
            .contains("8 bytes before"));
        assert_eq!(check([user].into_iter()), None);
        // SAFETY: writes into the block's slack (accessible, canary bytes).
        unsafe { *((user + 101) as *mut u8) = 0 };
        let damage = check([user].into_iter()).unwrap();
        assert_eq!((damage.after, damage.before), (1, 0));
        assert_eq!(free(user, "test_free"), Some(damage));
        let freed = describe(user as u64 + 4).unwrap();
        assert!(freed.is_freed());
        assert_eq!(
            freed.describe(),
            "4 bytes into a 100-byte allocation made by test_alloc and freed by test_free"
        );
        assert_eq!(free(user, "test_free"), None, "a second free finds nothing");
    }

    #[test]
    fn far_addresses_are_not_described() {
        assert_eq!(describe(8), None);
        let local = 0u64;
        assert_eq!(describe(&local as *const u64 as u64), None);
    }
}
