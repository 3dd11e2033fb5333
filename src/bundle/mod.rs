//! PLACEHOLDER: implemented on branch `convert`.
#![allow(missing_docs, unused_variables)]
use std::path::Path;
use serde_json::Value;

#[derive(Debug, Clone)]
pub struct RegistryV1 {
    pub package: String,
    pub csv: Value,
    pub crds: Vec<Value>,
    pub others: Vec<Value>,
}

#[derive(Debug, thiserror::Error)]
#[error("bundle error")]
pub struct Error;

impl RegistryV1 {
    pub fn from_dir(dir: &Path) -> Result<Self, Error> { todo!() }
    pub fn from_objects(package: &str, objects: Vec<Value>) -> Result<Self, Error> { todo!() }
}
