//! Config reading: shapes, typing as text, and every problem pointing at its place.

use super::*;

fn parse(text: &str) -> Result<Config, Error> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("platform-operators.yaml");
    std::fs::write(&path, text).unwrap();
    read_file(&path)
}

const VALID: &str = r#"platformOperators:
  clusterVersion: 4.10
  catalogs:
  - name: redhat-operators
    source: catalogs/redhat
    sha256: "sha256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
    priority: 5
  operators:
  - name: cert-manager
    package: openshift-cert-manager-operator
    channel: stable-v1
    version: ">=1.12.0 <1.14.0"
    catalog: redhat-operators
  - name: ccm
    package: acme-ccm
    channels: [a, b]
    namespace: acme-system
    bootstrap: true
"#;

fn problems(text: &str) -> Vec<Problem> {
    match parse(text) {
        Err(Error::Invalid { problems, .. }) => problems,
        other => panic!("expected Invalid, got {other:?}"),
    }
}

mod valid {
    use super::*;

    #[test]
    fn every_field_is_read() {
        let c = parse(VALID).unwrap();
        assert_eq!(c.cluster_version.as_ref().unwrap().value.text, "4.10");
        assert_eq!(c.cluster_version.as_ref().unwrap().value.minor, 10);
        let cat = &c.catalogs[0];
        assert_eq!(cat.priority, 5);
        assert_eq!(cat.sha256.as_ref().unwrap().value, "a".repeat(64));
        assert!(
            matches!(&cat.source.value, CatalogLocation::Path(p) if p.ends_with("catalogs/redhat"))
        );
        let op = &c.operators[0];
        assert_eq!(op.channels[0].value, "stable-v1");
        assert_eq!(op.version.as_ref().unwrap().value.text, ">=1.12.0 <1.14.0");
        assert_eq!((op.package.span.line, op.package.span.column), (10, 14));
        let ccm = &c.operators[1];
        assert!(ccm.bootstrap);
        assert_eq!(ccm.channels.len(), 2);
        assert_eq!(ccm.namespace.as_ref().unwrap().value, "acme-system");
    }

    #[test]
    fn relative_sources_resolve_against_the_config_directory() {
        let c = parse(VALID).unwrap();
        let CatalogLocation::Path(p) = &c.catalogs[0].source.value else {
            panic!()
        };
        assert!(
            p.is_absolute() || p.starts_with(std::env::temp_dir()),
            "{}",
            p.display()
        );
    }
}

mod error {
    use super::*;

    #[test]
    fn unknown_key_points_at_it() {
        let text = VALID.replace("    channel: stable-v1", "    chanel: stable-v1");
        let Err(Error::Syntax {
            message,
            span: Some(span),
            ..
        }) = parse(&text)
        else {
            panic!()
        };
        assert!(message.contains("unknown field `chanel`"), "{message}");
        assert_eq!(span.line, 11);
    }

    #[test]
    fn malformed_yaml_has_a_location() {
        let Err(Error::Syntax {
            span: Some(span), ..
        }) = parse(
            "platformOperators:\n  catalogs:\n  - name: a\n    source: [b\n  operators: []\n",
        )
        else {
            panic!()
        };
        assert!(span.line >= 4, "{span:?}");
    }

    #[test]
    fn wrong_type_is_a_syntax_error() {
        let text = VALID.replace("priority: 5", "priority: high");
        assert!(matches!(parse(&text), Err(Error::Syntax { .. })));
    }

    #[test]
    fn duplicate_names_and_bad_names_are_all_reported() {
        let text = VALID
            .replace("name: ccm", "name: cert-manager")
            .replace("package: acme-ccm", "package: Acme_CCM");
        let p = problems(&text);
        let fields: Vec<&str> = p.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(fields, ["operators[1].name", "operators[1].package"]);
        assert!(p[0].message.contains("listed twice"));
        assert!(p[1].message.contains("DNS-1123"));
    }

    #[test]
    fn name_longer_than_45_characters() {
        let text = VALID.replace("name: ccm", &format!("name: {}", "a".repeat(46)));
        let p = problems(&text);
        assert!(p[0].message.contains("more than 45"), "{}", p[0].message);
    }

    #[test]
    fn package_longer_than_56_characters() {
        let text = VALID.replace("package: acme-ccm", &format!("package: {}", "a".repeat(57)));
        assert!(problems(&text)[0].message.contains("more than 56"));
    }

    #[test]
    fn unknown_catalog_lists_the_configured_ones() {
        let text = VALID.replace("catalog: redhat-operators", "catalog: community");
        let p = problems(&text);
        assert_eq!(p[0].field, "operators[0].catalog");
        assert_eq!(
            p[0].help.as_deref(),
            Some("configured catalogs: redhat-operators")
        );
    }

