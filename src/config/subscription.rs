//! The subscription profile's settings (`profile: subscription`): OLM v0 Subscriptions, and
//! which of the other settings they can honour.
//!
//! A Subscription names one package, one channel (or none: every channel), a catalog, an
//! approval and at most one `startingCSV`; its OperatorGroup decides the install mode. OLM v0
//! has no version ranges: a Subscription with Automatic approval follows its channel to the
//! head, so `version` can only name the version it ends at. [`problems`] says what of an
//! operator's settings the profile cannot take.

use super::{Located, Operator, Span};

/// The profile an operator asks for (`profile:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum OperatorProfile {
    /// OLM v0: Namespace, OperatorGroup, Subscription, CatalogSource.
    Subscription,
}

impl OperatorProfile {
    /// Parse `profile:`.
    pub fn parse(text: &str) -> Result<OperatorProfile, String> {
        match text {
            "subscription" => Ok(OperatorProfile::Subscription),
            other if other.eq_ignore_ascii_case("subscription") => Err(format!(
                "unknown profile \"{other}\": write it `subscription`"
            )),
            other => Err(format!(
                "unknown profile \"{other}\": the one profile to ask for is `subscription` (OLM v0 Subscriptions); leave `profile` out for the target release's default"
            )),
        }
    }
}

/// An OLM install mode (`spec.installModes[].type`), which the OperatorGroup of a namespace
/// sets for every operator there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub enum InstallMode {
    /// Watch every namespace (no target namespaces).
    AllNamespaces,
    /// Watch the install namespace.
    OwnNamespace,
    /// Watch one other namespace.
    SingleNamespace,
    /// Watch a list of namespaces.
    MultiNamespace,
}

impl InstallMode {
    /// The modes, as OLM spells them.
    pub const ALL: [InstallMode; 4] = [
        InstallMode::AllNamespaces,
        InstallMode::OwnNamespace,
        InstallMode::SingleNamespace,
        InstallMode::MultiNamespace,
    ];

    /// OLM's name.
    pub fn name(self) -> &'static str {
        match self {
            InstallMode::AllNamespaces => "AllNamespaces",
            InstallMode::OwnNamespace => "OwnNamespace",
            InstallMode::SingleNamespace => "SingleNamespace",
            InstallMode::MultiNamespace => "MultiNamespace",
        }
    }

    /// Parse `installMode:` (OLM's spelling).
    pub fn parse(text: &str) -> Result<InstallMode, String> {
        InstallMode::ALL
            .into_iter()
            .find(|m| m.name() == text)
            .ok_or_else(|| {
                let near = InstallMode::ALL
                    .into_iter()
                    .find(|m| m.name().eq_ignore_ascii_case(text))
                    .map(|m| format!("; did you mean {}?", m.name()))
                    .unwrap_or_default();
                format!(
                    "unknown install mode \"{text}\": AllNamespaces, OwnNamespace, SingleNamespace or MultiNamespace{near}"
                )
            })
    }
}

impl std::fmt::Display for InstallMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// `installPlanApproval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub enum Approval {
    /// InstallPlans run as soon as they are made.
    #[default]
    Automatic,
    /// Each InstallPlan waits for `spec.approved: true`.
    Manual,
}

impl Approval {
    /// OLM's name.
    pub fn name(self) -> &'static str {
        match self {
            Approval::Automatic => "Automatic",
            Approval::Manual => "Manual",
        }
    }

    /// Parse `installPlanApproval:`.
    pub fn parse(text: &str) -> Result<Approval, String> {
        match text {
            "Automatic" => Ok(Approval::Automatic),
            "Manual" => Ok(Approval::Manual),
            other => Err(format!(
                "unknown installPlanApproval \"{other}\": Automatic or Manual"
            )),
        }
    }
}

