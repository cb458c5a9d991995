//! Device profiles: which devices the software DPA pretends to have.
//!
//! The default profile is a DPA-capable BlueField-3 as its host sees it: its
//! PF with the DPA, no representors, and a BlueField-2 without a DPA
//! ([`Profile::host_view`]). [`Profile::dpu_view`] is the same card's Arm
//! side: the PF with network representors of the host's functions (what DOCA
//! RDMI connections need) and a scalable function (SF) of the PF. A profile
//! can be loaded from the file named by the `DOCA_SIM_PROFILE` environment
//! variable, or installed from Rust with [`set_global_profile`] or
//! [`Scope::set_profile`](crate::Scope::set_profile).
//!
//! Model choice: the profile fails closed. `DOCA_SIM_PROFILE` unset or empty
//! means the default profile; a file that cannot be read or parsed makes
//! every DOCA call fail with `DOCA_ERROR_BAD_CONFIG` (and says why once on
//! stderr) rather than run on defaults the user did not ask for.
//!
//! The file format is line based: `key = value` pairs, `#` comments, and a
//! `[device]` line starting each device. Keys before the first `[device]`
//! describe the installation (`runtime_version`); device keys are the fields of
//! [`DeviceProfile`] (see [`Profile::parse`]).
//!
//! Why not TOML through `serde` and `toml`: those crates (with `serde_derive`)
//! would double the CPU time of doca-sim's clean build (6.7 s to 13.3 s,
//! measured with `cargo build -p doca-sim`) and add about 3.8 s of CPU time,
//! some 17 %, to a user crate's cold `cargo test --no-run` on the sim (22.8 s to
//! 26.6 s, the mean of two runs each of `tests/user-crate`), which every sim
//! build pays, for a file of a dozen flat keys that few programs use (issue
//! #36). The parser here fails closed as TOML's would: an unknown key, a key
//! given twice, a value out of its type's range or an EU count beyond 32 bits is
//! an error naming the line.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use crate::scope;

/// One simulated device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceProfile {
    /// InfiniBand device name (`doca_devinfo_get_ibdev_name`), e.g. `mlx5_0`.
    pub ibdev_name: String,
    /// Network interface name (`doca_devinfo_get_iface_name`), e.g. `p0`.
    pub iface_name: String,
    /// PCI address `dddd:bb:dd.f` (`doca_devinfo_get_pci_addr_str`).
    pub pci_addr: String,
    /// MAC address.
    pub mac: [u8; 6],
    /// Whether the device has a DPA (`doca_dpa_cap_is_supported`).
    pub dpa: bool,
    /// The kind of PCI function (`doca_devinfo_get_pci_func_type`).
    pub func_type: PciFuncType,
    /// DPA cores (`doca_dpa_get_core_num`).
    pub cores: u32,
    /// Execution units per core (`doca_dpa_get_num_eus_per_core`).
    pub eus_per_core: u32,
    /// Execution units available to applications
    /// (`doca_dpa_get_total_num_eus_available`).
    pub eus_available: u32,
    /// Largest `num_threads` of a kernel launch
    /// (`doca_dpa_get_max_threads_per_kernel`).
    pub max_threads_per_kernel: u32,
    /// How long a kernel may run before the watchdog makes its context fatal,
    /// in milliseconds. `doca_dpa_get_kernel_max_run_time` reports it in
    /// seconds, rounded up.
    ///
    /// Model choice: the sim keeps milliseconds so tests can use limits far
    /// below one second.
    pub kernel_max_run_time_ms: u64,
    /// Size of the DPA heap in bytes (allocations beyond it get NO_MEMORY).
    pub heap_bytes: u64,
    /// Whether sync events can be exported to this device's DPA
    /// (`doca_sync_event_cap_is_export_to_dpa_supported`).
    pub sync_event_export: bool,
    /// Whether sync events used as contexts take tasks
    /// (`doca_sync_event_cap_task_*_is_supported`).
    pub sync_event_tasks: bool,
    /// Network representors of this device (for RDMI connections).
    pub representors: Vec<RepresentorProfile>,
}

/// A network representor of a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepresentorProfile {
    /// Interface name of the representor.
    pub iface_name: String,
    /// PCI address of the represented function.
    pub pci_addr: String,
    /// The kind of the represented function
    /// (`doca_devinfo_rep_get_pci_func_type`).
    pub func_type: PciFuncType,
}

