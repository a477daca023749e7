//! Kriegspiel: placeholder; its helper replaces this file.
