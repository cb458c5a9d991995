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

/** Description of a device (doca_dev.h). */
struct doca_devinfo;

/**
 * @brief Called when a memory map that owns its memory range is destroyed.
 *
 * @param addr the start of the range given to doca_mmap_set_memrange().
 * @param len its length.
 * @param opaque the pointer given to doca_mmap_set_free_cb().
 */
typedef void(doca_mmap_memrange_free_cb_t)(void *addr, size_t len, void *opaque);

/**
 * @brief Removes a device added with doca_mmap_add_dev() (before start).
 *
 * @param [in] mmap the memory map.
 * @param [in] dev the device.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_BAD_STATE when the map is started; DOCA_ERROR_NOT_FOUND when the device
 * was not added.
 */
DOCA_STABLE
doca_error_t doca_mmap_rm_dev(struct doca_mmap *mmap, struct doca_dev *dev);

/**
 * @brief Exports a started map to the other side of a PCI link.
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] mmap the memory map.
 * @param [in] dev the device of the link.
 * @param [out] export_desc receives the descriptor.
 * @param [out] export_desc_len receives its length.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_STABLE
doca_error_t doca_mmap_export_pci(struct doca_mmap *mmap, const struct doca_dev *dev, const void **export_desc,
				  size_t *export_desc_len);

/**
 * @brief Exports a started map for RDMA peers, for doca_mmap_create_from_export().
 *
 * doca-sim: the descriptor holds the map's host range and permissions, for
 * this process (a loopback); it stays valid until the map is destroyed.
 *
 * @param [in] mmap the memory map.
 * @param [in] dev a device added to the map.
 * @param [out] export_desc receives the descriptor.
 * @param [out] export_desc_len receives its length.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_BAD_STATE when the map is not started; DOCA_ERROR_NOT_FOUND when the
 * device was not added; DOCA_ERROR_NOT_SUPPORTED for a map of DPA memory.
 */
DOCA_STABLE
doca_error_t doca_mmap_export_rdma(struct doca_mmap *mmap, const struct doca_dev *dev, const void **export_desc,
				   size_t *export_desc_len);

/**
 * @brief Creates a map of the memory another map exported.
 *
 * doca-sim: from an RDMA export of this process; the new map is started, has
 * `dev` added and the exporter's range and permissions. It does not own the
 * memory.
 *
 * @param [in] user_data the new map's user data (NULL: zero).
 * @param [in] export_desc the descriptor.
 * @param [in] export_desc_len its length.
 * @param [in] dev the device to reach the memory through.
 * @param [out] mmap receives the map; destroy it with doca_mmap_destroy().
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument or a
 * descriptor that is not an export.
 */
DOCA_STABLE
doca_error_t doca_mmap_create_from_export(const union doca_data *user_data, const void *export_desc,
					  size_t export_desc_len, struct doca_dev *dev, struct doca_mmap **mmap);

/**
 * @brief Sets a memory range backed by a dma-buf (before start).
 *
 * Not modelled by doca-sim: returns DOCA_ERROR_NOT_SUPPORTED.
 *
 * @param [in] mmap the memory map.
 * @param [in] dmabuf_fd the dma-buf's file descriptor.
 * @param [in] addr the range's address.
 * @param [in] dmabuf_offset the range's offset in the dma-buf.
 * @param [in] len the range's length.
 * @return DOCA_SUCCESS on success; a DOCA error code otherwise.
 */
DOCA_STABLE
doca_error_t doca_mmap_set_dmabuf_memrange(struct doca_mmap *mmap, int dmabuf_fd, void *addr, size_t dmabuf_offset,
					   size_t len);

/**
 * @brief Reads the map's host memory range.
 *
 * @param [in] mmap the memory map.
 * @param [out] addr receives its start.
 * @param [out] len receives its length.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 * DOCA_ERROR_BAD_STATE when no host range was set.
 */
DOCA_STABLE
doca_error_t doca_mmap_get_memrange(const struct doca_mmap *mmap, void **addr, size_t *len);

