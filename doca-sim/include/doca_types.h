/*
 * Reference header written by the doca-rs project from public facts about the
 * DOCA C API; not NVIDIA's header.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */

/**
 * @file doca_types.h
 * @brief Small shared types used across the DOCA libraries.
 *
 * It needs the C standard integer types and, on Linux, the kernel's <linux/types.h>.
 */

#ifndef DOCA_TYPES_H_
#define DOCA_TYPES_H_

#include <stdint.h>
#ifdef __linux__
#include <linux/types.h>
#endif

/** Bytes of a GID (a port's 128-bit global identifier). */
#define DOCA_GID_BYTE_LENGTH 16

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief An opaque 8-byte slot for caller data, seen either as a pointer or as a number.
 */
union doca_data {
	void *ptr;    /**< The slot read as a pointer. */
	uint64_t u64; /**< The slot read as an unsigned 64-bit number. */
};

/**
 * @brief Access rights that can be granted on registered memory.
 *
 * Values are bits and may be combined with bitwise OR.
 */
enum doca_access_flag {
	DOCA_ACCESS_FLAG_LOCAL_READ_ONLY = 0,	       /**< Only the local side may read. */
	DOCA_ACCESS_FLAG_LOCAL_READ_WRITE = (1 << 0),   /**< The local side may read and write. */
	DOCA_ACCESS_FLAG_RDMA_READ = (1 << 1),	       /**< Remote peers may read through RDMA. */
	DOCA_ACCESS_FLAG_RDMA_WRITE = (1 << 2),	       /**< Remote peers may write through RDMA. */
	DOCA_ACCESS_FLAG_RDMA_ATOMIC = (1 << 3),	       /**< Remote peers may run RDMA atomics. */
	DOCA_ACCESS_FLAG_PCI_READ_ONLY = (1 << 4),      /**< The PCI peer may read. */
	DOCA_ACCESS_FLAG_PCI_READ_WRITE = (1 << 5),     /**< The PCI peer may read and write. */
	DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING = (1 << 6), /**< PCI accesses may use relaxed ordering. */
};

/**
 * @brief The kind of PCI function a device is.
 */
enum doca_pci_func_type {
	DOCA_PCI_FUNC_TYPE_PF = 0, /**< A physical function. */
	DOCA_PCI_FUNC_TYPE_VF,	   /**< A virtual function (SR-IOV). */
	DOCA_PCI_FUNC_TYPE_SF,	   /**< A scalable (sub-)function. */
};

/**
 * @brief Where GPU-visible memory lives (DOCA GPUNetIO; doca-sim has no GPU).
 */
enum doca_gpu_mem_type {
	DOCA_GPU_MEM_TYPE_GPU = 0,     /**< GPU memory. */
	DOCA_GPU_MEM_TYPE_GPU_CPU = 1, /**< GPU memory the CPU can reach. */
	DOCA_GPU_MEM_TYPE_CPU_GPU = 2, /**< CPU memory the GPU can reach. */
};

/**
 * @brief How Ethernet sends wait for their time slot.
 */
enum doca_eth_wait_on_time_type {
	DOCA_ETH_WAIT_ON_TIME_TYPE_NONE = 0,   /**< Not supported. */
	DOCA_ETH_WAIT_ON_TIME_TYPE_NATIVE = 1, /**< Done by the device. */
	DOCA_ETH_WAIT_ON_TIME_TYPE_DPDK = 2,   /**< Done the DPDK way. */
};

/**
 * @brief Maximum transmission units of a port or path.
 */
enum doca_mtu_size {
	DOCA_MTU_SIZE_256_BYTES = 0x0,	/**< 256 bytes. */
	DOCA_MTU_SIZE_512_BYTES = 0x1,	/**< 512 bytes. */
	DOCA_MTU_SIZE_1K_BYTES = 0x2,	/**< 1024 bytes. */
	DOCA_MTU_SIZE_2K_BYTES = 0x3,	/**< 2048 bytes. */
	DOCA_MTU_SIZE_4K_BYTES = 0x4,	/**< 4096 bytes. */
	DOCA_MTU_SIZE_RAW_ETHERNET = 0x5, /**< Raw Ethernet (not an RDMA MTU). */
};

/** An operating-system handle that can be waited on (a file descriptor on Linux). */
typedef int doca_event_handle_t;

/** A doca_event_handle_t that refers to nothing (no file descriptor). */
#define doca_event_invalid_handle -1

/** The handle a progress engine hands out for event-driven waiting. */
typedef doca_event_handle_t doca_notification_handle_t;

/** One element of a gather list: a memory range, then the next element. */
struct doca_gather_list {
	void *addr;			/**< Where the range starts. */
	uint64_t len;			/**< Its length in bytes. */
	struct doca_gather_list *next;	/**< The next element, NULL after the last. */
};

/*
 * Values stored big-endian (network order). On Linux DOCA takes them from the
 * kernel's <linux/types.h> (`__be64` is an `unsigned long long` there), elsewhere
 * from the C standard types, as the DOCA 3.0 header does.
 */
#ifdef __linux__
/** A 16-bit value stored big-endian (network order). */
typedef __be16 doca_be16_t;
/** A 32-bit value stored big-endian (network order). */
typedef __be32 doca_be32_t;
/** A 64-bit value stored big-endian (network order). */
typedef __be64 doca_be64_t;
#else
/** A 16-bit value stored big-endian (network order). */
typedef uint16_t doca_be16_t;
/** A 32-bit value stored big-endian (network order). */
typedef uint32_t doca_be32_t;
/** A 64-bit value stored big-endian (network order). */
typedef uint64_t doca_be64_t;
#endif

#ifdef __cplusplus
}
#endif

#endif /* DOCA_TYPES_H_ */
