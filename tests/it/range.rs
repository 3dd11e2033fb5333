//! `po-manifests range`.

use crate::common::cmd;

#[test]
fn masterminds_is_the_default() {
    let out = cmd()
        .args([
            "range",
            ">=1.12.0 <1.14.0",
            "1.12.0",
            "1.14.0",
            "1.13.0-rc.1",
            "v1.13.0",
        ])
        .assert()
        .success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout),
        "1.12.0\ttrue\n1.14.0\tfalse\n1.13.0-rc.1\tfalse\nv1.13.0\tinvalid\n"
    );
}

#[test]
fn blang_reads_prereleases_plainly() {
    let out = cmd()
        .args([
            "range",
            "--grammar",
            "blang",
            ">=4.1.0 <4.2.0",
            "4.2.0-rc.1",
            "4.1.5",
        ])
        .assert()
        .success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout),
        "4.2.0-rc.1\ttrue\n4.1.5\ttrue\n"
    );
}

#[test]
fn a_bad_range_exits_1_with_nothing_on_stdout() {
    let out = cmd()
        .args(["range", ">=1.0.0,,<2", "1.5.0"])
        .assert()
        .code(1);
    let o = out.get_output();
    assert!(o.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains(">=1.0.0,,<2"), "{stderr}");
    assert!(stderr.contains('^'), "{stderr}");
}
