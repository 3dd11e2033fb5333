//! Every rule `opm validate` enforces (reference/catalogs-and-conversion.md §1.3 rules 1–16
//! and the release field of §1.4), collected into one sorted, byte-stable list of
//! [`Problem`]s: catalog → package → channel → bundle.
//!
//! Upstream: operator-registry `alpha/declcfg/declcfg_to_model.go` (linking, rules 1–12, fail
//! fast upstream; collected by [`super::link::build`]) and `alpha/model/model.go`
//! (`Validate`, rules 13–16). Multi-head channels are an error like in opm; OLM v1 accepts
//! them, so [`Options::multiple_heads`] can make them warnings.

use std::fmt;
use std::path::Path;

use serde::Serialize;

use super::graph::{self, ChainError};
use super::model::{Bundle, Catalog, Channel, Package};
use super::problem::{Problem, ProblemKind, Severity, sort_problems};
use super::{Error, PackageFilter, link, loader};

/// What to check and how strictly.
#[derive(Debug, Clone)]
pub struct Options {
    /// Severity of a channel with more than one head (opm: error; OLM v1 accepts it).
    pub multiple_heads: Severity,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            multiple_heads: Severity::Error,
        }
    }
}

impl Options {
    /// OLM v1 behaviour: multi-head channels are warnings.
    pub fn olm_v1() -> Self {
        Options {
            multiple_heads: Severity::Warning,
        }
    }
}

/// The outcome of validation: every problem, sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// Problems, sorted catalog → package → channel → bundle.
    pub problems: Vec<Problem>,
}

impl Report {
    /// Whether there is no error (warnings allowed).
    pub fn is_valid(&self) -> bool {
        !self.problems.iter().any(|p| p.severity == Severity::Error)
    }
    /// The error-level problems.
    pub fn errors(&self) -> impl Iterator<Item = &Problem> {
        self.problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
    }
    /// The warning-level problems.
    pub fn warnings(&self) -> impl Iterator<Item = &Problem> {
        self.problems
            .iter()
            .filter(|p| p.severity == Severity::Warning)
    }
    /// One line per problem.
    pub fn lines(problems: &[Problem]) -> String {
        let mut s = String::new();
        for p in problems {
            s.push_str(&p.to_string());
            s.push('\n');
        }
        s
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&Report::lines(&self.problems))
    }
}

/// `opm validate PATH`: load everything, link (collecting rules 1–12), then check the model
/// (rules 13–16). Only I/O and parse errors are `Err`; every rule violation is in the report.
///
/// Each package is checked as soon as it is linked and then dropped, so the linked model is
/// never held whole (issue 26 item 9: a million small bundles).
pub fn validate_path(path: &Path, options: &Options) -> Result<Report, Error> {
    check_path(path, options, false).map(|(_, report)| report)
}

/// [`validate_path`] that also returns the linked catalog (objects with linking problems
/// left out, as [`link::build`] does), so a caller that validates and then resolves reads
/// the catalog once. Validation does not need the content digest, so it is not computed:
/// the catalog's `digest` is empty (see [`super::content_digest`]).
pub fn load_and_validate(path: &Path, options: &Options) -> Result<(Catalog, Report), Error> {
    check_path(path, options, true)
}

/// Load, link and check every package as it is linked; the catalog keeps the packages when
/// `keep` is set. Without it, csv metadata is checked as it is read and not kept either.
fn check_path(path: &Path, options: &Options, keep: bool) -> Result<(Catalog, Report), Error> {
    let load = loader::LoadOptions {
        digest: false,
        lazy_bundle_objects: true,
        keep_csv_metadata: keep,
        // Without the model kept, small documents stay in the file until their package
        // is linked (issue 26 item 9: a million small bundles).
        lazy_documents: !keep,
    };
    let build = link::BuildOptions {
        check_bundle_objects: true,
    };
    let each = |pkg: Package, model_problems: &mut Vec<Problem>| {
        validate_package(&pkg, options, model_problems);
        keep.then_some(pkg)
    };
    // Without the model kept, a package whose blobs are all in one (small) file is linked
    // and checked as soon as that file is read, on the core that read it: nothing of it is
    // read again.
    let (dc, linked) = if keep {
        (
            loader::load_with(path, &PackageFilter::All, &load)?,
            Vec::new(),
        )
    } else {
        loader::load_each_file(path, &PackageFilter::All, &load, &|docs| {
            link::link_file(docs, &build, &each)
        })?
    };
    let (catalog, mut problems, model_problems) = link::build_linked(dc, &build, each, linked)?;
    problems.extend(model_problems);
    sort_problems(&mut problems);
    Ok((catalog, Report { problems }))
}

/// Model validation (rules 13–16) of a linked catalog.
pub fn validate(catalog: &Catalog, options: &Options) -> Report {
    let mut problems = Vec::new();
    for pkg in &catalog.packages {
        validate_package(pkg, options, &mut problems);
    }
    sort_problems(&mut problems);
    Report { problems }
}