/// An operator's subscription-profile settings.
#[derive(Debug, Clone, Default)]
pub struct SubscriptionSettings {
    /// `startingCSV`: the bundle OLM v0 installs first.
    pub starting_csv: Option<Located<String>>,
    /// `installMode`.
    pub install_mode: Option<Located<InstallMode>>,
    /// `targetNamespaces` (SingleNamespace and MultiNamespace).
    pub target_namespaces: Vec<Located<String>>,
    /// Where `targetNamespaces` was written.
    pub target_namespaces_span: Option<Span>,
    /// `installPlanApproval`.
    pub install_plan_approval: Option<Located<Approval>>,
}

impl SubscriptionSettings {
    /// Whether any of them is set.
    pub fn any(&self) -> bool {
        self.starting_csv.is_some()
            || self.install_mode.is_some()
            || self.target_namespaces_span.is_some()
            || self.install_plan_approval.is_some()
    }

    /// The place of the first one written, with its field name.
    pub fn first(&self) -> Option<(Span, &'static str)> {
        [
            self.starting_csv.as_ref().map(|s| (s.span, "startingCSV")),
            self.install_mode.as_ref().map(|s| (s.span, "installMode")),
            self.target_namespaces_span.map(|s| (s, "targetNamespaces")),
            self.install_plan_approval
                .as_ref()
                .map(|s| (s.span, "installPlanApproval")),
        ]
        .into_iter()
        .flatten()
        .min_by_key(|(s, _)| s.offset)
    }
}

/// One setting the subscription profile cannot take: where, which field, why, what instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingProblem {
    /// Where it is written.
    pub span: Span,
    /// The field (`version`, `channels`, …).
    pub field: &'static str,
    /// What is wrong.
    pub message: String,
    /// What to write instead.
    pub help: Option<String>,
}

/// The exact version a subscription-profile `version` names, when it names one.
pub fn exact_version(text: &str) -> Option<semver::Version> {
    crate::version::parse_bundle_version(text.trim()).ok()
}

