//! Standings: scores and FIDE tie-breaks (C.07) from the rounds played.
