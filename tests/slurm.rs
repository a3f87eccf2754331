//! Self-play as a Slurm job array on a real one-node cluster on localhost (Debian's
//! `slurm-wlm` and `munge`, started by `cluster/slurm/local-cluster.sh`): the scripts of
//! `cluster/slurm/` submit the shards and the merge, and the merged file must equal a
//! one-process run byte for byte, also after a task is cancelled and only it is resubmitted.
//! A book build in rounds (`book-rounds.sh`: an array and a merge a round, chained) gives the
//! book of the rounds run one after the other in one process.
//!
//! Where Slurm or munge is not installed the tests show as ignored (build.rs marks it), except
//! under CI (`CI=true`), where they run and fail; a cluster that is installed but does not
//! start (not root, say) fails them with the reason.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The cases share one small cluster: one at a time.
static CLUSTER: Mutex<()> = Mutex::new(());

const BIN: &str = env!("CARGO_BIN_EXE_outflank");

fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cluster/slurm")
}

/// The cluster's state directory (the local-cluster.sh default unless the environment says).
fn slurm_dir() -> PathBuf {
    std::env::var_os("OUTFLANK_SLURM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/outflank-slurm"))
}

fn slurm_conf() -> PathBuf {
    slurm_dir().join("slurm.conf")
}

