//! FIDE TRF-16 tournament report files: export and import.
