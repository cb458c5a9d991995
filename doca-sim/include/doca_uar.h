/*
 * Reference header written by the doca-rs project from public facts about the
 * DOCA C API; not NVIDIA's header.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */

/**
 * @file doca_uar.h
 * @brief DOCA UAR: a user access region, the doorbell page through which a
 * queue's owner tells the device there is new work.
 *
 * This reference header holds the DPA form only (DOCA 3.2 and later, hence
 * the release guard): a UAR a DPA context's kernels ring, which a verbs queue
 * pair on the DPA datapath takes as its external UAR.
 */

#ifndef DOCA_UAR_H_
#define DOCA_UAR_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>
#include <doca_version.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A DPA context (see doca_dpa.h). */
struct doca_dpa;
/** A user access region. */
struct doca_uar;

#if DOCA_VERSION_LTE_CURRENT(3, 2, 0)
/**
 * @brief Allocates a UAR for a DPA context's kernels.
 *
 * @param [in] dpa the started DPA context.
 * @param [out] uar receives the UAR.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_BAD_STATE when the DPA context is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_uar_dpa_create(struct doca_dpa *dpa, struct doca_uar **uar);

/**
 * @brief Frees a UAR.
 *
 * @param [in] uar the UAR.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_IN_USE while a queue pair uses it.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_uar_destroy(struct doca_uar *uar);
#endif /* DOCA 3.2 */

#ifdef __cplusplus
}
#endif

#endif /* DOCA_UAR_H_ */
