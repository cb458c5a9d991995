//! DOCA error codes as the sim reports them, and the sim's internal error type.

use std::ffi::CStr;

/// The raw integer of a `doca_error_t`.
pub(crate) type Code = u32;

/// Names and descriptions of every code of `doca_error.h`, indexed by value.
/// The descriptions are the sim's own wording.
const TABLE: [(&CStr, &CStr); 31] = [
    (c"DOCA_SUCCESS", c"Success"),
    (c"DOCA_ERROR_UNKNOWN", c"Unknown error"),
    (c"DOCA_ERROR_NOT_PERMITTED", c"Operation not permitted"),
    (c"DOCA_ERROR_IN_USE", c"Resource is still in use"),
    (c"DOCA_ERROR_NOT_SUPPORTED", c"Operation not supported"),
    (
        c"DOCA_ERROR_AGAIN",
        c"Resource temporarily unavailable, try again",
    ),
    (c"DOCA_ERROR_INVALID_VALUE", c"Invalid input value"),
    (c"DOCA_ERROR_NO_MEMORY", c"Memory allocation failed"),
    (c"DOCA_ERROR_INITIALIZATION", c"Initialization failed"),
    (c"DOCA_ERROR_TIME_OUT", c"Timer expired"),
    (c"DOCA_ERROR_SHUTDOWN", c"Shut down in progress"),
    (c"DOCA_ERROR_CONNECTION_RESET", c"Connection reset by peer"),
    (c"DOCA_ERROR_CONNECTION_ABORTED", c"Connection aborted"),
    (
        c"DOCA_ERROR_CONNECTION_INPROGRESS",
        c"Connection in progress",
    ),
    (c"DOCA_ERROR_NOT_CONNECTED", c"Not connected"),
    (c"DOCA_ERROR_NO_LOCK", c"Unable to acquire a lock"),
    (c"DOCA_ERROR_NOT_FOUND", c"Resource not found"),
    (c"DOCA_ERROR_IO_FAILED", c"Input/output operation failed"),
    (
        c"DOCA_ERROR_BAD_STATE",
        c"Bad state for the requested operation",
    ),
    (c"DOCA_ERROR_UNSUPPORTED_VERSION", c"Version not supported"),
    (
        c"DOCA_ERROR_OPERATING_SYSTEM",
        c"Operating system call failed",
    ),
    (c"DOCA_ERROR_DRIVER", c"Driver or firmware call failed"),
    (c"DOCA_ERROR_UNEXPECTED", c"Unexpected result"),
    (c"DOCA_ERROR_ALREADY_EXIST", c"Resource already exists"),
    (c"DOCA_ERROR_FULL", c"No free space left"),
    (c"DOCA_ERROR_EMPTY", c"No entry is available"),
    (c"DOCA_ERROR_IN_PROGRESS", c"Operation in progress"),
    (c"DOCA_ERROR_TOO_BIG", c"Requested size is too big"),
    (c"DOCA_ERROR_AUTHENTICATION", c"Authentication failed"),
    (c"DOCA_ERROR_BAD_CONFIG", c"Configuration is not valid"),
    (c"DOCA_ERROR_SKIPPED", c"Operation was skipped"),
];

const UNKNOWN_NAME: &CStr = c"DOCA_ERROR_UNRECOGNIZED";
const UNKNOWN_DESCR: &CStr = c"unrecognized error code";

/// The static name of a code; unknown codes get a fixed placeholder, never NULL.
pub(crate) fn name(code: Code) -> &'static CStr {
    TABLE.get(code as usize).map_or(UNKNOWN_NAME, |e| e.0)
}

/// The static description of a code; unknown codes get a fixed text, never NULL.
pub(crate) fn descr(code: Code) -> &'static CStr {
    TABLE.get(code as usize).map_or(UNKNOWN_DESCR, |e| e.1)
}

/// Parses `BAD_STATE`, `DOCA_ERROR_BAD_STATE` or `18` (a code DOCA defines).
pub(crate) fn code_from_name(text: &str) -> Option<Code> {
    if let Ok(n) = text.parse::<Code>() {
        return ((n as usize) < TABLE.len()).then_some(n);
    }
    let upper = text.to_ascii_uppercase();
    let full = if upper.starts_with("DOCA_") {
        upper
    } else {
        format!("DOCA_ERROR_{upper}")
    };
    TABLE
        .iter()
        .position(|(n, _)| n.to_bytes() == full.as_bytes())
        .map(|i| i as Code)
}

/// Why `code` cannot be injected as a call's failure, if it cannot: success
/// would have the call return without doing its work (its out-parameters unset),
/// and a code DOCA does not define is no failure a program can meet.
pub(crate) fn not_injectable(code: Code) -> Option<String> {
    if code == codes::SUCCESS {
        Some("DOCA_SUCCESS is not a failure: an injected success would return without doing the call's work".into())
    } else if (code as usize) >= TABLE.len() {
        Some(format!("{code} is not a DOCA error code"))
    } else {
        None
    }
}

/// Error codes the sim returns, by name.
pub(crate) mod codes {
    use super::Code;
    pub(crate) const SUCCESS: Code = 0;
    pub(crate) const NOT_PERMITTED: Code = 2;
    pub(crate) const IN_USE: Code = 3;
    pub(crate) const NOT_SUPPORTED: Code = 4;
    pub(crate) const AGAIN: Code = 5;
    pub(crate) const INVALID_VALUE: Code = 6;
    pub(crate) const NO_MEMORY: Code = 7;
    pub(crate) const CONNECTION_ABORTED: Code = 12;
    pub(crate) const NOT_CONNECTED: Code = 14;
    pub(crate) const NOT_FOUND: Code = 16;
    pub(crate) const IO_FAILED: Code = 17;
    pub(crate) const BAD_STATE: Code = 18;
    pub(crate) const UNSUPPORTED_VERSION: Code = 19;
    pub(crate) const OPERATING_SYSTEM: Code = 20;
    pub(crate) const DRIVER: Code = 21;
    pub(crate) const UNEXPECTED: Code = 22;
    pub(crate) const FULL: Code = 24;
    pub(crate) const IN_PROGRESS: Code = 26;
    pub(crate) const BAD_CONFIG: Code = 29;
}

/// An error inside the sim: the code handed back to C, and why (logged when
/// `DOCA_SIM_LOG` is set, so a test author can see which rule fired).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SimError {
    pub(crate) code: Code,
    pub(crate) why: &'static str,
}

/// Result type of the sim's internal functions.
pub(crate) type SimResult<T = ()> = Result<T, SimError>;

/// Builds a [`SimError`].
pub(crate) const fn fail(code: Code, why: &'static str) -> SimError {
    SimError { code, why }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_a_name_matching_its_value() {
        assert_eq!(name(0).to_str().unwrap(), "DOCA_SUCCESS");
        assert_eq!(name(18).to_str().unwrap(), "DOCA_ERROR_BAD_STATE");
        assert_eq!(name(30).to_str().unwrap(), "DOCA_ERROR_SKIPPED");
        for code in 0..31 {
            assert_eq!(code_from_name(name(code).to_str().unwrap()), Some(code));
        }
    }

    #[test]
    fn unknown_codes_are_named_not_null() {
        assert_eq!(descr(31).to_str().unwrap(), "unrecognized error code");
        assert_eq!(name(u32::MAX), UNKNOWN_NAME);
    }
}
