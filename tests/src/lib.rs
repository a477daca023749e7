//! fogproof's cross-crate test suite lives in `tests/tests/`; this library is empty on purpose.
