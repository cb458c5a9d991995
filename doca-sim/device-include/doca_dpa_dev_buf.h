/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * doca-sim device-side header: DOCA buffers and memory maps seen from a DPA
 * kernel. Written by the doca-rs project from public facts; not NVIDIA's
 * header.
 *
 * A doca_dpa_dev_buf_t is the DPA address of a struct doca_dpa_dev_buf and a
 * doca_dpa_dev_buf_arr_t that of a struct doca_dpa_dev_buf_arr; the accessors
 * read and write those structures in place. The layouts are this header's
 * (the sim's): DOCA's host buffer-array API, which fills them on hardware, is
 * not part of the reference headers, so in the sim a program lays them out
 * itself, in DPA memory or host memory.
 */
#ifndef DOCA_DPA_DEV_BUF_H_
#define DOCA_DPA_DEV_BUF_H_

#include <doca_dpa_dev.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A memory map handle (doca_mmap_dev_get_dpa_handle()). */
typedef uint32_t doca_dpa_dev_mmap_t;
/** The DPA address of a struct doca_dpa_dev_buf. */
typedef uint64_t doca_dpa_dev_buf_t;
/** The DPA address of a struct doca_dpa_dev_buf_arr. */
typedef uint64_t doca_dpa_dev_buf_arr_t;

/** A buffer: a range of a memory map. */
struct doca_dpa_dev_buf {
	uintptr_t addr;		  /**< Start of the range. */
	uint64_t len;		  /**< Its length in bytes. */
	doca_dpa_dev_mmap_t mmap; /**< The map it belongs to. */
	uint32_t reserved;	  /**< Keeps the layout 8-byte aligned. */
};

/** An array of buffers. */
struct doca_dpa_dev_buf_arr {
	struct doca_dpa_dev_buf *bufs; /**< The buffers. */
	uint64_t reserved;	       /**< Unused. */
};

/** The buffer at `buf_idx` of an array. */
__forceinline doca_dpa_dev_buf_t doca_dpa_dev_buf_array_get_buf(doca_dpa_dev_buf_arr_t buf_arr, const uint64_t buf_idx)
{
	return (doca_dpa_dev_buf_t)(uintptr_t)&((struct doca_dpa_dev_buf_arr *)(uintptr_t)buf_arr)->bufs[buf_idx];
}

/** Sets a buffer's start. */
__forceinline void doca_dpa_dev_buf_set_addr(doca_dpa_dev_buf_t buf, uintptr_t addr)
{
	((struct doca_dpa_dev_buf *)(uintptr_t)buf)->addr = addr;
}

/** Sets a buffer's length. */
__forceinline void doca_dpa_dev_buf_set_len(doca_dpa_dev_buf_t buf, size_t len)
{
	((struct doca_dpa_dev_buf *)(uintptr_t)buf)->len = len;
}

/** Sets a buffer's memory map. */
__forceinline void doca_dpa_dev_buf_set_mmap(doca_dpa_dev_buf_t buf, doca_dpa_dev_mmap_t mmap)
{
	((struct doca_dpa_dev_buf *)(uintptr_t)buf)->mmap = mmap;
}

/** A buffer's start. */
__forceinline uintptr_t doca_dpa_dev_buf_get_addr(doca_dpa_dev_buf_t buf)
{
	return ((struct doca_dpa_dev_buf *)(uintptr_t)buf)->addr;
}

/** A buffer's length. */
__forceinline uint64_t doca_dpa_dev_buf_get_len(doca_dpa_dev_buf_t buf)
{
	return ((struct doca_dpa_dev_buf *)(uintptr_t)buf)->len;
}

/** A buffer's memory map. */
__forceinline doca_dpa_dev_mmap_t doca_dpa_dev_buf_get_mmap(doca_dpa_dev_buf_t buf)
{
	return ((struct doca_dpa_dev_buf *)(uintptr_t)buf)->mmap;
}

/**
 * The address a kernel reads or writes the memory at `addr` of a map through.
 * In the sim the map's memory is directly addressable, so this is `addr`
 * once the handle is checked: a handle that is not live, or an address
 * outside the map, is a device fault.
 */
doca_dpa_dev_uintptr_t doca_dpa_dev_mmap_get_external_ptr(doca_dpa_dev_mmap_t mmap_handle, uint64_t addr);

/** doca_dpa_dev_mmap_get_external_ptr() of a buffer's map and start. */
doca_dpa_dev_uintptr_t doca_dpa_dev_buf_get_external_ptr(doca_dpa_dev_buf_t buf);

/**
 * Posts, on async ops, a copy of the source buffer's bytes into the
 * destination buffer; the attached completion context reports it. For DPA
 * threads only. In the sim the copy is made when posted; a handle that is not
 * live, a buffer outside its map, a destination shorter than the source,
 * overlapping buffers or unknown flags are a device fault.
 */
void doca_dpa_dev_post_buf_memcpy(doca_dpa_dev_async_ops_t async_ops_handle, doca_dpa_dev_buf_t dst_buf_handle,
				  doca_dpa_dev_buf_t src_buf_handle, uint32_t flags);

/**
 * Posts, on async ops, a copy of `length` bytes between two memory maps; the
 * attached completion context reports it. For DPA threads only. In the sim the
 * copy is made when posted; bad handles, ranges outside their maps,
 * overlapping ranges or unknown flags are a device fault.
 */
void doca_dpa_dev_post_memcpy(doca_dpa_dev_async_ops_t async_ops_handle, doca_dpa_dev_mmap_t dst_mmap_handle,
			      uint64_t dst_addr, doca_dpa_dev_mmap_t src_mmap_handle, uint64_t src_addr, size_t length,
			      uint32_t flags);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DPA_DEV_BUF_H_ */
