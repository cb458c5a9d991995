/*
 * Reference header written by the doca-rs project from public facts about the
 * DOCA C API; not NVIDIA's header.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */

/**
 * @file doca_error.h
 * @brief The status code every fallible DOCA call returns, and helpers for it.
 *
 * Newer DOCA releases may add codes after the last one listed here, so code
 * that inspects a status must cope with values it does not know.
 */

#ifndef DOCA_ERROR_H_
#define DOCA_ERROR_H_

#include <doca_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Outcome of a DOCA call: DOCA_SUCCESS or one failure reason.
 */
typedef enum doca_error {
	DOCA_SUCCESS = 0,			 /**< The call did what was asked. */
	DOCA_ERROR_UNKNOWN = 1,			 /**< Failure with no more specific code. */
	DOCA_ERROR_NOT_PERMITTED = 2,		 /**< The caller may not do this. */
	DOCA_ERROR_IN_USE = 3,			 /**< Something else still holds the object. */
	DOCA_ERROR_NOT_SUPPORTED = 4,		 /**< This device or build lacks the feature. */
	DOCA_ERROR_AGAIN = 5,			 /**< Temporarily impossible; retrying later may work. */
	DOCA_ERROR_INVALID_VALUE = 6,		 /**< An argument was rejected. */
	DOCA_ERROR_NO_MEMORY = 7,		 /**< An allocation failed. */
	DOCA_ERROR_INITIALIZATION = 8,		 /**< Setting something up failed. */
	DOCA_ERROR_TIME_OUT = 9,		 /**< Gave up after waiting too long. */
	DOCA_ERROR_SHUTDOWN = 10,		 /**< The object is shutting down. */
	DOCA_ERROR_CONNECTION_RESET = 11,	 /**< The peer reset the connection. */
	DOCA_ERROR_CONNECTION_ABORTED = 12,	 /**< The connection was torn down. */
	DOCA_ERROR_CONNECTION_INPROGRESS = 13,	 /**< A connection is still being made. */
	DOCA_ERROR_NOT_CONNECTED = 14,		 /**< Nothing is connected (for contexts: no progress engine and no offloaded datapath). */
	DOCA_ERROR_NO_LOCK = 15,		 /**< A lock could not be taken. */
	DOCA_ERROR_NOT_FOUND = 16,		 /**< The item looked for does not exist. */
	DOCA_ERROR_IO_FAILED = 17,		 /**< An input/output operation failed. */
	DOCA_ERROR_BAD_STATE = 18,		 /**< Not allowed in the object's current lifecycle state. */
	DOCA_ERROR_UNSUPPORTED_VERSION = 19,	 /**< A version does not match what is needed. */
	DOCA_ERROR_OPERATING_SYSTEM = 20,	 /**< An operating-system call failed. */
	DOCA_ERROR_DRIVER = 21,			 /**< The driver or firmware reported a failure. */
	DOCA_ERROR_UNEXPECTED = 22,		 /**< An internal invariant did not hold. */
	DOCA_ERROR_ALREADY_EXIST = 23,		 /**< The item is already there. */
	DOCA_ERROR_FULL = 24,			 /**< No room left. */
	DOCA_ERROR_EMPTY = 25,			 /**< Nothing to take. */
	DOCA_ERROR_IN_PROGRESS = 26,		 /**< Started, and will finish asynchronously. */
	DOCA_ERROR_TOO_BIG = 27,		 /**< A size is over the limit. */
	DOCA_ERROR_AUTHENTICATION = 28,		 /**< Authentication was refused. */
	DOCA_ERROR_BAD_CONFIG = 29,		 /**< The configuration is not valid. */
	DOCA_ERROR_SKIPPED = 30,		 /**< The operation was deliberately not performed. */
} doca_error_t;

/**
 * @brief Non-zero when a status is anything other than DOCA_SUCCESS.
 *
 * The compiler is told that failures are the rare case.
 */
#if defined(__GNUC__) || defined(__clang__)
#define DOCA_IS_ERROR(r) __builtin_expect(!!((r) != DOCA_SUCCESS), 0)
#else
#define DOCA_IS_ERROR(r) ((r) != DOCA_SUCCESS)
#endif

/**
 * @brief Records status t in variable r unless r already holds a failure.
 *
 * Handy in cleanup paths that run several steps and must report the first
 * thing that went wrong.
 */
#define DOCA_ERROR_PROPAGATE(r, t)                                                                  \
	do {                                                                                        \
		if ((r) == DOCA_SUCCESS)                                                            \
			(r) = (t);                                                                  \
	} while (0)

/**
 * @brief Short symbolic name of a status, such as "DOCA_ERROR_BAD_STATE".
 *
 * @param [in] error the status to name.
 * @return a static, NUL-terminated string owned by the library; a code the
 * library does not know gets a fixed placeholder text, never NULL.
 */
DOCA_STABLE
const char *doca_error_get_name(doca_error_t error);

/**
 * @brief One-line human-readable explanation of a status.
 *
 * @param [in] error the status to explain.
 * @return a static, NUL-terminated string owned by the library; a code the
 * library does not know gets a fixed placeholder text, never NULL.
 */
DOCA_STABLE
const char *doca_error_get_descr(doca_error_t error);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ERROR_H_ */