    #[test]
    fn channel_and_channels_together() {
        let text = VALID.replace(
            "    channels: [a, b]",
            "    channels: [a, b]\n    channel: c",
        );
        assert!(
            problems(&text)[0]
                .message
                .contains("both `channel` and `channels`")
        );
    }

    #[test]
    fn bad_cluster_version_and_digest() {
        let text = VALID
            .replace("clusterVersion: 4.10", "clusterVersion: four")
            .replace("sha256:AAAA", "sha256:ZZZZ");
        let fields: Vec<String> = problems(&text).into_iter().map(|p| p.field).collect();
        assert_eq!(fields, ["clusterVersion", "catalogs[0].sha256"]);
    }

    #[test]
    fn invalid_range_points_inside_the_quoted_value() {
        let text = VALID.replace(">=1.12.0 <1.14.0", ">=1.12.0,, <1.14.0");
        let p = problems(&text);
        assert_eq!(p[0].field, "operators[0].version");
        // The value starts at column 14 (after the quote at 13); the problem is at the commas.
        assert_eq!(p[0].span.line, 12);
        assert!(p[0].span.column > 14, "{:?}", p[0].span);
    }

    #[test]
    fn empty_lists_are_reported() {
        let p = problems("platformOperators:\n  catalogs: []\n  operators: []\n");
        assert_eq!(p.len(), 2);
    }

    #[test]
    fn missing_file_is_io() {
        let e = read_file(Path::new("/nonexistent/po.yaml")).unwrap_err();
        assert!(e.is_io());
    }

    #[test]
    fn not_utf8_is_io_with_position() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.yaml");
        std::fs::write(&path, b"platformOperators:\n  x: \xff\n").unwrap();
        let e = read_file(&path).unwrap_err();
        assert!(e.to_string().contains("not UTF-8"), "{e}");
    }
}

mod discover {
    use super::*;

    /// openshift-install drops an unknown install-config key when `create manifests` consumes
    /// the file (issue 33 item 3): without a standalone file the key is refused at its line, with
    /// the order that works.
    #[test]
    fn an_install_config_key_is_refused_with_the_order_that_works() {
        let dir = tempfile::tempdir().unwrap();
        let body = VALID;
        std::fs::write(
            dir.path().join("install-config.yaml"),
            format!("apiVersion: v1\nplatform: {{none: {{}}}}\n{body}"),
        )
        .unwrap();
        {
            let e = discover(dir.path(), None).unwrap_err();
            let Error::Invalid { problems, .. } = &e else {
                panic!("{e}");
            };
            assert_eq!(problems.len(), 1);
            assert_eq!(problems[0].span.line, 3, "{:?}", problems[0]);
            assert!(problems[0].message.contains("create manifests"));
            let help = problems[0].help.as_deref().unwrap();
            assert!(
                help.contains("platform-operators.yaml")
                    && help.find("openshift-install create manifests")
                        < help.find("po-manifests create"),
                "{help}"
            );
        }
        // The standalone file is the place: beside it, the key is left to the installer.
        std::fs::write(dir.path().join("platform-operators.yaml"), VALID).unwrap();
        assert_eq!(discover(dir.path(), None).unwrap().operators.len(), 2);
    }

    #[test]
    fn nothing_found_names_both_places() {
        let dir = tempfile::tempdir().unwrap();
        let e = discover(dir.path(), None).unwrap_err();
        assert!(matches!(e, Error::NotFound { .. }));
        assert!(
            e.to_string().contains("platform-operators.yaml")
                && e.to_string().contains("install-config.yaml")
        );
    }
}

#[test]
fn dns_labels() {
    assert!(check_dns_label("a-b0", 63).is_ok());
    for bad in ["", "-a", "a-", "A", "a_b", "a.b", "é"] {
        assert!(check_dns_label(bad, 63).is_err(), "{bad}");
    }
    // The message names the value, escaped: a hostile name cannot drive the terminal.
    let m = check_dns_label("a\u{1b}[31mb", 63).unwrap_err();
    assert!(!m.contains('\u{1b}') && m.contains("[31mb"), "{m}");
    assert!(m.contains("is not a DNS-1123 label"), "{m}");
    assert_eq!(check_dns_label("", 63).unwrap_err(), "must not be empty");
    assert!(
        check_dns_label(&"a".repeat(46), 45)
            .unwrap_err()
            .contains("is 46 characters, more than 45")
    );
}

mod upgrade {
    use super::*;

    fn with_operator_fields(fields: &str) -> String {
        format!(
            "platformOperators:\n  catalogs:\n  - name: c\n    source: cat\n  operators:\n  - name: cm\n    package: cert-manager\n{fields}"
        )
    }