fn validate_package(pkg: &Package, options: &Options, out: &mut Vec<Problem>) {
    let here = |kind| Problem::error(kind).package(&pkg.name).at(&pkg.origin);
    if pkg.name.is_empty() {
        out.push(here(ProblemKind::PackageNameInvalid {
            name: String::new(),
        }));
    }
    for b in &pkg.bundles {
        if let Err(why) =
            crate::kubenames::check_name(&b.name, crate::kubenames::NameRule::Subdomain)
        {
            let mut p = Problem::error(ProblemKind::BundleNameInvalid { why })
                .package(&pkg.name)
                .bundle(&b.name)
                .at(&b.origin);
            p.severity = Severity::Warning;
            out.push(p);
        }
    }
    // opm adds an empty channel for a missing default one, so a package without channels
    // reports that, and one with other channels reports the missing default.
    if !pkg.default_channel.is_empty()
        && !pkg.channels.is_empty()
        && pkg.channel(&pkg.default_channel).is_none()
    {
        out.push(here(ProblemKind::DefaultChannelMissing {
            channel: pkg.default_channel.clone(),
        }));
    }
    if pkg.channels.is_empty() {
        out.push(here(ProblemKind::PackageNoChannels));
    }
    if pkg.deprecation.as_deref() == Some("") {
        out.push(here(ProblemKind::DeprecationMessageEmpty));
    }
    // Unique version strings (version, plus `-release`).
    // The names are borrowed: only a repeated version's are copied.
    let mut by_version: std::collections::BTreeMap<String, Vec<&str>> = Default::default();
    for b in &pkg.bundles {
        let Some(v) = &b.version else { continue };
        let mut key = v.to_string();
        if let Some(r) = &b.release {
            key.push('-');
            key.push_str(r);
        }
        by_version.entry(key).or_default().push(&b.name);
    }
    for (version, mut bundles) in by_version {
        if bundles.len() > 1 {
            bundles.sort_unstable();
            let bundles = bundles.into_iter().map(str::to_owned).collect();
            out.push(here(ProblemKind::DuplicateVersion { version, bundles }));
        }
    }
    for ch in &pkg.channels {
        validate_channel(pkg, ch, options, out);
    }
    for b in &pkg.bundles {
        validate_bundle(pkg, b, out);
    }
}

fn validate_channel(pkg: &Package, ch: &Channel, options: &Options, out: &mut Vec<Problem>) {
    let here = |kind| {
        Problem::error(kind)
            .package(&pkg.name)
            .channel(&ch.name)
            .at(&ch.origin)
    };
    if ch.name.is_empty() {
        out.push(here(ProblemKind::ChannelNameEmpty));
    }
    if ch.deprecation.as_deref() == Some("") {
        out.push(here(ProblemKind::DeprecationMessageEmpty));
    }
    if ch.entries.is_empty() {
        out.push(here(ProblemKind::ChannelNoBundles));
        return;
    }
    match graph::replaces_chain(ch) {
        Ok(_) => {}
        Err(ChainError::NoHead) => out.push(here(ProblemKind::NoHead)),
        Err(ChainError::MultipleHeads { heads }) => {
            let mut p = here(ProblemKind::MultipleHeads { heads });
            p.severity = options.multiple_heads;
            out.push(p);
        }
        Err(ChainError::Cycle { chain }) => out.push(here(ProblemKind::Cycle { chain })),
        Err(ChainError::Stranded { bundles }) => out.push(here(ProblemKind::Stranded { bundles })),
    }
    for e in &ch.entries {
        let at_entry = |kind| here(kind).bundle(&e.name);
        for (index, s) in e.skips.iter().enumerate() {
            if s.is_empty() {
                out.push(at_entry(ProblemKind::SkipEmpty { index }));
            }
        }
        if let Some(r) = &e.skip_range
            && let Err(err) = crate::version::blang::Range::parse(r)
        {
            out.push(at_entry(ProblemKind::SkipRangeInvalid {
                skip_range: r.clone(),
                reason: err.to_string(),
            }));
        }
    }
}