/// What an operator written with the subscription profile asks of it that OLM v0 cannot do.
pub fn problems(op: &Operator) -> Vec<SettingProblem> {
    let mut out = Vec::new();
    if op.bootstrap {
        if let Some(p) = &op.profile {
            out.push(SettingProblem {
                span: p.span,
                field: "profile",
                message:
                    "a bootstrap operator is written as its own objects, not as a Subscription"
                        .into(),
                help: Some("drop `profile: subscription`, or `bootstrap: true`".into()),
            });
        }
        return out;
    }
    if op.channels.len() > 1 {
        out.push(SettingProblem {
            span: op.channels[1].span,
            field: "channels",
            message: format!(
                "a Subscription names one channel; {} are listed",
                op.channels.len()
            ),
            help: Some(
                "keep one channel (`channel: …`), or none for the package's default channel first"
                    .into(),
            ),
        });
    }
    if let Some(v) = &op.version
        && exact_version(&v.value.text).is_none()
    {
        out.push(SettingProblem {
            span: v.span,
            field: "version",
            message: format!(
                "\"{}\" is a range, and OLM v0 has none: a Subscription follows its channel to the head, so `version` can only be the exact version it ends at",
                v.value.text
            ),
            help: Some("give the exact version the channel head has (for example \"1.2.3\"), or leave `version` out; to install an older bundle and stay there, give `startingCSV` with `installPlanApproval: Manual`".into()),
        });
    }
    if let Some(w) = &op.watch_namespace {
        out.push(SettingProblem {
            span: w.span,
            field: "watchNamespace",
            message: "`watchNamespace` is OLM v1's; with OLM v0 the OperatorGroup sets what an operator watches".into(),
            help: Some(format!(
                "write `installMode: {}`{}",
                if op.namespace.as_ref().is_some_and(|n| n.value == w.value) {
                    "OwnNamespace"
                } else {
                    "SingleNamespace"
                },
                if op.namespace.as_ref().is_some_and(|n| n.value == w.value) {
                    String::new()
                } else {
                    format!(" with `targetNamespaces: [{}]`", w.value)
                }
            )),
        });
    }
    if let Some(i) = &op.installed {
        out.push(SettingProblem {
            span: i.bundle.span,
            field: "installed",
            message: "`installed` is read by OLM v1's upgrade rules; OLM v0 keeps what is installed in the Subscription's status".into(),
            help: Some("leave `installed` out".into()),
        });
    }
    let s = &op.subscription;
    match s.install_mode.as_ref().map(|m| m.value) {
        Some(InstallMode::SingleNamespace) if s.target_namespaces.len() != 1 => {
            out.push(SettingProblem {
                span: s.install_mode.as_ref().map_or(op.span, |m| m.span),
                field: "targetNamespaces",
                message: format!(
                    "SingleNamespace watches exactly one namespace; {} given",
                    s.target_namespaces.len()
                ),
                help: Some("list one namespace under `targetNamespaces`".into()),
            });
        }
        Some(InstallMode::MultiNamespace) if s.target_namespaces.is_empty() => {
            out.push(SettingProblem {
                span: s.install_mode.as_ref().map_or(op.span, |m| m.span),
                field: "targetNamespaces",
                message: "MultiNamespace needs the namespaces to watch".into(),
                help: Some("list them under `targetNamespaces`".into()),
            });
        }
        Some(mode @ (InstallMode::AllNamespaces | InstallMode::OwnNamespace))
            if s.target_namespaces_span.is_some() =>
        {
            out.push(SettingProblem {
                span: s.target_namespaces_span.unwrap_or(op.span),
                field: "targetNamespaces",
                message: format!("{mode} takes no `targetNamespaces`"),
                help: Some(
                    "drop `targetNamespaces`, or use SingleNamespace or MultiNamespace".into(),
                ),
            });
        }
        None if s.target_namespaces_span.is_some() => {
            out.push(SettingProblem {
                span: s.target_namespaces_span.unwrap_or(op.span),
                field: "targetNamespaces",
                message:
                    "`targetNamespaces` needs `installMode: SingleNamespace` or `MultiNamespace`"
                        .into(),
                help: None,
            });
        }
        _ => {}
    }
    out
}

/// The settings of the subscription profile that an operator written with another profile has:
/// each is refused, naming the profile that takes it.
pub fn misplaced(op: &Operator) -> Option<SettingProblem> {
    let (span, field) = op.subscription.first()?;
    Some(SettingProblem {
        span,
        field,
        message: format!(
            "`{field}` is a setting of the subscription profile (OLM v0), and this operator is not written with it"
        ),
        help: Some(if op.bootstrap {
            "a bootstrap operator takes none of them: drop it".into()
        } else {
            "add `profile: subscription` to the operator, or drop it".into()
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_as_olm_spells_them() {
        assert_eq!(
            InstallMode::parse("OwnNamespace"),
            Ok(InstallMode::OwnNamespace)
        );
        assert!(
            InstallMode::parse("ownnamespace")
                .unwrap_err()
                .contains("did you mean OwnNamespace?")
        );
        assert_eq!(Approval::parse("Manual"), Ok(Approval::Manual));
        assert!(Approval::parse("manual").is_err());
        assert_eq!(
            OperatorProfile::parse("subscription"),
            Ok(OperatorProfile::Subscription)
        );
        assert!(
            OperatorProfile::parse("Subscription")
                .unwrap_err()
                .contains("write it `subscription`")
        );
        assert!(OperatorProfile::parse("olmv1").is_err());
    }

    #[test]
    fn only_an_exact_version_is_one() {
        assert_eq!(exact_version("1.2.3"), Some(semver::Version::new(1, 2, 3)));
        assert!(exact_version(">=1.2.3").is_none());
        assert!(exact_version("1.2").is_none());
        assert!(exact_version("1.2.x").is_none());
    }
}
