//! The dpacc command line, per DOCA release, built as data ([`dpacc_command`]), and the
//! reading of `dpacc --version`.
//!
//! | DOCA | `-mcpu` | device libraries | `--dpa-proc-attr` |
//! |---|---|---|---|
//! | 2.9 | `nv-dpa-bf3` | `-ldoca_dpa_dev_comm` | no |
//! | 2.10 – 3.1 | `nv-dpa-bf3,nv-dpa-cx7,nv-dpa-cx8` | `-ldoca_dpa_dev -ldoca_dpa_dev_comm` | no |
//! | 3.2 and later | the above and `nv-dpa-cx9` | the above and `-ldoca_dpa_dev_verbs` | yes |

use std::ffi::OsString;
use std::path::PathBuf;

use crate::version::DocaVersion;

/// The release from which dpacc takes `--dpa-proc-attr` (and the samples require it).
pub const PROC_ATTR_SINCE: (u32, u32) = (3, 2);

/// The `-mcpu` list for a DOCA release: every DPA generation that release targets.
pub fn mcpu_list(doca: DocaVersion) -> &'static str {
    match doca.release() {
        r if r < (2, 10) => "nv-dpa-bf3",
        r if r < (3, 2) => "nv-dpa-bf3,nv-dpa-cx7,nv-dpa-cx8",
        _ => "nv-dpa-bf3,nv-dpa-cx7,nv-dpa-cx8,nv-dpa-cx9",
    }
}

/// The DOCA device libraries a DPA application links, for a DOCA release.
pub fn device_libs(doca: DocaVersion) -> &'static [&'static str] {
    match doca.release() {
        r if r < (2, 10) => &["-ldoca_dpa_dev_comm"],
        r if r < (3, 2) => &["-ldoca_dpa_dev", "-ldoca_dpa_dev_comm"],
        _ => &[
            "-ldoca_dpa_dev",
            "-ldoca_dpa_dev_comm",
            "-ldoca_dpa_dev_verbs",
        ],
    }
}

/// Whether dpacc takes `--dpa-proc-attr` for this DOCA release.
pub fn takes_proc_attr(doca: DocaVersion) -> bool {
    doca.release() >= PROC_ATTR_SINCE
}

/// Host compiler options dpacc always gets: position-independent code (Rust links PIE
/// executables), no deprecation noise, and the experimental DOCA/FlexIO APIs allowed.
pub const HOST_OPTIONS: &[&str] = &[
    "-fPIC",
    "-Wno-deprecated-declarations",
    "-DDOCA_ALLOW_EXPERIMENTAL_API",
    "-DFLEXIO_ALLOW_EXPERIMENTAL_API",
];

/// Device compiler options dpacc always gets (before the user's defines and includes).
pub const DEVICE_OPTIONS: &[&str] = &[
    "-DDOCA_ALLOW_EXPERIMENTAL_API",
    "-DFLEXIO_DEV_ALLOW_EXPERIMENTAL_API",
    "-O2",
];

/// What goes into a dpacc command line. Start from [`Default`] and set the fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DpaccOptions {
    /// `--app-name`.
    pub app_name: String,
    /// The DPA C sources.
    pub sources: Vec<PathBuf>,
    /// The archive to write (`-o`), `lib<name>.a`.
    pub output: PathBuf,
    /// `-hostcc`: the host C compiler (link-compatible with the one that links the
    /// program).
    pub host_cc: OsString,
    /// DOCA's include directories (`-I` each).
    pub doca_include_dirs: Vec<PathBuf>,
    /// doca-dpa's library directories, where the device libraries are (`-L` each, in
    /// `-device-libs`).
    pub dpa_lib_dirs: Vec<PathBuf>,
    /// The user's include directories (device options and top-level `-I`).
    pub include_dirs: Vec<PathBuf>,
    /// The user's defines (device options).
    pub defines: Vec<(String, Option<String>)>,
    /// The process-attributes blob (`--dpa-proc-attr`, DOCA 3.2 and later).
    pub proc_attr_blob: Option<PathBuf>,
}

fn joined(prefix: &str, parts: impl IntoIterator<Item = String>) -> OsString {
    let mut s = String::from(prefix);
    s.push_str(&parts.into_iter().collect::<Vec<_>>().join(" "));
    OsString::from(s)
}