/// A kind of PCI function (`enum doca_pci_func_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PciFuncType {
    /// A physical function.
    #[default]
    Pf,
    /// A virtual function (SR-IOV).
    Vf,
    /// A scalable function (a BlueField's Arm side creates them on a PF).
    Sf,
}

impl PciFuncType {
    /// `pf`, `vf` or `sf`, as profile files spell it.
    pub fn parse(text: &str) -> Option<PciFuncType> {
        match text {
            "pf" => Some(PciFuncType::Pf),
            "vf" => Some(PciFuncType::Vf),
            "sf" => Some(PciFuncType::Sf),
            _ => None,
        }
    }
}

/// The devices and installation the sim presents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// What `doca_version_runtime()` returns.
    pub runtime_version: String,
    /// The devices `doca_devinfo_create_list` lists, in order.
    pub devices: Vec<DeviceProfile>,
    /// Whether the DPA heap is fenced so that a kernel's bad access is a
    /// reported device fault (default true; `DOCA_SIM_MEMCHECK` overrides
    /// it). Turning it off makes allocations cheaper and bad accesses silent.
    pub memcheck: bool,
}

/// The runtime version the default profile reports: the release this build of
/// the sim claims (`DOCA_SIM_VERSION`, default the newest modelled), which its
/// headers' `doca_version.h` says too.
pub const DEFAULT_RUNTIME_VERSION: &str = env!("DOCA_SIM_CLAIMED_VERSION");

impl DeviceProfile {
    /// A DPA-capable BlueField-3 PF with NVIDIA's published DPA layout: 16
    /// cores of 16 EUs (256 EU ids), 190 of them available to kernels, and a
    /// 12 s kernel run-time limit.
    ///
    /// Model choice (docs/sim-model.md, "Devices"): NVIDIA's hardware
    /// architecture page gives the BlueField-3 DPA 16 hyper-threaded cores,
    /// and its `dpa_nvqual` sample counts 16 EUs a core and sizes its EU
    /// tables for 256. NVIDIA publishes no count of the EUs left to user
    /// code (nvqual never uses EU 0 and allows thread setup to fail on
    /// others); 190, from a third-party note, is kept for that count and for
    /// the largest launch (one thread per available EU).
    pub fn bluefield3(ibdev_name: &str, iface_name: &str, pci_addr: &str) -> Self {
        DeviceProfile {
            ibdev_name: ibdev_name.into(),
            iface_name: iface_name.into(),
            pci_addr: pci_addr.into(),
            mac: [0x02, 0x00, 0x00, 0x00, 0x03, 0x00],
            dpa: true,
            func_type: PciFuncType::Pf,
            cores: 16,
            eus_per_core: 16,
            eus_available: 190,
            max_threads_per_kernel: 190,
            kernel_max_run_time_ms: 12_000,
            heap_bytes: 1 << 30,
            sync_event_export: true,
            sync_event_tasks: true,
            representors: vec![
                RepresentorProfile {
                    iface_name: "pf0hpf".into(),
                    pci_addr: "0000:03:00.1".into(),
                    func_type: PciFuncType::Pf,
                },
                RepresentorProfile {
                    iface_name: "pf0vf0".into(),
                    pci_addr: "0000:03:00.2".into(),
                    func_type: PciFuncType::Vf,
                },
            ],
        }
    }

    /// A scalable function of a BlueField-3 PF, as its Arm side lists it:
    /// `doca_dpa_cap_is_supported` answers DOCA_SUCCESS, the PF's DPA context
    /// can be extended onto it (`doca_dpa_device_extend`, with the PF's
    /// limits), sync events can be exported from it, and it has no
    /// representors. A base context on it is refused (see
    /// `doca_dpa_create`): the DPA belongs to the PF, which is listed first, so
    /// programs that pick the first device with a DPA pick the PF.
    ///
    /// Model choice: DOCA documents no per-function answer of
    /// `doca_dpa_cap_is_supported`; NVIDIA's DPA samples (`dpa_common.c` of
    /// `dpa_kernel_launch`, `dpa_nvqual`, `dpa_basic_initiator_target`,
    /// `dpa_initiator_target`, `dpa_ping_pong`), when the PF lists network
    /// representors, extend its context onto the first other device that
    /// reports DPA support (and RDMA send), so the SF a BlueField's Arm side
    /// gives them for that reports DPA support. An SF reports its PF's PCI
    /// address, as an auxiliary device of that PF.
    pub fn bluefield3_sf(ibdev_name: &str, iface_name: &str, pf_pci_addr: &str) -> Self {
        DeviceProfile {
            mac: [0x02, 0x00, 0x00, 0x00, 0x03, 0x10],
            func_type: PciFuncType::Sf,
            representors: Vec::new(),
            ..Self::bluefield3(ibdev_name, iface_name, pf_pci_addr)
        }
    }

