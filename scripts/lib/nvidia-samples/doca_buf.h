/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Stand-in for DOCA's doca_buf.h, written by the doca-rs project for building
 * NVIDIA's DPA samples on doca-sim, which models no DOCA buffers: the
 * samples' shared common.h names the type in prototypes the DPA samples do
 * not call, so a declaration of the type is all it needs.
 */
#ifndef DOCA_SIM_STANDIN_DOCA_BUF_H_
#define DOCA_SIM_STANDIN_DOCA_BUF_H_

struct doca_buf;

#endif
