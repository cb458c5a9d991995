//! `doca_dev.h`: device lists of the default and of scoped profiles, queries
//! and their buffer-size errors, DPA capability, open/close with reference
//! counts, IN_USE while a DPA context exists, representor lists and filters.

mod common;

use std::ffi::{c_char, CStr};
use std::ptr::null_mut;

use common::*;

/// The NUL-terminated text a sim query wrote into `buf`.
fn c_text(buf: &[c_char]) -> String {
    // SAFETY: the sim NUL-terminates within the buffers it fills.
    unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

fn ibdev(info: *const abi::doca_devinfo) -> String {
    let mut buf = [0 as c_char; abi::DOCA_DEVINFO_IBDEV_NAME_SIZE as usize];
    ok!(abi::doca_devinfo_get_ibdev_name(
        info,
        buf.as_mut_ptr(),
        buf.len() as u32
    ));
    c_text(&buf)
}

fn iface(info: *const abi::doca_devinfo) -> String {
    let mut buf = [0 as c_char; abi::DOCA_DEVINFO_IFACE_NAME_SIZE as usize];
    ok!(abi::doca_devinfo_get_iface_name(
        info,
        buf.as_mut_ptr(),
        buf.len() as u32
    ));
    c_text(&buf)
}

fn pci(info: *const abi::doca_devinfo) -> String {
    let mut buf = [0 as c_char; abi::DOCA_DEVINFO_PCI_ADDR_SIZE as usize];
    ok!(abi::doca_devinfo_get_pci_addr_str(info, buf.as_mut_ptr()));
    c_text(&buf)
}

/// The DPU view (`Profile::dpu_view`): the BlueField-3's PF, a BlueField-2
/// and the PF's SF; the default (host) view is the first two.
#[test]
fn the_dpu_view_lists_a_bluefield3_a_bluefield2_and_an_sf() {
    let scope = Scope::new();
    scope.set_profile(Profile::dpu_view());
    let (list, items) = dev_list();
    assert_eq!(items.len(), 3);
    assert_eq!(ibdev(items[BF3]), "mlx5_0");
    assert_eq!(iface(items[BF3]), "p0");
    assert_eq!(pci(items[BF3]), "0000:03:00.0");
    assert_eq!(ibdev(items[BF2]), "mlx5_2");
    assert_eq!(iface(items[BF2]), "p2");
    assert_eq!(pci(items[BF2]), "0000:81:00.0");
    // The list ends with a NULL slot.
    // SAFETY: the sim allocates one slot past the count.
    assert!(unsafe { *list.add(items.len()) }.is_null());

    let mut mac = [0u8; 6];
    ok!(abi::doca_devinfo_get_mac_addr(
        items[BF3],
        mac.as_mut_ptr(),
        6
    ));
    assert_eq!(mac, [0x02, 0, 0, 0, 0x03, 0]);
    for (index, info) in items.iter().enumerate() {
        let mut vhca = 99u16;
        ok!(abi::doca_devinfo_get_vhca_id(*info, &mut vhca));
        assert_eq!(usize::from(vhca), index);
        let mut kind = 99;
        ok!(abi::doca_devinfo_get_pci_func_type(*info, &mut kind));
        let want = if index == SF {
            abi::DOCA_PCI_FUNC_TYPE_SF
        } else {
            abi::DOCA_PCI_FUNC_TYPE_PF
        };
        assert_eq!(kind, want, "device {index}");
    }
    // The SF of the BlueField-3 (the DPU view): the PF's address, and DPA
    // support (the PF's context is extended onto it; NVIDIA's samples look
    // for an SF that reports it).
    assert_eq!(ibdev(items[SF]), "mlx5_3");
    assert_eq!(pci(items[SF]), pci(items[BF3]));
    ok!(abi::doca_dpa_cap_is_supported(items[SF]));

    assert_eq!(scope.live_objects().get("doca_devinfo"), Some(&3));
    assert_eq!(scope.live_objects().get("doca_devinfo_list"), Some(&1));
    ok!(abi::doca_devinfo_destroy_list(list));
    assert_no_leaks(&scope);
}

#[test]
fn pci_address_comparison_takes_full_and_short_forms() {
    let scope = Scope::new();
    let (list, items) = dev_list();
    let mut eq = 7u8;
    for (text, want) in [
        (c"0000:03:00.0", 1),
        (c"03:00.0", 1),
        (c"0000:03:00.1", 0),
        (c"0000:81:00.0", 0),
    ] {
        ok!(abi::doca_devinfo_is_equal_pci_addr(
            items[BF3],
            text.as_ptr(),
            &mut eq
        ));
        assert_eq!(eq, want, "{text:?}");
    }
    fails!(
        INVALID_VALUE,
        abi::doca_devinfo_is_equal_pci_addr(items[BF3], std::ptr::null(), &mut eq)
    );
    ok!(abi::doca_devinfo_destroy_list(list));
    assert_no_leaks(&scope);
}

#[test]
fn queries_refuse_small_or_null_buffers() {
    let scope = Scope::new();
    let (list, items) = dev_list();
    let info = items[BF3];
    let mut big = [0 as c_char; 300];
    fails!(
        INVALID_VALUE,
        abi::doca_devinfo_get_pci_addr_str(info, null_mut())
    );
    // Documented sizes: IFACE 256, IBDEV 64, MAC 6.
    fails!(
        INVALID_VALUE,
        abi::doca_devinfo_get_iface_name(info, big.as_mut_ptr(), 255)
    );
    ok!(abi::doca_devinfo_get_iface_name(
        info,
        big.as_mut_ptr(),
        256
    ));
    fails!(
        INVALID_VALUE,
        abi::doca_devinfo_get_iface_name(info, null_mut(), 256)
    );
    fails!(
        INVALID_VALUE,
        abi::doca_devinfo_get_ibdev_name(info, big.as_mut_ptr(), 63)
    );
    ok!(abi::doca_devinfo_get_ibdev_name(info, big.as_mut_ptr(), 64));
    let mut mac = [0u8; 6];
    fails!(
        INVALID_VALUE,
        abi::doca_devinfo_get_mac_addr(info, mac.as_mut_ptr(), 5)
    );
    let mut vhca = 0u16;
    fails!(
        INVALID_VALUE,
        abi::doca_devinfo_get_vhca_id(info, null_mut())
    );
    fails!(
        INVALID_VALUE,
        abi::doca_devinfo_get_vhca_id(null_mut(), &mut vhca)
    );
    // Not modelled: NOT_SUPPORTED.
    let mut ip = [0u8; 16];
    let mut lid = 0u16;
    fails!(
        NOT_SUPPORTED,
        abi::doca_devinfo_get_ipv4_addr(info, ip.as_mut_ptr(), 4)
    );
    fails!(
        NOT_SUPPORTED,
        abi::doca_devinfo_get_ipv6_addr(info, ip.as_mut_ptr(), 16)
    );
    fails!(NOT_SUPPORTED, abi::doca_devinfo_get_lid(info, &mut lid));
    ok!(abi::doca_devinfo_destroy_list(list));
    assert_no_leaks(&scope);
}

#[test]
fn dpa_capability_only_on_the_bluefield3() {
    let scope = Scope::new();
    let (list, items) = dev_list();
    ok!(abi::doca_dpa_cap_is_supported(items[BF3]));
    fails!(NOT_SUPPORTED, abi::doca_dpa_cap_is_supported(items[BF2]));
    fails!(INVALID_VALUE, abi::doca_dpa_cap_is_supported(null_mut()));
    ok!(abi::doca_sync_event_cap_is_export_to_dpa_supported(
        items[BF3]
    ));
    fails!(
        NOT_SUPPORTED,
        abi::doca_sync_event_cap_is_export_to_dpa_supported(items[BF2])
    );
    ok!(abi::doca_devinfo_destroy_list(list));

    // A device without DPA cannot host a DPA context.
    let bf2 = open_dev(BF2);
    let mut dpa = null_mut();
    fails!(NOT_SUPPORTED, abi::doca_dpa_create(bf2, &mut dpa));
    assert!(dpa.is_null());
    close_dev(bf2);
    assert_no_leaks(&scope);
}

#[test]
fn open_and_close_count_references() {
    let scope = Scope::new();
    let (list, items) = dev_list();
    let mut a = null_mut();
    let mut b = null_mut();
    ok!(abi::doca_dev_open(items[BF3], &mut a));
    ok!(abi::doca_dev_open(items[BF3], &mut b));
    assert_ne!(a, b, "each open gives its own handle");
    fails!(INVALID_VALUE, abi::doca_dev_open(items[BF3], null_mut()));
    fails!(INVALID_VALUE, abi::doca_dev_open(null_mut(), &mut a));
    // The list may go; open devices and their devinfos stay valid.
    ok!(abi::doca_devinfo_destroy_list(list));
    assert_eq!(ibdev(devinfo(a)), "mlx5_0");
    assert_eq!(pci(devinfo(b)), "0000:03:00.0");
    assert_eq!(scope.live_objects().get("doca_dev"), Some(&2));
    close_dev(a);
    close_dev(b);
    // Model choice: a closed (or never opened) handle is INVALID_VALUE.
    fails!(INVALID_VALUE, abi::doca_dev_close(a));
    assert!(ffi!(abi::doca_dev_as_devinfo(a)).is_null());
    assert_no_leaks(&scope);
}

#[test]
fn stale_devinfo_and_bad_lists_are_refused() {
    let scope = Scope::new();
    let (list, items) = dev_list();
    ok!(abi::doca_devinfo_destroy_list(list));
    // Model choice: the registry refuses pointers of destroyed objects.
    let mut dev = null_mut();
    fails!(INVALID_VALUE, abi::doca_dev_open(items[BF3], &mut dev));
    fails!(INVALID_VALUE, abi::doca_devinfo_destroy_list(list));
    fails!(INVALID_VALUE, abi::doca_devinfo_destroy_list(null_mut()));
    let mut n = 0;
    fails!(
        INVALID_VALUE,
        abi::doca_devinfo_create_list(null_mut(), &mut n)
    );
    let mut l = null_mut();
    fails!(
        INVALID_VALUE,
        abi::doca_devinfo_create_list(&mut l, null_mut())
    );
    assert_no_leaks(&scope);
}

#[test]
fn close_while_a_dpa_context_exists_is_in_use() {
    let scope = Scope::new();
    let dev = open_dev(BF3);
    let mut dpa = null_mut();
    ok!(abi::doca_dpa_create(dev, &mut dpa));
    fails!(IN_USE, abi::doca_dev_close(dev));
    ok!(abi::doca_dpa_destroy(dpa));
    close_dev(dev);
    assert_no_leaks(&scope);
}

#[test]
fn scoped_profiles_shape_the_list() {
    let scope = Scope::new();
    let profile = Profile::parse(
        "runtime_version = 3.1.0001\n\
         [device]\nibdev_name = mlx5_9\nrepresentors = r0@0000:09:00.1\n\
         [device]\ndpa = false\n\
         [device]\nfunc_type = vf\n",
    )
    .unwrap();
    scope.set_profile(profile);
    let (list, items) = dev_list();
    assert_eq!(items.len(), 3);
    assert_eq!(ibdev(items[0]), "mlx5_9");
    ok!(abi::doca_dpa_cap_is_supported(items[0]));
    fails!(NOT_SUPPORTED, abi::doca_dpa_cap_is_supported(items[1]));
    let mut kind = 0;
    ok!(abi::doca_devinfo_get_pci_func_type(items[2], &mut kind));
    assert_eq!(kind, abi::DOCA_PCI_FUNC_TYPE_VF);
    let mut vf = null_mut();
    ok!(abi::doca_dev_open(items[2], &mut vf));
    ok!(abi::doca_devinfo_destroy_list(list));
    // Model choice: a base DPA context needs a PF.
    let mut dpa = null_mut();
    fails!(NOT_SUPPORTED, abi::doca_dpa_create(vf, &mut dpa));
    close_dev(vf);

    // Another test's scope still sees the default profile.
    let other = std::thread::spawn(|| {
        let _scope = Scope::new();
        let (list, items) = dev_list();
        let n = items.len();
        ok!(abi::doca_devinfo_destroy_list(list));
        n
    })
    .join()
    .unwrap();
    assert_eq!(other, 2);
    assert_no_leaks(&scope);
}

fn rep_list(dev: *mut abi::doca_dev, filter: i32) -> (*mut *mut abi::doca_devinfo_rep, usize) {
    let mut list = null_mut();
    let mut n = 99u32;
    ok!(abi::doca_devinfo_rep_create_list(
        dev, filter, &mut list, &mut n
    ));
    (list, n as usize)
}

#[test]
fn representor_lists_and_filters() {
    let scope = Scope::new();
    scope.set_profile(Profile::dpu_view());
    let dev = open_dev(BF3);
    let mut net = 0u8;
    ok!(abi::doca_devinfo_rep_cap_is_filter_net_supported(
        devinfo(dev),
        &mut net
    ));
    assert_eq!(net, 1);
    let all = abi::DOCA_DEVINFO_REP_FILTER_ALL as i32;
    let net_f = abi::DOCA_DEVINFO_REP_FILTER_NET as i32;
    let emu = abi::DOCA_DEVINFO_REP_FILTER_EMULATED as i32;
    for (filter, want) in [(all, 2), (net_f, 2), (net_f | emu, 2), (emu, 0)] {
        let (list, n) = rep_list(dev, filter);
        assert_eq!(n, want, "filter {filter:#x}");
        ok!(abi::doca_devinfo_rep_destroy_list(list));
    }
    let mut list = null_mut();
    let mut n = 0u32;
    fails!(
        INVALID_VALUE,
        abi::doca_devinfo_rep_create_list(dev, 1 << 5, &mut list, &mut n)
    );
    fails!(
        INVALID_VALUE,
        abi::doca_devinfo_rep_create_list(dev, all, null_mut(), &mut n)
    );

    // What each representor says about itself (the default profile's
    // representors: the host PF and a VF).
    let (list, n) = rep_list(dev, net_f);
    // SAFETY: the list has `n` entries.
    let reps: Vec<_> = (0..n).map(|i| unsafe { *list.add(i) }).collect();
    let mut kinds = Vec::new();
    let mut ids = Vec::new();
    for rep in &reps {
        let mut kind = 99;
        ok!(abi::doca_devinfo_rep_get_pci_func_type(*rep, &mut kind));
        kinds.push(kind);
        let mut id = 0u16;
        ok!(abi::doca_devinfo_rep_get_vhca_id(*rep, &mut id));
        ids.push(id);
        let mut hotplug = 9u8;
        ok!(abi::doca_devinfo_rep_get_is_hotplug(*rep, &mut hotplug));
        assert_eq!(hotplug, 0);
    }
    assert_eq!(
        kinds,
        [abi::DOCA_PCI_FUNC_TYPE_PF, abi::DOCA_PCI_FUNC_TYPE_VF]
    );
    assert_ne!(ids[0], ids[1]);
    let mut buf = [0 as c_char; abi::DOCA_DEVINFO_IFACE_NAME_SIZE as usize];
    ok!(abi::doca_devinfo_rep_get_iface_name(
        reps[1],
        buf.as_mut_ptr(),
        buf.len() as u32
    ));
    assert_eq!(c_text(&buf), "pf0vf0");
    fails!(
        INVALID_VALUE,
        abi::doca_devinfo_rep_get_iface_name(reps[1], buf.as_mut_ptr(), 4)
    );
    ok!(abi::doca_devinfo_rep_get_pci_addr_str(
        reps[1],
        buf.as_mut_ptr()
    ));
    assert_eq!(c_text(&buf), "0000:03:00.2");
    let mut vuid = [0 as c_char; abi::DOCA_DEVINFO_REP_VUID_SIZE as usize];
    ok!(abi::doca_devinfo_rep_get_vuid(
        reps[0],
        vuid.as_mut_ptr(),
        vuid.len() as u32
    ));
    assert_eq!(c_text(&vuid), "mlx5_0-pf0hpf");
    let mut eq = 9u8;
    ok!(abi::doca_devinfo_rep_is_equal_pci_addr(
        reps[1],
        c"03:00.2".as_ptr(),
        &mut eq
    ));
    assert_eq!(eq, 1);
    ok!(abi::doca_devinfo_rep_is_equal_pci_addr(
        reps[0],
        c"03:00.2".as_ptr(),
        &mut eq
    ));
    assert_eq!(eq, 0);
    ok!(abi::doca_devinfo_rep_destroy_list(list));
    let mut cap = 9u8;
    ok!(abi::doca_devinfo_rep_cap_is_filter_all_supported(
        devinfo(dev),
        &mut cap
    ));
    assert_eq!(cap, 1);
    ok!(abi::doca_devinfo_rep_cap_is_filter_emulated_supported(
        devinfo(dev),
        &mut cap
    ));
    assert_eq!(cap, 0);

    // Open a representor; it outlives its list.
    let (list, n) = rep_list(dev, net_f);
    assert_eq!(n, 2);
    // SAFETY: the list has `n` entries.
    let first = unsafe { *list };
    let mut rep = null_mut();
    ok!(abi::doca_dev_rep_open(first, &mut rep));
    ok!(abi::doca_devinfo_rep_destroy_list(list));
    fails!(INVALID_VALUE, abi::doca_devinfo_rep_destroy_list(list));
    assert!(!ffi!(abi::doca_dev_rep_as_devinfo(rep)).is_null());
    assert_eq!(scope.live_objects().get("doca_dev_rep"), Some(&1));
    ok!(abi::doca_dev_rep_close(rep));
    fails!(INVALID_VALUE, abi::doca_dev_rep_close(rep));
    close_dev(dev);

    // The BlueField-2 has no representors.
    let bf2 = open_dev(BF2);
    ok!(abi::doca_devinfo_rep_cap_is_filter_net_supported(
        devinfo(bf2),
        &mut net
    ));
    assert_eq!(net, 0);
    let (list, n) = rep_list(bf2, all);
    assert_eq!(n, 0);
    ok!(abi::doca_devinfo_rep_destroy_list(list));
    close_dev(bf2);
    assert_no_leaks(&scope);
}

/// NVIDIA's DPA samples' host-side device selection, as the DPU view must
/// satisfy it: the first device with a DPA; when it lists network
/// representors (the samples read that as "running on the DPU's Arm side"),
/// an SF to create the RDMA resources on, onto which the PF's DPA context is
/// extended; otherwise the PF itself (the host view, below).
#[test]
fn the_dpu_view_passes_the_samples_device_selection() {
    let scope = Scope::new();
    scope.set_profile(Profile::dpu_view());
    let (list, items) = dev_list();
    let pf_info = *items
        .iter()
        .find(|i| ffi!(abi::doca_dpa_cap_is_supported(**i)) == SUCCESS)
        .expect("a device with a DPA");
    let mut on_dpu = 0u8;
    ok!(abi::doca_devinfo_rep_cap_is_filter_net_supported(
        pf_info,
        &mut on_dpu
    ));
    assert_eq!(on_dpu, 1, "the DPU view lists representors");
    // The samples' second pass: another device that reports DPA support.
    let sf_info = *items
        .iter()
        .find(|i| **i != pf_info && ffi!(abi::doca_dpa_cap_is_supported(**i)) == SUCCESS)
        .expect("another device with DPA support, for the RDMA resources");
    let mut kind = 99;
    ok!(abi::doca_devinfo_get_pci_func_type(sf_info, &mut kind));
    assert_eq!(kind, abi::DOCA_PCI_FUNC_TYPE_SF);
    let mut pf = null_mut();
    let mut sf = null_mut();
    ok!(abi::doca_dev_open(pf_info, &mut pf));
    ok!(abi::doca_dev_open(sf_info, &mut sf));
    ok!(abi::doca_devinfo_destroy_list(list));
    let mut dpa = null_mut();
    ok!(abi::doca_dpa_create(pf, &mut dpa));
    ok!(abi::doca_dpa_set_app(dpa, noop_app()));
    ok!(abi::doca_dpa_start(dpa));
    let mut extended = null_mut();
    ok!(abi::doca_dpa_device_extend(dpa, sf, &mut extended));
    let mut handle = 0;
    ok!(abi::doca_dpa_get_dpa_handle(extended, &mut handle));
    assert_ne!(handle, 0);
    // DPA memory of the extended context is mapped and exported for RDMA
    // on the SF, as the samples' doca_mmap_obj_init does; the PF is not a
    // device of that map.
    let mut block = 0;
    ok!(abi::doca_dpa_mem_alloc(extended, 64, &mut block));
    let mut m = null_mut();
    ok!(abi::doca_mmap_create(&mut m));
    ok!(abi::doca_mmap_set_dpa_memrange(m, extended, block, 64));
    ok!(abi::doca_mmap_start(m));
    let mut mmap_handle = 0;
    ok!(abi::doca_mmap_dev_get_dpa_handle(m, sf, &mut mmap_handle));
    let (mut desc, mut len) = (std::ptr::null(), 0);
    fails!(
        NOT_FOUND,
        abi::doca_mmap_export_rdma(m, pf, &mut desc, &mut len)
    );
    ok!(abi::doca_mmap_export_rdma(m, sf, &mut desc, &mut len));
    assert!(len > 0);
    ok!(abi::doca_mmap_destroy(m));
    ok!(abi::doca_dpa_mem_free(extended, block));
    // A base context on the SF itself is refused: the DPA belongs to the PF.
    let mut on_sf = null_mut();
    fails!(NOT_SUPPORTED, abi::doca_dpa_create(sf, &mut on_sf));
    ok!(abi::doca_dpa_destroy(extended));
    close_dev(sf);
    ok!(abi::doca_dpa_destroy(dpa));
    close_dev(pf);
    assert_no_leaks(&scope);
}

#[test]
fn the_host_view_has_no_representors_so_samples_use_the_pf() {
    // The default profile.
    let scope = Scope::new();
    let (list, items) = dev_list();
    assert_eq!(items.len(), 2);
    let mut on_dpu = 9u8;
    ok!(abi::doca_devinfo_rep_cap_is_filter_net_supported(
        items[BF3],
        &mut on_dpu
    ));
    assert_eq!(on_dpu, 0);
    ok!(abi::doca_dpa_cap_is_supported(items[BF3]));
    ok!(abi::doca_devinfo_destroy_list(list));
    assert_no_leaks(&scope);
}

/// The DPU view as a profile file (what scripts/run-nvidia-samples.sh and the
/// C programs that need representors or an SF run on) is exactly
/// `Profile::dpu_view()`; the default profile is the host view.
#[test]
fn the_dpu_profile_file_is_the_dpu_view_and_the_default_is_the_host_view() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dpu.profile");
    assert_eq!(Profile::load(&file).unwrap(), Profile::dpu_view());
    assert_eq!(Profile::default(), Profile::host_view());
}
