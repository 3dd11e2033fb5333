//! resolve (in progress)