/// The arguments of dpacc (without the program) for DOCA release `doca`:
///
/// ```text
/// SOURCES… -o OUTPUT -mcpu=LIST -hostcc=CC
/// -hostcc-options=-fPIC -Wno-deprecated-declarations -DDOCA_ALLOW_EXPERIMENTAL_API …
/// --devicecc-options=-DDOCA_ALLOW_EXPERIMENTAL_API -DFLEXIO_DEV_ALLOW_EXPERIMENTAL_API -O2 [-DX] [-IDIR]
/// --app-name=NAME [-IUSER_DIR]… -IDOCA_DIR… -device-libs=-LLIBDIR… -l…
/// [--dpa-proc-attr=BLOB]   (3.2 and later, when a blob is given)
/// ```
///
/// Each element is one argument: option strings that hold several options are single
/// arguments with spaces inside, as dpacc expects; no shell is involved.
pub fn dpacc_command(doca: DocaVersion, opts: &DpaccOptions) -> Vec<OsString> {
    let mut args: Vec<OsString> = opts.sources.iter().map(|s| s.into()).collect();
    args.push("-o".into());
    args.push(opts.output.clone().into());
    args.push(format!("-mcpu={}", mcpu_list(doca)).into());
    let mut host_cc = OsString::from("-hostcc=");
    host_cc.push(&opts.host_cc);
    args.push(host_cc);
    args.push(joined(
        "-hostcc-options=",
        HOST_OPTIONS.iter().map(|s| (*s).to_owned()),
    ));
    let user_defines = opts.defines.iter().map(|(k, v)| match v {
        Some(v) => format!("-D{k}={v}"),
        None => format!("-D{k}"),
    });
    let user_includes = opts
        .include_dirs
        .iter()
        .map(|d| format!("-I{}", d.display()));
    args.push(joined(
        "--devicecc-options=",
        DEVICE_OPTIONS
            .iter()
            .map(|s| (*s).to_owned())
            .chain(user_defines)
            .chain(user_includes),
    ));
    args.push(format!("--app-name={}", opts.app_name).into());
    for d in opts.include_dirs.iter().chain(&opts.doca_include_dirs) {
        let mut a = OsString::from("-I");
        a.push(d);
        args.push(a);
    }
    args.push(joined(
        "-device-libs=",
        opts.dpa_lib_dirs
            .iter()
            .map(|d| format!("-L{}", d.display()))
            .chain(device_libs(doca).iter().map(|s| (*s).to_owned())),
    ));
    if let (true, Some(blob)) = (takes_proc_attr(doca), &opts.proc_attr_blob) {
        let mut a = OsString::from("--dpa-proc-attr=");
        a.push(blob);
        args.push(a);
    }
    args
}

