//! The one integration test binary: end-to-end runs of the `po-manifests` command.
//!
//! Each test gets a fresh install directory (a copy of `testdata/example`, or one written by the
//! test) and a ready `Command`. Tests over `../shared/realdata` read it in place and say so when
//! it is absent.

mod common;

mod catalog;
mod create;
mod range;
mod realdata;
mod resolve;
mod upgrade;
