//! Tournaments: round-robin (FIDE Berger tables) and Swiss (FIDE Dutch), standings and tie-breaks.
