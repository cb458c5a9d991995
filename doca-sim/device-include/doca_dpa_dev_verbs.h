/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * doca-sim device-side header: DPA Verbs. Written by the doca-rs project;
 * not NVIDIA's header.
 *
 * DPA Verbs (work requests built and posted by a kernel on a verbs QP,
 * libdoca_dpa_dev_verbs) arrived with DOCA 3.2 and is outside the 3.0
 * surface doca-sim models, so including this header stops the build with
 * the reason, rather than a missing-file error or declarations that would
 * link and then do nothing. DPA-initiated RDMA on the sim goes through DOCA
 * RDMI (connections and posters; the device side is in doca_sim_dev.h).
 */
#ifndef DOCA_DPA_DEV_VERBS_H_
#define DOCA_DPA_DEV_VERBS_H_

#error "doca-sim does not model DPA Verbs (doca_dpa_dev_verbs.h, DOCA 3.2+): build this kernel for hardware with dpacc, or use DOCA RDMI for DPA-initiated RDMA on the software DPA"

#endif /* DOCA_DPA_DEV_VERBS_H_ */
