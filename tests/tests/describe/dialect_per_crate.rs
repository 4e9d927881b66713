//! A package's choice of compile-time dialect checks is its own: in one build, a package that
//! asks for Gemini's check and a package whose tool Gemini refuses both compile, and the check
//! is on in the first alone.
//!
//! The fixture (`tests/fixtures/dialect_per_crate`) is a workspace of its own, built with
//! `cargo build` as an application's is. It is copied under this workspace's target directory
//! (only the files that changed, so cargo compiles again only what changed), with its lock
//! file, and built there into a target directory kept between runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The fixture's copy, and where it is built.
struct Fixture {
    dir: PathBuf,
    target: PathBuf,
}

impl Fixture {
    /// The fixture copied into the target directory, its dependency on `tool-sdk` made
    /// absolute.
    fn copied() -> Self {
        let tests_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let workspace = tests_dir
            .parent()
            .expect("the tests package is in the workspace");
        let scratch = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| workspace.join("target"))
            .join("tests/dialect_per_crate");
        let dir = scratch.join("workspace");
        copy_tree(&tests_dir.join("fixtures/dialect_per_crate"), &dir);
        let manifest = dir.join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest).expect("the fixture's manifest");
        let absolute = format!("{:?}", workspace.join("tool-sdk").display().to_string());
        write_if_changed(&manifest, &text.replace("\"../../../tool-sdk\"", &absolute));
        // The repository's versions, without the network.
        let lock = std::fs::read_to_string(workspace.join("Cargo.lock")).expect("the lock file");
        write_if_changed(&dir.join("Cargo.lock"), &lock);
        Self {
            dir,
            target: scratch.join("target"),
        }
    }

    /// `cargo build` of the whole fixture with `args`, saying what it does and how long it took.
    fn build(&self, args: &[&str]) -> Output {
        eprintln!(
            "building the fixture: cargo build --workspace {} (in {})",
            args.join(" "),
            self.dir.display()
        );
        let started = std::time::Instant::now();
        let output = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .current_dir(&self.dir)
            .args(["build", "--offline", "--workspace", "--color=never"])
            .args(args)
            .env("CARGO_TARGET_DIR", &self.target)
            .env_remove("RUSTFLAGS")
            .output()
            .expect("cargo runs");
        eprintln!(
            "  {:.1} s: {}",
            started.elapsed().as_secs_f64(),
            output.status
        );
        output
    }
}

/// Copies the files of `from` into `to`, writing only those whose content differs.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("the fixture's copy");
    for entry in std::fs::read_dir(from).expect("the fixture").flatten() {
        let path = entry.path();
        let into = to.join(entry.file_name());
        if path.is_dir() {
            copy_tree(&path, &into);
        } else {
            let text = std::fs::read_to_string(&path).expect("a fixture file");
            write_if_changed(&into, &text);
        }
    }
}

fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).expect("a copied file");
    }
}

#[test]
fn a_check_one_package_asks_for_leaves_the_others_tools_alone() {
    let fixture = Fixture::copied();
    let output = fixture.build(&[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "both packages must compile:\n{stderr}"
    );

    // The check is on in the package that asked for it: a tool it refuses fails there, and
    // the other package's tool, which it would refuse too, is still not checked.
    let output = fixture.build(&["--features", "fixture-strict/refused"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "the refused tool compiled:\n{stderr}"
    );
    assert!(
        stderr
            .contains("tool `label_photo` cannot be described for Gemini: at `/properties/labels`"),
        "{stderr}"
    );
    assert!(!stderr.contains("set_labels"), "{stderr}");

    // A package that comes to ask for the check in its manifest is compiled again, with it:
    // a change of `[package.metadata]` alone, which cargo does not otherwise rebuild for.
    let manifest = fixture.dir.join("lenient/Cargo.toml");
    let lenient = std::fs::read_to_string(&manifest).expect("lenient's manifest");
    write_if_changed(
        &manifest,
        &format!("{lenient}\n[package.metadata.tool-sdk]\ndialects = [\"gemini\"]\n"),
    );
    let output = fixture.build(&[]);
    write_if_changed(&manifest, &lenient);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "the map compiled under Gemini's check:\n{stderr}"
    );
    assert!(
        stderr
            .contains("tool `set_labels` cannot be described for Gemini: at `/properties/labels`"),
        "{stderr}"
    );
}
