//! po-manifests: resolve platform operators against a File-Based Catalog snapshot and write
//! pinned, reproducible install manifests for `openshift-install`.
//!
//! The pipeline (see `DESIGN.md` in the shared design notes):
//!
//! ```text
//! config ──► catalog ──► resolve ──► bundle ──► convert ──► render ──► output
//! ```
//!
//! Each step is a library function with typed input and output. The install step as a whole is
//! [`install`]: an [`install::Install`] (configuration, install-config facts, catalogs,
//! network and bundle-source settings) is planned by [`install::plan::plan`] into a
//! [`install::plan::Plan`] (per operator the resolution, checks, rendered objects, refusals and
//! waivers; the install-wide objects and checks; the lock), which `create` writes and `resolve`
//! prints. The binary (`src/main.rs`) only parses flags; [`cli`] turns them into library input
//! and prints.
//!
//! The modules form a one-way layering, bottom first: [`fsread`], [`notice`], [`text`],
//! [`version`], [`rules`]; [`table`], [`diagram`]; then [`openshift`], [`config`], [`catalog`],
//! [`fetch`], [`registry`], [`resolve`], [`bundle`], [`convert`], [`render`], [`mirror`],
//! [`check`], [`output`], [`upgrade`], [`install`], and [`cli`] on top. A module uses only
//! modules below it, and no two files import each other; `tests/it/layers.rs` keeps it so.
#![deny(missing_docs)]

pub mod bundle;
pub mod catalog;
pub mod check;
pub mod cli;
pub mod config;
pub mod convert;
pub mod diagram;
pub mod fetch;
pub mod fsread;
pub mod install;
pub mod kubenames;
pub mod mirror;
pub mod notice;
pub mod openshift;
pub mod output;
pub mod registry;
pub mod render;
pub mod resolve;
pub mod rules;
pub mod table;
pub mod text;
pub mod upgrade;
pub mod version;

/// An error's message followed by each of its causes that adds something, `: `-separated.
/// Library errors keep their causes typed; this is how they read as one line.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let part = s.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = s.source();
    }
    text
}
