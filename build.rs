//! Marks what the tests need from outside the repository and this machine lacks, so that
//! those tests show as ignored (with the reason) instead of passing silently; see
//! `tests/common/requirements.rs`. Under `CI=true` nothing is marked, and a test whose
//! requirement is missing fails naming it. The binary and the library do not use these marks.

#[path = "tests/common/requirements.rs"]
mod requirements;

use std::path::Path;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    page_files();
    println!("cargo::rerun-if-changed=tests/common/requirements.rs");
    println!("cargo::rerun-if-env-changed=CI");
    println!("cargo::rerun-if-env-changed=OUTFLANK_SHARED");
    let marks = [
        "outflank_no_shared_data",
        "outflank_no_gtp_rhino",
        "outflank_no_slurm",
        "outflank_overcommit",
        "outflank_no_chromium",
    ];
    for m in marks {
        println!("cargo::rustc-check-cfg=cfg({m})");
    }
    let data = requirements::find_shared_data(Path::new(env!("CARGO_MANIFEST_DIR")));
    if let Ok(dir) = &data {
        // Added or removed data sets are seen at the next build.
        println!("cargo::rerun-if-changed={}", dir.display());
    }
    if requirements::in_ci() {
        return;
    }
    let missing = [
        data.is_err(),
        requirements::find_gtp_rhino().is_none(),
        !requirements::slurm_installed(),
        requirements::overcommits_always(),
        requirements::find_chromium().is_none(),
    ];
    for (m, missing) in marks.iter().zip(missing) {
        if missing {
            println!("cargo::rustc-cfg={m}");
        }
    }
}

/// Lists the browser board's files (`src/serve/page/`) for `outflank serve` to build into the
/// binary: `$OUT_DIR/page_files.rs` holds `PAGE_FILES`, each file's name and bytes. A file
/// added to the folder is served at the next build, with no code to change.
fn page_files() {
    // Paths relative to the package: a target folder shared by two checkouts of the crate
    // then sees each one's own files.
    const PAGE: &str = "src/serve/page";
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(PAGE);
    println!("cargo::rerun-if-changed={PAGE}");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| {
                    n.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b'_')
                        && !n.starts_with('.')
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut code = String::from(
        "/// The page's files: name and bytes.\npub const PAGE_FILES: &[(&str, &[u8])] = &[\n",
    );
    for n in &names {
        println!("cargo::rerun-if-changed={PAGE}/{n}");
        code.push_str(&format!(
            "    ({n:?}, include_bytes!(concat!(env!(\"CARGO_MANIFEST_DIR\"), {:?}))),\n",
            format!("/{PAGE}/{n}")
        ));
    }
    code.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("page_files.rs");
    std::fs::write(out, code).expect("page_files.rs written");
}
