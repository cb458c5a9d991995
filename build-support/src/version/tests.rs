//! Tests of the parent module.

use super::*;

#[test]
fn parses_pkg_config_strings() {
    assert_eq!(
        DocaVersion::parse("3.0.0058").unwrap(),
        DocaVersion::new(3, 0, 58)
    );
    assert_eq!(
        DocaVersion::parse("2.5.0108").unwrap(),
        DocaVersion::new(2, 5, 108)
    );
    assert_eq!(
        DocaVersion::parse("3.3.0").unwrap(),
        DocaVersion::new(3, 3, 0)
    );
    assert_eq!(
        DocaVersion::parse("2.10.0078").unwrap(),
        DocaVersion::new(2, 10, 78)
    );
    assert_eq!(
        DocaVersion::parse(" 3.2 ").unwrap(),
        DocaVersion::new(3, 2, 0)
    );
    assert_eq!(
        DocaVersion::parse("3.0.0058-1").unwrap(),
        DocaVersion::new(3, 0, 58)
    );
    assert_eq!(
        DocaVersion::parse("\"3.1.0105\"").unwrap(),
        DocaVersion::new(3, 1, 105)
    );
}

#[test]
fn rejects_garbage() {
    for bad in [
        "",
        "3",
        "x.y.z",
        "3..1",
        "3.0.0058.1",
        "3.a",
        "-1.0",
        "99999999999.0",
    ] {
        assert!(DocaVersion::parse(bad).is_err(), "{bad:?} accepted");
    }
    let e = DocaVersion::parse("banana").unwrap_err();
    assert!(e.to_string().contains("banana"));
}

#[test]
fn display_pads_patch() {
    assert_eq!(DocaVersion::new(3, 0, 58).to_string(), "3.0.0058");
    assert_eq!(DocaVersion::new(2, 5, 108).to_string(), "2.5.0108");
    assert_eq!(DocaVersion::new(3, 3, 0).to_string(), "3.3.0000");
    assert_eq!(DocaVersion::new(3, 2, 11025).to_string(), "3.2.11025");
}

#[test]
fn ordering_is_numeric() {
    let v = |s| DocaVersion::parse(s).unwrap();
    assert!(v("2.10.0078") > v("2.9.0072"));
    assert!(v("3.0.0058") > v("2.10.0087"));
    assert!(v("3.0.0058") < v("3.0.0059"));
    assert!(v("2.9.0") >= MINIMUM_SUPPORTED);
    assert!(!v("2.5.0108").is_supported());
}

/// The version of a `doca_version.h` with `text`, read through the C compiler.
fn header_version(text: &str) -> Result<DocaVersion, VersionError> {
    let dir = crate::testutil::TempDir::new("version-header");
    DocaVersion::from_header_file(&dir.write("doca_version.h", text))
}

#[test]
fn header_modern_spelling() {
    let text = include_str!("../../tests/fixtures/headers/doca_version_3_0.h");
    assert_eq!(header_version(text).unwrap(), DocaVersion::new(3, 0, 58));
}

#[test]
fn header_legacy_spelling() {
    let text = include_str!("../../tests/fixtures/prefix-2.5/include/doca_version.h");
    assert_eq!(header_version(text).unwrap(), DocaVersion::new(2, 5, 108));
}

#[test]
fn header_string_only() {
    let text = "#define DOCA_VERSION_STRING \"3.2.0118\" /* release */\n";
    assert_eq!(header_version(text).unwrap(), DocaVersion::new(3, 2, 118));
    let text = "#  define DOCA_VER_STRING \"2.5.0108\"\n";
    assert_eq!(header_version(text).unwrap(), DocaVersion::new(2, 5, 108));
}

#[test]
fn header_parenthesised_and_suffixed() {
    let text = "#define DOCA_VERSION_MAJOR (3)\n#define DOCA_VERSION_MINOR 1U\n\
                    #define DOCA_VERSION_PATCH 0x69 // hex\n#define DOCA_VERSION_MAJOR_X 9\n";
    assert_eq!(header_version(text).unwrap(), DocaVersion::new(3, 1, 105));
}

/// What the compiler reads, not what the text shows: the branch not compiled, a
/// definition split over lines, a macro undefined again.
#[test]
fn header_is_read_as_the_compiler_reads_it() {
    let text = "#if 0\n#define DOCA_VERSION_MAJOR 9\n#else\n#define DOCA_VERSION_MAJOR \\\n 3\n\
                #endif\n#define DOCA_VERSION_MINOR 7\n#undef DOCA_VERSION_MINOR\n\
                #define DOCA_VERSION_MINOR 1\n#define DOCA_VERSION_PATCH 5\n";
    assert_eq!(header_version(text).unwrap(), DocaVersion::new(3, 1, 5));
}

/// The reference `doca_version.h` includes `<doca_compat.h>` from its own directory, as
/// a real one does: the compiler finds it there.
#[test]
fn a_header_that_includes_its_neighbours_is_read() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../doca-sim/include/doca_version.h");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("#include <doca_compat.h>"), "precondition");
    let v = DocaVersion::from_header_file(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        text.contains(&format!("#define DOCA_VERSION_MINOR {}", v.minor)),
        "{v}"
    );
}

#[test]
fn header_without_macros_or_not_c() {
    assert_eq!(
        header_version("int x;\n#define DOCA_VERSION_MAJORITY 3\n"),
        Err(VersionError::NoVersionMacros)
    );
    let e = header_version("#error not a header\n").unwrap_err();
    assert!(
        matches!(&e, VersionError::Compiler { message, .. } if message.contains("not a header")),
        "{e:?}"
    );
}

#[test]
fn cumulative_cfgs_cover_known_releases() {
    assert_eq!(
        cumulative_cfgs(DocaVersion::new(3, 0, 58)),
        vec!["doca_ge_2_9", "doca_ge_2_10", "doca_ge_3_0"]
    );
    assert_eq!(
        cumulative_cfgs(DocaVersion::new(2, 9, 72)),
        vec!["doca_ge_2_9"]
    );
    assert!(cumulative_cfgs(DocaVersion::new(2, 5, 108)).is_empty());
    assert_eq!(release_warning(DocaVersion::new(3, 0, 58)), None);
    assert_eq!(release_warning(DocaVersion::new(2, 5, 108)), None);
}

#[test]
fn newer_unknown_release_gets_everything_and_a_warning() {
    let v = DocaVersion::new(4, 1, 0);
    assert_eq!(cumulative_cfgs(v), all_cfg_names());
    assert_eq!(all_cfg_names().len(), KNOWN_RELEASES.len());
    let w = release_warning(v).unwrap();
    assert!(w.contains("4.1.0000") && w.contains("newer"));
    assert!(release_warning(DocaVersion::new(2, 11, 0)).is_some());
}