/**
 * @brief Gives the map ownership of its memory range: `free_cb` is called with
 * the range and `opaque` when the map is destroyed (before start).
 *
 * @param [in] mmap the memory map.
 * @param [in] free_cb the callback.
 * @param [in] opaque passed to it.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL callback;
 * DOCA_ERROR_BAD_STATE when the map is started.
 */
DOCA_STABLE
doca_error_t doca_mmap_set_free_cb(struct doca_mmap *mmap, doca_mmap_memrange_free_cb_t *free_cb, void *opaque);

/**
 * @brief Reads the map's user data.
 *
 * @param [in] mmap the memory map.
 * @param [out] user_data receives it.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_mmap_get_user_data(const struct doca_mmap *mmap, union doca_data *user_data);

/**
 * @brief Reads how many devices may be added to the map.
 *
 * @param [in] mmap the memory map.
 * @param [out] max_num_devices receives the number.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_mmap_get_max_num_devices(const struct doca_mmap *mmap, uint32_t *max_num_devices);

/**
 * @brief Reads how many buffers of a buffer inventory refer to the map.
 *
 * doca-sim: always 0 (buffer inventories are not modelled).
 *
 * @param [in] mmap the memory map.
 * @param [out] num_bufs receives the number.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_mmap_get_num_bufs(const struct doca_mmap *mmap, uint32_t *num_bufs);

/**
 * @brief Tells whether the map was exported.
 *
 * @param [in] mmap the memory map.
 * @param [out] exported receives 1 after an export, 0 otherwise.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_mmap_get_exported(const struct doca_mmap *mmap, uint8_t *exported);

/**
 * @brief Tells whether the map was created from an export.
 *
 * @param [in] mmap the memory map.
 * @param [out] from_export receives 1 for a map made by doca_mmap_create_from_export(), 0 otherwise.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_mmap_get_from_export(const struct doca_mmap *mmap, uint8_t *from_export);

/**
 * @brief Sets how many devices may be added to the map (before start).
 *
 * doca-sim: until it is set there is no limit (doca_mmap_get_max_num_devices()
 * reads UINT32_MAX); once set, adding more devices is DOCA_ERROR_NO_MEMORY.
 *
 * @param [in] mmap the memory map.
 * @param [in] max_num_devices the number, at least 1.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for 0 or fewer than
 * already added; DOCA_ERROR_BAD_STATE when the map is started.
 */
DOCA_STABLE
doca_error_t doca_mmap_set_max_num_devices(struct doca_mmap *mmap, uint32_t max_num_devices);

/**
 * @brief Sets the map's user data.
 *
 * @param [in] mmap the memory map.
 * @param [in] user_data the data.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL map;
 * DOCA_ERROR_BAD_STATE when the map is started.
 */
DOCA_STABLE
doca_error_t doca_mmap_set_user_data(struct doca_mmap *mmap, union doca_data user_data);

/**
 * @brief Tells whether maps can be exported over PCI from a device.
 *
 * doca-sim: always 0.
 *
 * @param [in] devinfo the device.
 * @param [out] mmap_export receives 1 when supported, 0 otherwise.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_mmap_cap_is_export_pci_supported(const struct doca_devinfo *devinfo, uint8_t *mmap_export);

/**
 * @brief Tells whether maps can be created from a PCI export on a device.
 *
 * doca-sim: always 0.
 *
 * @param [in] devinfo the device.
 * @param [out] from_export receives 1 when supported, 0 otherwise.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE
doca_error_t doca_mmap_cap_is_create_from_export_pci_supported(const struct doca_devinfo *devinfo, uint8_t *from_export);

/**
 * @brief Makes the map safe to use from several threads (before start).
 *
 * doca-sim: maps are always safe to share; the call only checks the state.
 *
 * @param [in] mmap the memory map.
 * @return DOCA_SUCCESS on success; DOCA_ERROR_INVALID_VALUE for a NULL map;
 * DOCA_ERROR_BAD_STATE when the map is started.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_mmap_enable_thread_safety(struct doca_mmap *mmap);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_MMAP_H_ */