    /// A BlueField-2 PF: a network device with no DPA.
    pub fn bluefield2(ibdev_name: &str, iface_name: &str, pci_addr: &str) -> Self {
        DeviceProfile {
            mac: [0x02, 0x00, 0x00, 0x00, 0x81, 0x00],
            dpa: false,
            cores: 0,
            eus_per_core: 0,
            eus_available: 0,
            max_threads_per_kernel: 0,
            kernel_max_run_time_ms: 0,
            heap_bytes: 0,
            sync_event_export: false,
            representors: Vec::new(),
            ..Self::bluefield3(ibdev_name, iface_name, pci_addr)
        }
    }
}

impl Profile {
    /// The devices a BlueField-3's Arm side lists: the PF `mlx5_0` with
    /// representors of the host's PF and of a VF, a BlueField-2 `mlx5_2`
    /// without a DPA, and an SF `mlx5_3` of the BlueField-3's PF (the RDMA
    /// device NVIDIA's DPA samples look for when they find representors).
    pub fn dpu_view() -> Profile {
        Profile {
            runtime_version: DEFAULT_RUNTIME_VERSION.into(),
            memcheck: true,
            devices: vec![
                DeviceProfile::bluefield3("mlx5_0", "p0", "0000:03:00.0"),
                DeviceProfile::bluefield2("mlx5_2", "p2", "0000:81:00.0"),
                DeviceProfile::bluefield3_sf("mlx5_3", "en3f0pf0sf0", "0000:03:00.0"),
            ],
        }
    }

    /// The same machine seen from the host: the BlueField-3's PF (with its
    /// DPA, without representors: only the Arm side has them) and the
    /// BlueField-2.
    pub fn host_view() -> Profile {
        let mut bf3 = DeviceProfile::bluefield3("mlx5_0", "p0", "0000:03:00.0");
        bf3.representors.clear();
        Profile {
            runtime_version: DEFAULT_RUNTIME_VERSION.into(),
            memcheck: true,
            devices: vec![
                bf3,
                DeviceProfile::bluefield2("mlx5_2", "p2", "0000:81:00.0"),
            ],
        }
    }
}

impl Default for Profile {
    /// [`Profile::host_view`]: what a program on a BlueField-3's host sees,
    /// and what NVIDIA's DPA samples run on as they are (no representors, so
    /// they use the PF and its DPA context for everything). Programs that
    /// run on the Arm side (DOCA RDMI, which needs representors) use
    /// [`Profile::dpu_view`].
    fn default() -> Self {
        Profile::host_view()
    }
}

/// A profile file that could not be understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileError {
    /// 1-based line of the problem (0 for problems of the whole file).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "profile: {}", self.message)
        } else {
            write!(f, "profile line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for ProfileError {}

fn parse_bool(v: &str) -> Option<bool> {
    match v {
        "true" | "yes" | "1" => Some(true),
        "false" | "no" | "0" => Some(false),
        _ => None,
    }
}

fn parse_mac(v: &str) -> Option<[u8; 6]> {
    let mut out = [0u8; 6];
    let mut parts = v.split(':');
    for byte in &mut out {
        *byte = u8::from_str_radix(parts.next()?, 16).ok()?;
    }
    parts.next().is_none().then_some(out)
}

/// `iface@pci` or `iface@pci/vf` (`/pf`, `/vf`, `/sf`; PF when absent), comma separated.
fn parse_representors(v: &str) -> Option<Vec<RepresentorProfile>> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|item| {
            let (iface, rest) = item.split_once('@')?;
            let (pci, func_type) = match rest.split_once('/') {
                Some((pci, kind)) => (pci, PciFuncType::parse(kind.trim())?),
                None => (rest, PciFuncType::Pf),
            };
            Some(RepresentorProfile {
                iface_name: iface.trim().into(),
                pci_addr: pci.trim().into(),
                func_type,
            })
        })
        .collect()
}

