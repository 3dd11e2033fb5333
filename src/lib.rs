//! po-manifests: resolve platform operators against a File-Based Catalog snapshot and write
//! pinned, reproducible install manifests for `openshift-install`.
//!
//! The pipeline (see `DESIGN.md` in the shared design notes):
//!
//! ```text
//! config ──► catalog ──► resolve ──► bundle ──► convert ──► render ──► output
//! ```
//!
//! Each step is a library function with typed input and output; the binary (`src/main.rs`)
//! only parses flags (in [`cli`]) and maps the outcome to an exit code.
#![deny(missing_docs)]

pub mod bundle;
pub mod catalog;
pub mod cli;
pub mod config;
pub mod convert;
pub mod output;
pub mod render;
pub mod resolve;
pub mod version;
