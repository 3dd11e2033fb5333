//! output (in progress)