impl Profile {
    /// Parses the profile file format.
    ///
    /// ```text
    /// runtime_version = 3.3.0001
    /// memcheck = true          # false: no fenced DPA heap (faster, bad accesses unseen)
    /// [device]                 # starts from a BlueField-3 with default limits
    /// ibdev_name = mlx5_0
    /// iface_name = p0
    /// pci_addr = 0000:03:00.0
    /// dpa = true               # false: a device without DPA (BlueField-2 like)
    /// mac = 02:00:00:00:03:00
    /// func_type = pf           # pf, vf or sf (doca_devinfo_get_pci_func_type)
    /// cores = 16
    /// eus_per_core = 16
    /// eus_available = 190
    /// max_threads_per_kernel = 190
    /// kernel_max_run_time_ms = 12000
    /// heap_bytes = 1073741824
    /// sync_event_export = true
    /// sync_event_tasks = true   # false: sync events used as contexts take no tasks
    /// representors = pf0hpf@0000:03:00.1, pf0vf0@0000:03:00.2/vf   # /pf (default), /vf, /sf
    /// ```
    pub fn parse(text: &str) -> Result<Profile, ProfileError> {
        let mut profile = Profile {
            runtime_version: DEFAULT_RUNTIME_VERSION.into(),
            devices: Vec::new(),
            memcheck: true,
        };
        // The keys given in the current section: a key given twice is refused (the
        // second would silently win).
        let mut seen = std::collections::HashSet::new();
        // The line of each device's `[device]`, for the checks across its keys.
        let mut headers = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            let err = |message: String| ProfileError { line, message };
            let content = raw.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            if content == "[device]" {
                seen.clear();
                headers.push(line);
                let n = profile.devices.len();
                profile.devices.push(DeviceProfile::bluefield3(
                    &format!("mlx5_{n}"),
                    &format!("p{n}"),
                    &format!("0000:{:02x}:00.0", 3 + n),
                ));
                continue;
            }
            let (key, value) = content
                .split_once('=')
                .map(|(k, v)| (k.trim(), v.trim()))
                .ok_or_else(|| err(format!("expected `key = value`, got `{content}`")))?;
            if !seen.insert(key.to_owned()) {
                return Err(err(format!("`{key}` is given twice in this section")));
            }
            let Some(dev) = profile.devices.last_mut() else {
                match key {
                    "runtime_version" => profile.runtime_version = value.into(),
                    "memcheck" => {
                        profile.memcheck = parse_bool(value)
                            .ok_or_else(|| err(format!("bad value `{value}` for `memcheck`")))?
                    }
                    _ => return Err(err(format!("unknown key `{key}` before any [device]"))),
                }
                continue;
            };
            let bad = || err(format!("bad value `{value}` for `{key}`"));
            let num = || value.parse::<u64>().map_err(|_| bad());
            let small = || value.parse::<u32>().map_err(|_| bad());
            match key {
                "ibdev_name" => dev.ibdev_name = value.into(),
                "iface_name" => dev.iface_name = value.into(),
                "pci_addr" => dev.pci_addr = value.into(),
                "mac" => dev.mac = parse_mac(value).ok_or_else(bad)?,
                "dpa" => {
                    let dpa = parse_bool(value).ok_or_else(bad)?;
                    if !dpa {
                        let keep = dev.clone();
                        *dev = DeviceProfile {
                            ibdev_name: keep.ibdev_name,
                            iface_name: keep.iface_name,
                            pci_addr: keep.pci_addr,
                            ..DeviceProfile::bluefield2("", "", "")
                        };
                    }
                    dev.dpa = dpa;
                }
                "func_type" => dev.func_type = PciFuncType::parse(value).ok_or_else(bad)?,
                "cores" => dev.cores = small()?,
                "eus_per_core" => dev.eus_per_core = small()?,
                "eus_available" => dev.eus_available = small()?,
                "max_threads_per_kernel" => dev.max_threads_per_kernel = small()?,
                "kernel_max_run_time_ms" => dev.kernel_max_run_time_ms = num()?,
                "heap_bytes" => dev.heap_bytes = num()?,
                "sync_event_export" => dev.sync_event_export = parse_bool(value).ok_or_else(bad)?,
                "sync_event_tasks" => dev.sync_event_tasks = parse_bool(value).ok_or_else(bad)?,
                "representors" => dev.representors = parse_representors(value).ok_or_else(bad)?,
                _ => return Err(err(format!("unknown device key `{key}`"))),
            }
        }
        for (dev, line) in profile.devices.iter().zip(headers) {
            let eus = u64::from(dev.cores) * u64::from(dev.eus_per_core);
            if dev.dpa && (eus > u64::from(u32::MAX) || u64::from(dev.eus_available) > eus) {
                return Err(ProfileError {
                    line,
                    message: format!(
                        "this device's {} cores of {} EUs ({eus} EUs) cannot hold {} available \
                         EUs, or do not fit a 32-bit EU id",
                        dev.cores, dev.eus_per_core, dev.eus_available
                    ),
                });
            }
        }
        Ok(profile)
    }

    /// Reads and parses a profile file.
    pub fn load(path: &std::path::Path) -> Result<Profile, ProfileError> {
        let text = std::fs::read_to_string(path).map_err(|e| ProfileError {
            line: 0,
            message: format!("cannot read {}: {e}", path.display()),
        })?;
        Profile::parse(&text)
    }
}