fn validate_bundle(pkg: &Package, b: &Bundle, out: &mut Vec<Problem>) {
    let here = |kind| {
        Problem::error(kind)
            .package(&pkg.name)
            .bundle(&b.name)
            .at(&b.origin)
    };
    if b.name.is_empty() {
        out.push(here(ProblemKind::BundleNameEmpty));
    }
    if b.deprecation.as_deref() == Some("") {
        out.push(here(ProblemKind::DeprecationMessageEmpty));
    }
    if b.image.is_empty() && !b.has_bundle_objects() {
        out.push(here(ProblemKind::ImageEmpty));
    }
    if let Some(release) = &b.release {
        let expected = format!("{}-v{}-{}", pkg.name, b.version_text, release);
        if b.name != expected {
            out.push(here(ProblemKind::BundleNameRelease { expected }));
        }
        if let Some(v) = &b.version
            && !v.build.is_empty()
        {
            out.push(here(ProblemKind::BuildAndRelease {
                version: b.version_text.clone(),
            }));
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    //! One small invalid catalog per rule, one defect each.
    use super::*;

    /// An `olm.package` line.
    pub(crate) fn pkg(name: &str, default: &str) -> String {
        format!(r#"{{"schema":"olm.package","name":"{name}","defaultChannel":"{default}"}}"#)
    }
    /// An `olm.channel` line; `entries` is the JSON array text.
    pub(crate) fn chan(package: &str, name: &str, entries: &str) -> String {
        format!(
            r#"{{"schema":"olm.channel","package":"{package}","name":"{name}","entries":{entries}}}"#
        )
    }
    /// An `olm.bundle` line with one `olm.package` property.
    pub(crate) fn bundle(package: &str, name: &str, version: &str) -> String {
        bundle_with(
            package,
            name,
            &format!("quay.io/x/{package}:{version}"),
            &pkg_prop(package, version, ""),
            "",
        )
    }
    /// The `olm.package` property text.
    pub(crate) fn pkg_prop(package: &str, version: &str, release: &str) -> String {
        if release.is_empty() {
            format!(
                r#"{{"type":"olm.package","value":{{"packageName":"{package}","version":"{version}"}}}}"#
            )
        } else {
            format!(
                r#"{{"type":"olm.package","value":{{"packageName":"{package}","version":"{version}","release":"{release}"}}}}"#
            )
        }
    }
    /// An `olm.bundle` line with given image, properties (comma-joined JSON) and extra fields.
    pub(crate) fn bundle_with(
        package: &str,
        name: &str,
        image: &str,
        props: &str,
        extra: &str,
    ) -> String {
        format!(
            r#"{{"schema":"olm.bundle","package":"{package}","name":"{name}","image":"{image}","properties":[{props}]{extra}}}"#
        )
    }

    /// A valid one-package catalog: a.v1 <- a.v2 in channel stable.
    pub(crate) fn valid() -> Vec<String> {
        vec![
            pkg("a", "stable"),
            chan(
                "a",
                "stable",
                r#"[{"name":"a.v1"},{"name":"a.v2","replaces":"a.v1"}]"#,
            ),
            bundle("a", "a.v1", "1.0.0"),
            bundle("a", "a.v2", "2.0.0"),
        ]
    }

    pub(crate) fn run(lines: &[String]) -> Report {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("catalog.json"), lines.join("\n")).unwrap();
        validate_path(dir.path(), &Options::default()).unwrap()
    }

    /// Exactly one error, and it is this kind.
    #[track_caller]
    fn one(lines: &[String], want: impl Fn(&ProblemKind) -> bool) -> Problem {
        let report = run(lines);
        let errors: Vec<&Problem> = report.errors().collect();
        assert_eq!(errors.len(), 1, "{report}");
        assert!(want(&errors[0].kind), "{report}");
        assert!(errors[0].origin.is_some(), "{report}");
        errors[0].clone()
    }

    fn replace(mut lines: Vec<String>, i: usize, with: String) -> Vec<String> {
        lines[i] = with;
        lines
    }

    #[test]
    fn valid_catalog_has_no_problems() {
        let report = run(&valid());
        assert!(report.problems.is_empty(), "{report}");
    }

    mod package {
        pub(crate) mod error {
            use super::super::*;

            #[test]
            fn no_channels() {
                let p = one(&[pkg("a", "stable")], |k| {
                    matches!(k, ProblemKind::PackageNoChannels)
                });
                assert_eq!(p.package, "a");
            }
            #[test]
            fn name_not_dns1123() {
                let mut l = valid();
                l.push(pkg("b_c", "s"));
                l.push(chan("b_c", "s", r#"[{"name":"b.v1"}]"#));
                l.push(bundle("b_c", "b.v1", "1.0.0"));
                one(&l, |k| matches!(k, ProblemKind::PackageNameInvalid { .. }));
            }
            #[test]
            fn duplicate_package() {
                let mut l = valid();
                l.push(pkg("a", "stable"));
                let p = one(&l, |k| matches!(k, ProblemKind::DuplicatePackage { .. }));
                assert!(p.to_string().contains("catalog.json:5"), "{p}");
            }
            #[test]
            fn default_channel_empty() {
                one(&replace(valid(), 0, pkg("a", "")), |k| {
                    matches!(k, ProblemKind::DefaultChannelEmpty)
                });
            }
            #[test]
            fn default_channel_missing() {
                one(
                    &replace(valid(), 0, pkg("a", "fast")),
                    |k| matches!(k, ProblemKind::DefaultChannelMissing { channel } if channel == "fast"),
                );
            }
            #[test]
            fn duplicate_version() {
                let l = replace(valid(), 3, bundle("a", "a.v2", "1.0.0"));
                one(
                    &l,
                    |k| matches!(k, ProblemKind::DuplicateVersion { bundles, .. } if bundles == &["a.v1", "a.v2"]),
                );
            }
            #[test]
            fn deprecation_message_empty() {
                let mut l = valid();
                l.push(r#"{"schema":"olm.deprecations","package":"a","entries":[{"reference":{"schema":"olm.package"},"message":""}]}"#.to_owned());
                one(&l, |k| matches!(k, ProblemKind::DeprecationMessageEmpty));
            }
        }
    }

    mod channel {
        pub(crate) mod error {
            use super::super::*;

            #[test]
            fn unknown_package() {
                let mut l = valid();
                l.push(chan("zzz", "stable", r#"[{"name":"a.v1"}]"#));
                one(&l, |k| {
                    matches!(
                        k,
                        ProblemKind::UnknownPackage {
                            schema: "olm.channel"
                        }
                    )
                });
            }
            #[test]
            fn no_package() {
                let mut l = valid();
                l.push(chan("", "x", r#"[{"name":"a.v1"}]"#));
                one(&l, |k| matches!(k, ProblemKind::ChannelPackageEmpty));
            }
            #[test]
            fn name_empty() {
                let mut l = valid();
                l.push(chan("a", "", r#"[{"name":"a.v1"}]"#));
                one(&l, |k| matches!(k, ProblemKind::ChannelNameEmpty));
            }
            #[test]
            fn duplicate_channel() {
                let mut l = valid();
                l.push(chan("a", "stable", r#"[{"name":"a.v1"}]"#));
                one(&l, |k| matches!(k, ProblemKind::DuplicateChannel { .. }));
            }
            #[test]
            fn duplicate_entry() {
                let l = replace(
                    valid(),
                    1,
                    chan(
                        "a",
                        "stable",
                        r#"[{"name":"a.v1"},{"name":"a.v2","replaces":"a.v1"},{"name":"a.v1"}]"#,
                    ),
                );
                one(
                    &l,
                    |k| matches!(k, ProblemKind::DuplicateEntry { entry } if entry == "a.v1"),
                );
            }
            #[test]
            fn no_bundles() {
                let mut l = valid();
                l.push(chan("a", "empty", "[]"));
                one(&l, |k| matches!(k, ProblemKind::ChannelNoBundles));
            }
            #[test]
            fn entry_without_bundle() {
                let l = replace(
                    valid(),
                    1,
                    chan(
                        "a",
                        "stable",
                        r#"[{"name":"a.v1"},{"name":"a.v2","replaces":"a.v1"},{"name":"a.v3","replaces":"a.v2"}]"#,
                    ),
                );
                one(
                    &l,
                    |k| matches!(k, ProblemKind::EntryWithoutBundle { entry } if entry == "a.v3"),
                );
            }
            #[test]
            fn multiple_heads() {
                let l = replace(
                    valid(),
                    1,
                    chan("a", "stable", r#"[{"name":"a.v1"},{"name":"a.v2"}]"#),
                );
                let p = one(
                    &l,
                    |k| matches!(k, ProblemKind::MultipleHeads { heads } if heads == &["a.v1", "a.v2"]),
                );
                assert!(
                    p.to_string()
                        .contains("multiple channel heads found in graph: a.v1, a.v2")
                );
                // OLM v1 mode: only a warning.
                let dir = tempfile::tempdir().unwrap();
                std::fs::write(dir.path().join("c.json"), l.join("\n")).unwrap();
                let r = validate_path(dir.path(), &Options::olm_v1()).unwrap();
                assert!(r.is_valid());
                assert_eq!(r.warnings().count(), 1);
            }
            #[test]
            fn no_head() {
                let l = replace(
                    valid(),
                    1,
                    chan(
                        "a",
                        "stable",
                        r#"[{"name":"a.v1","replaces":"a.v2"},{"name":"a.v2","replaces":"a.v1"}]"#,
                    ),
                );
                one(&l, |k| matches!(k, ProblemKind::NoHead));
            }
            #[test]
            fn cycle() {
                let mut l = valid();
                l[1] = chan(
                    "a",
                    "stable",
                    r#"[{"name":"a.v1","replaces":"a.v2"},{"name":"a.v2","replaces":"a.v1"},{"name":"a.v3","replaces":"a.v2"}]"#,
                );
                l.push(bundle("a", "a.v3", "3.0.0"));
                let p = one(
                    &l,
                    |k| matches!(k, ProblemKind::Cycle { chain } if chain == &["a.v2", "a.v1", "a.v2"]),
                );
                assert!(p.to_string().contains("a.v2 -> a.v1 -> a.v2"), "{p}");
            }
            #[test]
            fn stranded() {
                let mut l = valid();
                l[1] = chan(
                    "a",
                    "stable",
                    r#"[{"name":"a.v1"},{"name":"a.v2","replaces":"a.v1"},{"name":"a.v3","skips":["a.v2"]}]"#,
                );
                l.push(bundle("a", "a.v3", "3.0.0"));
                // a.v3 skips a.v2, so the chain walk stops; a.v1 is stranded.
                one(
                    &l,
                    |k| matches!(k, ProblemKind::Stranded { bundles } if bundles == &["a.v1"]),
                );
            }
            #[test]
            fn empty_skip() {
                let l = replace(
                    valid(),
                    1,
                    chan(
                        "a",
                        "stable",
                        r#"[{"name":"a.v1"},{"name":"a.v2","replaces":"a.v1","skips":[""]}]"#,
                    ),
                );
                one(&l, |k| matches!(k, ProblemKind::SkipEmpty { index: 0 }));
            }
            #[test]
            fn skip_range_invalid() {
                let l = replace(
                    valid(),
                    1,
                    chan(
                        "a",
                        "stable",
                        r#"[{"name":"a.v1"},{"name":"a.v2","replaces":"a.v1","skipRange":">=1.0.0, <2.0.0"}]"#,
                    ),
                );
                one(&l, |k| matches!(k, ProblemKind::SkipRangeInvalid { .. }));
            }
            #[test]
            fn skip_range_valid() {
                let l = replace(
                    valid(),
                    1,
                    chan(
                        "a",
                        "stable",
                        r#"[{"name":"a.v1"},{"name":"a.v2","replaces":"a.v1","skipRange":">=1.0.0 <2.0.0"}]"#,
                    ),
                );
                assert!(run(&l).problems.is_empty());
            }
        }
    }

    mod bundle {
        pub(crate) mod error {
            use super::super::*;

            #[test]
            fn unknown_package() {
                let mut l = valid();
                l.push(bundle("zzz", "z.v1", "1.0.0"));
                one(&l, |k| {
                    matches!(
                        k,
                        ProblemKind::UnknownPackage {
                            schema: "olm.bundle"
                        }
                    )
                });
            }
            #[test]
            fn no_package() {
                let mut l = valid();
                l.push(bundle_with("", "z.v1", "quay.io/x/z:1", "", ""));
                one(&l, |k| matches!(k, ProblemKind::BundlePackageEmpty));
            }
            #[test]
            fn duplicate_bundle() {
                let mut l = valid();
                l.push(bundle("a", "a.v1", "1.0.0"));
                one(&l, |k| matches!(k, ProblemKind::DuplicateBundle { .. }));
            }
            #[test]
            fn not_in_any_channel() {
                let mut l = valid();
                l.push(bundle("a", "a.v9", "9.0.0"));
                let p = one(&l, |k| matches!(k, ProblemKind::BundleNotInChannel));
                assert_eq!(p.bundle, "a.v9");
            }
            #[test]
            fn invalid_known_property() {
                let props = format!(
                    r#"{},{{"type":"olm.gvk","value":{{"group":1}}}}"#,
                    pkg_prop("a", "2.0.0", "")
                );
                let l = replace(
                    valid(),
                    3,
                    bundle_with("a", "a.v2", "quay.io/x/a:2", &props, ""),
                );
                one(&l, |k| {
                    matches!(k, ProblemKind::PropertyInvalid { index: 1, .. })
                });
            }
            #[test]
            fn invalid_bundle_object_base64() {
                let props = format!(
                    r#"{},{{"type":"olm.bundle.object","value":{{"data":"!!notbase64"}}}}"#,
                    pkg_prop("a", "2.0.0", "")
                );
                let l = replace(
                    valid(),
                    3,
                    bundle_with("a", "a.v2", "quay.io/x/a:2", &props, ""),
                );
                one(&l, |k| {
                    matches!(k, ProblemKind::PropertyInvalid { index: 1, .. })
                });
            }
            #[test]
            fn property_without_value() {
                // A property without `value` does not decode at all (opm: "value must be set").
                let props = format!(r#"{},{{"type":"x.y"}}"#, pkg_prop("a", "2.0.0", ""));
                let l = replace(
                    valid(),
                    3,
                    bundle_with("a", "a.v2", "quay.io/x/a:2", &props, ""),
                );
                let dir = tempfile::tempdir().unwrap();
                std::fs::write(dir.path().join("c.json"), l.join("\n")).unwrap();
                let e = validate_path(dir.path(), &Options::default()).unwrap_err();
                assert!(
                    matches!(e, Error::Decode { ref name, .. } if name == "a.v2"),
                    "{e}"
                );
            }
            #[test]
            fn no_package_property() {
                let l = replace(
                    valid(),
                    3,
                    bundle_with("a", "a.v2", "quay.io/x/a:2", "", ""),
                );
                one(&l, |k| {
                    matches!(k, ProblemKind::PackagePropertyCount { count: 0 })
                });
            }
            #[test]
            fn two_package_properties() {
                let props = format!(
                    "{},{}",
                    pkg_prop("a", "2.0.0", ""),
                    pkg_prop("a", "2.0.0", "")
                );
                let l = replace(
                    valid(),
                    3,
                    bundle_with("a", "a.v2", "quay.io/x/a:2", &props, ""),
                );
                one(&l, |k| {
                    matches!(k, ProblemKind::PackagePropertyCount { count: 2 })
                });
            }
            #[test]
            fn package_property_mismatch() {
                let l = replace(
                    valid(),
                    3,
                    bundle_with(
                        "a",
                        "a.v2",
                        "quay.io/x/a:2",
                        &pkg_prop("b", "2.0.0", ""),
                        "",
                    ),
                );
                one(
                    &l,
                    |k| matches!(k, ProblemKind::PackagePropertyMismatch { found } if found == "b"),
                );
            }
            #[test]
            fn invalid_image() {
                let l = replace(
                    valid(),
                    3,
                    bundle_with(
                        "a",
                        "a.v2",
                        "quay.io/X/a:2",
                        &pkg_prop("a", "2.0.0", ""),
                        "",
                    ),
                );
                one(&l, |k| matches!(k, ProblemKind::InvalidImage { .. }));
            }
            #[test]
            fn invalid_related_image() {
                let extra = r#","relatedImages":[{"name":"op","image":"quay.io/x/a@sha256:abc"}]"#;
                let l = replace(
                    valid(),
                    3,
                    bundle_with(
                        "a",
                        "a.v2",
                        "quay.io/x/a:2",
                        &pkg_prop("a", "2.0.0", ""),
                        extra,
                    ),
                );
                one(
                    &l,
                    |k| matches!(k, ProblemKind::InvalidImage { image, .. } if image.contains("sha256:abc")),
                );
            }
            #[test]
            fn version_with_leading_v() {
                let l = replace(valid(), 3, bundle("a", "a.v2", "v2.0.0"));
                one(&l, |k| matches!(k, ProblemKind::InvalidVersion { .. }));
            }
            #[test]
            fn version_not_strict() {
                let l = replace(valid(), 3, bundle("a", "a.v2", "2.0"));
                one(&l, |k| matches!(k, ProblemKind::InvalidVersion { .. }));
            }
            #[test]
            fn version_leading_zero() {
                let l = replace(valid(), 3, bundle("a", "a.v2", "2.01.0"));
                one(&l, |k| matches!(k, ProblemKind::InvalidVersion { .. }));
            }
            #[test]
            fn release_invalid() {
                let l = replace(
                    valid(),
                    3,
                    bundle_with(
                        "a",
                        "a-v2.0.0-01",
                        "quay.io/x/a:2",
                        &pkg_prop("a", "2.0.0", "01"),
                        "",
                    ),
                );
                let l = replace(
                    l,
                    1,
                    chan(
                        "a",
                        "stable",
                        r#"[{"name":"a.v1"},{"name":"a-v2.0.0-01","replaces":"a.v1"}]"#,
                    ),
                );
                one(&l, |k| matches!(k, ProblemKind::InvalidRelease { .. }));
            }
            #[test]
            fn release_name_mismatch() {
                let l = replace(
                    valid(),
                    3,
                    bundle_with(
                        "a",
                        "a.v2",
                        "quay.io/x/a:2",
                        &pkg_prop("a", "2.0.0", "1"),
                        "",
                    ),
                );
                one(
                    &l,
                    |k| matches!(k, ProblemKind::BundleNameRelease { expected } if expected == "a-v2.0.0-1"),
                );
            }
            #[test]
            fn release_valid() {
                let l = replace(
                    valid(),
                    3,
                    bundle_with(
                        "a",
                        "a-v2.0.0-1.alpha",
                        "quay.io/x/a:2",
                        &pkg_prop("a", "2.0.0", "1.alpha"),
                        "",
                    ),
                );
                let l = replace(
                    l,
                    1,
                    chan(
                        "a",
                        "stable",
                        r#"[{"name":"a.v1"},{"name":"a-v2.0.0-1.alpha","replaces":"a.v1"}]"#,
                    ),
                );
                assert!(run(&l).problems.is_empty());
            }
            #[test]
            fn build_metadata_and_release() {
                let l = replace(
                    valid(),
                    3,
                    bundle_with(
                        "a",
                        "a-v2.0.0+b-1",
                        "quay.io/x/a:2",
                        &pkg_prop("a", "2.0.0+b", "1"),
                        "",
                    ),
                );
                let l = replace(
                    l,
                    1,
                    chan(
                        "a",
                        "stable",
                        r#"[{"name":"a.v1"},{"name":"a-v2.0.0+b-1","replaces":"a.v1"}]"#,
                    ),
                );
                one(&l, |k| matches!(k, ProblemKind::BuildAndRelease { .. }));
            }
            #[test]
            fn image_empty_without_objects() {
                let l = replace(
                    valid(),
                    3,
                    bundle_with("a", "a.v2", "", &pkg_prop("a", "2.0.0", ""), ""),
                );
                one(&l, |k| matches!(k, ProblemKind::ImageEmpty));
            }
            #[test]
            fn image_empty_with_objects_is_fine() {
                let props = format!(
                    r#"{},{{"type":"olm.bundle.object","value":{{"data":"e30="}}}}"#,
                    pkg_prop("a", "2.0.0", "")
                );
                let l = replace(valid(), 3, bundle_with("a", "a.v2", "", &props, ""));
                assert!(run(&l).problems.is_empty());
            }
        }
    }

    mod deprecations {
        pub(crate) mod error {
            use super::super::*;

            fn dep(package: &str, entries: &str) -> String {
                format!(
                    r#"{{"schema":"olm.deprecations","package":"{package}","entries":{entries}}}"#
                )
            }
            fn with(d: String) -> Vec<String> {
                let mut l = valid();
                l.push(d);
                l
            }
            #[test]
            fn no_package() {
                one(&with(dep("", "[]")), |k| {
                    matches!(k, ProblemKind::DeprecationPackageEmpty)
                });
            }
            #[test]
            fn unknown_package() {
                one(&with(dep("zzz", "[]")), |k| {
                    matches!(
                        k,
                        ProblemKind::UnknownPackage {
                            schema: "olm.deprecations"
                        }
                    )
                });
            }
            #[test]
            fn two_per_package() {
                let mut l = with(dep("a", "[]"));
                l.push(dep("a", "[]"));
                one(&l, |k| {
                    matches!(k, ProblemKind::DuplicateDeprecations { .. })
                });
            }
            #[test]
            fn schema_missing() {
                one(
                    &with(dep("a", r#"[{"reference":{"name":"a.v1"},"message":"m"}]"#)),
                    |k| matches!(k, ProblemKind::DeprecationSchemaEmpty { index: 0 }),
                );
            }
            #[test]
            fn duplicate_entry() {
                let e = r#"[{"reference":{"schema":"olm.bundle","name":"a.v1"},"message":"m"},{"reference":{"schema":"olm.bundle","name":"a.v1"},"message":"n"}]"#;
                one(&with(dep("a", e)), |k| {
                    matches!(k, ProblemKind::DeprecationDuplicateEntry { .. })
                });
            }
            #[test]
            fn unknown_bundle() {
                let e = r#"[{"reference":{"schema":"olm.bundle","name":"a.v7"},"message":"m"}]"#;
                one(&with(dep("a", e)), |k| {
                    matches!(k, ProblemKind::DeprecationUnknownReference { .. })
                });
            }
            #[test]
            fn unknown_channel() {
                let e = r#"[{"reference":{"schema":"olm.channel","name":"fast"},"message":"m"}]"#;
                one(&with(dep("a", e)), |k| {
                    matches!(k, ProblemKind::DeprecationUnknownReference { .. })
                });
            }
            #[test]
            fn package_reference_with_name() {
                let e = r#"[{"reference":{"schema":"olm.package","name":"a"},"message":"m"}]"#;
                one(&with(dep("a", e)), |k| {
                    matches!(k, ProblemKind::DeprecationPackageNameSet { .. })
                });
            }
            #[test]
            fn unknown_schema() {
                let e = r#"[{"reference":{"schema":"olm.thing","name":"a"},"message":"m"}]"#;
                one(&with(dep("a", e)), |k| {
                    matches!(k, ProblemKind::DeprecationUnknownSchema { .. })
                });
            }
            #[test]
            fn attached_to_model() {
                let e = r#"[{"reference":{"schema":"olm.package"},"message":"p"},{"reference":{"schema":"olm.channel","name":"stable"},"message":"c"},{"reference":{"schema":"olm.bundle","name":"a.v1"},"message":"b"}]"#;
                let dir = tempfile::tempdir().unwrap();
                std::fs::write(dir.path().join("c.json"), with(dep("a", e)).join("\n")).unwrap();
                let cat = crate::catalog::load(dir.path(), &PackageFilter::All).unwrap();
                let a = cat.package("a").unwrap();
                assert_eq!(a.deprecation.as_deref(), Some("p"));
                assert_eq!(
                    a.channel("stable").unwrap().deprecation.as_deref(),
                    Some("c")
                );
                assert_eq!(a.bundle("a.v1").unwrap().deprecation.as_deref(), Some("b"));
                assert_eq!(a.bundle("a.v2").unwrap().deprecation, None);
            }
        }
    }

    mod report {
        use super::*;

        #[test]
        fn sorted_and_stable_with_json_form() {
            let mut l = valid();
            l.push(bundle("a", "a.v9", "9.0.0"));
            l.push(bundle("zzz", "z.v1", "1.0.0"));
            l.push(chan("a", "empty", "[]"));
            let r1 = run(&l);
            let r2 = run(&l);
            let text = r1.to_string();
            // The temp dirs differ; compare without origins.
            let strip = |r: &Report| {
                r.problems
                    .iter()
                    .map(|p| {
                        (
                            p.package.clone(),
                            p.channel.clone(),
                            p.bundle.clone(),
                            p.kind.to_string(),
                        )
                    })
                    .collect::<Vec<_>>()
            };
            assert_eq!(strip(&r1), strip(&r2));
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines.len(), 3, "{text}");
            assert!(lines[0].starts_with("error: package \"a\", channel \"empty\": channel must contain at least one bundle"), "{text}");
            assert!(
                lines[1].starts_with(
                    "error: package \"a\", bundle \"a.v9\": bundle not found in any channel entries"
                ),
                "{text}"
            );
            assert!(lines[2].starts_with("error: package \"zzz\", bundle \"z.v1\": olm.bundle blob refers to unknown package"), "{text}");
            let json = serde_json::to_value(&r1).unwrap();
            assert_eq!(json["problems"][0]["rule"], "channel-no-bundles");
            assert_eq!(json["problems"][0]["severity"], "error");
            assert_eq!(json["problems"][0]["package"], "a");
        }

        /// Blobs are linked package by package (issue 26 item 9): every problem still lands on
        /// its object and line, whatever the order of the blobs (this report is the one the
        /// linker gave before it grouped them). Rule 5's problems follow their bundles; a
        /// bundle left out (unknown package, repeated name) has none.
        #[test]
        fn problems_keep_their_objects_when_blobs_are_linked_by_package() {
            let bad = r#"{"type":"olm.gvk","value":{"group":1}}"#;
            let b = |package: &str, name: &str, props: &str| {
                bundle_with(package, name, &format!("quay.io/x/{package}:1"), props, "")
            };
            let with_bad =
                |package: &str, version: &str| format!("{},{bad}", pkg_prop(package, version, ""));
            let dep = r#"{"schema":"olm.deprecations","package":"a","entries":[{"reference":{"schema":"olm.bundle","name":"a.v1"},"message":"old"},{"reference":{"schema":"olm.channel","name":"nope"},"message":"x"}]}"#;
            let lines = vec![
                pkg("b", "stable"),
                pkg("a", "stable"),
                b("b", "b.v1", &with_bad("b", "1.0.0")),
                b("zz", "zz.v1", bad),
                b("a", "a.v1", &with_bad("a", "1.0.0")),
                b("a", "a.v1", bad),
                chan("a", "stable", r#"[{"name":"a.v1"},{"name":"a.v1"}]"#),
                chan("b", "stable", r#"[{"name":"b.v1"},{"name":"b.v0"}]"#),
                chan("a", "stable", r#"[{"name":"a.v1"}]"#),
                chan("", "x", "[]"),
                b("b", "b.v2", &with_bad("b", "2.0.0")),
                dep.to_owned(),
                dep.replace(r#""old""#, r#""again""#),
                b("", "nameless", bad),
            ];
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("catalog.json");
            std::fs::write(&file, lines.join("\n")).unwrap();
            let report = validate_path(dir.path(), &Options::default()).unwrap();
            let text = report.to_string().replace(&file.display().to_string(), "c");
            let gvk = "property #1 (olm.gvk) is invalid: invalid type: integer `1`, expected a string at line 1 column 10";
            let want = [
                r#"error: channel "x": channel has no package (c:10)"#.to_owned(),
                r#"error: bundle "nameless": bundle has no package (c:14)"#.to_owned(),
                r#"error: package "a": more than one olm.deprecations blob for the package (first at c:12) (c:13)"#.to_owned(),
                r#"error: package "a", channel "nope": deprecation refers to unknown olm.channel "nope" (c:12)"#.to_owned(),
                r#"error: package "a", channel "stable": duplicate channel (first defined at c:7) (c:9)"#.to_owned(),
                r#"error: package "a", channel "stable": duplicate channel entry "a.v1" (c:7)"#.to_owned(),
                r#"error: package "a", bundle "a.v1": duplicate bundle (first defined at c:5) (c:6)"#.to_owned(),
                format!(r#"error: package "a", bundle "a.v1": {gvk} (c:5)"#),
                r#"error: package "b", channel "stable": multiple channel heads found in graph: b.v0, b.v1 (c:8)"#.to_owned(),
                r#"error: package "b", channel "stable": no olm.bundle blob found for channel entry "b.v0" (c:8)"#.to_owned(),
                format!(r#"error: package "b", bundle "b.v1": {gvk} (c:3)"#),
                r#"error: package "b", bundle "b.v2": bundle not found in any channel entries (c:11)"#.to_owned(),
                format!(r#"error: package "b", bundle "b.v2": {gvk} (c:11)"#),
                r#"error: package "zz", bundle "zz.v1": olm.bundle blob refers to unknown package (c:4)"#.to_owned(),
            ];
            assert_eq!(text.lines().collect::<Vec<_>>(), want, "{text}");
            // The catalog kept by `load_and_validate` has the same report and the linked
            // objects, with the deprecation attached.
            let (catalog, again) = load_and_validate(dir.path(), &Options::default()).unwrap();
            assert_eq!(again.to_string(), report.to_string());
            let a = catalog.package("a").unwrap();
            assert_eq!(
                a.bundle("a.v1").unwrap().deprecation.as_deref(),
                Some("old")
            );
            let names = |p: &str| {
                let p = catalog.package(p).unwrap();
                p.bundles
                    .iter()
                    .map(|b| b.name.as_str())
                    .collect::<Vec<_>>()
            };
            assert_eq!(names("b"), ["b.v1", "b.v2"]);
            assert_eq!(names("a"), ["a.v1"]);
        }
    }
}
