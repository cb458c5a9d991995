/*
 * Reference header written by the doca-rs project from public facts about the
 * DOCA C API; not NVIDIA's header.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */

/**
 * @file doca_mmap.h
 * @brief Memory maps: a memory range registered with one or more devices.
 *
 * A map is created, given a memory range, permissions and the devices that
 * will access it, then started. A map can also describe memory on the DPA heap
 * (doca_mmap_set_dpa_memrange()), and a started map can be handed to DPA
 * kernels (doca_mmap_dev_get_dpa_handle()). This reference header declares
 * only the calls a DPA program needs.
 */

#ifndef DOCA_MMAP_H_
#define DOCA_MMAP_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A memory map. */
struct doca_mmap;
/** An opened device (see doca_dev.h). */
struct doca_dev;
/** A DPA context (see doca_dpa.h). */
struct doca_dpa;

/**
 * How DPA kernels refer to a memory map.
 *
 * Unlike the other DPA handles this one is 32 bits wide, which matters when it
 * is passed as a variadic kernel argument.
 */
typedef uint32_t doca_dpa_dev_mmap_t;

/**
 * @brief Creates an empty memory map.
 *
 * @param [out] mmap receives the map; destroy it with doca_mmap_destroy().
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * another DOCA error code when it cannot be created.
 */
DOCA_STABLE
doca_error_t doca_mmap_create(struct doca_mmap **mmap);

/**
 * @brief Destroys a memory map.
 *
 * @param [in] mmap the map.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL map;
 * another DOCA error code while the map is still in use.
 */
DOCA_STABLE
doca_error_t doca_mmap_destroy(struct doca_mmap *mmap);

/**
 * @brief Registers the configured range with the added devices; configuration ends here.
 *
 * @param [in] mmap the map.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL map;
 * another DOCA error code when the configuration is incomplete or registration fails.
 */
DOCA_STABLE
doca_error_t doca_mmap_start(struct doca_mmap *mmap);

/**
 * @brief Undoes doca_mmap_start().
 *
 * @param [in] mmap the map.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL map.
 */
DOCA_STABLE
doca_error_t doca_mmap_stop(struct doca_mmap *mmap);

/**
 * @brief Adds a device that will access the map's memory.
 *
 * Not allowed on a map that describes DPA heap memory.
 *
 * @param [in] mmap the map, not started.
 * @param [in] dev the device.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * another DOCA error code when the map is started or describes DPA memory.
 */
DOCA_STABLE
doca_error_t doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev);

/**
 * @brief Sets the host memory range the map covers.
 *
 * @param [in] mmap the map, not started.
 * @param [in] addr start of the range.
 * @param [in] len length of the range in bytes.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL map or an empty range.
 */
DOCA_STABLE
doca_error_t doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len);

/**
 * @brief Sets who may access the memory.
 *
 * @param [in] mmap the map, not started.
 * @param [in] access_mask a bitwise OR of enum doca_access_flag values.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL map or a bad mask.
 */
DOCA_STABLE
doca_error_t doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask);

/**
 * @brief Produces the handle DPA kernels use to reach the map through one device.
 *
 * @param [in] mmap the started map.
 * @param [in] dev a device that was added to the map.
 * @param [out] dpa_mmap_handle receives the handle.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_NOT_PERMITTED when the map is not started;
 * DOCA_ERROR_NOT_FOUND when the device was never added to the map.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_mmap_dev_get_dpa_handle(struct doca_mmap *mmap, const struct doca_dev *dev,
					  doca_dpa_dev_mmap_t *dpa_mmap_handle);

/**
 * @brief Makes the map describe a range of DPA heap memory instead of host memory.
 *
 * May be called once, before the map is started; the map then accepts no
 * doca_mmap_add_dev().
 *
 * @param [in] mmap the map, not started.
 * @param [in] dpa the DPA context that owns the memory.
 * @param [in] dpa_addr start of the range on the DPA heap (see doca_dpa_mem_alloc()).
 * @param [in] len length of the range in bytes.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a bad argument;
 * another DOCA error code when the map is started or already has a range.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_mmap_set_dpa_memrange(struct doca_mmap *mmap, struct doca_dpa *dpa, uint64_t dpa_addr, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_MMAP_H_ */
