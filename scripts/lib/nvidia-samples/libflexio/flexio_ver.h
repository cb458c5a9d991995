/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * Stand-in for FlexIO's version header, for building NVIDIA's DPA samples on
 * doca-sim (scripts/run-nvidia-samples.sh): the samples' shared code names
 * the FlexIO version it was written for with FLEXIO_VER.
 */
#ifndef DOCA_SIM_SAMPLES_FLEXIO_VER_H_
#define DOCA_SIM_SAMPLES_FLEXIO_VER_H_

#define FLEXIO_VER(major, minor, patch) (((major) << 16) | ((minor) << 8) | (patch))

#endif /* DOCA_SIM_SAMPLES_FLEXIO_VER_H_ */
