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
 * Which DOCA these reference headers follow, part by part:
 *  - DOCA Core and DPA host headers (doca_compat.h, doca_error.h, doca_types.h,
 *    doca_version.h, doca_dev.h, doca_ctx.h, doca_pe.h, doca_sync_event.h,
 *    doca_mmap.h, doca_dpa.h): the DOCA 3.0 surface (3.0.0058), item for item
 *    where they overlap;
 *  - the DPA device headers (device-include/): DOCA 3.0, plus the
 *    completion-element accessors of a DOCA 3.2/3.3 doca_dpa_dev.h;
 *  - doca_verbs.h: a post-3.0 copy; the RDMI headers: inferred, no public
 *    header is known;
 *  - the release number below: 3.3, the newest release any part follows (so
 *    that builds against these headers take the newest dpacc command line and
 *    version cfgs). The patch number 1 is nominal. The software DPA reports
 *    the same version at run time by default.
 *
 * Declarations newer than DOCA 3.0 are inside
 * #if DOCA_VERSION_LTE_CURRENT(X, Y, 0), X.Y the release that added them, so
 * these headers with an older release written below declare what that release
 * does. A sim build claiming an older release (DOCA_SIM_VERSION) reads a copy
 * of these headers with that release written here.
 *
 * This uses the spelling of DOCA 2.7 and later (DOCA_VERSION_*), in the shape
 * of DOCA 3.0. A release string has the form "MAJOR.MINOR.PPPP", PPPP being the
 * patch number. Two encodings exist, both from the three macros below:
 *  - the exact number keeps the patch number as it is;
 *  - the official number multiplies it by 1000.
 * The comparison macros work on the official number, so they take the same
 * three numbers as the release string: DOCA_VERSION_EQ_CURRENT(3, 3, 1) is true
 * here.
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

/** Packs a release into one number, the patch number scaled by 1000. */
#define DOCA_VERSION_CALC(major, minor, patch) (((major) << 24) | ((minor) << 16) | ((patch) * 1000))

/** The official number of the release these headers describe (the patch number as it is, scaled). */
#define DOCA_VERSION_OFFICIAL DOCA_VERSION_CALC(DOCA_VERSION_MAJOR, DOCA_VERSION_MINOR, DOCA_VERSION_PATCH)

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
