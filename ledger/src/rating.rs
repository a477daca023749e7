//! Glicko-2 ratings per variant, computed in log order, bit for bit the same on every platform.
