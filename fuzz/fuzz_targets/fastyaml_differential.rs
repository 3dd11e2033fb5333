//! Fuzz the fast block-YAML reader against serde-saphyr: for any text, whenever
//! `catalog::fastyaml::to_value` answers, serde-saphyr (with the loader's options) gives the
//! same value with the same key order; and the reader never panics or hangs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use po_manifests::catalog::{decode, fastyaml};

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = std::str::from_utf8(data) else {
        return;
    };
    let Some(fast) = fastyaml::to_value(doc) else {
        return;
    };
    let slow: Result<serde_json::Value, _> =
        serde_saphyr::from_str_with_options(doc, decode::yaml_options());
    let slow = slow.unwrap_or_else(|e| panic!("fast reader answered {fast}, serde-saphyr: {e}"));
    assert_eq!(
        serde_json::to_string(&fast).ok(),
        serde_json::to_string(&slow).ok(),
        "on {doc:?}"
    );
});