    #[test]
    fn defaults_are_follow_cluster_and_catalog_provided() {
        let c = parse(&with_operator_fields("")).unwrap();
        let op = &c.operators[0];
        assert_eq!(op.upgrade, UpgradePolicy::FollowCluster);
        assert_eq!(
            op.upgrade_constraint_policy,
            UpgradeConstraintPolicy::CatalogProvided
        );
        assert!(op.installed.is_none());
    }

    #[test]
    fn every_field_is_read() {
        let c = parse(&with_operator_fields(
            "    upgrade: pinned\n    upgradeConstraintPolicy: SelfCertified\n    installed:\n      bundle: cert-manager.v1.13.0\n      version: 1.13.0\n",
        ))
        .unwrap();
        let op = &c.operators[0];
        assert_eq!(op.upgrade, UpgradePolicy::Pinned);
        assert_eq!(
            op.upgrade_constraint_policy,
            UpgradeConstraintPolicy::SelfCertified
        );
        let i = op.installed.as_ref().unwrap();
        assert_eq!(i.bundle.value, "cert-manager.v1.13.0");
        assert_eq!(i.parsed, semver::Version::new(1, 13, 0));
        assert_eq!((i.version.span.line, i.version.span.column), (12, 16));
    }

    #[test]
    fn every_bad_value_is_reported_with_its_place() {
        let p = problems(&with_operator_fields(
            "    upgrade: always\n    upgradeConstraintPolicy: selfCertified\n    installed:\n      bundle: \"\"\n      version: v1.2\n",
        ));
        let fields: Vec<&str> = p.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "operators[0].upgrade",
                "operators[0].upgradeConstraintPolicy",
                "operators[0].installed.bundle",
                "operators[0].installed.version",
            ]
        );
        assert!(
            p[0].message.contains("follow-cluster, pinned, latest"),
            "{}",
            p[0].message
        );
        assert_eq!(p[1].help.as_deref(), Some("did you mean `SelfCertified`?"));
        assert_eq!(p[0].span.line, 8);
    }

    #[test]
    fn unknown_keys_under_installed_are_errors() {
        let e = parse(&with_operator_fields(
            "    installed:\n      bundle: a.v1.0.0\n      version: 1.0.0\n      channel: stable\n",
        ))
        .unwrap_err();
        assert!(matches!(e, Error::Syntax { .. }), "{e:?}");
    }
}

mod strict_yaml {
    use super::*;

    fn syntax(text: &str) -> String {
        match parse(text) {
            Err(Error::Syntax { message, span, .. }) => {
                format!("{}: {message}", span.map(|s| s.line).unwrap_or(0))
            }
            other => panic!("expected Syntax, got {other:?}"),
        }
    }

    #[test]
    fn quoted_bootstrap_is_not_a_boolean() {
        let text = VALID.replace("bootstrap: true", "bootstrap: \"yes\"");
        assert_eq!(
            syntax(&text),
            "18: expected `true` or `false`, unquoted, found the text \"yes\""
        );
    }

    #[test]
    fn capitalised_true_is_a_problem_at_its_place() {
        let text = VALID.replace("bootstrap: true", "bootstrap: True");
        let p = problems(&text);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].field, "operators[1].bootstrap");
        assert_eq!(p[0].span.line, 18);
        assert_eq!(
            p[0].message,
            "expected `true` or `false`, unquoted, found `True`"
        );
    }

    #[test]
    fn a_tag_is_refused_naming_it_and_its_line() {
        let text = VALID.replace("package: acme-ccm", "package: !evil acme-ccm");
        let m = syntax(&text);
        assert!(m.starts_with("15: "), "{m}");
        assert!(
            m.contains(":15:14: the YAML tag `!evil` is not read"),
            "{m}"
        );
        let text = VALID.replace("package: acme-ccm", "package: !!binary YWNtZS1jY20=");
        assert!(syntax(&text).contains("the YAML tag `!!binary`"));
    }
}

#[test]
fn the_installer_is_read_and_checked() {
    assert_eq!(parse(VALID).unwrap().installer, None);
    let text = VALID.replace(
        "clusterVersion: 4.10",
        "clusterVersion: 4.10\n  installer: agent",
    );
    let c = parse(&text).unwrap();
    assert_eq!(
        c.installer.map(|i| i.value),
        Some(crate::rules::Installer::Agent)
    );
    let text = VALID.replace(
        "clusterVersion: 4.10",
        "clusterVersion: 4.10\n  installer: ipi",
    );
    let p = problems(&text);
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].field, "installer");
    assert!(
        p[0].message
            .contains("openshift-install, agent or assisted")
    );
    assert_eq!(p[0].span.line, 3);
}