/// The first `MAJOR.MINOR[.PATCH]` in `output` (the text of `dpacc --version`), as
/// written and parsed. Numbers glued to letters or other numbers (`v2`, `x86_64`) are not
/// taken as a version.
pub fn parse_tool_version(output: &str) -> Option<(String, DocaVersion)> {
    let bytes = output.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let starts_number = bytes[i].is_ascii_digit()
            && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'.'));
        if !starts_number {
            i += 1;
            continue;
        }
        let start = i;
        let mut parts = 0;
        let mut end = i;
        loop {
            let digits_start = end;
            while end < bytes.len() && bytes[end].is_ascii_digit() {
                end += 1;
            }
            if end == digits_start {
                break;
            }
            parts += 1;
            if parts < 3
                && end + 1 < bytes.len()
                && bytes[end] == b'.'
                && bytes[end + 1].is_ascii_digit()
            {
                end += 1;
                continue;
            }
            break;
        }
        let text = &output[start..end];
        if parts >= 2 {
            if let Ok(v) = DocaVersion::parse(text) {
                return Some((text.to_owned(), v));
            }
        }
        i = end.max(i + 1);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> DpaccOptions {
        DpaccOptions {
            app_name: "my_app".into(),
            sources: vec!["/k/a.c".into(), "/k/b.c".into()],
            output: "/out/libdoca_dpa_app_my_app.a".into(),
            host_cc: "gcc".into(),
            doca_include_dirs: vec!["/opt/mellanox/doca/include".into()],
            dpa_lib_dirs: vec!["/opt/mellanox/doca/lib/x86_64-linux-gnu".into()],
            include_dirs: vec!["/k/include".into()],
            defines: vec![("FOO".into(), Some("1".into())), ("BAR".into(), None)],
            proc_attr_blob: Some("/out/my_app.attrs.blob".into()),
        }
    }

    fn strings(args: &[OsString]) -> Vec<String> {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    const HOST: &str = "-hostcc-options=-fPIC -Wno-deprecated-declarations \
                        -DDOCA_ALLOW_EXPERIMENTAL_API -DFLEXIO_ALLOW_EXPERIMENTAL_API";
    const DEVICE: &str = "--devicecc-options=-DDOCA_ALLOW_EXPERIMENTAL_API \
                          -DFLEXIO_DEV_ALLOW_EXPERIMENTAL_API -O2 -DFOO=1 -DBAR -I/k/include";

    #[test]
    fn doca_2_9() {
        let a = strings(&dpacc_command(DocaVersion::new(2, 9, 72), &opts()));
        assert_eq!(
            a,
            [
                "/k/a.c",
                "/k/b.c",
                "-o",
                "/out/libdoca_dpa_app_my_app.a",
                "-mcpu=nv-dpa-bf3",
                "-hostcc=gcc",
                HOST,
                DEVICE,
                "--app-name=my_app",
                "-I/k/include",
                "-I/opt/mellanox/doca/include",
                "-device-libs=-L/opt/mellanox/doca/lib/x86_64-linux-gnu -ldoca_dpa_dev_comm",
            ]
        );
    }

    #[test]
    fn doca_3_0() {
        let a = strings(&dpacc_command(DocaVersion::new(3, 0, 58), &opts()));
        assert!(a.contains(&"-mcpu=nv-dpa-bf3,nv-dpa-cx7,nv-dpa-cx8".to_owned()));
        assert!(a.contains(
            &"-device-libs=-L/opt/mellanox/doca/lib/x86_64-linux-gnu -ldoca_dpa_dev -ldoca_dpa_dev_comm"
                .to_owned()
        ));
        assert!(a.contains(&"--app-name=my_app".to_owned()));
        assert!(a.contains(&HOST.to_owned()));
        // A blob is given, but 3.0 takes no --dpa-proc-attr.
        assert!(!a.iter().any(|x| x.starts_with("--dpa-proc-attr")));
        // 2.10 and 3.1 are the same.
        for v in [DocaVersion::new(2, 10, 0), DocaVersion::new(3, 1, 0)] {
            assert_eq!(strings(&dpacc_command(v, &opts())), a);
        }
    }

    #[test]
    fn doca_3_2() {
        let a = strings(&dpacc_command(DocaVersion::new(3, 2, 118), &opts()));
        assert_eq!(a[4], "-mcpu=nv-dpa-bf3,nv-dpa-cx7,nv-dpa-cx8,nv-dpa-cx9");
        assert!(a.contains(
            &"-device-libs=-L/opt/mellanox/doca/lib/x86_64-linux-gnu -ldoca_dpa_dev -ldoca_dpa_dev_comm -ldoca_dpa_dev_verbs"
                .to_owned()
        ));
        assert_eq!(
            a.last().map(String::as_str),
            Some("--dpa-proc-attr=/out/my_app.attrs.blob")
        );
        assert!(a[6].contains("-fPIC"));
        // Without a blob, no option.
        let mut o = opts();
        o.proc_attr_blob = None;
        let a = strings(&dpacc_command(DocaVersion::new(3, 3, 0), &o));
        assert!(!a.iter().any(|x| x.starts_with("--dpa-proc-attr")));
    }

    #[test]
    fn no_libdir_no_user_options() {
        let mut o = opts();
        o.dpa_lib_dirs.clear();
        o.include_dirs.clear();
        o.defines.clear();
        let a = strings(&dpacc_command(DocaVersion::new(3, 0, 58), &o));
        assert!(a.contains(&"-device-libs=-ldoca_dpa_dev -ldoca_dpa_dev_comm".to_owned()));
        assert!(a.contains(
            &"--devicecc-options=-DDOCA_ALLOW_EXPERIMENTAL_API -DFLEXIO_DEV_ALLOW_EXPERIMENTAL_API -O2"
                .to_owned()
        ));
    }

    #[test]
    fn tool_versions() {
        let v = |s: &str| parse_tool_version(s).map(|(t, v)| (t, v.to_string()));
        assert_eq!(
            v("NVIDIA DPACC version 3.0.0058 (clang 17.0.6)"),
            Some(("3.0.0058".into(), "3.0.0058".into()))
        );
        assert_eq!(v("dpacc 2.10\n"), Some(("2.10".into(), "2.10.0000".into())));
        assert_eq!(
            v("x86_64 build v2 of dpacc: 3.2.0118."),
            Some(("3.2.0118".into(), "3.2.0118".into()))
        );
        assert_eq!(v("1.2.3.4"), Some(("1.2.3".into(), "1.2.0003".into())));
        assert_eq!(v("no version here 7"), None);
        assert_eq!(v(""), None);
    }
}
