//! Kubernetes names, validated the way the API server does: the one validator of
//! `metadata.name` and `metadata.namespace` per kind, for what po-manifests writes
//! ([`crate::output::names`]) and what `check` reads, of the configuration's names and of a
//! catalog's package and bundle names, and of a bundle's deployment and webhook names in the
//! API server's own words ([`subdomain_errors`], as OLM v1 prints them). From
//! `k8s.io/apimachinery/pkg/util/validation/validation.go` (`IsDNS1123Label`,
//! `IsDNS1123Subdomain`, `IsDNS1035Label`) and `k8s.io/apimachinery/pkg/api/validation/path`
//! (`IsValidPathSegmentName`), applied per kind as kubernetes
//! `pkg/apis/core/validation/validation.go` (`ValidateNamespaceName = NameIsDNSLabel`,
//! `ValidateServiceName = NameIsDNS1035Label`, most others `NameIsDNSSubdomain`) and
//! `pkg/apis/rbac/validation/validation.go` (`ValidateRBACName = path.IsValidPathSegmentName`)
//! do.

/// The most a DNS-1123 label may have.
pub const MAX_LABEL: usize = 63;
/// The most a DNS-1123 subdomain may have.
pub const MAX_SUBDOMAIN: usize = 253;

/// How Kubernetes validates a kind's `metadata.name`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRule {
    /// `IsDNS1123Label` (Namespace).
    Label,
    /// `IsDNS1035Label` (Service: must start with a letter).
    Dns1035Label,
    /// `IsDNS1123Subdomain` (most kinds, and custom resources).
    Subdomain,
    /// `IsValidPathSegmentName` (RBAC kinds: `system:foo` is fine).
    PathSegment,
}

/// The name rule for `kind` of API group `group` (`""` for the core group).
pub fn name_rule(group: &str, kind: &str) -> NameRule {
    match (group, kind) {
        ("", "Namespace") => NameRule::Label,
        ("", "Service") => NameRule::Dns1035Label,
        (
            "rbac.authorization.k8s.io",
            "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding",
        ) => NameRule::PathSegment,
        _ => NameRule::Subdomain,
    }
}

/// Why `name` is not a DNS-1123 label of at most `max` bytes.
pub fn check_label(name: &str, max: usize) -> Result<(), String> {
    if name.is_empty() {
        return Err("is empty".into());
    }
    if name.len() > max {
        return Err(format!("is {} characters, more than {max}", name.len()));
    }
    if !is_label(name) {
        return Err("is not a DNS-1123 label (lowercase letters, digits and '-', starting and ending with a letter or digit)".into());
    }
    Ok(())
}

/// Whether `l` is a DNS-1123 label (`[a-z0-9]([-a-z0-9]*[a-z0-9])?`, at most 63 bytes).
pub fn is_label(l: &str) -> bool {
    l.len() <= MAX_LABEL && is_subdomain_part(l)
}

/// Whether `l` is one dot-separated part of a DNS-1123 subdomain: a label's characters, of
/// any length (`IsDNS1123Subdomain` limits only the whole name, to 253).
pub fn is_subdomain_part(l: &str) -> bool {
    let b = l.as_bytes();
    let ok = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    !b.is_empty() && ok(&b[0]) && ok(&b[b.len() - 1]) && b.iter().all(|c| ok(c) || *c == b'-')
}

/// `IsDNS1123Subdomain`'s two tests of `name`: whether it is longer than [`MAX_SUBDOMAIN`]
/// bytes, and whether it is not dot-separated label characters (an empty name fails this one).
fn subdomain_faults(name: &str) -> (bool, bool) {
    (
        name.len() > MAX_SUBDOMAIN,
        !name.split('.').all(is_subdomain_part),
    )
}

/// Why `name` is not a DNS-1123 subdomain, in the API server's own words (what
/// `IsDNS1123Subdomain` returns, and so what OLM v1 prints for a bundle's deployment and
/// webhook names), sorted; empty when it is one.
pub fn subdomain_errors(name: &str) -> Vec<String> {
    let (too_long, not_subdomain) = subdomain_faults(name);
    let mut errs = Vec::new();
    if too_long {
        errs.push(format!("must be no more than {MAX_SUBDOMAIN} characters"));
    }
    if not_subdomain {
        errs.push(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \
             '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', \
             regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
                .to_owned(),
        );
    }
    errs.sort();
    errs
}

/// Why `name` does not follow `rule`.
pub fn check_name(name: &str, rule: NameRule) -> Result<(), String> {
    match rule {
        NameRule::Label => check_label(name, MAX_LABEL),
        NameRule::Dns1035Label => {
            check_label(name, MAX_LABEL)?;
            if !name.as_bytes()[0].is_ascii_lowercase() {
                return Err("is not a DNS-1035 label (it must start with a letter)".into());
            }
            Ok(())
        }
        NameRule::Subdomain => {
            if name.is_empty() {
                return Err("is empty".into());
            }
            let (too_long, not_subdomain) = subdomain_faults(name);
            if too_long {
                return Err(format!(
                    "is {} characters, more than {MAX_SUBDOMAIN}",
                    name.len()
                ));
            }
            if not_subdomain {
                return Err("is not a DNS-1123 subdomain (lowercase letters, digits, '-' and '.', starting and ending with a letter or digit)".into());
            }
            Ok(())
        }
        NameRule::PathSegment => {
            if name.is_empty() {
                return Err("is empty".into());
            }
            if name == "." || name == ".." {
                return Err(format!("may not be {name:?}"));
            }
            if name.contains(['/', '%']) {
                return Err("may not contain '/' or '%'".into());
            }
            if name.chars().any(char::is_control) {
                return Err("may not contain control characters".into());
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `IsDNS1123Subdomain` limits the whole name, not its parts; a label is at most 63.
    #[test]
    fn a_subdomain_part_may_be_longer_than_a_label() {
        let long = "a".repeat(100);
        assert!(check_name(&long, NameRule::Subdomain).is_ok());
        assert!(check_name(&long, NameRule::Label).is_err());
        assert!(check_name(&"a".repeat(254), NameRule::Subdomain).is_err());
        for bad in ["UPPER_case", "bad..dots", "-a", "a-", "a\u{1b}b", ""] {
            assert!(check_name(bad, NameRule::Subdomain).is_err(), "{bad:?}");
        }
    }
}
