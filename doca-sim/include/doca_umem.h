/*
 * Reference header written by the doca-rs project from public facts about the
 * DOCA C API; not NVIDIA's header.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */

/**
 * @file doca_umem.h
 * @brief DOCA UMEM: memory registered for a device's own use (the rings and
 * doorbell records of a queue pair the application lays out itself).
 *
 * This reference header holds the DPA form only (DOCA 3.2 and later, hence
 * the release guard): memory of a DPA context's heap registered as a UMEM,
 * which a verbs queue pair on the DPA datapath takes as external memory.
 */

#ifndef DOCA_UMEM_H_
#define DOCA_UMEM_H_

#include <stddef.h>
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
/** Registered memory. */
struct doca_umem;

#if DOCA_VERSION_LTE_CURRENT(3, 2, 0)
/**
 * @brief Registers DPA heap memory as a UMEM.
 *
 * @param [in] dpa the started DPA context whose heap holds the memory.
 * @param [in] address the memory's DPA address (from doca_dpa_mem_alloc).
 * @param [in] size its length in bytes (not 0).
 * @param [in] access_flags what the device may do with it (enum doca_access_flag bits).
 * @param [out] umem receives the UMEM.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument
 * or a range outside the context's heap; DOCA_ERROR_BAD_STATE when the DPA
 * context is not started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_umem_dpa_create(struct doca_dpa *dpa, uint64_t address, size_t size, uint32_t access_flags,
				  struct doca_umem **umem);

/**
 * @brief Deregisters a UMEM (its memory stays allocated).
 *
 * @param [in] umem the UMEM.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * DOCA_ERROR_IN_USE while a queue pair uses it.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_umem_destroy(struct doca_umem *umem);
#endif /* DOCA 3.2 */

#ifdef __cplusplus
}
#endif

#endif /* DOCA_UMEM_H_ */
