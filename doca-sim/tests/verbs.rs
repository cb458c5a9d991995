//! The DOCA Verbs subset: verbs context, device attributes, PD, CQ and its
//! attributes, QP init attributes and QPs, including the IN_USE rules
//! between them (model choice).

mod common;

use std::ptr::null_mut;

use common::*;

#[test]
fn context_and_device_attributes() {
    let scope = Scope::new();
    let dev = open_dev(BF3);
    let mut v = null_mut();
    fails!(
        INVALID_VALUE,
        abi::doca_verbs_context_create(devinfo(dev), 1, &mut v)
    );
    fails!(
        INVALID_VALUE,
        abi::doca_verbs_context_create(null_mut(), 0, &mut v)
    );
    fails!(
        INVALID_VALUE,
        abi::doca_verbs_context_create(devinfo(dev), 0, null_mut())
    );
    let vctx = verbs_ctx(dev);
    let mut attr = null_mut();
    ok!(abi::doca_verbs_query_device(vctx, &mut attr));
    assert_eq!(
        ffi!(abi::doca_verbs_device_attr_get_is_dpa_external_datapath_supported(attr)),
        1
    );
    for value in [
        ffi!(abi::doca_verbs_device_attr_get_max_qp(attr)),
        ffi!(abi::doca_verbs_device_attr_get_max_cq(attr)),
        ffi!(abi::doca_verbs_device_attr_get_max_cqe(attr)),
        ffi!(abi::doca_verbs_device_attr_get_max_pd(attr)),
    ] {
        assert!(value > 0);
    }
    ok!(abi::doca_verbs_device_attr_free(attr));
    fails!(INVALID_VALUE, abi::doca_verbs_device_attr_free(attr));
    assert_eq!(ffi!(abi::doca_verbs_device_attr_get_max_qp(attr)), 0);
    fails!(
        INVALID_VALUE,
        abi::doca_verbs_query_device(vctx, null_mut())
    );
    ok!(abi::doca_verbs_context_destroy(vctx));
    close_dev(dev);

    // No DPA datapath on the BlueField-2.
    let bf2 = open_dev(BF2);
    let vctx = verbs_ctx(bf2);
    ok!(abi::doca_verbs_query_device(vctx, &mut attr));
    assert_eq!(
        ffi!(abi::doca_verbs_device_attr_get_is_dpa_external_datapath_supported(attr)),
        0
    );
    ok!(abi::doca_verbs_device_attr_free(attr));
    ok!(abi::doca_verbs_context_destroy(vctx));
    close_dev(bf2);
    assert_no_leaks(&scope);
}

#[test]
fn pds_and_cqs_keep_their_context_in_use() {
    let scope = Scope::new();
    let dev = open_dev(BF3);
    let vctx = verbs_ctx(dev);
    let p = pd(vctx);
    fails!(IN_USE, abi::doca_verbs_context_destroy(vctx));
    // The PD's doca_dev: one handle while it is open, which keeps the PD.
    let (mut as_dev, mut again) = (null_mut(), null_mut());
    ok!(abi::doca_verbs_pd_as_doca_dev(p, &mut as_dev));
    ok!(abi::doca_verbs_pd_as_doca_dev(p, &mut again));
    assert_eq!(as_dev, again);
    // SAFETY: `as_dev` is an open device handle the sim just returned.
    let info = unsafe { abi::doca_dev_as_devinfo(as_dev) };
    assert!(!info.is_null(), "a usable device");
    fails!(IN_USE, abi::doca_verbs_pd_destroy(p));
    ok!(abi::doca_dev_close(as_dev));
    ok!(abi::doca_verbs_pd_destroy(p));
    fails!(INVALID_VALUE, abi::doca_verbs_pd_destroy(p));

    let mut attr = null_mut();
    ok!(abi::doca_verbs_cq_attr_create(&mut attr));
    let mut c = null_mut();
    fails!(INVALID_VALUE, abi::doca_verbs_cq_create(vctx, attr, &mut c));
    fails!(INVALID_VALUE, abi::doca_verbs_cq_attr_set_cq_size(attr, 0));
    fails!(
        INVALID_VALUE,
        abi::doca_verbs_cq_attr_set_cq_size(attr, (1 << 22) + 1)
    );
    ok!(abi::doca_verbs_cq_attr_set_cq_size(attr, 64));
    let mut size = 0;
    ok!(abi::doca_verbs_cq_attr_get_cq_size(attr, &mut size));
    assert_eq!(size, 64);
    fails!(
        INVALID_VALUE,
        abi::doca_verbs_cq_attr_set_entry_size(attr, 32)
    );
    ok!(abi::doca_verbs_cq_attr_set_entry_size(
        attr,
        abi::DOCA_VERBS_CQ_ENTRY_SIZE_128
    ));
    let mut entry = 0;
    ok!(abi::doca_verbs_cq_attr_get_entry_size(attr, &mut entry));
    assert_eq!(entry, abi::DOCA_VERBS_CQ_ENTRY_SIZE_128);
    ok!(abi::doca_verbs_cq_attr_set_cq_overrun(attr, 1));
    ok!(abi::doca_verbs_cq_attr_set_dpa_thread_id(attr, 5));
    ok!(abi::doca_verbs_cq_attr_set_cq_context(attr, null_mut()));
    ok!(abi::doca_verbs_cq_create(vctx, attr, &mut c));
    let c2 = cq(vctx, 8);
    let (n1, n2) = (
        ffi!(abi::doca_verbs_cq_get_cqn(c)),
        ffi!(abi::doca_verbs_cq_get_cqn(c2)),
    );
    assert!(n1 != 0 && n2 != 0 && n1 != n2);
    assert_eq!(ffi!(abi::doca_verbs_cq_get_cqn(null_mut())), 0);
    fails!(IN_USE, abi::doca_verbs_context_destroy(vctx));
    ok!(abi::doca_verbs_cq_attr_destroy(attr));
    ok!(abi::doca_verbs_cq_destroy(c));
    ok!(abi::doca_verbs_cq_destroy(c2));
    ok!(abi::doca_verbs_context_destroy(vctx));
    close_dev(dev);
    assert_no_leaks(&scope);
}