/// Where the profile in use outside any scope comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProfileSource {
    /// The built-in default (`DOCA_SIM_PROFILE` unset or empty).
    Default,
    /// The file `DOCA_SIM_PROFILE` names.
    File(PathBuf),
    /// Installed by the program with [`set_global_profile`].
    Program,
    /// `DOCA_SIM_PROFILE` names a file that cannot be read or parsed: every
    /// DOCA call fails with `DOCA_ERROR_BAD_CONFIG`.
    Invalid {
        /// The value of `DOCA_SIM_PROFILE`.
        path: PathBuf,
        /// Why it was refused.
        reason: String,
    },
}

impl fmt::Display for ProfileSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProfileSource::Default => f.write_str("the default profile"),
            ProfileSource::File(p) => write!(f, "DOCA_SIM_PROFILE={}", p.display()),
            ProfileSource::Program => f.write_str("a profile set by the program"),
            ProfileSource::Invalid { path, reason } => write!(
                f,
                "DOCA_SIM_PROFILE={} is invalid ({reason}); every DOCA call fails with \
                 DOCA_ERROR_BAD_CONFIG",
                path.display()
            ),
        }
    }
}

/// What `DOCA_SIM_PROFILE` says, read once: the profile (None for the
/// default) or why it was refused.
fn env_profile() -> &'static (ProfileSource, Option<Profile>) {
    static ENV: OnceLock<(ProfileSource, Option<Profile>)> = OnceLock::new();
    ENV.get_or_init(|| match std::env::var_os("DOCA_SIM_PROFILE") {
        None => (ProfileSource::Default, None),
        Some(path) if path.is_empty() => (ProfileSource::Default, None),
        Some(path) => {
            let path = PathBuf::from(path);
            match Profile::load(&path) {
                Ok(p) => (ProfileSource::File(path), Some(p)),
                Err(e) => (
                    ProfileSource::Invalid {
                        path,
                        reason: e.to_string(),
                    },
                    None,
                ),
            }
        }
    })
}

/// Why `DOCA_SIM_PROFILE` was refused, if it was.
pub(crate) fn env_error() -> Option<String> {
    match &env_profile().0 {
        ProfileSource::Invalid { path, reason } => {
            Some(format!("DOCA_SIM_PROFILE={}: {reason}", path.display()))
        }
        _ => None,
    }
}

struct Profiles {
    global: Arc<Profile>,
    source: ProfileSource,
    scoped: HashMap<u64, Arc<Profile>>,
}