/// Runs a command with the cluster's configuration in its environment.
fn run(cmd: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> Output {
    let cmd = cmd.as_ref();
    Command::new(cmd)
        .args(args)
        .env("SLURM_CONF", slurm_conf())
        .env("OUTFLANK", BIN)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", cmd.to_string_lossy()))
}

/// Like [`run`], and the command must succeed; returns its stdout.
fn ok(cmd: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> String {
    let name = cmd.as_ref().to_string_lossy().into_owned();
    let out = run(cmd, args);
    assert!(
        out.status.success(),
        "{name} {args:?} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Starts the cluster (or finds it running). The tests carry the `outflank_no_slurm` mark
/// (Slurm or munge not installed); with both installed, a cluster that does not start fails
/// the test with the script's reason.
fn cluster_up() {
    let out = Command::new(scripts().join("local-cluster.sh"))
        .arg("start")
        .output();
    match out {
        Ok(o) if o.status.success() => {}
        Ok(o) => panic!(
            "the local Slurm cluster does not start: {}",
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => panic!("cannot run local-cluster.sh: {e}"),
    }
}

/// A fresh directory for a run.
fn run_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("outflank-slurm-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Waits (at most `limit`) until `ready` holds, polling.
fn wait(what: &str, limit: Duration, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(
            start.elapsed() < limit,
            "timed out after {limit:?} waiting for {what}; the queue:\n{}",
            String::from_utf8_lossy(&run("squeue", &[]).stdout)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The states of a job's queued or running parts (empty when it has left the queue).
fn queued(job: &str) -> String {
    let out = run("squeue", &["-h", "-j", job, "-o", "%T %r"]);
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Submits `selfplay` shards through submit.sh; returns the array's and merge's job ids.
fn submit(dir: &Path, shards: u32, step: &[&str]) -> (String, String) {
    let d = dir.display().to_string();
    let n = shards.to_string();
    let mut args = vec!["--dir", &d, "--shards", &n, "--mem", "200M", "--"];
    args.extend_from_slice(step);
    ok(scripts().join("submit.sh"), &args);
    let id = |f: &str| {
        std::fs::read_to_string(dir.join(f))
            .unwrap()
            .trim()
            .to_string()
    };
    (id("array.jobid"), id("merge.jobid"))
}

/// The games of one process doing all the work (on every core: the games do not depend on
/// the threads either).
fn one_process(dir: &Path, step: &[&str]) -> Vec<u8> {
    let out = dir.join("one.wtb");
    let mut args = step.to_vec();
    let o = out.display().to_string();
    args.extend_from_slice(&["--out", &o]);
    ok(BIN, &args);
    std::fs::read(out).unwrap()
}

#[test]
#[cfg_attr(
    outflank_no_slurm,
    ignore = "needs Slurm and munge (apt-get install slurm-wlm munge), missing when the tests were built"
)]
fn four_shards_as_a_job_array_merge_to_one_process_bytes() {
    let _guard = CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
    cluster_up();
    let dir = run_dir("array");
    let step = [
        "train", "selfplay", "--games", "8", "--depth", "4", "--seed", "11",
    ];
    let (array, merge) = submit(&dir, 4, &step);
    wait("the array and the merge", Duration::from_secs(90), || {
        queued(&format!("{array},{merge}")).is_empty()
    });
    let merged = std::fs::read(dir.join("merged.out")).unwrap_or_else(|e| {
        panic!(
            "no merged output ({e}); merge log: {:?}",
            std::fs::read_dir(dir.join("logs")).map(|d| d.count())
        )
    });
    for k in 0..4 {
        assert!(
            dir.join(format!("shards/selfplay-seed11-{k}of4.shard"))
                .is_file()
        );
    }
    let one = one_process(&dir, &step);
    assert_eq!(one.len(), 16 + 8 * 68);
    assert!(merged == one, "the merged games differ from one process's");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[cfg_attr(
    outflank_no_slurm,
    ignore = "needs Slurm and munge (apt-get install slurm-wlm munge), missing when the tests were built"
)]
fn a_cancelled_task_is_resubmitted_alone_and_merges_to_the_same_bytes() {
    let _guard = CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
    cluster_up();
    let dir = run_dir("cancel");
    // Task 1 starts with task 0 on the two CPUs; it is cancelled as soon as it is seen
    // running, a fraction of a second into its few seconds of work (four games at depth 12),
    // while tasks 2 and 3 wait for a CPU.
    let step = [
        "train", "selfplay", "--games", "16", "--depth", "12", "--seed", "5",
    ];
    let (array, merge) = submit(&dir, 4, &step);
    let task = format!("{array}_1");
    wait("task 1 to start", Duration::from_secs(90), || {
        queued(&task).starts_with("RUNNING")
    });
    ok("scancel", &[&task]);
    wait("the rest of the array", Duration::from_secs(90), || {
        queued(&array).is_empty()
    });
    let shard1 = dir.join("shards/selfplay-seed5-1of4.shard");
    assert!(
        !shard1.exists(),
        "task 1 finished before it was cancelled: make its work longer"
    );
    for k in [0, 2, 3] {
        assert!(
            dir.join(format!("shards/selfplay-seed5-{k}of4.shard"))
                .is_file()
        );
    }
    // The merge waits on an array that failed: it never starts, and nothing is merged.
    wait(
        "the merge to be held for good",
        Duration::from_secs(30),
        || queued(&merge).contains("DependencyNeverSatisfied"),
    );
    assert!(!dir.join("merged.out").exists());
    let shards = dir.join("shards").display().to_string();
    assert_eq!(ok(BIN, &["merge", "--missing", "4", &shards]).trim(), "1");
    let d = dir.display().to_string();
    let said = ok(scripts().join("resubmit.sh"), &["--dir", &d]);
    assert!(said.contains("shards to run again: 1"), "{said}");
    wait(
        "the old merge job to be cancelled",
        Duration::from_secs(30),
        || queued(&merge).is_empty(),
    );
    let read = |f: &str| {
        std::fs::read_to_string(dir.join(f))
            .unwrap()
            .trim()
            .to_string()
    };
    let (array2, merge2) = (read("array.jobid"), read("merge.jobid"));
    assert_ne!(array2, array);
    wait(
        "the resubmitted shard and the merge",
        Duration::from_secs(90),
        || queued(&format!("{array2},{merge2}")).is_empty(),
    );
    assert!(shard1.is_file());
    let merged = std::fs::read(dir.join("merged.out")).expect("the merged output");
    let one = one_process(&dir, &step);
    assert_eq!(one.len(), 16 + 16 * 68);
    assert!(merged == one, "the merged games differ from one process's");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[cfg_attr(
    outflank_no_slurm,
    ignore = "needs Slurm and munge (apt-get install slurm-wlm munge), missing when the tests were built"
)]
fn book_build_rounds_as_chained_arrays_give_the_one_process_book() {
    let _guard = CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
    cluster_up();
    let dir = run_dir("book");
    let base = dir.join("base.book").display().to_string();
    ok(
        BIN,
        &[
            "book",
            "build",
            "--out",
            &base,
            "--plies",
            "3",
            "--depth",
            "3",
            "--positions",
            "6",
            "--hash",
            "8",
        ],
    );
    let step = [
        "book", "build", "--plies", "6", "--depth", "4", "--width", "2", "--hash", "8",
    ];
    let d = dir.join("run").display().to_string();
    let mut args = vec![
        "--dir", &d, "--rounds", "2", "--from", &base, "--shards", "2", "--mem", "200M", "--",
    ];
    args.extend_from_slice(&step);
    let said = ok(scripts().join("book-rounds.sh"), &args);
    assert!(said.contains("round 2: array"), "{said}");
    let id = |r: u32, f: &str| {
        std::fs::read_to_string(dir.join(format!("run/round-{r}/{f}")))
            .unwrap()
            .trim()
            .to_string()
    };
    let jobs = [1, 2]
        .map(|r| format!("{},{}", id(r, "array.jobid"), id(r, "merge.jobid")))
        .join(",");
    wait("the two rounds", Duration::from_secs(120), || {
        queued(&jobs).is_empty()
    });
    // The same rounds in one process, one after the other.
    let mut from = base.clone();
    for r in 1..=2 {
        let shards = dir.join(format!("one-{r}")).display().to_string();
        let mut a = step.to_vec();
        a.extend_from_slice(&["--from", &from, "--shard", "0/1", "--shard-dir", &shards]);
        ok(BIN, &a);
        let out = dir.join(format!("one-{r}.book")).display().to_string();
        ok(BIN, &["merge", &shards, "--out", &out]);
        let merged = std::fs::read(dir.join(format!("run/round-{r}/merged.out")))
            .unwrap_or_else(|e| panic!("round {r}: no merged book ({e})"));
        assert!(
            merged == std::fs::read(&out).unwrap(),
            "round {r}: the cluster's book differs from one process's"
        );
        from = out;
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
