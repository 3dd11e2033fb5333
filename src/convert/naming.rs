//! Hashed names for generated RBAC objects, reproduced bit for bit from operator-controller
//! (`rukpak/render/render.go` `DefaultUniqueNameGenerator`, `util.ObjectNameForBaseAndSuffix`,
//! `shared/util/hash.DeepHashObject`); reference §5.1 "RBAC names".
//!
//! `name = truncate("<csv name>-<service account>") + "-" + base36(sha224(json(permission) + "\n"))`
//!
//! where `json(permission)` is Go's `encoding/json` encoding of
//! `v1alpha1.StrategyDeploymentPermissions`: `{"serviceAccountName":…,"rules":[…]}` with each
//! rule `{"verbs":…,"apiGroups"?,"resources"?,"resourceNames"?,"nonResourceURLs"?}` (`verbs`
//! always present, `null` when missing; the other fields omitted when empty; `rules` `null`
//! when missing), compact, HTML-escaped. The trailing `\n` is there because upstream hashes
//! through a `json.Encoder`, which ends every value with a newline.

use num_bigint::BigUint;
use sha2::{Digest, Sha224};

use crate::bundle::{Permission, PolicyRule, go_json_string};

/// Longest Kubernetes object name upstream allows for generated names.
pub const MAX_NAME_LENGTH: usize = 63;

/// Go's `encoding/json` encoding of a permission entry, without the trailing newline.
pub fn permission_json(permission: &Permission) -> String {
    let mut out = String::with_capacity(256);
    out.push_str("{\"serviceAccountName\":");
    go_json_string(&permission.service_account_name, &mut out);
    out.push_str(",\"rules\":");
    match &permission.rules {
        None => out.push_str("null"),
        Some(rules) => {
            out.push('[');
            for (i, rule) in rules.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                rule_json(rule, &mut out);
            }
            out.push(']');
        }
    }
    out.push('}');
    out
}

fn string_list(items: &[String], out: &mut String) {
    out.push('[');
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        go_json_string(s, out);
    }
    out.push(']');
}

fn rule_json(rule: &PolicyRule, out: &mut String) {
    out.push_str("{\"verbs\":");
    match &rule.verbs {
        None => out.push_str("null"),
        Some(v) => string_list(v, out),
    }
    // `omitempty` drops nil and empty slices alike.
    let optional = [
        ("apiGroups", &rule.api_groups),
        ("resources", &rule.resources),
        ("resourceNames", &rule.resource_names),
        ("nonResourceURLs", &rule.non_resource_urls),
    ];
    for (key, value) in optional {
        if let Some(v) = value.as_ref().filter(|v| !v.is_empty()) {
            out.push_str(",\"");
            out.push_str(key);
            out.push_str("\":");
            string_list(v, out);
        }
    }
    out.push('}');
}

/// `DeepHashObject`: lowercase base36 of the big-endian integer value of the SHA-224 digest
/// of the permission's JSON plus `\n`.
pub fn permission_hash(permission: &Permission) -> String {
    let mut json = permission_json(permission);
    json.push('\n');
    let digest = Sha224::digest(json.as_bytes());
    BigUint::from_bytes_be(&digest).to_str_radix(36)
}

/// `ObjectNameForBaseAndSuffix`: `base-suffix`, cutting `base` to `63 - len(suffix) - 1`
/// bytes when `base` and `suffix` together are longer than 63.
///
/// Quirk copied on purpose: the check is `len(base)+len(suffix) > 63`, ignoring the dash,
/// so a result can be 64 characters long, and a cut base can end in `.` or `-`
/// (`argocd-operator.v0.-3gkm…`). Go slices bytes; we back off to a character boundary
/// for non-ASCII names, which Go would split.
pub fn object_name_for_base_and_suffix(base: &str, suffix: &str) -> String {
    let mut base = base;
    if base.len() + suffix.len() > MAX_NAME_LENGTH {
        let mut cut = MAX_NAME_LENGTH.saturating_sub(suffix.len() + 1);
        while cut > 0 && !base.is_char_boundary(cut) {
            cut -= 1;
        }
        base = &base[..cut];
    }
    format!("{base}-{suffix}")
}