fn profiles() -> std::sync::MutexGuard<'static, Profiles> {
    static PROFILES: OnceLock<Mutex<Profiles>> = OnceLock::new();
    PROFILES
        .get_or_init(|| {
            let (source, profile) = env_profile().clone();
            Mutex::new(Profiles {
                global: Arc::new(profile.unwrap_or_default()),
                source,
                scoped: HashMap::new(),
            })
        })
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// Replaces the profile used outside any scope (and by scopes without their
/// own). Objects created earlier keep the devices they were made from.
pub fn set_global_profile(profile: Profile) {
    let mut profiles = profiles();
    profiles.global = Arc::new(profile);
    if !matches!(profiles.source, ProfileSource::Invalid { .. }) {
        profiles.source = ProfileSource::Program;
    }
}

/// Sim only: where the profile in use outside any scope comes from (what
/// `doca-doctor` reports).
pub fn profile_source() -> ProfileSource {
    profiles().source.clone()
}

/// The profile in force for the calling thread.
pub(crate) fn current() -> Arc<Profile> {
    let scope = scope::current();
    let profiles = profiles();
    profiles
        .scoped
        .get(&scope)
        .cloned()
        .unwrap_or_else(|| profiles.global.clone())
}

pub(crate) fn set_scoped(scope: u64, profile: Option<Profile>) {
    let mut profiles = profiles();
    match profile {
        Some(p) => {
            profiles.scoped.insert(scope, Arc::new(p));
        }
        None => {
            profiles.scoped.remove(&scope);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_the_host_view_and_the_dpu_view_has_an_sf_and_representors() {
        let host = Profile::default();
        assert_eq!(host, Profile::host_view());
        assert_eq!(host.devices.len(), 2);
        assert!(host.devices[0].dpa);
        assert!(!host.devices[1].dpa);
        assert!(host.devices.iter().all(|d| d.representors.is_empty()));
        let p = Profile::dpu_view();
        assert_eq!(p.devices.len(), 3);
        assert!(p.devices[0].dpa);
        assert_eq!(p.devices[0].func_type, PciFuncType::Pf);
        assert_eq!(p.devices[0].cores * p.devices[0].eus_per_core, 256);
        assert_eq!(p.devices[0].eus_available, 190);
        assert!(!p.devices[0].representors.is_empty());
        assert!(!p.devices[1].dpa);
        assert_eq!(p.devices[2].func_type, PciFuncType::Sf);
        assert_eq!(p.devices[2].pci_addr, p.devices[0].pci_addr);
    }

    #[test]
    fn function_types_parse_and_unknown_ones_are_refused() {
        let p = Profile::parse(
            "[device]\nfunc_type = sf\nrepresentors = a@0000:01:00.1/vf, b@0000:01:00.2\n",
        )
        .unwrap();
        assert_eq!(p.devices[0].func_type, PciFuncType::Sf);
        let kinds: Vec<_> = p.devices[0]
            .representors
            .iter()
            .map(|r| r.func_type)
            .collect();
        assert_eq!(kinds, [PciFuncType::Vf, PciFuncType::Pf]);
        assert!(Profile::parse("[device]\nfunc_type = pci\n").is_err());
        assert!(Profile::parse("[device]\nrepresentors = a@0000:01:00.1/xf\n").is_err());
        assert!(Profile::parse("[device]\nis_pf = true\n").is_err());
    }

    #[test]
    fn parse_round_trip_of_keys() {
        let p = Profile::parse(
            "runtime_version = 3.2.0118\n[device]\nibdev_name = mlx5_7\nmax_threads_per_kernel = 8 # small\nkernel_max_run_time_ms=250\nrepresentors = a@0000:01:00.1\n[device]\ndpa = false\n",
        )
        .unwrap();
        assert_eq!(p.runtime_version, "3.2.0118");
        assert_eq!(p.devices[0].ibdev_name, "mlx5_7");
        assert_eq!(p.devices[0].max_threads_per_kernel, 8);
        assert_eq!(p.devices[0].kernel_max_run_time_ms, 250);
        assert_eq!(p.devices[0].representors.len(), 1);
        assert!(!p.devices[1].dpa);
        assert_eq!(p.devices[1].ibdev_name, "mlx5_1");
        assert_ne!(p.devices[0].pci_addr, p.devices[1].pci_addr);
    }

    #[test]
    fn parse_errors_name_the_line() {
        let e = Profile::parse("[device]\ncores = many\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = Profile::parse("nonsense\n").unwrap_err();
        assert_eq!(e.line, 1);
        let e = Profile::parse("cores = 1\n").unwrap_err();
        assert!(e.message.contains("before any [device]"));
    }
}
