//! The one integration test binary: end-to-end runs of the `po-manifests` command.
//!
//! Each test gets a fresh install directory (a copy of `testdata/example`, or one written by the
//! test) and a ready `Command`. Tests over `../shared/realdata` read it in place and say so when
//! it is absent.

mod common;
/// The benchmark's catalog generator, for a smoke test at a tiny size.
#[path = "../../benches/perf/generate.rs"]
mod generate;

mod broken_bundle;
mod bundle;
mod catalog;
mod check;
mod cli;
mod cluster_extension;
mod create;
mod disconnected;
mod edits;
mod fuzz_cli;
mod hostile;
mod images;
mod install_config;
mod installer_output;
mod installers;
mod layers;
mod library;
mod net;
mod pins;
mod pulls;
mod range;
mod readme;
mod realdata;
mod remote;
mod resolve;
mod subscription;
mod tables;
mod update_graph;
mod upgrade;
mod write_protocol;