/// The name of the Role/ClusterRole (and binding) generated for `permission`:
/// `<csv>-<service account or "default">` plus the permission hash.
pub fn rbac_object_name(csv_name: &str, permission: &Permission) -> String {
    let sa = if permission.service_account_name.is_empty() {
        "default"
    } else {
        &permission.service_account_name
    };
    object_name_for_base_and_suffix(&format!("{csv_name}-{sa}"), &permission_hash(permission))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(verbs: Option<&[&str]>, groups: &[&str], resources: &[&str]) -> PolicyRule {
        let v = |s: &[&str]| Some(s.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        PolicyRule {
            verbs: verbs.and_then(v),
            api_groups: v(groups),
            resources: v(resources),
            ..Default::default()
        }
    }

    #[test]
    fn json_field_order_and_omission() {
        let p = Permission {
            service_account_name: "sa<1>".into(),
            rules: Some(vec![
                rule(Some(&["get"]), &[""], &["pods"]),
                rule(None, &[], &[]),
                PolicyRule {
                    verbs: Some(vec![]),
                    non_resource_urls: Some(vec!["/metrics".into()]),
                    resource_names: Some(vec![]),
                    ..Default::default()
                },
            ]),
        };
        assert_eq!(
            permission_json(&p),
            r#"{"serviceAccountName":"sa\u003c1\u003e","rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]},{"verbs":null},{"verbs":[],"nonResourceURLs":["/metrics"]}]}"#
        );
        let none = Permission::default();
        assert_eq!(
            permission_json(&none),
            r#"{"serviceAccountName":"","rules":null}"#
        );
    }

    #[test]
    fn hash_is_lowercase_base36_of_sha224() {
        let h = permission_hash(&Permission::default());
        assert!(
            h.chars()
                .all(|c| c.is_ascii_digit() || c.is_ascii_lowercase())
        );
        // A 224-bit number has at most 44 base36 digits.
        assert!(h.len() <= 44 && h.len() >= 40, "{h}");
        // Independent check: SHA-224 of the exact bytes, converted by hand.
        let digest = Sha224::digest(b"{\"serviceAccountName\":\"\",\"rules\":null}\n");
        let mut n = digest.to_vec();
        let mut digits = Vec::new();
        while n.iter().any(|&b| b != 0) {
            let mut rem = 0u32;
            for b in n.iter_mut() {
                let cur = (rem << 8) | u32::from(*b);
                *b = (cur / 36) as u8;
                rem = cur % 36;
            }
            digits.push(std::char::from_digit(rem, 36).unwrap());
        }
        let manual: String = digits.into_iter().rev().collect();
        assert_eq!(h, manual);
    }

    #[test]
    fn truncation() {
        let suffix = "a".repeat(44);
        assert_eq!(object_name_for_base_and_suffix("short", "abc"), "short-abc");
        // 19 + 44 = 63: not cut, result is 64 characters (upstream quirk).
        let base = "b".repeat(19);
        assert_eq!(object_name_for_base_and_suffix(&base, &suffix).len(), 64);
        // 20 + 44 = 64 > 63: base cut to 63 - 44 - 1 = 18.
        let base = "c".repeat(20);
        let name = object_name_for_base_and_suffix(&base, &suffix);
        assert_eq!(name, format!("{}-{suffix}", "c".repeat(18)));
        // Non-ASCII never panics.
        let name = object_name_for_base_and_suffix(&"é".repeat(20), &suffix);
        assert!(name.ends_with(&suffix));
    }

    #[test]
    fn default_service_account_in_base() {
        let p = Permission::default();
        assert!(rbac_object_name("x.v1", &p).starts_with("x.v1-default-"));
    }
}
