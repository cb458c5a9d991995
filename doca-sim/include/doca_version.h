/*
 * Reference header written by the doca-rs project from public facts about the
 * DOCA C API; not NVIDIA's header.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */

/**
 * @file doca_version.h
 * @brief The DOCA release these headers describe, and macros to compare releases.
 *
 * This uses the spelling of DOCA 2.7 and later (DOCA_VERSION_*). A release
 * string has the form "MAJOR.MINOR.PPPP": the four-digit last part is the patch
 * number, and its thousands digit is the public maintenance release (3.2.1025
 * belongs to release 3.2.1). Two encodings exist:
 *  - the exact number keeps the whole patch number;
 *  - the official number keeps only the public release, patch * 1000.
 * The comparison macros work on the official number.
 */

#ifndef DOCA_VERSION_H_
#define DOCA_VERSION_H_

#include <doca_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Major part of the release these headers describe. */
#define DOCA_VERSION_MAJOR 3
/** Minor part of the release these headers describe. */
#define DOCA_VERSION_MINOR 3
/** Patch (build) part of the release these headers describe, as a decimal number. */
#define DOCA_VERSION_PATCH 1
/** The release as text. */
#define DOCA_VERSION_STRING "3.3.0001"

/** Packs a release into one number, keeping the full patch number. */
#define DOCA_VERSION_CALC_EXACT(major, minor, patch) (((major) << 24) | ((minor) << 16) | (patch))

/** The exact number of the release these headers describe. */
#define DOCA_VERSION_EXACT DOCA_VERSION_CALC_EXACT(DOCA_VERSION_MAJOR, DOCA_VERSION_MINOR, DOCA_VERSION_PATCH)

/** Packs a public release (patch = maintenance release, 0 for the first one) into one number. */
#define DOCA_VERSION_CALC(major, minor, patch) (((major) << 24) | ((minor) << 16) | ((patch) * 1000))

/** The official number of the release these headers describe (build digits dropped). */
#define DOCA_VERSION_OFFICIAL DOCA_VERSION_CALC(DOCA_VERSION_MAJOR, DOCA_VERSION_MINOR, (DOCA_VERSION_PATCH / 1000))

/** True when the given public release is the one these headers describe. */
#define DOCA_VERSION_EQ_CURRENT(major, minor, patch) (DOCA_VERSION_CALC(major, minor, patch) == DOCA_VERSION_OFFICIAL)

/** True when the given public release is not newer than the one these headers describe. */
#define DOCA_VERSION_LTE_CURRENT(major, minor, patch) (DOCA_VERSION_CALC(major, minor, patch) <= DOCA_VERSION_OFFICIAL)

/**
 * @brief The release string of the headers the caller was compiled against.
 *
 * Defined here, inline; the library exports no symbol for it.
 *
 * @return DOCA_VERSION_STRING.
 */
static inline const char *doca_version(void)
{
	return DOCA_VERSION_STRING;
}

/**
 * @brief The release string of the DOCA library loaded at run time.
 *
 * Comparing it with doca_version() reveals a program running against a
 * different release than it was built for.
 *
 * @return a static, NUL-terminated string owned by the library.
 */
DOCA_EXPERIMENTAL
const char *doca_version_runtime(void);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_VERSION_H_ */
