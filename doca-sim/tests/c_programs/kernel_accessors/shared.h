/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * What the accessor kernel reports back to the host, in DPA memory.
 */
#ifndef KERNEL_ACCESSORS_SHARED_H_
#define KERNEL_ACCESSORS_SHARED_H_

#include <stdint.h>

struct accessor_results {
	uint64_t buf_len;
	uint64_t buf_mmap;
	uint64_t first_word;
	uint64_t wqe_counter;
	uint64_t received_bytes;
	uint64_t error_syndrome;
	uint64_t vendor_error_syndrome;
	uint64_t zeros; /* swqe_opcode | srqn | qpn | timestamp of both elements: all 0 in the sim */
	uint64_t wr_index;
};

#endif /* KERNEL_ACCESSORS_SHARED_H_ */
