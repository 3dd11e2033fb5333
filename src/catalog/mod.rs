//! PLACEHOLDER: implemented on branch `catalog`.
#![allow(missing_docs, unused_variables)]
pub mod model;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
#[error("catalog error")]
pub struct Error;
impl Error {
    pub fn is_io(&self) -> bool {
        false
    }
}

/// Which packages to keep while loading.
#[derive(Debug, Clone, Default)]
pub enum PackageFilter {
    #[default]
    All,
    Only(Vec<String>),
}

pub fn load(path: &Path, filter: &PackageFilter) -> Result<model::Catalog, Error> {
    todo!()
}
