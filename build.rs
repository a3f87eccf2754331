//! Marks what the tests need from outside the repository and this machine lacks, so that
//! those tests show as ignored (with the reason) instead of passing silently; see
//! `tests/common/requirements.rs`. Under `CI=true` nothing is marked, and a test whose
//! requirement is missing fails naming it. The binary and the library do not use these marks.

#[path = "tests/common/requirements.rs"]
mod requirements;

use std::path::Path;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
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
