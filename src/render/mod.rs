//! render (in progress)
