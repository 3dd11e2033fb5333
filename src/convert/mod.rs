//! PLACEHOLDER
#![allow(missing_docs, unused_variables)]
use serde_json::Value;
use crate::bundle::RegistryV1;
#[derive(Debug, Clone, Default)]
pub struct Options { pub install_namespace: String, pub target_namespaces: Vec<String> }
#[derive(Debug, thiserror::Error)]
#[error("convert error")]
pub struct Error;
pub fn convert(bundle: &RegistryV1, options: &Options) -> Result<Vec<Value>, Error> { todo!() }