#[test]
fn queue_pairs() {
    let scope = Scope::new();
    let ctx = Ctx::started(noop_app());
    let vctx = verbs_ctx(ctx.dev);
    let other_vctx = verbs_ctx(ctx.dev);
    let p = pd(vctx);
    let foreign_pd = pd(other_vctx);
    let send = cq(vctx, 16);
    let recv = cq(vctx, 16);
    let mut comp = null_mut();
    ok!(abi::doca_dpa_completion_create(ctx.dpa, 16, &mut comp));

    let mut init = null_mut();
    ok!(abi::doca_verbs_qp_init_attr_create(&mut init));
    let mut qp = null_mut();
    // A PD is required, and it must be of the same verbs context.
    fails!(
        INVALID_VALUE,
        abi::doca_verbs_qp_create(vctx, init, &mut qp)
    );
    ok!(abi::doca_verbs_qp_init_attr_set_pd(init, foreign_pd));
    fails!(
        INVALID_VALUE,
        abi::doca_verbs_qp_create(vctx, init, &mut qp)
    );
    ok!(abi::doca_verbs_qp_init_attr_set_pd(init, p));
    fails!(
        INVALID_VALUE,
        abi::doca_verbs_qp_init_attr_set_qp_type(init, 7)
    );
    ok!(abi::doca_verbs_qp_init_attr_set_qp_type(
        init,
        abi::DOCA_VERBS_QP_TYPE_RC
    ));
    ok!(abi::doca_verbs_qp_init_attr_set_sq_wr(init, 64));
    ok!(abi::doca_verbs_qp_init_attr_set_rq_wr(init, 64));
    ok!(abi::doca_verbs_qp_init_attr_set_send_max_sges(init, 1));
    ok!(abi::doca_verbs_qp_init_attr_set_receive_max_sges(init, 1));
    // A CQ and a DPA completion exclude each other, per direction.
    ok!(abi::doca_verbs_qp_init_attr_set_send_cq(init, send));
    fails!(
        INVALID_VALUE,
        abi::doca_verbs_qp_init_attr_set_send_dpa_completion(init, comp)
    );
    ok!(abi::doca_verbs_qp_init_attr_set_receive_dpa_completion(
        init, comp
    ));
    fails!(
        INVALID_VALUE,
        abi::doca_verbs_qp_init_attr_set_receive_cq(init, recv)
    );
    // A DPA QP needs the external datapath.
    ok!(abi::doca_verbs_qp_init_attr_set_dpa(init, ctx.dpa));
    fails!(
        INVALID_VALUE,
        abi::doca_verbs_qp_create(vctx, init, &mut qp)
    );
    ok!(abi::doca_verbs_qp_init_attr_set_external_datapath_en(
        init, 1
    ));
    ok!(abi::doca_verbs_qp_create(vctx, init, &mut qp));
    let qpn = ffi!(abi::doca_verbs_qp_get_qpn(qp));
    assert_ne!(qpn, 0);
    let mut h = 0;
    let mut h2 = 0;
    ok!(abi::doca_verbs_qp_get_dpa_handle(qp, ctx.dpa, &mut h));
    ok!(abi::doca_verbs_qp_get_dpa_handle(qp, ctx.dpa, &mut h2));
    assert_eq!(h, h2);
    let stranger = Ctx::started(noop_app());
    fails!(
        INVALID_VALUE,
        abi::doca_verbs_qp_get_dpa_handle(qp, stranger.dpa, &mut h)
    );
    stranger.teardown();
    // What the QP uses stays in use.
    fails!(IN_USE, abi::doca_verbs_pd_destroy(p));
    fails!(IN_USE, abi::doca_verbs_cq_destroy(send));
    fails!(IN_USE, abi::doca_verbs_context_destroy(vctx));

    // A host QP has no DPA handle.
    let mut init2 = null_mut();
    ok!(abi::doca_verbs_qp_init_attr_create(&mut init2));
    ok!(abi::doca_verbs_qp_init_attr_set_pd(init2, p));
    ok!(abi::doca_verbs_qp_init_attr_set_receive_cq(init2, recv));
    fails!(
        INVALID_VALUE,
        abi::doca_verbs_qp_init_attr_set_receive_dpa_completion(init2, comp)
    );
    let mut host_qp = null_mut();
    ok!(abi::doca_verbs_qp_create(vctx, init2, &mut host_qp));
    fails!(
        INVALID_VALUE,
        abi::doca_verbs_qp_get_dpa_handle(host_qp, ctx.dpa, &mut h)
    );
    assert_ne!(ffi!(abi::doca_verbs_qp_get_qpn(host_qp)), qpn);

    // Connecting: RST -> INIT -> RTR -> RTS, with an address handle. The mask
    // names the attributes applied, with the header's bits.
    let mask = (abi::DOCA_VERBS_QP_ATTR_NEXT_STATE
        | abi::DOCA_VERBS_QP_ATTR_AH_ATTR
        | abi::DOCA_VERBS_QP_ATTR_PATH_MTU) as std::ffi::c_int;
    let mut attr = null_mut();
    ok!(abi::doca_verbs_qp_attr_create(&mut attr));
    fails!(
        INVALID_VALUE,
        abi::doca_verbs_qp_modify(host_qp, attr, mask)
    );
    let mut ah = null_mut();
    ok!(abi::doca_verbs_ah_attr_create(vctx, &mut ah));
    let gid = abi::doca_verbs_gid {
        raw: [0xfe; abi::DOCA_GID_BYTE_LENGTH as usize],
    };
    ok!(abi::doca_verbs_ah_attr_set_gid(ah, gid));
    ok!(abi::doca_verbs_ah_attr_set_addr_type(
        ah,
        abi::DOCA_VERBS_ADDR_TYPE_IPv4
    ));
    fails!(INVALID_VALUE, abi::doca_verbs_ah_attr_set_addr_type(ah, 9));
    ok!(abi::doca_verbs_ah_attr_set_sgid_index(ah, 0));
    ok!(abi::doca_verbs_qp_attr_set_ah_attr(attr, ah));
    ok!(abi::doca_verbs_qp_attr_set_path_mtu(
        attr,
        abi::DOCA_MTU_SIZE_1K_BYTES
    ));
    // Skipping INIT is refused; the documented order works.
    ok!(abi::doca_verbs_qp_attr_set_next_state(
        attr,
        abi::DOCA_VERBS_QP_STATE_RTR
    ));
    fails!(BAD_STATE, abi::doca_verbs_qp_modify(host_qp, attr, mask));
    for state in [
        abi::DOCA_VERBS_QP_STATE_INIT,
        abi::DOCA_VERBS_QP_STATE_RTR,
        abi::DOCA_VERBS_QP_STATE_RTS,
        abi::DOCA_VERBS_QP_STATE_RTS,
        abi::DOCA_VERBS_QP_STATE_ERR,
        abi::DOCA_VERBS_QP_STATE_RST,
    ] {
        ok!(abi::doca_verbs_qp_attr_set_next_state(attr, state));
        fails!(INVALID_VALUE, abi::doca_verbs_qp_modify(host_qp, attr, 0));
        ok!(abi::doca_verbs_qp_modify(host_qp, attr, mask));
    }
    fails!(
        INVALID_VALUE,
        abi::doca_verbs_qp_attr_set_next_state(attr, 9)
    );
    // Not modelled: queries. External memory must be a live UMEM or UAR.
    let mut mask = 0;
    fails!(
        NOT_SUPPORTED,
        abi::doca_verbs_qp_query(host_qp, attr, init2, &mut mask)
    );
    fails!(
        INVALID_VALUE,
        abi::doca_verbs_qp_init_attr_set_external_uar(init2, null_mut())
    );
    ok!(abi::doca_verbs_qp_attr_destroy(attr));
    ok!(abi::doca_verbs_ah_attr_destroy(ah));
    fails!(INVALID_VALUE, abi::doca_verbs_ah_attr_destroy(ah));

    ok!(abi::doca_verbs_qp_destroy(host_qp));
    ok!(abi::doca_verbs_qp_destroy(qp));
    fails!(INVALID_VALUE, abi::doca_verbs_qp_destroy(qp));
    assert_eq!(ffi!(abi::doca_verbs_qp_get_qpn(qp)), 0);
    ok!(abi::doca_verbs_qp_init_attr_destroy(init));
    ok!(abi::doca_verbs_qp_init_attr_destroy(init2));
    ok!(abi::doca_verbs_cq_destroy(send));
    ok!(abi::doca_verbs_cq_destroy(recv));
    ok!(abi::doca_verbs_pd_destroy(p));
    ok!(abi::doca_verbs_pd_destroy(foreign_pd));
    ok!(abi::doca_verbs_context_destroy(vctx));
    ok!(abi::doca_verbs_context_destroy(other_vctx));
    ok!(abi::doca_dpa_completion_destroy(comp));
    ctx.teardown();
    assert_no_leaks(&scope);
}
