/*
 * Reference header written by the doca-rs project from public facts about the
 * DOCA C API; not NVIDIA's header.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */

/**
 * @file doca_compat.h
 * @brief Tier markers placed in front of every exported DOCA function.
 *
 * A function is tagged with one of three markers:
 *  - the stable marker: an ordinary exported symbol;
 *  - the experimental marker: exported too, but kept in its own text section,
 *    and any use draws a deprecation warning unless the program defines
 *    DOCA_ALLOW_EXPERIMENTAL_API before including DOCA headers;
 *  - the deprecated marker: the same idea, silenced by
 *    DOCA_ALLOW_DEPRECATED_API.
 *
 * The markers only change diagnostics and placement, never linkage. They take
 * effect on Linux hosts and in DPA device builds; elsewhere they expand to
 * nothing. This header stands alone and includes nothing.
 */

#ifndef DOCA_COMPAT_H_
#define DOCA_COMPAT_H_

#if defined(__linux__) || defined(DOCA_DPA_DEVICE)

/** Keep the symbol even if nothing in its own unit refers to it. */
#define DOCA_USED __attribute__((used))

/** A function that belongs to the supported, stable interface. */
#define DOCA_STABLE __attribute__((visibility("default"))) DOCA_USED

#ifdef DOCA_ALLOW_EXPERIMENTAL_API
/** An experimental function; the caller opted in, so no warning is raised. */
#define DOCA_EXPERIMENTAL __attribute__((section(".text.experimental"))) DOCA_STABLE
#else
/** An experimental function; each use warns until the caller opts in. */
#define DOCA_EXPERIMENTAL                                                                          \
	__attribute__((deprecated("Symbol is defined as experimental"), section(".text.experimental"))) \
	DOCA_STABLE
#endif

#ifdef DOCA_ALLOW_DEPRECATED_API
/** A deprecated function; the caller opted in, so no warning is raised. */
#define DOCA_DEPRECATED __attribute__((section(".text.deprecated"))) DOCA_STABLE
#else
/** A deprecated function; each use warns until the caller opts in. */
#define DOCA_DEPRECATED                                                                    \
	__attribute__((deprecated("Symbol is defined as deprecated"), section(".text.deprecated"))) \
	DOCA_STABLE
#endif

#else /* neither Linux nor a DPA device build */

#define DOCA_USED
#define DOCA_STABLE
#define DOCA_EXPERIMENTAL
#define DOCA_DEPRECATED

#endif

#endif /* DOCA_COMPAT_H_ */
